//===- Pipelines.cpp - hetc pass pipelines --------------------------------===//

#include "passes/Passes.h"

#include "dialects/HetDist/HetDist.h"
#include "dialects/HetExec/HetExec.h"

#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace hetc {

void buildSimplifyPipeline(OpPassManager &pm,
                           const SimplifyPipelineOptions &options) {
  pm.addPass(createHetgSpecialize({options.batch, options.seq}));
  pm.addPass(createCanonicalizerPass());
  // Activations and norms first: attention matching looks through neither.
  pm.addPass(createHetgFuseNorms());
  pm.addPass(createHetgFuseActivations());
  pm.addPass(createHetgFuseMatmulBias());
  pm.addPass(createHetgFuseAttention());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createSymbolDCEPass());
}

void buildTrainStepPipeline(OpPassManager &pm,
                            const TrainStepPipelineOptions &options) {
  pm.addPass(createHetgAttachLoss());
  pm.addPass(createHetgAutodiff());
  pm.addPass(createHetgOptimizer(options.update()));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void buildGradientStepPipeline(OpPassManager &pm,
                               const GradientStepOptions &options) {
  SimplifyPipelineOptions simplify;
  simplify.batch = options.batch;
  simplify.seq = options.seq;
  buildSimplifyPipeline(pm, simplify);
  pm.addPass(createHetgAttachLoss({options.lossTokens, false}));
  bool recompute = options.recomputeAll || !options.recompute.empty();
  if (recompute || options.segment)
    pm.addPass(createHetgSegment({options.recompute, options.recomputeAll}));
  auto isF32 = [](StringRef type) { return type == "f32"; };
  if (!isF32(options.precision) ||
      !llvm::all_of(options.segmentPrecision, isF32)) {
    HetgMixedPrecisionOptions precision;
    precision.precision = options.precision;
    precision.segmentPrecision = options.segmentPrecision;
    pm.addPass(createHetgMixedPrecision(precision));
  }
  pm.addPass(createHetgAutodiff());
  pm.addPass(createCSEPass());
  if (recompute)
    pm.addPass(createHetgRecompute());
}

void registerAllPasses() {
  registerHetcPasses();
  PassPipelineRegistration<SimplifyPipelineOptions>(
      "hetg-simplify",
      "Specialize shapes, fold shape arithmetic and fuse transformer ops",
      buildSimplifyPipeline);
  PassPipelineRegistration<TrainStepPipelineOptions>(
      "hetg-train-step",
      "Attach the loss, differentiate it and update the parameters",
      buildTrainStepPipeline);
  PassPipelineRegistration<CompilePipelineOptions>(
      "hetc-compile",
      "Everything hetc compile runs, from an imported model to hetx programs",
      buildCompilePipeline);
}

void registerAllDialects(DialectRegistry &registry) {
  registry.insert<hetg::HetGraphDialect, hetd::HetDistDialect,
                  hetx::HetExecDialect, func::FuncDialect,
                  ml_program::MLProgramDialect, tensor::TensorDialect>();
  func::registerInlinerExtension(registry);
}

} // namespace hetc
