//===- Passes.h - hetc passes and pipelines -------------------------------===//

#ifndef HETC_PASSES_PASSES_H
#define HETC_PASSES_PASSES_H

#include "dialects/HetGraph/HetGraph.h"
#include "mlir/Pass/Pass.h"

namespace hetc {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// Options of the import-to-static-graph pipeline.
struct SimplifyPipelineOptions
    : mlir::PassPipelineOptions<SimplifyPipelineOptions> {
  Option<int64_t> batch{*this, "batch",
                        llvm::cl::desc("Samples per batch"), llvm::cl::init(0)};
  Option<int64_t> seq{*this, "seq", llvm::cl::desc("Tokens per sample"),
                      llvm::cl::init(0)};
};

/// Specialize shapes, fold, then fuse: imported hetg IR to a static graph of
/// fused transformer ops.
void buildSimplifyPipeline(mlir::OpPassManager &pm,
                           const SimplifyPipelineOptions &options);

/// Registers every pass and pipeline with the global registry.
void registerAllPasses();

} // namespace hetc

#endif // HETC_PASSES_PASSES_H
