//===- GradientBuilders.h - helpers for building hetg gradients -----------===//
//
// Shared by the ops' DifferentiableOpInterface implementations and the
// autodiff pass.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_DIALECTS_HETGRAPH_GRADIENTS_GRADIENTBUILDERS_H
#define HETC_DIALECTS_HETGRAPH_GRADIENTS_GRADIENTBUILDERS_H

#include "dialects/HetGraph/HetGraph.h"

namespace hetc::hetg {

/// A `hetg.constant` of `type` with every element `value`.
mlir::Value buildSplat(mlir::OpBuilder &builder, mlir::Location loc,
                       mlir::RankedTensorType type, double value);

/// A 0-D `hetg.constant` of `elementType`.
mlir::Value buildScalar(mlir::OpBuilder &builder, mlir::Location loc,
                        mlir::Type elementType, double value);

/// `value` reshaped to `shape`; `value` itself when it has that shape.
mlir::Value buildReshape(mlir::OpBuilder &builder, mlir::Location loc,
                         mlir::Value value, llvm::ArrayRef<int64_t> shape);

/// The gradient of a value of type `target` that numpy broadcasting
/// stretched to `grad`'s shape: `grad` summed over the dimensions the
/// broadcast added or stretched, with `target`'s shape.
mlir::Value sumToShape(mlir::OpBuilder &builder, mlir::Location loc,
                       mlir::Value grad, mlir::RankedTensorType target);

} // namespace hetc::hetg

#endif // HETC_DIALECTS_HETGRAPH_GRADIENTS_GRADIENTBUILDERS_H
