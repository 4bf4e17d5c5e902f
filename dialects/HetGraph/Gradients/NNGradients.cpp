//===- NNGradients.cpp - gradients of matmul, norms, attention and loss ---===//
//
// Matmul gradients are matmuls with transpose flags (no explicit transposes)
// summed over broadcast batch dimensions; the fused ops use their gradient
// ops, which reuse statistics a composite would recompute or store.
//
//===----------------------------------------------------------------------===//

#include "dialects/HetGraph/Gradients/GradientBuilders.h"

using namespace mlir;
using namespace hetc::hetg;

namespace {

RankedTensorType rankedType(Value value) {
  return llvm::cast<RankedTensorType>(value.getType());
}

/// `value` `[..., r, c]` as `[prod(...) * r, c]`.
Value flattenRows(OpBuilder &b, Location loc, Value value) {
  RankedTensorType type = rankedType(value);
  int64_t cols = type.getShape().back();
  return buildReshape(b, loc, value, {type.getNumElements() / cols, cols});
}

} // namespace

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                       ArrayRef<bool> needs,
                                       SmallVectorImpl<Value> &grads) {
  grads.assign(getNumOperands(), Value());
  Value g = dys[0];
  if (!g)
    return success();
  if (!getType().hasStaticShape())
    return emitOpError("needs static shapes to be differentiated");
  Location loc = getLoc();
  Value a = getLhs(), w = getRhs();
  bool ta = getTransposeLhs(), tb = getTransposeRhs();
  RankedTensorType aType = getLhs().getType(), wType = getRhs().getType();
  auto matmul = [&](Value lhs, Value rhs, bool transposeLhs,
                    bool transposeRhs) -> Value {
    return MatmulOp::create(b, loc, lhs, rhs, Value(), transposeLhs,
                            transposeRhs);
  };
  // C = op(A) op(B): dop(A) = G op(B)^T, dop(B) = op(A)^T G.
  if (needs[0]) {
    Value da =
        ta ? matmul(w, g, tb, /*transposeRhs=*/true) : matmul(g, w, false, !tb);
    grads[0] = sumToShape(b, loc, da, aType);
  }
  if (needs[1]) {
    Value dw;
    if (wType.getRank() == 2 && aType.getRank() > 2 && !ta) {
      // A shared weight: one matmul over all rows of the batch instead of a
      // batch of products summed afterwards.
      Value rows = flattenRows(b, loc, a), gradRows = flattenRows(b, loc, g);
      dw = tb ? matmul(gradRows, rows, true, false)
              : matmul(rows, gradRows, true, false);
    } else {
      dw = tb ? matmul(g, a, true, ta) : matmul(a, g, !ta, false);
    }
    grads[1] = sumToShape(b, loc, dw, wType);
  }
  if (Value bias = getBias(); bias && needs[2])
    grads[2] = sumToShape(b, loc, g, rankedType(bias));
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax and normalization
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                        ArrayRef<bool> needs,
                                        SmallVectorImpl<Value> &grads) {
  grads.push_back(dys[0] && needs[0]
                      ? SoftmaxGradOp::create(b, getLoc(), getResult(), dys[0],
                                              getAxisAttr())
                            .getInputGrad()
                      : Value());
  return success();
}

LogicalResult LogSoftmaxOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                           ArrayRef<bool> needs,
                                           SmallVectorImpl<Value> &grads) {
  grads.push_back(dys[0] && needs[0]
                      ? LogSoftmaxGradOp::create(b, getLoc(), getResult(),
                                                 dys[0], getAxisAttr())
                            .getInputGrad()
                      : Value());
  return success();
}

LogicalResult LayerNormOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                          ArrayRef<bool> needs,
                                          SmallVectorImpl<Value> &grads) {
  grads.assign(getNumOperands(), Value());
  if (!dys[0] || llvm::none_of(needs, [](bool n) { return n; }))
    return success();
  auto grad =
      LayerNormGradOp::create(b, getLoc(), getInput(), dys[0], getScale(),
                              getAxisAttr(), getEpsilonAttr());
  // Operands are input, then scale and bias when present.
  unsigned next = 0;
  grads[next++] = needs[0] ? grad.getInputGrad() : Value();
  if (getScale()) {
    grads[next] = needs[next] ? grad.getScaleGrad() : Value();
    ++next;
  }
  if (getBias())
    grads[next] = needs[next] ? grad.getBiasGrad() : Value();
  return success();
}

LogicalResult RmsNormOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                        ArrayRef<bool> needs,
                                        SmallVectorImpl<Value> &grads) {
  grads.assign(getNumOperands(), Value());
  if (!dys[0] || llvm::none_of(needs, [](bool n) { return n; }))
    return success();
  auto grad = RmsNormGradOp::create(b, getLoc(), getInput(), dys[0], getScale(),
                                    getEpsilonAttr());
  grads[0] = needs[0] ? grad.getInputGrad() : Value();
  if (getScale() && needs[1])
    grads[1] = grad.getScaleGrad();
  return success();
}

//===----------------------------------------------------------------------===//
// Attention and loss
//===----------------------------------------------------------------------===//

/// The gradient of an attention mask: the gradient of the scores, which
/// attention_grad does not return, recomputed from the forward formula.
/// Masks are inputs almost always; a trainable one (a learned position
/// bias) takes this path.
static Value attentionMaskGradient(OpBuilder &b, AttentionOp op,
                                   Value resultGrad) {
  Location loc = op.getLoc();
  RankedTensorType query = op.getQuery().getType();
  Type element = query.getElementType();
  int64_t last = query.getRank() - 1;
  Value scores = MatmulOp::create(b, loc, op.getQuery(), op.getKey(), Value(),
                                  false, /*transpose_rhs=*/true);
  scores = MulOp::create(
      b, loc, scores,
      buildScalar(b, loc, element, op.getScale().convertToDouble()));
  scores = AddOp::create(b, loc, scores, op.getMask());
  if (op.getCausal()) {
    auto scoresType = llvm::cast<RankedTensorType>(scores.getType());
    int64_t queries = scoresType.getDimSize(last - 1),
            keys = scoresType.getDimSize(last);
    auto type = RankedTensorType::get({queries, keys}, element);
    const llvm::fltSemantics &semantics =
        llvm::cast<FloatType>(element).getFloatSemantics();
    SmallVector<APFloat> hidden;
    for (int64_t i = 0; i < queries; ++i)
      for (int64_t j = 0; j < keys; ++j)
        hidden.push_back(j > i ? APFloat::getInf(semantics, /*Negative=*/true)
                               : APFloat::getZero(semantics));
    scores = AddOp::create(
        b, loc, scores,
        ConstantOp::create(b, loc, DenseElementsAttr::get(type, hidden)));
  }
  Value probs = SoftmaxOp::create(b, loc, scores, b.getI64IntegerAttr(last));
  Value probsGrad = MatmulOp::create(b, loc, resultGrad, op.getValue(), Value(),
                                     false, /*transpose_rhs=*/true);
  Value scoresGrad = SoftmaxGradOp::create(b, loc, probs, probsGrad,
                                           b.getI64IntegerAttr(last));
  return sumToShape(b, loc, scoresGrad, op.getMask().getType());
}

LogicalResult AttentionOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                          ArrayRef<bool> needs,
                                          SmallVectorImpl<Value> &grads) {
  grads.assign(getNumOperands(), Value());
  if (!dys[0])
    return success();
  ArrayRef<int64_t> lead = getQuery().getType().getShape().drop_back(2);
  if (getKey().getType().getShape().drop_back(2) != lead ||
      getValue().getType().getShape().drop_back(2) != lead)
    return emitOpError("query, key and value must have the same leading "
                       "dimensions to be differentiated");
  if (needs[0] || needs[1] || needs[2]) {
    auto grad = AttentionGradOp::create(
        b, getLoc(), getQuery(), getKey(), getValue(), dys[0], getMask(),
        /*output=*/Value(), /*lse=*/Value(), getScaleAttr(), getCausalAttr());
    Value results[] = {grad.getQueryGrad(), grad.getKeyGrad(),
                       grad.getValueGrad()};
    for (int i = 0; i < 3; ++i)
      grads[i] = needs[i] ? results[i] : Value();
  }
  if (getMask() && needs[3])
    grads[3] = attentionMaskGradient(b, *this, dys[0]);
  return success();
}

LogicalResult CrossEntropyOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                             ArrayRef<bool> needs,
                                             SmallVectorImpl<Value> &grads) {
  grads.assign(getNumOperands(), Value());
  if (dys[0] && needs[0])
    grads[0] = CrossEntropyGradOp::create(b, getLoc(), getLogits(), getLabels(),
                                          dys[0], getReductionAttr(),
                                          getIgnoreIndexAttr());
  return success();
}
