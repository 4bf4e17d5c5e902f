//===- FuseActivations.cpp ----------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace hetc {
#define GEN_PASS_DEF_HETGFUSEACTIVATIONS
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;

namespace {
struct HetgFuseActivationsPass : hetc::impl::HetgFuseActivationsBase<HetgFuseActivationsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
