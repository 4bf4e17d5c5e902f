//===- PatternMatchers.cpp - matchers shared by the fusion passes ---------===//

#include "passes/PatternMatchers.h"

#include "dialects/HetGraph/ConstantEval.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace hetc {

std::optional<double> matchSplatConstant(Value value) {
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  std::optional<hetg::ConstantValues> values = hetg::readConstant(attr);
  if (!values || values->size() == 0)
    return std::nullopt;
  for (int64_t i = 1; i < values->size(); ++i)
    if (values->asDouble(i) != values->asDouble(0))
      return std::nullopt;
  return values->asDouble(0);
}

} // namespace hetc
