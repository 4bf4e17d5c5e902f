//===- FoldUtils.h - helpers shared by the hetg folders -------------------===//

#ifndef HETC_DIALECTS_HETGRAPH_FOLDUTILS_H
#define HETC_DIALECTS_HETGRAPH_FOLDUTILS_H

#include "dialects/HetGraph/ConstantEval.h"
#include "dialects/HetGraph/HetGraph.h"

namespace hetc::hetg {

inline mlir::Type elementTypeOf(mlir::Value value) {
  return llvm::cast<mlir::ShapedType>(value.getType()).getElementType();
}

/// The array of an optional operand: `present` is false when the op has no
/// such operand; folding needs every present operand to be constant.
struct OptionalArray {
  bool present = false;
  std::optional<eval::Array> array;
  bool foldable() const { return !present || array.has_value(); }
  const eval::Array *get() const { return array ? &*array : nullptr; }
};

inline OptionalArray readOptional(mlir::Value operand, mlir::Attribute attr) {
  OptionalArray result;
  result.present = bool(operand);
  if (operand)
    result.array = readArray(attr);
  return result;
}

inline eval::LossReduction toEval(LossReduction reduction) {
  switch (reduction) {
  case LossReduction::none:
    return eval::LossReduction::None;
  case LossReduction::sum:
    return eval::LossReduction::Sum;
  case LossReduction::mean:
    break;
  }
  return eval::LossReduction::Mean;
}

} // namespace hetc::hetg

#endif // HETC_DIALECTS_HETGRAPH_FOLDUTILS_H
