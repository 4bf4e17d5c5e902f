//===- GradientBuilders.cpp - helpers for building hetg gradients ---------===//

#include "dialects/HetGraph/Gradients/GradientBuilders.h"

using namespace mlir;

namespace hetc::hetg {

Value buildSplat(OpBuilder &builder, Location loc, RankedTensorType type,
                 double value) {
  auto element = FloatAttr::get(type.getElementType(), value);
  return ConstantOp::create(builder, loc,
                            DenseElementsAttr::get(type, Attribute(element)));
}

Value buildScalar(OpBuilder &builder, Location loc, Type elementType,
                  double value) {
  return buildSplat(builder, loc, RankedTensorType::get({}, elementType),
                    value);
}

Value buildReshape(OpBuilder &builder, Location loc, Value value,
                   ArrayRef<int64_t> shape) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return ReshapeOp::create(builder, loc, type.clone(shape), value);
}

Value sumToShape(OpBuilder &builder, Location loc, Value grad,
                 RankedTensorType target) {
  auto type = llvm::cast<RankedTensorType>(grad.getType());
  if (type.getShape() == target.getShape())
    return grad;
  int64_t lead = type.getRank() - target.getRank();
  SmallVector<int64_t> axes;
  bool onlyLeading = true;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (d < lead) {
      axes.push_back(d);
    } else if (target.getDimSize(d - lead) == 1 && type.getDimSize(d) != 1) {
      axes.push_back(d);
      onlyLeading = false;
    }
  }
  Value sum = grad;
  if (!axes.empty())
    sum = ReduceSumOp::create(builder, loc, grad, axes,
                              /*keep_dims=*/!onlyLeading);
  return buildReshape(builder, loc, sum, target.getShape());
}

} // namespace hetc::hetg
