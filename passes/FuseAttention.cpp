//===- FuseAttention.cpp ----------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace hetc {
#define GEN_PASS_DEF_HETGFUSEATTENTION
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;

namespace {
struct HetgFuseAttentionPass : hetc::impl::HetgFuseAttentionBase<HetgFuseAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
