//===- PatternMatchers.h - matchers shared by the fusion passes -----------===//

#ifndef HETC_PASSES_PATTERNMATCHERS_H
#define HETC_PASSES_PATTERNMATCHERS_H

#include "mlir/IR/Value.h"

#include <optional>

namespace hetc {

/// The value of a constant whose elements are all equal (a splat, or a
/// single-element tensor), as a double.
std::optional<double> matchSplatConstant(mlir::Value value);

} // namespace hetc

#endif // HETC_PASSES_PATTERNMATCHERS_H
