//===- HetGraphCanonicalize.cpp - what autodiff leaves to tidy -----------===//
//
// Canonicalizations of the differentiated step:
// - A value read by several slices (a fused QKV projection split in three)
//   receives its gradient as a sum of slice_grads, each a zero tensor of
//   the value's shape with one piece written: every add reads and writes
//   the whole tensor. Pieces side by side along one dimension are one
//   concatenation instead, written once.
// - attention_grad needs the forward's result and each row's log-sum-exp;
//   where the forward it differentiates is in the same block, that forward
//   keeps them (with_lse) instead of the backward computing them again.
// - A bf16 or f16 gradient widened by a cast only for the update is read by
//   the update as it is (adamw widens it exactly): no pass over it.
//
//===----------------------------------------------------------------------===//

#include "dialects/HetGraph/HetGraph.h"
#include "dialects/HetGraph/ShapeInference.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace hetc::hetg;

namespace {

// The clamped [begin, end) of each dimension a unit-step slice_grad writes.
std::optional<SmallVector<std::pair<int64_t, int64_t>>>
writtenRanges(SliceGradOp op) {
  if (!llvm::all_of(op.getSteps(), [](int64_t s) { return s == 1; }))
    return std::nullopt;
  ArrayRef<int64_t> shape = op.getType().getShape();
  SmallVector<std::pair<int64_t, int64_t>> ranges;
  for (size_t d = 0; d < shape.size(); ++d)
    ranges.push_back(
        clampSliceBounds(shape[d], op.getStarts()[d], op.getEnds()[d]));
  return ranges;
}

/// add(slice_grad(a), slice_grad(b)) where b's piece continues a's along
/// one dimension and matches it along the others:
/// slice_grad(concat(a, b)) over both pieces.
struct MergeAdjacentSliceGrads : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    auto lhs = add.getLhs().getDefiningOp<SliceGradOp>();
    auto rhs = add.getRhs().getDefiningOp<SliceGradOp>();
    if (!lhs || !rhs || lhs.getType() != add.getType() ||
        rhs.getType() != add.getType() || !lhs->hasOneUse() ||
        !rhs->hasOneUse())
      return rewriter.notifyMatchFailure(add, "not a sum of two slice_grads");
    auto lhsRanges = writtenRanges(lhs), rhsRanges = writtenRanges(rhs);
    if (!lhsRanges || !rhsRanges)
      return rewriter.notifyMatchFailure(add, "a slice with steps");
    std::optional<size_t> axis;
    for (size_t d = 0; d < lhsRanges->size(); ++d) {
      if ((*lhsRanges)[d] == (*rhsRanges)[d])
        continue;
      if (axis)
        return rewriter.notifyMatchFailure(add, "pieces differ in two dims");
      axis = d;
    }
    if (!axis)
      return rewriter.notifyMatchFailure(add, "the same piece twice");
    SliceGradOp first = lhs, second = rhs;
    auto firstRanges = *lhsRanges, secondRanges = *rhsRanges;
    if (secondRanges[*axis].second == firstRanges[*axis].first) {
      std::swap(first, second);
      std::swap(firstRanges, secondRanges);
    }
    if (firstRanges[*axis].second != secondRanges[*axis].first)
      return rewriter.notifyMatchFailure(add, "pieces not side by side");

    Value joined = ConcatOp::create(
        rewriter, add.getLoc(),
        ValueRange{first.getResultGrad(), second.getResultGrad()},
        static_cast<int64_t>(*axis));
    SmallVector<int64_t> starts, ends;
    for (size_t d = 0; d < firstRanges.size(); ++d) {
      starts.push_back(firstRanges[d].first);
      ends.push_back(d == *axis ? secondRanges[d].second
                                : firstRanges[d].second);
    }
    rewriter.replaceOpWithNewOp<SliceGradOp>(
        add, add.getType(), joined, starts, ends,
        SmallVector<int64_t>(starts.size(), 1));
    return success();
  }
};

/// concat(..., concat(a, b), ...) along one axis: concat(..., a, b, ...).
struct FlattenConcats : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    int64_t rank = op.getType().getRank();
    SmallVector<Value> inputs;
    bool flattened = false;
    for (Value input : op.getInputs()) {
      auto inner = input.getDefiningOp<ConcatOp>();
      if (inner && inner->hasOneUse() &&
          normalizeAxis(inner.getAxis(), rank) ==
              normalizeAxis(op.getAxis(), rank)) {
        llvm::append_range(inputs, inner.getInputs());
        flattened = true;
      } else {
        inputs.push_back(input);
      }
    }
    if (!flattened)
      return rewriter.notifyMatchFailure(op, "no nested concat on its axis");
    rewriter.modifyOpInPlace(op, [&] { op.getInputsMutable().assign(inputs); });
    return success();
  }
};

/// attention_grad(q, k, v, dy) after attention(q, k, v) with the same mask,
/// scale and causality: the forward gives its result and lse to the
/// backward.
struct SaveAttentionForward : OpRewritePattern<AttentionGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionGradOp grad,
                                PatternRewriter &rewriter) const override {
    if (grad.getOutput())
      return rewriter.notifyMatchFailure(grad, "reads its forward already");
    AttentionOp forward = grad.findForward();
    if (!forward)
      return rewriter.notifyMatchFailure(grad, "no forward in its block");
    if (!forward.getWithLse()) {
      rewriter.setInsertionPoint(forward);
      auto saving = AttentionOp::create(
          rewriter, forward.getLoc(), forward.getQuery(), forward.getKey(),
          forward.getValue(), forward.getMask(), forward.getScaleAttr(),
          forward.getCausalAttr(), rewriter.getUnitAttr());
      saving->setDiscardableAttrs(forward->getDiscardableAttrDictionary());
      rewriter.replaceAllUsesWith(forward.getResult(), saving.getResult());
      rewriter.eraseOp(forward);
      forward = saving;
    }
    rewriter.setInsertionPoint(grad);
    auto reading = AttentionGradOp::create(
        rewriter, grad.getLoc(), grad.getQuery(), grad.getKey(),
        grad.getValue(), grad.getResultGrad(), grad.getMask(),
        forward.getResult(), forward.getLse(), grad.getScaleAttr(),
        grad.getCausalAttr());
    reading->setDiscardableAttrs(grad->getDiscardableAttrDictionary());
    rewriter.replaceOp(grad, reading.getResults());
    return success();
  }
};

/// attention with_lse whose lse nothing reads: the plain attention.
struct DropUnreadLse : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getWithLse() || !op.getLse().use_empty())
      return rewriter.notifyMatchFailure(op, "no unread lse");
    auto plain = AttentionOp::create(
        rewriter, op.getLoc(), op.getQuery(), op.getKey(), op.getValue(),
        op.getMask(), op.getScaleAttr(), op.getCausalAttr(), UnitAttr());
    plain->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    rewriter.replaceAllUsesWith(op.getResult(), plain.getResult());
    rewriter.eraseOp(op);
    return success();
  }
};

/// adamw(p, cast(g16 to f32), m, v) where the cast widens a float and only
/// the update reads it: adamw(p, g16, m, v).
struct ReadGradientUnwidened : OpRewritePattern<AdamWOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AdamWOp op,
                                PatternRewriter &rewriter) const override {
    auto cast = op.getGrad().getDefiningOp<CastOp>();
    if (!cast || !cast.getResult().hasOneUse())
      return rewriter.notifyMatchFailure(op, "no cast read by the update only");
    auto from = llvm::dyn_cast<FloatType>(
        getElementTypeOrSelf(cast.getInput().getType()));
    auto to = llvm::dyn_cast<FloatType>(getElementTypeOrSelf(cast.getType()));
    if (!from || !to || from.getWidth() >= to.getWidth() || !to.isF32())
      return rewriter.notifyMatchFailure(op, "not a widening to f32");
    rewriter.modifyOpInPlace(
        op, [&] { op.getGradMutable().assign(cast.getInput()); });
    return success();
  }
};

} // namespace

AttentionOp AttentionGradOp::findForward() {
  for (Operation *user : getQuery().getUsers()) {
    auto forward = llvm::dyn_cast<AttentionOp>(user);
    if (forward && forward.getQuery() == getQuery() &&
        forward.getKey() == getKey() && forward.getValue() == getValue() &&
        forward.getMask() == getMask() && forward.getScale() == getScale() &&
        forward.getCausal() == getCausal() &&
        forward.getResult().getType() == getResultGrad().getType() &&
        forward->getBlock() == (*this)->getBlock() &&
        forward->isBeforeInBlock(*this))
      return forward;
  }
  return {};
}

void AttentionGradOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                                  MLIRContext *context) {
  patterns.add<SaveAttentionForward>(context);
}

void AttentionOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<DropUnreadLse>(context);
}

void AddOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                        MLIRContext *context) {
  patterns.add<MergeAdjacentSliceGrads>(context);
}

void ConcatOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                           MLIRContext *context) {
  patterns.add<FlattenConcats>(context);
}

void AdamWOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                          MLIRContext *context) {
  patterns.add<ReadGradientUnwidened>(context);
}
