//===- DistributedStep.h - a training step split over a plan ----*- C++ -*-===//
//
// A plan's replicas process micro-batches of their own sizes, so the step is
// built once per micro-batch size (each a share of the global batch's mean
// loss), partitioned into the plan's stages, and then assembled into one
// function per rank in the order of the plan's schedule.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_DRIVER_DISTRIBUTEDSTEP_H
#define HETC_COMPILER_DRIVER_DISTRIBUTEDSTEP_H

#include "planner/Plan.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace hetc::driver {

struct DistributedStepOptions {
  int64_t globalBatch = 0, seq = 0;
  /// The plan; a data-parallel plan's segment range is completed once the
  /// model is segmented.
  planner::Plan plan;
  /// `--recompute` of every micro-batch step.
  std::string recompute = "none";
  /// The options of hetd-build-ranks' update: "optimizer=adamw lr=...".
  std::string updateOptions;
};

/// Builds the rank functions of `imported` (left untouched) for the plan,
/// after checking the plan against the model's segments. The plan in
/// `options` is updated to what was compiled.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
buildRankSteps(mlir::ModuleOp imported, DistributedStepOptions &options,
               llvm::function_ref<void(const llvm::Twine &)> progress);

} // namespace hetc::driver

#endif // HETC_COMPILER_DRIVER_DISTRIBUTEDSTEP_H
