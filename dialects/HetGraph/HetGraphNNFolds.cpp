//===- HetGraphNNFolds.cpp - folders of reductions and transformer ops ----===//
//
// These folders are the reference semantics of the ops: the gradient checks
// evaluate whole training graphs by folding them on constants. They compute
// in double through Eval/ and round once to the result element type.
//
//===----------------------------------------------------------------------===//

#include "dialects/HetGraph/FoldUtils.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace hetc::hetg;

namespace {

/// Reduction result with or without the reduced dimensions.
Attribute foldReduce(Attribute inputAttr, ArrayRef<int64_t> axes, bool keepDims,
                     Type elementType, eval::Reduction kind) {
  std::optional<eval::Array> input = readArray(inputAttr);
  if (!input)
    return {};
  eval::Array out = eval::reduce(*input, axes, kind);
  if (!keepDims) {
    Shape shape;
    for (int64_t d = 0; d < input->rank(); ++d)
      if (!llvm::is_contained(axes, d))
        shape.push_back(input->shape[d]);
    out.shape = shape;
  }
  return writeArray(out, elementType);
}

} // namespace

//===----------------------------------------------------------------------===//
// Reductions and softmax
//===----------------------------------------------------------------------===//

OpFoldResult ReduceSumOp::fold(FoldAdaptor adaptor) {
  return foldReduce(adaptor.getInput(), getAxes(), getKeepDims(),
                    elementTypeOf(getInput()), eval::Reduction::Sum);
}

OpFoldResult ReduceMeanOp::fold(FoldAdaptor adaptor) {
  return foldReduce(adaptor.getInput(), getAxes(), getKeepDims(),
                    elementTypeOf(getInput()), eval::Reduction::Mean);
}

OpFoldResult ReduceMaxOp::fold(FoldAdaptor adaptor) {
  return foldReduce(adaptor.getInput(), getAxes(), getKeepDims(),
                    elementTypeOf(getInput()), eval::Reduction::Max);
}

OpFoldResult SoftmaxOp::fold(FoldAdaptor adaptor) {
  std::optional<eval::Array> input = readArray(adaptor.getInput());
  if (!input)
    return {};
  return writeArray(eval::softmax(*input, getAxis()),
                    elementTypeOf(getInput()));
}

OpFoldResult LogSoftmaxOp::fold(FoldAdaptor adaptor) {
  std::optional<eval::Array> input = readArray(adaptor.getInput());
  if (!input)
    return {};
  return writeArray(eval::logSoftmax(*input, getAxis()),
                    elementTypeOf(getInput()));
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

OpFoldResult LayerNormOp::fold(FoldAdaptor adaptor) {
  std::optional<eval::Array> input = readArray(adaptor.getInput());
  OptionalArray scale = readOptional(getScale(), adaptor.getScale());
  OptionalArray bias = readOptional(getBias(), adaptor.getBias());
  if (!input || !scale.foldable() || !bias.foldable())
    return {};
  return writeArray(eval::layerNorm(*input, scale.get(), bias.get(), getAxis(),
                                    getEpsilon().convertToDouble()),
                    elementTypeOf(getInput()));
}

OpFoldResult RmsNormOp::fold(FoldAdaptor adaptor) {
  std::optional<eval::Array> input = readArray(adaptor.getInput());
  OptionalArray scale = readOptional(getScale(), adaptor.getScale());
  if (!input || !scale.foldable())
    return {};
  return writeArray(
      eval::rmsNorm(*input, scale.get(), getEpsilon().convertToDouble()),
      elementTypeOf(getInput()));
}

//===----------------------------------------------------------------------===//
// Linear algebra, attention and loss
//===----------------------------------------------------------------------===//

OpFoldResult MatmulOp::fold(FoldAdaptor adaptor) {
  std::optional<eval::Array> lhs = readArray(adaptor.getLhs());
  std::optional<eval::Array> rhs = readArray(adaptor.getRhs());
  OptionalArray bias = readOptional(getBias(), adaptor.getBias());
  if (!lhs || !rhs || !bias.foldable() ||
      eval::matmulWork(lhs->shape, rhs->shape) > kMaxFoldedWork)
    return {};
  std::optional<eval::Array> out = eval::matmul(
      *lhs, *rhs, bias.get(), getTransposeLhs(), getTransposeRhs());
  if (!out)
    return {};
  return writeArray(*out, elementTypeOf(getLhs()));
}

/// Multiply-adds of attention over `[..., Tq, D]` and `[..., Tk, Dv]`.
static int64_t attentionWork(const eval::Array &q, const eval::Array &v) {
  return q.size() * v.shape[v.rank() - 2] +
         q.size() / q.shape.back() * v.shape[v.rank() - 2] * v.shape.back();
}

// Only the result folds: with_lse is there for a backward, which folds
// from the inputs.
LogicalResult AttentionOp::fold(FoldAdaptor adaptor,
                                SmallVectorImpl<OpFoldResult> &results) {
  std::optional<eval::Array> q = readArray(adaptor.getQuery());
  std::optional<eval::Array> k = readArray(adaptor.getKey());
  std::optional<eval::Array> v = readArray(adaptor.getValue());
  OptionalArray mask = readOptional(getMask(), adaptor.getMask());
  if (getWithLse() || !q || !k || !v || !mask.foldable() || q->rank() < 2 ||
      v->rank() < 2 || attentionWork(*q, *v) > kMaxFoldedWork)
    return failure();
  std::optional<eval::Array> out = eval::attention(
      *q, *k, *v, mask.get(), getScale().convertToDouble(), getCausal());
  if (!out)
    return failure();
  results.push_back(writeArray(*out, elementTypeOf(getQuery())));
  return success();
}

OpFoldResult CrossEntropyOp::fold(FoldAdaptor adaptor) {
  std::optional<eval::Array> logits = readArray(adaptor.getLogits());
  std::optional<ConstantValues> labels = readConstant(adaptor.getLabels());
  if (!logits || !labels || labels->isFloat)
    return {};
  std::optional<eval::Array> loss = eval::crossEntropy(
      *logits, labels->ints, toEval(getReduction()), getIgnoreIndex());
  if (!loss)
    return {};
  return writeArray(*loss, crossEntropyLossType(elementTypeOf(getLogits())));
}

//===----------------------------------------------------------------------===//
// Canonicalization
//===----------------------------------------------------------------------===//

namespace {

/// transpose(matmul(a, b)) over the last two dimensions is
/// matmul(b, a) with the other transpose flags, (AB)^T = B^T A^T: weight
/// gradients of `x @ w^T` come out of autodiff in this form.
struct TransposeOfMatmul : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto matmul = op.getInput().getDefiningOp<MatmulOp>();
    ArrayRef<int64_t> perm = op.getPermutation();
    int64_t rank = perm.size();
    if (!matmul || matmul.getBias() || !matmul->hasOneUse() || rank < 2 ||
        perm[rank - 2] != rank - 1 || perm[rank - 1] != rank - 2 ||
        !llvm::equal(perm.drop_back(2), llvm::seq<int64_t>(0, rank - 2)))
      return failure();
    rewriter.replaceOpWithNewOp<MatmulOp>(
        op, op.getType(), matmul.getRhs(), matmul.getLhs(), Value(),
        !matmul.getTransposeRhs(), !matmul.getTransposeLhs());
    return success();
  }
};

} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<TransposeOfMatmul>(context);
}
