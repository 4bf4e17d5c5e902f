//===- DataMovementGradients.cpp - data movement and reduction gradients -===//
//
// Data movement ops move gradients back the way their data came: inverse
// permutations, reshapes, sums over broadcast dimensions, the scatter-adds
// of slice and gather. Reductions spread their gradient over what they
// reduced.
//
//===----------------------------------------------------------------------===//

#include "dialects/HetGraph/Gradients/GradientBuilders.h"

using namespace mlir;
using namespace hetc::hetg;

namespace {

RankedTensorType rankedType(Value value) {
  return llvm::cast<RankedTensorType>(value.getType());
}

bool isFloat(Value value) {
  return llvm::isa<FloatType>(rankedType(value).getElementType());
}

/// Gradient of a one-data-operand op: operand 0 gets `derivative()`, any
/// other operands (indices) none.
LogicalResult dataGradient(Operation *op, Value resultGrad,
                           ArrayRef<bool> needsGradient,
                           SmallVectorImpl<Value> &operandGradients,
                           llvm::function_ref<Value()> derivative) {
  bool wanted = resultGrad && needsGradient[0] && isFloat(op->getOperand(0));
  operandGradients.push_back(wanted ? derivative() : Value());
  operandGradients.append(op->getNumOperands() - 1, Value());
  return success();
}

} // namespace

LogicalResult TransposeOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                          ArrayRef<bool> needs,
                                          SmallVectorImpl<Value> &grads) {
  return dataGradient(*this, dys[0], needs, grads, [&]() -> Value {
    ArrayRef<int64_t> perm = getPermutation();
    SmallVector<int64_t> inverse(perm.size());
    for (auto [i, p] : llvm::enumerate(perm))
      inverse[p] = int64_t(i);
    return TransposeOp::create(b, getLoc(), dys[0], inverse);
  });
}

LogicalResult ReshapeOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                        ArrayRef<bool> needs,
                                        SmallVectorImpl<Value> &grads) {
  return dataGradient(*this, dys[0], needs, grads, [&]() -> Value {
    return ReshapeOp::create(b, getLoc(), getInput().getType(), dys[0]);
  });
}

LogicalResult BroadcastOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                          ArrayRef<bool> needs,
                                          SmallVectorImpl<Value> &grads) {
  return dataGradient(*this, dys[0], needs, grads, [&]() -> Value {
    return sumToShape(b, getLoc(), dys[0], getInput().getType());
  });
}

LogicalResult SliceOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                      ArrayRef<bool> needs,
                                      SmallVectorImpl<Value> &grads) {
  if (!getInput().getType().hasStaticShape())
    return emitOpError("needs a static input shape to be differentiated");
  return dataGradient(*this, dys[0], needs, grads, [&]() -> Value {
    return SliceGradOp::create(b, getLoc(), getInput().getType(), dys[0],
                               getStarts(), getEnds(), getSteps());
  });
}

LogicalResult ConcatOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                       ArrayRef<bool> needs,
                                       SmallVectorImpl<Value> &grads) {
  RankedTensorType type = rankedType(dys[0]);
  int64_t axis = *normalizeAxis(getAxis(), type.getRank());
  int64_t offset = 0;
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    RankedTensorType inputType = rankedType(input);
    int64_t size = inputType.getDimSize(axis);
    if (!needs[i] || !isFloat(input)) {
      grads.push_back(Value());
    } else {
      SmallVector<int64_t> starts(type.getRank(), 0), steps(type.getRank(), 1);
      SmallVector<int64_t> ends(type.getShape());
      starts[axis] = offset;
      ends[axis] = offset + size;
      grads.push_back(
          SliceOp::create(b, getLoc(), dys[0], starts, ends, steps));
    }
    offset += size;
  }
  return success();
}

LogicalResult GatherOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                       ArrayRef<bool> needs,
                                       SmallVectorImpl<Value> &grads) {
  if (!getData().getType().hasStaticShape())
    return emitOpError("needs a static data shape to be differentiated");
  return dataGradient(*this, dys[0], needs, grads, [&]() -> Value {
    int64_t axis = *normalizeAxis(getAxis(), getData().getType().getRank());
    return GatherGradOp::create(b, getLoc(), getData().getType(), dys[0],
                                getIndices(), b.getI64IntegerAttr(axis));
  });
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

namespace {

/// `value` (a reduction result) with the reduced dimensions kept as 1.
Value keptDims(OpBuilder &b, Location loc, Value value, Value input,
               ArrayRef<int64_t> axes) {
  Shape shape(rankedType(input).getShape());
  for (int64_t axis : axes)
    shape[axis] = 1;
  return buildReshape(b, loc, value, shape);
}

/// The gradient of a sum or mean: the result gradient, times `factor`,
/// repeated over the reduced dimensions.
Value spreadGradient(OpBuilder &b, Location loc, Value dy, Value input,
                     ArrayRef<int64_t> axes, double factor) {
  RankedTensorType inputType = rankedType(input);
  Value kept = keptDims(b, loc, dy, input, axes);
  if (factor != 1.0)
    kept = MulOp::create(
        b, loc, kept, buildScalar(b, loc, inputType.getElementType(), factor));
  if (rankedType(kept).getShape() == inputType.getShape())
    return kept;
  return BroadcastOp::create(b, loc, inputType, kept);
}

} // namespace

LogicalResult ReduceSumOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                          ArrayRef<bool> needs,
                                          SmallVectorImpl<Value> &grads) {
  return dataGradient(*this, dys[0], needs, grads, [&]() -> Value {
    return spreadGradient(b, getLoc(), dys[0], getInput(), getAxes(), 1.0);
  });
}

LogicalResult ReduceMeanOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                           ArrayRef<bool> needs,
                                           SmallVectorImpl<Value> &grads) {
  return dataGradient(*this, dys[0], needs, grads, [&]() -> Value {
    int64_t count = 1;
    for (int64_t axis : getAxes())
      count *= getInput().getType().getDimSize(axis);
    return spreadGradient(b, getLoc(), dys[0], getInput(), getAxes(),
                          1.0 / double(count));
  });
}

LogicalResult ReduceMaxOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                          ArrayRef<bool> needs,
                                          SmallVectorImpl<Value> &grads) {
  // The gradient goes to the maxima, split evenly between ties (torch.amax).
  return dataGradient(*this, dys[0], needs, grads, [&]() -> Value {
    Location loc = getLoc();
    Type element = getInput().getType().getElementType();
    Value max = keptDims(b, loc, getResult(), getInput(), getAxes());
    Value picked = CastOp::create(
        b, loc, EqualOp::create(b, loc, getInput(), max), element);
    Value ties = ReduceSumOp::create(b, loc, picked, getAxes(),
                                     /*keep_dims=*/true);
    Value dy = keptDims(b, loc, dys[0], getInput(), getAxes());
    Value share = DivOp::create(b, loc, dy, ties);
    return MulOp::create(b, loc, picked, share);
  });
}
