//===- FuseMatmulBias.cpp - fold a bias add into the matmul ---------------===//
//
// torch exports nn.Linear as MatMul then Add(bias, product) (bias first).
// The bias is 1-D over the output features, or a broadcast-equivalent
// `[1, ..., 1, N]`, which is reshaped to `[N]`.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/PatternMatchers.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace hetc {
#define GEN_PASS_DEF_HETGFUSEMATMULBIAS
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using namespace hetc::hetg;

namespace {

struct FuseMatmulBias : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    for (auto [product, bias] : operandOrders(add)) {
      auto matmul = product.getDefiningOp<MatmulOp>();
      // A second user of the product would need the matmul without bias.
      if (!matmul || matmul.getBias() || !product.hasOneUse())
        continue;
      RankedTensorType type = matmul.getType();
      int64_t features = type.getShape().back();
      auto biasShape =
          llvm::cast<RankedTensorType>(bias.getType()).getShape();
      if (add.getType() != type || features == kDynamic ||
          !isShapeUpToLeadingOnes(biasShape, {features}, type.getRank()) ||
          biasShape.empty() || biasShape.back() != features)
        continue;
      Value vector = reshapeTo(rewriter, add.getLoc(), bias, {features});
      rewriter.replaceOpWithNewOp<MatmulOp>(
          add, type, matmul.getLhs(), matmul.getRhs(), vector,
          matmul.getTransposeLhsAttr(), matmul.getTransposeRhsAttr());
      return success();
    }
    return rewriter.notifyMatchFailure(add, "not a matmul plus a 1-D bias");
  }
};

struct HetgFuseMatmulBiasPass
    : hetc::impl::HetgFuseMatmulBiasBase<HetgFuseMatmulBiasPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseMatmulBias>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
