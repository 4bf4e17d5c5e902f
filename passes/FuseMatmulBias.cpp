//===- FuseMatmulBias.cpp ----------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace hetc {
#define GEN_PASS_DEF_HETGFUSEMATMULBIAS
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;

namespace {
struct HetgFuseMatmulBiasPass : hetc::impl::HetgFuseMatmulBiasBase<HetgFuseMatmulBiasPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
