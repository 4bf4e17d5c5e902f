//===- FuseNorms.cpp - fuse decomposed LayerNorm and RMSNorm --------------===//
//
// torch.onnx.export below opset 17 writes LayerNorm as reduce_mean, sub,
// pow, reduce_mean, add epsilon, sqrt and div, then the affine mul and add;
// RMSNorm (Llama, T5) has no ONNX op at all. The normalization is matched
// at its quotient `n / sqrt(a)`; weight and bias are absorbed afterwards by
// their own patterns, so every combination of them fuses.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/PatternMatchers.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace hetc {
#define GEN_PASS_DEF_HETGFUSENORMS
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using namespace hetc::hetg;

namespace {

/// The first of the trailing dimensions `[axis, rank)` that `mean` averages
/// over, keeping them; nullopt for any other reduction.
std::optional<int64_t> trailingAxis(ReduceMeanOp mean) {
  int64_t rank = mean.getInput().getType().getRank();
  ArrayRef<int64_t> axes = mean.getAxes();
  if (!mean.getKeepDims() || axes.empty())
    return std::nullopt;
  int64_t first = rank - int64_t(axes.size());
  for (auto [i, axis] : llvm::enumerate(axes))
    if (axis != first + int64_t(i))
      return std::nullopt;
  return first;
}

/// `mean(square) + epsilon`, or `mean(square)` alone (epsilon 0).
struct MeanSquare {
  ReduceMeanOp mean;
  Value squared; // the x of mean(x^2)
  int64_t axis;
  double epsilon;
};

std::optional<MeanSquare> matchMeanSquarePlusEpsilon(Value radicand) {
  if (!radicand.hasOneUse())
    return std::nullopt;
  Value meanValue = radicand;
  double epsilon = 0.0;
  if (auto add = radicand.getDefiningOp<AddOp>()) {
    meanValue = {};
    for (auto [mean, constant] : operandOrders(add)) {
      std::optional<double> c = matchSplatConstant(constant);
      if (c && *c >= 0.0 && mean.getDefiningOp<ReduceMeanOp>() &&
          mean.hasOneUse()) {
        meanValue = mean;
        epsilon = *c;
        break;
      }
    }
    if (!meanValue)
      return std::nullopt;
  }
  auto mean = meanValue.getDefiningOp<ReduceMeanOp>();
  if (!mean || !mean.getInput().hasOneUse())
    return std::nullopt;
  std::optional<int64_t> axis = trailingAxis(mean);
  Value squared = matchSquare(mean.getInput());
  if (!axis || !squared)
    return std::nullopt;
  return MeanSquare{mean, squared, *axis, epsilon};
}

/// `(x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps)` over trailing axes.
LogicalResult fuseLayerNorm(Operation *root, PatternRewriter &rewriter) {
  std::optional<QuotientBySqrt> quotient = matchQuotientBySqrt(root);
  if (!quotient)
    return failure();
  std::optional<MeanSquare> variance =
      matchMeanSquarePlusEpsilon(quotient->radicand);
  Value centered = quotient->numerator;
  auto sub = centered.getDefiningOp<SubOp>();
  if (!variance || variance->squared != centered || !sub)
    return rewriter.notifyMatchFailure(root, "not x - mean over x^2 variance");
  Value input = sub.getLhs();
  auto mean = sub.getRhs().getDefiningOp<ReduceMeanOp>();
  if (!mean || mean.getInput() != input || !sub.getRhs().hasOneUse() ||
      trailingAxis(mean) != variance->axis)
    return rewriter.notifyMatchFailure(root, "mean is not over the same axes");
  // The centered value feeds the square and the quotient, nothing else.
  Operation *square = variance->mean.getInput().getDefiningOp();
  if (!isUsedOnlyBy(centered, {square, root}))
    return rewriter.notifyMatchFailure(root, "x - mean has other users");
  if (root->getResult(0).getType() != input.getType())
    return rewriter.notifyMatchFailure(root, "constants broadcast the result");
  rewriter.replaceOpWithNewOp<LayerNormOp>(
      root, input, Value(), Value(), rewriter.getI64IntegerAttr(variance->axis),
      rewriter.getF32FloatAttr(variance->epsilon));
  return success();
}

/// `x / sqrt(mean(x^2, last axis) + eps)`.
LogicalResult fuseRmsNorm(Operation *root, PatternRewriter &rewriter) {
  std::optional<QuotientBySqrt> quotient = matchQuotientBySqrt(root);
  if (!quotient)
    return failure();
  std::optional<MeanSquare> meanSquare =
      matchMeanSquarePlusEpsilon(quotient->radicand);
  Value input = quotient->numerator;
  if (!meanSquare || meanSquare->squared != input)
    return rewriter.notifyMatchFailure(root, "not x over its root mean square");
  auto inputType = llvm::cast<RankedTensorType>(input.getType());
  if (meanSquare->axis != inputType.getRank() - 1)
    return rewriter.notifyMatchFailure(root, "not over the last axis only");
  if (root->getResult(0).getType() != inputType)
    return rewriter.notifyMatchFailure(root, "constants broadcast the result");
  rewriter.replaceOpWithNewOp<RmsNormOp>(
      root, input, Value(), rewriter.getF32FloatAttr(meanSquare->epsilon));
  return success();
}

/// Runs `Fuse` on every op of type `OpTy`.
template <typename OpTy, LogicalResult (*Fuse)(Operation *, PatternRewriter &)>
struct FuseAt : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    return Fuse(op, rewriter);
  }
};

/// `norm(x) * w` with `w` of the normalized shape becomes the norm's scale.
struct AbsorbNormScale : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp mul,
                                PatternRewriter &rewriter) const override {
    for (auto [normalized, weight] : operandOrders(mul)) {
      if (!normalized.hasOneUse() || mul.getType() != normalized.getType())
        continue;
      ArrayRef<int64_t> shape =
          llvm::cast<RankedTensorType>(weight.getType()).getShape();
      int64_t rank = mul.getType().getRank();
      if (auto ln = normalized.getDefiningOp<LayerNormOp>()) {
        ArrayRef<int64_t> params = mul.getType().getShape().drop_front(ln.getAxis());
        if (ln.getScale() || ln.getBias() ||
            !isShapeUpToLeadingOnes(shape, params, rank))
          continue;
        Value scale = reshapeTo(rewriter, mul.getLoc(), weight, params);
        rewriter.replaceOpWithNewOp<LayerNormOp>(
            mul, ln.getInput(), scale, Value(), ln.getAxisAttr(),
            ln.getEpsilonAttr());
        return success();
      }
      if (auto rms = normalized.getDefiningOp<RmsNormOp>()) {
        ArrayRef<int64_t> params = mul.getType().getShape().take_back();
        if (rms.getScale() || !isShapeUpToLeadingOnes(shape, params, rank))
          continue;
        Value scale = reshapeTo(rewriter, mul.getLoc(), weight, params);
        rewriter.replaceOpWithNewOp<RmsNormOp>(mul, rms.getInput(), scale,
                                               rms.getEpsilonAttr());
        return success();
      }
    }
    return rewriter.notifyMatchFailure(mul, "not a norm times its weight");
  }
};

/// `layer_norm(x) + b` with `b` of the normalized shape becomes its bias.
struct AbsorbLayerNormBias : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    for (auto [normalized, bias] : operandOrders(add)) {
      auto ln = normalized.getDefiningOp<LayerNormOp>();
      if (!ln || ln.getBias() || !normalized.hasOneUse() ||
          add.getType() != normalized.getType())
        continue;
      ArrayRef<int64_t> params = add.getType().getShape().drop_front(ln.getAxis());
      if (!isShapeUpToLeadingOnes(
              llvm::cast<RankedTensorType>(bias.getType()).getShape(), params,
              add.getType().getRank()))
        continue;
      Value reshaped = reshapeTo(rewriter, add.getLoc(), bias, params);
      rewriter.replaceOpWithNewOp<LayerNormOp>(add, ln.getInput(),
                                               ln.getScale(), reshaped,
                                               ln.getAxisAttr(),
                                               ln.getEpsilonAttr());
      return success();
    }
    return rewriter.notifyMatchFailure(add, "not a layer norm plus its bias");
  }
};

struct HetgFuseNormsPass : hetc::impl::HetgFuseNormsBase<HetgFuseNormsPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    // LayerNorm first: its quotient is also the RMS norm of x - mean(x).
    patterns.add<FuseAt<DivOp, fuseLayerNorm>, FuseAt<MulOp, fuseLayerNorm>>(
        context, /*benefit=*/2);
    patterns.add<FuseAt<DivOp, fuseRmsNorm>, FuseAt<MulOp, fuseRmsNorm>,
                 AbsorbNormScale, AbsorbLayerNormBias>(context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
