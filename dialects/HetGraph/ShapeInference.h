//===- ShapeInference.h - shape rules shared by hetg ops and the importer -===//
//
// Plain functions over shapes (`kDynamic` marks an unknown dimension) so the
// ONNX importer, the verifiers and the passes apply one set of rules.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_DIALECTS_HETGRAPH_SHAPEINFERENCE_H
#define HETC_DIALECTS_HETGRAPH_SHAPEINFERENCE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeRange.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace hetc::hetg {

using Shape = llvm::SmallVector<int64_t, 4>;
constexpr int64_t kDynamic = mlir::ShapedType::kDynamic;

/// True when each type in `declared` is `inferred` or a less static form of
/// it: same rank and element type, equal wherever both dimensions are static.
bool areRefinableTypes(mlir::TypeRange declared, mlir::TypeRange inferred);

/// Numpy broadcast of two shapes; an error message when they don't broadcast.
llvm::FailureOr<Shape> broadcastShapes(llvm::ArrayRef<int64_t> lhs,
                                       llvm::ArrayRef<int64_t> rhs,
                                       std::string *error = nullptr);

/// Normalizes `axis` into `[0, rank)`; nullopt when out of range.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

/// ONNX Reshape target: `0` copies the input dimension (an empty dimension
/// with `allowZero`, ONNX's allowzero=1), one `-1` is inferred.
llvm::FailureOr<Shape> resolveReshape(llvm::ArrayRef<int64_t> input,
                                      llvm::ArrayRef<int64_t> target,
                                      std::string *error = nullptr,
                                      bool allowZero = false);

/// Number of elements ONNX Slice keeps from a dimension of `size`.
int64_t slicedSize(int64_t size, int64_t start, int64_t end, int64_t step);

/// Clamps ONNX slice bounds to a dimension of static `size`.
std::pair<int64_t, int64_t> clampSliceBounds(int64_t size, int64_t start,
                                             int64_t end);

/// The element type of hetg.cross_entropy's loss for logits of `logits`:
/// f32 for bf16 and f16 logits (a low-precision loss would round away the
/// small differences training follows), else the logits' type.
mlir::Type crossEntropyLossType(mlir::Type logits);

/// Product of static dimensions; nullopt if any is dynamic.
std::optional<int64_t> staticElementCount(llvm::ArrayRef<int64_t> shape);

} // namespace hetc::hetg

#endif // HETC_DIALECTS_HETGRAPH_SHAPEINFERENCE_H
