//===- MicroBatchSteps.cpp - one partitioned step per micro-batch size ----===//
//
// A plan's replicas process micro-batches of their own sizes, so the step is
// built once per size (each a share of the global batch's mean loss) and
// partitioned into the plan's stages. Each size is built in a nested copy of
// the model by a dynamic pipeline; the first copy's globals and functions
// then replace the model (its passes may add globals), and the later copies
// contribute their stage functions.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "planner/Plan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"

#include <set>

namespace hetc {
#define GEN_PASS_DEF_HETDMICROBATCHSTEPS
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;

namespace {

/// The most segments hetg-segment found in any function of `module`.
int64_t countSegments(ModuleOp module) {
  int64_t count = 0;
  for (auto func : module.getOps<func::FuncOp>())
    if (auto segments = func->getAttrOfType<ArrayAttr>("hetg.segments"))
      count = std::max<int64_t>(count, segments.size());
  return count;
}

/// hetd-partition-stages' stage starts for the plan.
SmallVector<int64_t> stageStarts(const planner::Plan &plan) {
  SmallVector<int64_t> starts;
  for (size_t s = 1; s < plan.stages.size(); ++s)
    starts.push_back(plan.stages[s].firstSegment);
  return starts;
}

struct HetdMicroBatchStepsPass
    : hetc::impl::HetdMicroBatchStepsBase<HetdMicroBatchStepsPass> {
  using HetdMicroBatchStepsBase::HetdMicroBatchStepsBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    HetdMicroBatchStepsBase::getDependentDialects(registry);
    OpPassManager pm(ModuleOp::getOperationName());
    buildGradientStepPipeline(pm, GradientStepOptions());
    pm.addPass(createHetdPartitionStages());
    pm.getDependentDialects(registry);
  }

  FailureOr<planner::Plan> loadPlan(ModuleOp module) {
    llvm::Expected<planner::Plan> plan = [&]() -> llvm::Expected<planner::Plan> {
      if (!planFile.empty())
        return planner::readPlanFile(planFile);
      if (auto json = module->getAttrOfType<StringAttr>(hetd::kPlanAttr))
        return planner::parsePlan(json.getValue());
      return planner::dataParallelPlan(devices, globalBatch, 0);
    }();
    if (!plan) {
      module.emitError(llvm::toString(plan.takeError()));
      return failure();
    }
    return std::move(*plan);
  }

  /// The gradient step of one micro-batch size: the plan's recompute
  /// stages and precisions (every stage has one), a share of the global
  /// batch's mean loss.
  GradientStepOptions stepOptions(const planner::Plan &plan,
                                  int64_t microBatch) {
    GradientStepOptions step;
    step.batch = microBatch;
    step.seq = seq;
    step.lossTokens = globalBatch * seq;
    step.segment = true;
    step.recomputeAll = recomputeAll;
    step.recompute.assign(recompute.begin(), recompute.end());
    for (const planner::Stage &stage : plan.stages)
      if (stage.recompute)
        for (int64_t s = stage.firstSegment; s < stage.endSegment; ++s)
          step.recompute.push_back(s);
    auto of = [&](const planner::Stage &stage) {
      return planner::precisionName(*stage.precision).str();
    };
    // One precision when the stages agree, else each stage's for its
    // segments.
    step.precision = of(plan.stages.front());
    if (!llvm::all_of(plan.stages, [&](const planner::Stage &stage) {
          return of(stage) == step.precision;
        }))
      for (const planner::Stage &stage : plan.stages)
        for (int64_t s = stage.firstSegment; s < stage.endSegment; ++s)
          step.segmentPrecision.push_back(of(stage));
    return step;
  }

  /// A copy of the module's own ops (not the nested steps) in `nested`.
  static void copyModel(ModuleOp module, ModuleOp nested) {
    OpBuilder builder = OpBuilder::atBlockEnd(nested.getBody());
    for (Operation &op : module.getBody()->getOperations())
      if (!llvm::isa<ModuleOp>(op))
        builder.clone(op);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<planner::Plan> plan = loadPlan(module);
    if (failed(plan))
      return signalPassFailure();
    if (plan->stages.empty()) {
      module.emitError("the plan has no stages");
      return signalPassFailure();
    }
    std::optional<planner::Precision> fallback =
        planner::parsePrecision(precision);
    if (!fallback) {
      module.emitError("precision '")
          << precision << "' is not f32, bf16 or f16";
      return signalPassFailure();
    }
    std::set<int64_t> microBatches;
    for (planner::Stage &stage : plan->stages) {
      stage.precision = stage.precision.value_or(*fallback);
      for (const planner::Replica &replica : stage.replicas)
        microBatches.insert(replica.microBatch);
    }

    SmallVector<ModuleOp> steps;
    for (int64_t microBatch : microBatches) {
      GradientStepOptions options = stepOptions(*plan, microBatch);
      OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
      auto nested = ModuleOp::create(builder, module.getLoc());
      copyModel(module, nested);
      steps.push_back(nested);
      OpPassManager step(ModuleOp::getOperationName());
      buildGradientStepPipeline(step, options);
      if (failed(runPipeline(step, nested)))
        return signalPassFailure();

      if (steps.size() == 1) {
        int64_t segments = countSegments(nested);
        // A plan made without the model (data parallelism) learns its
        // segments now.
        if (plan->stages.size() == 1 && plan->stages[0].endSegment == 0)
          plan->stages[0].endSegment = segments;
        if (llvm::Error error =
                planner::validatePlan(*plan, globalBatch, segments)) {
          module.emitError("the plan does not fit this model and batch:\n")
              << llvm::toString(std::move(error));
          return signalPassFailure();
        }
      }
      OpPassManager partition(ModuleOp::getOperationName());
      partition.addPass(createHetdPartitionStages({stageStarts(*plan)}));
      if (failed(runPipeline(partition, nested)))
        return signalPassFailure();
    }

    // The first step's globals and functions replace the model; the others
    // add their stage functions.
    for (Operation &op :
         llvm::make_early_inc_range(module.getBody()->getOperations()))
      if (!llvm::isa<ModuleOp>(op))
        op.erase();
    for (auto [index, nested] : llvm::enumerate(steps)) {
      for (Operation &op :
           llvm::make_early_inc_range(nested.getBody()->getOperations()))
        if (index == 0 || llvm::isa<func::FuncOp>(op))
          op.moveBefore(module.getBody(), module.getBody()->end());
      nested.erase();
    }
    module->setAttr(hetd::kPlanAttr, StringAttr::get(module.getContext(),
                                                     planner::printPlan(*plan)));
  }
};

} // namespace
