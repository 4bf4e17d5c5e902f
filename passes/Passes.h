//===- Passes.h - hetc passes and pipelines -------------------------------===//

#ifndef HETC_PASSES_PASSES_H
#define HETC_PASSES_PASSES_H

#include "dialects/HetDist/HetDist.h"
#include "dialects/HetExec/HetExec.h"
#include "dialects/HetGraph/HetGraph.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

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

/// The update's options (those of hetg-optimizer), for the pipelines that
/// end in one.
template <typename Derived>
struct UpdatePipelineOptions : mlir::PassPipelineOptions<Derived> {
  template <typename T>
  using Option = typename mlir::PassPipelineOptions<Derived>::template Option<T>;
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

  Option<std::string> lrSchedule{
      *this, "lr-schedule",
      llvm::cl::desc("Learning-rate schedule after the warmup: constant, "
                     "cosine or linear"),
      llvm::cl::init("constant")};
  Option<int64_t> warmupSteps{*this, "warmup-steps",
                              llvm::cl::desc("Steps of linear warmup"),
                              llvm::cl::init(0)};
  Option<int64_t> decaySteps{
      *this, "decay-steps",
      llvm::cl::desc("The step at which the decay reaches min-lr"),
      llvm::cl::init(0)};
  Option<double> minLr{*this, "min-lr",
                       llvm::cl::desc("The learning rate after the decay"),
                       llvm::cl::init(0.0)};

  /// These options as those of a pass with the update options
  /// (hetg-optimizer, hetd-build-ranks).
  template <typename PassOptions = HetgOptimizerOptions>
  PassOptions update() const {
    PassOptions pass;
    pass.optimizer = optimizer;
    pass.lr = lr;
    pass.weightDecay = weightDecay;
    pass.beta1 = beta1;
    pass.beta2 = beta2;
    pass.eps = eps;
    pass.clipNorm = clipNorm;
    pass.lrSchedule = lrSchedule;
    pass.warmupSteps = warmupSteps;
    pass.decaySteps = decaySteps;
    pass.minLr = minLr;
    return pass;
  }
};

/// Options of the training-step pipeline; those of hetg-optimizer.
struct TrainStepPipelineOptions
    : UpdatePipelineOptions<TrainStepPipelineOptions> {};

/// Loss, gradients and optimizer update: a static forward graph (the
/// output of hetg-simplify) to one training step.
void buildTrainStepPipeline(mlir::OpPassManager &pm,
                            const TrainStepPipelineOptions &options);

/// The model's step up to its gradients: what single-device compiles and
/// each micro-batch size of a plan share.
struct GradientStepOptions {
  int64_t batch = 0, seq = 0;
  /// Tokens the summed loss is divided by; 0: batch * seq (a plain mean).
  int64_t lossTokens = 0;
  /// Segment the forward graph (hetg-segment) even without recomputation.
  bool segment = false;
  /// Segments whose activations are recomputed (hetg-recompute).
  llvm::SmallVector<int64_t> recompute;
  bool recomputeAll = false;
  /// What the float ops compute in (hetg-mixed-precision): f32, bf16 or
  /// f16, overridden per segment by `segmentPrecision` (a plan's stages).
  std::string precision = "f32";
  llvm::SmallVector<std::string> segmentPrecision;
};

/// hetg-simplify, hetg-attach-loss, then (as the options say) hetg-segment
/// and hetg-mixed-precision, hetg-autodiff and cse, and hetg-recompute: the
/// function returns the loss and one gradient per parameter.
void buildGradientStepPipeline(mlir::OpPassManager &pm,
                               const GradientStepOptions &options);

/// What `hetc compile` does, as pipeline options.
struct CompilePipelineOptions
    : UpdatePipelineOptions<CompilePipelineOptions> {
  Option<int64_t> globalBatch{*this, "global-batch",
                              llvm::cl::desc("Samples per training step")};
  Option<int64_t> seq{*this, "seq", llvm::cl::desc("Tokens per sample")};
  ListOption<int64_t> recompute{
      *this, "recompute",
      llvm::cl::desc("Segments whose activations are recomputed")};
  Option<bool> recomputeAll{*this, "recompute-all",
                            llvm::cl::desc("Recompute every segment"),
                            llvm::cl::init(false)};
  Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("What the float ops compute in: f32, bf16 or f16 (a "
                     "plan's stages may name their own)"),
      llvm::cl::init("f32")};
  Option<bool> untieWeights{
      *this, "untie-weights",
      llvm::cl::desc("Give every use of a shared weight its own parameter"),
      llvm::cl::init(false)};
  Option<bool> forwardOnly{
      *this, "forward-only",
      llvm::cl::desc("The forward pass with the loss, returning the logits "
                     "too; no gradients or update"),
      llvm::cl::init(false)};
  Option<bool> evaluation{
      *this, "eval",
      llvm::cl::desc("Add each rank's forward-only evaluation program "
                     "(hetg-eval-step, hetd-build-ranks' eval), for "
                     "validation"),
      llvm::cl::init(true)};
  Option<std::string> plan{
      *this, "plan", llvm::cl::desc("Distribute over this plan JSON file")};
  Option<bool> modulePlan{
      *this, "module-plan",
      llvm::cl::desc("Distribute over the plan in the module's hetd.plan "
                     "attribute"),
      llvm::cl::init(false)};
  Option<int64_t> devices{
      *this, "devices",
      llvm::cl::desc("Without a plan: data parallelism over N devices"),
      llvm::cl::init(1)};
  Option<std::string> emit{
      *this, "emit",
      llvm::cl::desc("Where to stop: hetg (the train step, or the stage "
                     "functions of a plan), hetd (the rank functions) or "
                     "hetx (the programs)"),
      llvm::cl::init("hetx")};

  /// Whether the step is distributed over a plan.
  bool distributed() const {
    return !plan.empty() || modulePlan || devices > 1;
  }
};

/// The whole compile of an imported model, up to the package writer:
/// `hetc-opt --hetc-compile="..."` runs what `hetc compile` runs.
void buildCompilePipeline(mlir::OpPassManager &pm,
                          const CompilePipelineOptions &options);

/// Registers every pass and pipeline with the global registry.
void registerAllPasses();

/// Adds every dialect hetc's IR uses: hetg, hetx and the upstream ones they
/// live among (func, ml_program, tensor).
void registerAllDialects(mlir::DialectRegistry &registry);

} // namespace hetc

#endif // HETC_PASSES_PASSES_H
