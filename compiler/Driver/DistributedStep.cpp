//===- DistributedStep.cpp - a training step split over a plan ------------===//

#include "compiler/Driver/DistributedStep.h"

#include "compiler/Driver/TrainStep.h"
#include "dialects/HetDist/HetDist.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLExtras.h"

#include <set>

using namespace mlir;

namespace hetc::driver {

/// `--recompute` joined with the segments of the plan's recompute stages.
static std::string recomputeList(const planner::Plan &plan,
                                 llvm::StringRef flag) {
  if (flag == "all")
    return "all";
  std::string list = flag == "none" ? "" : flag.str();
  for (const planner::Stage &stage : plan.stages)
    if (stage.recompute)
      for (int64_t s = stage.firstSegment; s < stage.endSegment; ++s)
        list += (list.empty() ? "" : ",") + std::to_string(s);
  return list.empty() ? "none" : list;
}

/// hetg-mixed-precision's options for the plan's stages: one precision
/// when they agree, else each stage's for its segments.
static void choosePrecision(const planner::Plan &plan,
                            GradientStepOptions &gradient) {
  auto of = [](const planner::Stage &stage) {
    return planner::precisionName(
               stage.precision.value_or(planner::Precision::F32))
        .str();
  };
  gradient.precision = of(plan.stages.front());
  if (llvm::all_of(plan.stages, [&](const planner::Stage &stage) {
        return of(stage) == gradient.precision;
      }))
    return;
  for (const planner::Stage &stage : plan.stages)
    for (int64_t s = stage.firstSegment; s < stage.endSegment; ++s)
      gradient.segmentPrecision.push_back(of(stage));
}

/// hetd-partition-stages' `stage-starts` for the plan.
static std::string stageStarts(const planner::Plan &plan) {
  std::string starts;
  for (size_t s = 1; s < plan.stages.size(); ++s)
    starts += (s > 1 ? "," : "") + std::to_string(plan.stages[s].firstSegment);
  return starts;
}

FailureOr<OwningOpRef<ModuleOp>>
buildRankSteps(ModuleOp imported, DistributedStepOptions &options,
               llvm::function_ref<void(const Twine &)> progress) {
  planner::Plan &plan = options.plan;
  std::set<int64_t> microBatches;
  for (const planner::Stage &stage : plan.stages)
    for (const planner::Replica &replica : stage.replicas)
      microBatches.insert(replica.microBatch);

  OwningOpRef<ModuleOp> result;
  for (int64_t microBatch : microBatches) {
    progress("micro-batch of " + Twine(microBatch) + ":");
    OwningOpRef<ModuleOp> step = imported.clone();
    GradientStepOptions gradient;
    gradient.batch = microBatch;
    gradient.seq = options.seq;
    gradient.lossTokens = options.globalBatch * options.seq;
    gradient.segment = true;
    gradient.recompute = recomputeList(plan, options.recompute);
    choosePrecision(plan, gradient);
    if (failed(buildGradientStep(*step, gradient, progress)))
      return failure();

    int64_t segments = countSegments(*step);
    if (!result) {
      // A plan made without the model (--devices) learns its segments now.
      if (plan.stages.size() == 1 && plan.stages[0].endSegment == 0)
        plan.stages[0].endSegment = segments;
      if (llvm::Error error =
              planner::validatePlan(plan, options.globalBatch, segments)) {
        return imported.emitError("the plan does not fit this model and "
                                  "batch:\n")
               << llvm::toString(std::move(error));
      }
    }
    progress("partition into " + Twine(plan.stages.size()) + " stages");
    if (failed(runPipeline(*step, "hetd-partition-stages{stage-starts=" +
                                      stageStarts(plan) + "}")))
      return failure();
    if (!result) {
      result = std::move(step);
      continue;
    }
    // The globals are the same in every copy: keep the stage functions.
    for (auto func :
         llvm::make_early_inc_range(step->getOps<func::FuncOp>())) {
      func->remove();
      result->push_back(func);
    }
  }

  (*result)->setAttr(hetd::kPlanAttr,
                     StringAttr::get(imported.getContext(),
                                     planner::printPlan(plan)));
  progress("build " + Twine(plan.numRanks()) + " rank programs from the " +
           "schedule, then inline the stages");
  if (failed(runPipeline(*result, "hetd-build-ranks{" + options.updateOptions +
                                      "},inline,symbol-dce,canonicalize,cse")))
    return failure();
  return result;
}

} // namespace hetc::driver
