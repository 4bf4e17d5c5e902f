//===- Search.cpp - choosing a plan for a cluster -------------------------===//
//
// The search: for a few device orders (SearchSpace.h), cut the order into
// units and let the stage split pick which runs of devices form the stages
// and which segments each computes; build each layout with a few
// micro-batch counts, share rules and schedules; judge the candidates the
// analytical estimate ranks best, with every baseline's, by simulation; then
// improve the best few by local moves the simulator judges.
//
//===----------------------------------------------------------------------===//

#include "planner/SearchSpace.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

namespace hetc::planner {

llvm::StringRef strategyName(Strategy strategy) {
  switch (strategy) {
  case Strategy::Search:
    return "search";
  case Strategy::Uniform:
    return "uniform";
  case Strategy::DataParallelUneven:
    return "dp-uneven";
  case Strategy::StagesProportional:
    return "stages-proportional";
  }
  llvm_unreachable("unknown strategy");
}

std::optional<Strategy> parseStrategy(llvm::StringRef name) {
  for (Strategy strategy : kStrategies)
    if (name == strategyName(strategy))
      return strategy;
  return std::nullopt;
}

namespace {

/// Units the stage split cuts between: its cost grows with their square.
constexpr size_t kMaxUnits = 32;
/// Device orders tried (the datacenter, node-kind and GPU-type orders):
/// as many as keep the stage splits' work at that of 8 orders of the most
/// units.
constexpr size_t kOrderBudget = 8 * kMaxUnits * kMaxUnits;
size_t maxOrders(const Cluster &cluster) {
  size_t units = std::min(cluster.devices.size(), kMaxUnits);
  return kOrderBudget / (units * units);
}
constexpr int64_t kMaxStages = 16;
/// Candidates judged (simulated where small enough), best estimates first,
/// and the simulation work they may take: the search's own, each
/// baseline's, and each round of local moves.
constexpr size_t kJudgedCandidates = 24;
constexpr size_t kJudgedBaselineCandidates = 8;
constexpr size_t kJudgedNeighbours = 32;
constexpr double kSimulationBudget = 2e9;
constexpr int kMaxRefineRounds = 24;
/// Single samples move between the replicas of stages up to this size.
constexpr size_t kMaxReplicasForSampleMoves = 16;

/// The candidates of one layout under `sharding`: each micro-batch count;
/// pipelines-aligned shares where every stage has as many replicas; GPipe
/// where the sample ranges of adjacent stages differ. Without replicas
/// the shardings are alike: the search's own choice is then optimizer.
void addVariants(const CandidateBuilder &builder, const StageLayout &layout,
                 ShardingKind sharding, std::vector<Candidate> &candidates) {
  size_t fewest = layout.front().devices.size(), most = fewest;
  for (const StageDevices &stage : layout) {
    fewest = std::min(fewest, stage.devices.size());
    most = std::max(most, stage.devices.size());
  }
  if (most == 1)
    sharding = builder.request().sharding.value_or(ShardingKind::Optimizer);
  std::vector<ShareRule> rules = {ShareRule::Throughput};
  if (fewest == most && layout.size() > 1 && fewest > 1)
    rules.push_back(ShareRule::Pipelines);
  for (ShareRule rule : rules)
    addCandidates(builder, layout,
                  {rule, ShardRule::Balanced, 1,
                   ScheduleKind::OneForwardOneBackward, sharding},
                  /*gpipeWhereUneven=*/true, candidates);
}

/// Whether optimizer sharding leaves `layout` short of memory: without
/// fitting, or with recompute or optimizer offload on a stage. Elsewhere
/// full sharding only adds collectives around every call.
bool needsFullSharding(const CandidateBuilder &builder,
                       const StageLayout &layout) {
  std::optional<Candidate> candidate = builder.build(layout, {});
  return candidate &&
         (!candidate->fits() ||
          llvm::any_of(candidate->plan.stages, [](const Stage &stage) {
            return stage.recompute || stage.offloadOptimizer;
          }));
}

/// Layouts of both shardings: full sharding fits larger groups of devices
/// where optimizer sharding needs deeper pipelines. A full-sharding layout
/// is built only where optimizer sharding is short of memory on it (with
/// auto sharding); local moves still try full sharding on the best.
std::vector<Candidate> searchCandidates(const CandidateBuilder &builder,
                                        const Cluster &cluster) {
  std::vector<Candidate> candidates;
  std::optional<ShardingKind> only = builder.request().sharding;
  std::vector<std::vector<int>> orders =
      deviceOrders(cluster, maxOrders(cluster));
  // A tie between the first and last segments is cheapest inside a node.
  if (!builder.cost().profile().sharedParameters.empty())
    for (size_t i = 0, count = orders.size(); i < count; ++i)
      if (std::vector<int> wrapped = wrappedOrder(cluster, orders[i]);
          !wrapped.empty() && !llvm::is_contained(orders, wrapped))
        orders.push_back(std::move(wrapped));
  for (const std::vector<int> &order : orders) {
    std::vector<std::vector<int>> units =
        splitIntoUnits(cluster, order, kMaxUnits);
    for (ShardingKind sharding : {ShardingKind::Optimizer, ShardingKind::Full})
      if (only.value_or(sharding) == sharding)
        for (const StageLayout &layout :
             splitStages(builder.cost(), builder.request(), units, kMaxStages,
                         sharding))
          if (sharding == ShardingKind::Optimizer || only ||
              needsFullSharding(builder, layout))
            addVariants(builder, layout, sharding, candidates);
  }
  return candidates;
}

/// Candidates one move away: a stage boundary moved by up to three
/// segments, a device across a boundary, another micro-batch count, share
/// rule, schedule or sharding, one sample from one replica to another (one
/// per micro-batch in lockstep), one replica's micro-batch to the next
/// divisor (not in lockstep: the count stays the stage's).
std::vector<Candidate> neighbours(const CandidateBuilder &builder,
                                  const Candidate &from) {
  std::vector<Candidate> result;
  StageLayout layout = from.layout();
  auto rebuild = [&](const StageLayout &moved, CandidateOptions options) {
    if (std::optional<Candidate> candidate = builder.build(moved, options))
      result.push_back(std::move(*candidate));
  };
  for (size_t s = 0; s + 1 < layout.size(); ++s) {
    for (int64_t shift : {-3, -2, -1, 1, 2, 3}) {
      StageLayout moved = layout;
      moved[s].endSegment += shift;
      moved[s + 1].firstSegment += shift;
      if (moved[s].endSegment > moved[s].firstSegment &&
          moved[s + 1].endSegment > moved[s + 1].firstSegment)
        rebuild(moved, from.options);
    }
    if (layout[s].devices.size() > 1) {
      StageLayout moved = layout;
      moved[s + 1].devices.insert(moved[s + 1].devices.begin(),
                                  moved[s].devices.back());
      moved[s].devices.pop_back();
      rebuild(moved, from.options);
    }
    if (layout[s + 1].devices.size() > 1) {
      StageLayout moved = layout;
      moved[s].devices.push_back(moved[s + 1].devices.front());
      moved[s + 1].devices.erase(moved[s + 1].devices.begin());
      rebuild(moved, from.options);
    }
  }
  int64_t target = from.options.microBatches;
  for (int64_t other : {target / 2, target * 2, target + 1, target - 1})
    if (other >= 1 && other != target) {
      CandidateOptions options = from.options;
      options.microBatches = other;
      rebuild(layout, options);
    }
  CandidateOptions options = from.options;
  options.schedule = from.options.schedule == ScheduleKind::GPipe
                         ? ScheduleKind::OneForwardOneBackward
                         : ScheduleKind::GPipe;
  rebuild(layout, options);
  options = from.options;
  options.shares = from.options.shares == ShareRule::Pipelines
                       ? ShareRule::Throughput
                       : ShareRule::Pipelines;
  rebuild(layout, options);
  if (!builder.request().sharding) {
    options = from.options;
    options.sharding = from.options.sharding == ShardingKind::Full
                           ? ShardingKind::Optimizer
                           : ShardingKind::Full;
    rebuild(layout, options);
  }

  auto edited = [&](auto edit) {
    Candidate candidate = from;
    edit(candidate.plan);
    builder.finish(candidate);
    result.push_back(std::move(candidate));
  };
  for (size_t s = 0; s < from.plan.stages.size(); ++s) {
    const Stage &stage = from.plan.stages[s];
    size_t replicas = stage.replicas.size();
    if (replicas > kMaxReplicasForSampleMoves)
      continue;
    bool lockstep = inLockstep(from.plan, s);
    for (size_t i = 0; i < replicas; ++i) {
      const Replica &replica = stage.replicas[i];
      int64_t samples = replica.numSamples;
      int64_t moved = lockstep ? replica.numMicroBatches() : 1;
      for (size_t j = 0; j < replicas; ++j)
        if (j != i && samples > moved)
          edited([&](Plan &plan) {
            std::vector<Replica> &pair = plan.stages[s].replicas;
            pair[i].numSamples -= moved;
            pair[j].numSamples += moved;
            if (lockstep) {
              --pair[i].microBatch;
              ++pair[j].microBatch;
            }
          });
      if (lockstep)
        continue;
      int64_t microBatch = replica.microBatch;
      for (int64_t step : {-1, 1})
        for (int64_t m = microBatch + step; m >= 1 && m <= samples; m += step)
          if (samples % m == 0) {
            edited(
                [&](Plan &plan) { plan.stages[s].replicas[i].microBatch = m; });
            break;
          }
    }
  }
  return result;
}

/// Local search from `start` (`current` seconds), judged by the simulator:
/// each round moves to the best of the neighbours the estimate ranks
/// highest, while that is faster.
llvm::Error refine(const CandidateBuilder &builder, BestCandidate &best,
                   Candidate start, double current) {
  double budgetEnd = best.simulationSpent() + kSimulationBudget;
  for (int round = 0; round < kMaxRefineRounds; ++round) {
    std::vector<Candidate> moves = neighbours(builder, start);
    llvm::stable_sort(moves, [](const Candidate &a, const Candidate &b) {
      return a.estimatedSeconds < b.estimatedSeconds;
    });
    std::optional<Candidate> next;
    size_t judged = 0;
    for (Candidate &move : moves) {
      if (!move.fits() || judged == kJudgedNeighbours ||
          best.simulationSpent() >= budgetEnd)
        continue;
      ++judged;
      llvm::Expected<double> seconds = best.offer(move);
      if (!seconds)
        return seconds.takeError();
      if (*seconds < current) {
        current = *seconds;
        next = std::move(move);
      }
    }
    if (!next)
      break;
    start = std::move(*next);
  }
  return llvm::Error::success();
}

llvm::Error checkRequest(const Cluster &cluster, const CostModel &cost,
                         const PlanRequest &request) {
  if (request.globalBatch < 1)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("the global batch must be positive, got {0}",
                      request.globalBatch));
  if (!(request.memoryFraction > 0 && request.memoryFraction <= 1))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("the memory fraction must be in (0, 1], got {0}",
                      request.memoryFraction));
  if (cluster.devices.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the cluster has no devices");
  if (&cost.cluster() != &cluster)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the cost model is for another cluster than the one planned for");
  if (cost.profile().numSegments() == 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the model profile has no segments");
  return llvm::Error::success();
}

} // namespace

llvm::Expected<PlanResult> choosePlan(const Cluster &cluster,
                                      const CostModel &cost,
                                      const PlanRequest &request,
                                      Strategy strategy) {
  if (llvm::Error error = checkRequest(cluster, cost, request))
    return std::move(error);
  CandidateBuilder builder(cost, request);
  BestCandidate best(builder);
  // Every baseline's candidates compete in the search too, judged as the
  // baseline judges them, so that it never does worse than one of them.
  for (Strategy baseline : baselineStrategies())
    if (strategy == Strategy::Search || strategy == baseline)
      if (llvm::Error error =
              offerBest(best, baselineCandidates(builder, baseline),
                        kJudgedBaselineCandidates, kSimulationBudget))
        return std::move(error);
  if (strategy == Strategy::Search) {
    if (llvm::Error error = offerBest(best, searchCandidates(builder, cluster),
                                      kJudgedCandidates, kSimulationBudget))
      return std::move(error);
    // Refining may change the leaders: start from a copy.
    std::vector<std::pair<double, Candidate>> leaders = best.leaders();
    for (auto &[seconds, leader] : leaders)
      if (llvm::Error error = refine(builder, best, std::move(leader), seconds))
        return std::move(error);
  }
  return best.take();
}

} // namespace hetc::planner
