//===- Passes.h - hetc passes and pipelines -------------------------------===//

#ifndef HETC_PASSES_PASSES_H
#define HETC_PASSES_PASSES_H

#include "dialects/HetDist/HetDist.h"
#include "dialects/HetExec/HetExec.h"
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

/// Options of the training-step pipeline; those of hetg-optimizer.
struct TrainStepPipelineOptions
    : mlir::PassPipelineOptions<TrainStepPipelineOptions> {
  Option<std::string> optimizer{*this, "optimizer",
                                llvm::cl::desc("adamw or sgd"),
                                llvm::cl::init("adamw")};
  Option<double> lr{*this, "lr", llvm::cl::desc("Learning rate"),
                    llvm::cl::init(1e-3)};
  Option<double> weightDecay{
      *this, "weight-decay",
      llvm::cl::desc("Weight decay for parameters of rank >= 2"),
      llvm::cl::init(0.0)};
  Option<double> beta1{*this, "beta1", llvm::cl::desc("AdamW beta1"),
                       llvm::cl::init(0.9)};
  Option<double> beta2{*this, "beta2", llvm::cl::desc("AdamW beta2"),
                       llvm::cl::init(0.999)};
  Option<double> eps{*this, "eps", llvm::cl::desc("AdamW epsilon"),
                     llvm::cl::init(1e-8)};
  Option<double> clipNorm{
      *this, "clip-norm",
      llvm::cl::desc("Clip the global gradient norm (0: no clipping)"),
      llvm::cl::init(0.0)};
};

/// Loss, gradients and optimizer update: a static forward graph (the
/// output of hetg-simplify) to one training step.
void buildTrainStepPipeline(mlir::OpPassManager &pm,
                            const TrainStepPipelineOptions &options);

/// Registers every pass and pipeline with the global registry.
void registerAllPasses();

/// Adds every dialect hetc's IR uses: hetg, hetx and the upstream ones they
/// live among (func, ml_program, tensor).
void registerAllDialects(mlir::DialectRegistry &registry);

} // namespace hetc

#endif // HETC_PASSES_PASSES_H
