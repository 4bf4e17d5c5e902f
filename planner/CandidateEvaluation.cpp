//===- CandidateEvaluation.cpp - simulating candidates, keeping the best --===//
//
// A candidate is judged by what the compiler would run: the schedule it
// builds (buildSchedule with unit costs, as hetd's rank builder calls it),
// each rank's exact memory on it, and the simulated step. Plans too large
// to simulate cheaply keep the builder's analytical estimate, but only
// where it is trustworthy: one stage, or sample ranges that line up from
// stage to stage (the estimate matches the simulator there; elsewhere 1F1B
// can chain replicas across a stage, which it does not see).
//
//===----------------------------------------------------------------------===//

#include "planner/SearchSpace.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace hetc::planner {

double simulationCost(const Plan &plan) {
  // The schedule's event loop visits every rank per event; pairing the
  // micro-batches of adjacent stages, and each rank's shard of its stage,
  // take time quadratic in the replicas.
  constexpr double kPerReplicaPair = 64;
  double microBatches = 0, replicaPairs = 0;
  for (size_t s = 0; s < plan.stages.size(); ++s) {
    double replicas = plan.stages[s].replicas.size();
    for (const Replica &replica : plan.stages[s].replicas)
      microBatches += replica.numMicroBatches();
    replicaPairs += replicas * replicas;
    if (s + 1 < plan.stages.size())
      replicaPairs += replicas * plan.stages[s + 1].replicas.size();
  }
  return microBatches * static_cast<double>(plan.numRanks()) +
         kPerReplicaPair * replicaPairs;
}

namespace {

SimulationResult analyticalResult(const CandidateBuilder &builder,
                                  const Candidate &candidate) {
  const Plan &plan = candidate.plan;
  SimulationResult result;
  result.stepSeconds = candidate.estimatedSeconds;
  result.tokensPerSecond = static_cast<double>(plan.globalBatch) *
                           builder.cost().profile().seqLen / result.stepSeconds;
  for (size_t s = 0; s < plan.stages.size(); ++s)
    llvm::append_range(result.peakMemoryBytes,
                       builder.estimatedRankBytes(candidate, s));
  return result;
}

} // namespace

llvm::Expected<Evaluation> evaluate(const CandidateBuilder &builder,
                                    const Candidate &candidate,
                                    double maxSimulationCost) {
  const Plan &plan = candidate.plan;
  Evaluation evaluation;
  if (simulationCost(plan) > maxSimulationCost) {
    if (plan.stages.size() == 1 || candidate.rangesAligned())
      evaluation.result = analyticalResult(builder, candidate);
    else
      evaluation.unknown = true;
    return evaluation;
  }
  std::vector<RankSchedule> schedule = buildSchedule(plan);
  for (const RankSchedule &rank : schedule) {
    int device = candidate.devices[rank.stage][rank.replica];
    MemoryShortfall here{device, builder.cost().rankMemoryBytes(plan, rank),
                         builder.usableBytes(device)};
    if (here.missingBytes() > 0 &&
        (!evaluation.shortfall ||
         here.missingBytes() > evaluation.shortfall->missingBytes()))
      evaluation.shortfall = here;
  }
  if (evaluation.shortfall)
    return evaluation;
  llvm::Expected<SimulationResult> result =
      simulate(plan, schedule, builder.cost());
  if (!result)
    return result.takeError();
  evaluation.result = std::move(*result);
  return evaluation;
}

llvm::Expected<double> BestCandidate::offer(const Candidate &candidate) {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  if (!candidate.fits()) {
    miss(*candidate.shortfall);
    return kNever;
  }
  double cost = simulationCost(candidate.plan);
  if (cost <= kMaxSimulationCost)
    simulationSpent_ += cost;
  llvm::Expected<Evaluation> evaluation = evaluate(builder_, candidate);
  if (!evaluation)
    return evaluation.takeError();
  if (evaluation->shortfall) {
    miss(*evaluation->shortfall);
    return kNever;
  }
  if (evaluation->unknown)
    return kNever;
  double seconds = evaluation->result.stepSeconds;
  rememberLeader(seconds, candidate);
  if (seconds < stepSeconds()) {
    best_ = candidate;
    result_ = std::move(evaluation->result);
    bestSimulated_ = cost <= kMaxSimulationCost;
  }
  return seconds;
}

void BestCandidate::rememberLeader(double seconds, const Candidate &candidate) {
  auto sameLayout = [&](const std::pair<double, Candidate> &leader) {
    const Plan &a = leader.second.plan, &b = candidate.plan;
    return leader.second.devices == candidate.devices &&
           llvm::equal(a.stages, b.stages, [](const Stage &x, const Stage &y) {
             return x.firstSegment == y.firstSegment &&
                    x.endSegment == y.endSegment;
           });
  };
  auto same = llvm::find_if(leaders_, sameLayout);
  if (same != leaders_.end()) {
    if (seconds >= same->first)
      return;
    leaders_.erase(same);
  }
  leaders_.emplace_back(seconds, candidate);
  llvm::stable_sort(
      leaders_, [](const auto &a, const auto &b) { return a.first < b.first; });
  if (leaders_.size() > kLeaders)
    leaders_.pop_back();
}

void BestCandidate::miss(const MemoryShortfall &shortfall) {
  if (!closestMiss_ || shortfall.missingBytes() < closestMiss_->missingBytes())
    closestMiss_ = shortfall;
}

llvm::Error offerBest(BestCandidate &best, std::vector<Candidate> candidates,
                      size_t maxCandidates, double simulationBudget) {
  llvm::stable_sort(candidates, [](const Candidate &a, const Candidate &b) {
    return a.estimatedSeconds < b.estimatedSeconds;
  });
  double budgetEnd = best.simulationSpent() + simulationBudget;
  size_t offered = 0;
  for (const Candidate &candidate : candidates) {
    if (!candidate.fits()) {
      best.miss(*candidate.shortfall);
      continue;
    }
    if (offered == maxCandidates || best.simulationSpent() >= budgetEnd)
      continue;
    ++offered;
    if (llvm::Expected<double> seconds = best.offer(candidate); !seconds)
      return seconds.takeError();
  }
  return llvm::Error::success();
}

llvm::Expected<PlanResult> BestCandidate::take() {
  if (best_ && !bestSimulated_) {
    llvm::Expected<Evaluation> evaluation =
        evaluate(builder_, *best_, kMaxFinalSimulationCost);
    if (!evaluation)
      return evaluation.takeError();
    if (evaluation->shortfall) {
      miss(*evaluation->shortfall);
      best_.reset();
    } else {
      result_ = std::move(evaluation->result);
    }
  }
  if (best_)
    return PlanResult{std::move(best_->plan), std::move(result_)};
  const Cluster &cluster = builder_.cost().cluster();
  if (!closestMiss_)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "no plan: no stage layout of the cluster's devices gives every "
        "replica a sample of the global batch");
  const MemoryShortfall &miss = *closestMiss_;
  const Device &device = cluster.devices[miss.device];
  const PlanRequest &request = builder_.request();
  // GB, or MB for devices of less than a gigabyte.
  bool small = device.gpu.memoryBytes() < 1e9;
  auto size = [&](double bytes) {
    return small ? llvm::formatv("{0:f2} MB", bytes / 1e6).str()
                 : llvm::formatv("{0:f1} GB", bytes / 1e9).str();
  };
  // What the search tried to make the plans fit.
  std::vector<std::string> tried;
  if (request.allowRecompute)
    tried.push_back("recompute");
  if (request.allowOffload &&
      builder_.cost().profile().optimizerStatePerParameterByte > 0)
    tried.push_back("the optimizer state in host memory where it fits there");
  if (cluster.devices.size() > 1 &&
      request.sharding.value_or(ShardingKind::Full) == ShardingKind::Full)
    tried.push_back("the parameters sharded");
  tried.push_back("one sample per micro-batch");
  std::string measures = tried.back();
  if (tried.size() > 1)
    measures = llvm::join(llvm::ArrayRef(tried).drop_back(), ", ") + " and " +
               measures;
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("no plan fits: device {0} needs {1} but may use {2} ({3}% "
                    "of its {4}): {5} missing, even with {6}; add devices or "
                    "memory, or train a smaller model",
                    device.name, size(miss.neededBytes), size(miss.usableBytes),
                    static_cast<int>(request.memoryFraction * 100 + 0.5),
                    size(device.gpu.memoryBytes()), size(miss.missingBytes()),
                    measures)
          .str());
}

} // namespace hetc::planner
