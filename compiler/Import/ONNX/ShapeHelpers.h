//===- ShapeHelpers.h - building shapes of dynamic tensors
//-----------------===//
//
// Flatten, Squeeze, Unsqueeze, rank-1 MatMul and Split on dynamic tensors
// need a target shape made of input dimensions, constants and products of
// dimensions. ShapeBuilder describes such a shape once and emits it either
// as a static type (when every size is known) or as a shape tensor computed
// with hetg.shape / hetg.mul / hetg.concat, which `hetg-specialize` folds.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_IMPORT_ONNX_SHAPEHELPERS_H
#define HETC_COMPILER_IMPORT_ONNX_SHAPEHELPERS_H

#include "compiler/Import/ONNX/NodeContext.h"

#include <limits>

namespace hetc::onnximport {

class ShapeBuilder {
public:
  explicit ShapeBuilder(NodeContext &ctx) : ctx(ctx) {}

  /// Appends a size known at import time.
  void addSize(int64_t size);
  /// Appends dimensions `[begin, end)` of `source`.
  void addDims(mlir::Value source, int64_t begin, int64_t end);
  /// Appends one size: the product of dimensions `[begin, end)` of `source`.
  void addDimProduct(mlir::Value source, int64_t begin, int64_t end);

  /// The sizes as known now, `hetg::kDynamic` where they are not.
  hetg::Shape knownShape() const;
  /// The sizes as a 1-D i64 tensor (a constant when all are known).
  mlir::FailureOr<mlir::Value> build();

private:
  struct Piece {
    mlir::Value source; // null for a known size
    int64_t begin = 0, end = 0;
    bool product = false;
    int64_t size = 0;
  };
  NodeContext &ctx;
  llvm::SmallVector<Piece> pieces;
};

/// Dimension `dim` of `source` as a tensor<1xi64>; constant when static.
mlir::FailureOr<mlir::Value> dimSize(NodeContext &ctx, mlir::Value source,
                                     int64_t dim);

/// `input` reshaped to `target`: `input` itself when the shapes already
/// match, hetg.reshape when both are static, hetg.dynamic_reshape otherwise.
mlir::FailureOr<mlir::Value> reshapeTo(NodeContext &ctx, mlir::Value input,
                                       ShapeBuilder &target);

/// A slice end past any dimension: "to the end".
constexpr int64_t kSliceToEnd = std::numeric_limits<int64_t>::max();

/// Bounds of a slice that keeps everything of `type` (to be narrowed).
void fullSlice(mlir::RankedTensorType type,
               llvm::SmallVectorImpl<int64_t> &starts,
               llvm::SmallVectorImpl<int64_t> &ends,
               llvm::SmallVectorImpl<int64_t> &steps);

/// Consecutive pieces of `input` along `axis` of the given `sizes` (which
/// add up to at most the dimension), one hetg.slice each.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
slicePieces(NodeContext &ctx, mlir::Value input, int64_t axis,
            llvm::ArrayRef<int64_t> sizes);

/// "[2, ?, 4]", for messages.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// Normalizes `axis` of a rank-`rank` tensor, with an error naming `what`.
mlir::FailureOr<int64_t> normalizeAxisOrError(NodeContext &ctx, int64_t axis,
                                              int64_t rank,
                                              llvm::StringRef what);

/// Normalizes, checks and sorts a list of distinct axes.
mlir::FailureOr<llvm::SmallVector<int64_t>>
normalizeAxesOrError(NodeContext &ctx, llvm::ArrayRef<int64_t> axes,
                     int64_t rank, llvm::StringRef what);

} // namespace hetc::onnximport

#endif // HETC_COMPILER_IMPORT_ONNX_SHAPEHELPERS_H
