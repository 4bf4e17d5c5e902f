//===- HetGraphGradFolds.cpp - folders of gradient and optimizer ops ------===//
//
// Like the forward folders, these are the reference semantics of the ops,
// evaluated in double through Eval/.
//
//===----------------------------------------------------------------------===//

#include "dialects/HetGraph/FoldUtils.h"

using namespace mlir;
using namespace hetc::hetg;

//===----------------------------------------------------------------------===//
// Normalization and softmax
//===----------------------------------------------------------------------===//

LogicalResult LayerNormGradOp::fold(FoldAdaptor adaptor,
                                    SmallVectorImpl<OpFoldResult> &results) {
  std::optional<eval::Array> input = readArray(adaptor.getInput());
  std::optional<eval::Array> dy = readArray(adaptor.getResultGrad());
  OptionalArray scale = readOptional(getScale(), adaptor.getScale());
  if (!input || !dy || !scale.foldable())
    return failure();
  eval::LayerNormGrads grads = eval::layerNormGrad(
      *input, scale.get(), *dy, getAxis(), getEpsilon().convertToDouble());
  Type element = elementTypeOf(getInput());
  for (const eval::Array *grad : {&grads.input, &grads.scale, &grads.bias})
    results.push_back(writeArray(*grad, element));
  return success();
}

LogicalResult RmsNormGradOp::fold(FoldAdaptor adaptor,
                                  SmallVectorImpl<OpFoldResult> &results) {
  std::optional<eval::Array> input = readArray(adaptor.getInput());
  std::optional<eval::Array> dy = readArray(adaptor.getResultGrad());
  OptionalArray scale = readOptional(getScale(), adaptor.getScale());
  if (!input || !dy || !scale.foldable())
    return failure();
  eval::RmsNormGrads grads = eval::rmsNormGrad(*input, scale.get(), *dy,
                                               getEpsilon().convertToDouble());
  Type element = elementTypeOf(getInput());
  results.push_back(writeArray(grads.input, element));
  results.push_back(writeArray(grads.scale, element));
  return success();
}

OpFoldResult SoftmaxGradOp::fold(FoldAdaptor adaptor) {
  std::optional<eval::Array> y = readArray(adaptor.getOutput());
  std::optional<eval::Array> dy = readArray(adaptor.getResultGrad());
  if (!y || !dy)
    return {};
  return writeArray(eval::softmaxGrad(*y, *dy, getAxis()),
                    elementTypeOf(getOutput()));
}

OpFoldResult LogSoftmaxGradOp::fold(FoldAdaptor adaptor) {
  std::optional<eval::Array> y = readArray(adaptor.getOutput());
  std::optional<eval::Array> dy = readArray(adaptor.getResultGrad());
  if (!y || !dy)
    return {};
  return writeArray(eval::logSoftmaxGrad(*y, *dy, getAxis()),
                    elementTypeOf(getOutput()));
}

//===----------------------------------------------------------------------===//
// Attention and loss
//===----------------------------------------------------------------------===//

LogicalResult AttentionGradOp::fold(FoldAdaptor adaptor,
                                    SmallVectorImpl<OpFoldResult> &results) {
  std::optional<eval::Array> q = readArray(adaptor.getQuery());
  std::optional<eval::Array> k = readArray(adaptor.getKey());
  std::optional<eval::Array> v = readArray(adaptor.getValue());
  std::optional<eval::Array> dy = readArray(adaptor.getResultGrad());
  OptionalArray mask = readOptional(getMask(), adaptor.getMask());
  if (!q || !k || !v || !dy || !mask.foldable() || v->rank() < 2)
    return failure();
  // Forward and backward: about three times the forward contractions.
  int64_t keys = v->shape[v->rank() - 2];
  if (3 * (q->size() * keys + dy->size() * keys) > kMaxFoldedWork)
    return failure();
  std::optional<eval::AttentionGrads> grads = eval::attentionGrad(
      *q, *k, *v, mask.get(), *dy, getScale().convertToDouble(), getCausal());
  if (!grads)
    return failure();
  Type element = elementTypeOf(getQuery());
  for (const eval::Array *grad : {&grads->query, &grads->key, &grads->value})
    results.push_back(writeArray(*grad, element));
  return success();
}

OpFoldResult CrossEntropyGradOp::fold(FoldAdaptor adaptor) {
  std::optional<eval::Array> logits = readArray(adaptor.getLogits());
  std::optional<ConstantValues> labels = readConstant(adaptor.getLabels());
  std::optional<eval::Array> lossGrad = readArray(adaptor.getLossGrad());
  if (!logits || !labels || labels->isFloat || !lossGrad)
    return {};
  std::optional<eval::Array> grad =
      eval::crossEntropyGrad(*logits, labels->ints, *lossGrad,
                             toEval(getReduction()), getIgnoreIndex());
  if (!grad)
    return {};
  return writeArray(*grad, elementTypeOf(getLogits()));
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

OpFoldResult GatherGradOp::fold(FoldAdaptor adaptor) {
  RankedTensorType type = getType();
  std::optional<eval::Array> dy = readArray(adaptor.getResultGrad());
  std::optional<ConstantValues> indices = readConstant(adaptor.getIndices());
  if (!dy || !indices || indices->isFloat || !type.hasStaticShape() ||
      type.getNumElements() > kMaxFoldedElements)
    return {};
  std::optional<int64_t> axis = normalizeAxis(getAxis(), type.getRank());
  std::optional<eval::Array> grad =
      eval::gatherGrad(*dy, indices->ints, *axis, type.getShape());
  if (!grad)
    return {};
  return writeArray(*grad, type.getElementType());
}

OpFoldResult SliceGradOp::fold(FoldAdaptor adaptor) {
  RankedTensorType type = getType();
  // A slice of everything with unit steps: the gradient is the input's.
  if (getResultGrad().getType() == type &&
      llvm::all_of(getSteps(), [](int64_t s) { return s == 1; }))
    return getResultGrad();
  std::optional<eval::Array> dy = readArray(adaptor.getResultGrad());
  if (!dy || !type.hasStaticShape() ||
      type.getNumElements() > kMaxFoldedElements)
    return {};
  return writeArray(
      eval::sliceGrad(*dy, getStarts(), getEnds(), getSteps(), type.getShape()),
      type.getElementType());
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

OpFoldResult GeluGradOp::fold(FoldAdaptor adaptor) {
  bool tanh = getApproximate() == GeluApproximation::tanh;
  return foldBroadcastBinary(
      adaptor.getInput(), adaptor.getResultGrad(), elementTypeOf(getInput()),
      [tanh](double x, double dy) {
        return dy * eval::geluDerivative(x, tanh);
      },
      nullptr);
}

OpFoldResult SiluGradOp::fold(FoldAdaptor adaptor) {
  return foldBroadcastBinary(
      adaptor.getInput(), adaptor.getResultGrad(), elementTypeOf(getInput()),
      [](double x, double dy) { return dy * eval::siluDerivative(x); },
      nullptr);
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

namespace {
/// The learning rate: `lr`, times the constant `lr_factor` when the op has
/// one; none while the factor is not a constant.
std::optional<double> foldedLr(APFloat lr, Value factor,
                               Attribute factorValue) {
  if (!factor)
    return lr.convertToDouble();
  std::optional<ConstantValues> constant = readConstant(factorValue);
  if (!constant)
    return std::nullopt;
  return lr.convertToDouble() * constant->asDouble(0);
}
} // namespace

OpFoldResult SgdOp::fold(FoldAdaptor adaptor) {
  std::optional<eval::Array> param = readArray(adaptor.getParam());
  std::optional<eval::Array> grad = readArray(adaptor.getGrad());
  std::optional<double> lr =
      foldedLr(getLr(), getLrFactor(), adaptor.getLrFactor());
  if (!param || !grad || !lr)
    return {};
  return writeArray(
      eval::sgd(*param, *grad, *lr, getWeightDecay().convertToDouble()),
      elementTypeOf(getParam()));
}

LogicalResult AdamWOp::fold(FoldAdaptor adaptor,
                            SmallVectorImpl<OpFoldResult> &results) {
  std::optional<eval::Array> param = readArray(adaptor.getParam());
  std::optional<eval::Array> grad = readArray(adaptor.getGrad());
  std::optional<eval::Array> m = readArray(adaptor.getExpAvg());
  std::optional<eval::Array> v = readArray(adaptor.getExpAvgSq());
  std::optional<ConstantValues> step = readConstant(adaptor.getStep());
  std::optional<double> lr =
      foldedLr(getLr(), getLrFactor(), adaptor.getLrFactor());
  if (!param || !grad || !m || !v || !step || !lr)
    return failure();
  eval::AdamWHyper hyper{
      *lr, getBeta1().convertToDouble(),
      getBeta2().convertToDouble(), getEps().convertToDouble(),
      getWeightDecay().convertToDouble()};
  eval::AdamWState state =
      eval::adamw(*param, *grad, *m, *v, step->asDouble(0), hyper);
  Type element = elementTypeOf(getParam());
  for (const eval::Array *out : {&state.param, &state.expAvg, &state.expAvgSq})
    results.push_back(writeArray(*out, element));
  return success();
}

OpFoldResult GlobalNormOp::fold(FoldAdaptor adaptor) {
  std::vector<eval::Array> arrays;
  for (Attribute attr : adaptor.getInputs()) {
    std::optional<eval::Array> array = readArray(attr);
    if (!array)
      return {};
    arrays.push_back(std::move(*array));
  }
  SmallVector<const eval::Array *> pointers;
  for (const eval::Array &array : arrays)
    pointers.push_back(&array);
  return writeArray(eval::Array(Shape{}, eval::globalNorm(pointers)),
                    getType().getElementType());
}
