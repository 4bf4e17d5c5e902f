//===- ClusterPlanning.h - planning a model for a cluster -------*- C++ -*-===//
//
// `hetc plan` and `hetc compile --cluster` both profile the model (its
// segments at one sample) and ask the planner for a plan on the cluster.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_DRIVER_CLUSTERPLANNING_H
#define HETC_COMPILER_DRIVER_CLUSTERPLANNING_H

#include "compiler/Driver/DeviceMemory.h"
#include "planner/Search.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/CommandLine.h"

namespace hetc::driver {

/// What planning needs to know of the model and the step.
struct PlanningInput {
  planner::Cluster cluster;
  planner::ModelProfile profile;
  planner::PlanRequest request;
  /// What `--profile` files measured, merged; none without them.
  std::optional<planner::MeasuredProfile> measured;

  /// The cost model of the cluster and the model, timed by the measured
  /// profile where it covers a call.
  planner::CostModel costModel(planner::PrecisionChoice precision) const;
};

/// Profiles a copy of the imported `module` at one sample of `seq` tokens,
/// reads the cluster file and the measured profiles `measuredPaths` (`hetc
/// measure`'s output; each must be of a model of the same segments at
/// `seq`).
mlir::FailureOr<PlanningInput>
preparePlanning(mlir::ModuleOp module, llvm::StringRef modelName,
                llvm::StringRef clusterPath, int64_t globalBatch, int64_t seq,
                bool adamw, llvm::ArrayRef<std::string> measuredPaths);

/// Every device's memory, as `--device-memory DEVICE=SIZE,...` would say.
DeviceMemorySpec memoryOf(const planner::Cluster &cluster);

/// `--optimizer` of hetc compile and hetc plan.
enum class OptimizerFlag { sgd, adamw };
llvm::cl::ValuesClass optimizerFlagValues();
llvm::StringRef optimizerName(OptimizerFlag optimizer);

/// `--sharding` of hetc compile and hetc plan: auto lets the search choose.
enum class ShardingFlag { automatic, optimizer, full };
llvm::cl::ValuesClass shardingFlagValues();
std::optional<planner::ShardingKind> shardingChoice(ShardingFlag flag);

/// `--precision` of hetc compile and hetc plan: auto is a choice of
/// nullopt (per stage, from the cluster's GPUs).
enum class PrecisionFlag { f32, bf16, f16, automatic };
llvm::cl::ValuesClass precisionFlagValues();
planner::PrecisionChoice precisionChoice(PrecisionFlag flag);

/// Gives every stage of `plan` that has no precision the one `choice`
/// says; auto picks bf16 where every device of the stage has it and f16
/// otherwise, from `cluster`'s GPUs, or bf16 without a cluster.
void assignPrecision(planner::Plan &plan, planner::PrecisionChoice choice,
                     const planner::Cluster *cluster);

} // namespace hetc::driver

#endif // HETC_COMPILER_DRIVER_CLUSTERPLANNING_H
