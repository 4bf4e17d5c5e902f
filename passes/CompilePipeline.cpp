//===- CompilePipeline.cpp - everything hetc compile runs -----------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace hetc {

void buildCompilePipeline(OpPassManager &pm,
                          const CompilePipelineOptions &options) {
  if (options.untieWeights)
    pm.addPass(createHetgUntieParameters());
  if (options.distributed()) {
    HetdMicroBatchStepsOptions steps;
    steps.planFile = options.plan;
    steps.devices = options.devices;
    steps.globalBatch = options.globalBatch;
    steps.seq = options.seq;
    steps.recompute.assign(options.recompute.begin(), options.recompute.end());
    steps.recomputeAll = options.recomputeAll;
    steps.precision = options.precision;
    pm.addPass(createHetdMicroBatchSteps(steps));
    if (options.emit == "hetg")
      return;
    // The plan, checked against the model, is now the module's hetd.plan.
    HetdBuildRanksOptions ranks = options.update<HetdBuildRanksOptions>();
    ranks.evaluation = options.evaluation;
    pm.addPass(createHetdBuildRanks(ranks));
    pm.addPass(createInlinerPass());
    pm.addPass(createSymbolDCEPass());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    pm.addNestedPass<func::FuncOp>(createHetdScheduleCollectives());
    if (options.emit == "hetd")
      return;
  } else if (options.forwardOnly) {
    SimplifyPipelineOptions simplify;
    simplify.batch = options.globalBatch;
    simplify.seq = options.seq;
    buildSimplifyPipeline(pm, simplify);
    pm.addPass(createHetgAttachLoss({0, /*keepLogits=*/true}));
    if (options.precision != "f32")
      pm.addPass(createHetgMixedPrecision({options.precision, {}}));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    if (options.emit != "hetx")
      return;
  } else {
    GradientStepOptions step;
    step.batch = options.globalBatch;
    step.seq = options.seq;
    step.recompute.assign(options.recompute.begin(), options.recompute.end());
    step.recomputeAll = options.recomputeAll;
    step.precision = options.precision;
    buildGradientStepPipeline(pm, step);
    pm.addPass(createHetgOptimizer(options.update()));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    if (options.evaluation)
      pm.addPass(createHetgEvalStep());
    // One device has no rank functions: hetd is the train step too.
    if (options.emit != "hetx")
      return;
  }
  pm.addPass(createHetxLowerToProgram());
}

} // namespace hetc
