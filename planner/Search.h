//===- Search.h - choosing a plan for a cluster -----------------*- C++ -*-===//
//
// The planner chooses, together: the number of stages; which devices form
// each stage (counts and kinds may differ; link-aware, so slow links fall
// between stages rather than inside a data-parallel group); the layer split;
// each replica's batch share and micro-batch size; the state shard fractions
// by free memory; recompute and optimizer offload per stage. It maximizes the
// simulated tokens/s subject to every device's memory. Baseline strategies
// build one plan each the way other systems would, for comparison.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PLANNER_SEARCH_H
#define HETC_PLANNER_SEARCH_H

#include "planner/Simulator.h"

#include "llvm/ADT/ArrayRef.h"

#include <optional>

namespace hetc::planner {

enum class Strategy {
  Search,             // hetc's planner
  Uniform,            // even stages, equal batches (Megatron-like)
  DataParallelUneven, // one stage, compute-proportional batches,
                      // memory-proportional shards (Cephalo-like)
  StagesProportional, // compute-proportional asymmetric stages, even shards
                      // (Zorse-like)
};

/// Every strategy, hetc's search first and then the baselines it also
/// tries (a new strategy is added here and in strategyName).
inline constexpr Strategy kStrategies[] = {
    Strategy::Search, Strategy::Uniform, Strategy::DataParallelUneven,
    Strategy::StagesProportional};
inline llvm::ArrayRef<Strategy> baselineStrategies() {
  return llvm::ArrayRef<Strategy>(kStrategies).drop_front();
}

llvm::StringRef strategyName(Strategy strategy); // "search", "uniform", ...
std::optional<Strategy> parseStrategy(llvm::StringRef name);

struct PlanRequest {
  int64_t globalBatch = 0;
  /// Let the search recompute activations per stage to fit memory.
  bool allowRecompute = true;
  /// Let the search keep a stage's optimizer state in host memory, and
  /// update it there, to fit device memory.
  bool allowOffload = true;
  /// Fraction of each device's memory the plan may use (the rest is for the
  /// runtime and fragmentation).
  double memoryFraction = 0.9;
  /// What of a stage's state its replicas shard. Unset, the search tries
  /// both and the baselines shard the optimizer state, as the systems they
  /// stand for do.
  std::optional<ShardingKind> sharding;
};

struct PlanResult {
  Plan plan;
  SimulationResult predicted;
};

/// The best plan `strategy` finds. Without a feasible plan the error says
/// why: which device lacks how many bytes in the closest candidate.
llvm::Expected<PlanResult> choosePlan(const Cluster &cluster,
                                      const CostModel &cost,
                                      const PlanRequest &request,
                                      Strategy strategy = Strategy::Search);

/// Every plan of the search space (small clusters only: tests compare the
/// search with it).
llvm::Expected<PlanResult> exhaustivePlan(const Cluster &cluster,
                                          const CostModel &cost,
                                          const PlanRequest &request);

} // namespace hetc::planner

#endif // HETC_PLANNER_SEARCH_H
