//===- CandidateMemory.cpp - fitting a candidate into device memory -------===//
//
// A replica's memory is the cost model's own walk (rankMemoryBytes) over
// the op list the plan's schedule gives it when nothing stalls: under 1F1B
// up to (stages after + 1) forwards, or as many as a later stage's
// micro-batch needs, then a backward and a forward in turn; under GPipe
// every forward, then every backward. The compiler's schedule differs only
// where the pipeline stalls otherwise; evaluation checks it where it
// simulates. Replicas of a stage with equal samples and
// micro-batches need the same memory apart from their state shards, so a
// stage walks each such pair once (under full sharding, each such pair and
// shard size): large stages stay linear. Under full sharding the replicas
// run in lockstep, so memory is made by more micro-batches for all of
// them, never a smaller one for one replica.
//
//===----------------------------------------------------------------------===//

#include "planner/SearchSpace.h"

#include "llvm/ADT/STLExtras.h"

#include <map>
#include <numeric>
#include <queue>
#include <tuple>

namespace hetc::planner {

namespace {

/// The end of the micro-batch of stage `t` holding sample `sample`.
int64_t microBatchEnd(const Stage &stage, int64_t sample) {
  auto replica =
      llvm::partition_point(stage.replicas, [&](const Replica &replica) {
        return replica.firstSample + replica.numSamples <= sample;
      });
  int64_t offset = (sample - replica->firstSample) / replica->microBatch;
  return replica->firstSample + (offset + 1) * replica->microBatch;
}

/// How many micro-batches replica `r` of stage `s` forwards before its
/// first backward: the 1F1B limit (stages after + 1), or more where a later
/// stage's micro-batch needs samples of several of them.
int64_t forwardsBeforeBackward(const Plan &plan, size_t s, size_t r) {
  const Replica &replica = plan.stages[s].replicas[r];
  int64_t end = replica.firstSample + replica.microBatch;
  for (size_t t = s + 1; t < plan.stages.size(); ++t)
    end = std::max(end, microBatchEnd(plan.stages[t], end - 1));
  int64_t needed = (std::min(end, replica.firstSample + replica.numSamples) -
                    replica.firstSample + replica.microBatch - 1) /
                   replica.microBatch;
  int64_t limit = plan.stages.size() - static_cast<int64_t>(s);
  return std::min(replica.numMicroBatches(), std::max(needed, limit));
}

/// The op list of replica `r` of stage `s`, each micro-batch received and
/// sent whole.
RankSchedule opsWithoutStalls(const Plan &plan, size_t s, size_t r) {
  const Replica &replica = plan.stages[s].replicas[r];
  bool first = s == 0, last = s + 1 == plan.stages.size();
  RankSchedule schedule;
  schedule.stage = s;
  schedule.replica = r;
  int64_t count = replica.numMicroBatches();
  for (int64_t k = 0; k < count; ++k)
    schedule.microBatches.push_back(
        {replica.firstSample + k * replica.microBatch, replica.microBatch});
  auto message = [&](ScheduledOp::Kind kind, int64_t k, bool gradient) {
    ScheduledOp op;
    op.kind = kind;
    op.microBatch = k;
    op.firstSample = schedule.microBatches[k].firstSample;
    op.numSamples = replica.microBatch;
    op.gradient = gradient;
    schedule.ops.push_back(op);
  };
  auto compute = [&](ScheduledOp::Kind kind, int64_t k) {
    ScheduledOp op;
    op.kind = kind;
    op.microBatch = k;
    schedule.ops.push_back(op);
  };
  auto forward = [&](int64_t k) {
    if (!first)
      message(ScheduledOp::Kind::Recv, k, false);
    compute(ScheduledOp::Kind::Forward, k);
    if (!last)
      message(ScheduledOp::Kind::Send, k, false);
  };
  auto backward = [&](int64_t k) {
    if (!last)
      message(ScheduledOp::Kind::Recv, k, true);
    compute(ScheduledOp::Kind::Backward, k);
    if (!first)
      message(ScheduledOp::Kind::Send, k, true);
  };
  int64_t inFlight = plan.schedule == ScheduleKind::GPipe
                         ? count
                         : forwardsBeforeBackward(plan, s, r);
  for (int64_t k = 0; k < inFlight; ++k)
    forward(k);
  for (int64_t k = 0; k < count; ++k) {
    backward(k);
    if (k + inFlight < count)
      forward(k + inFlight);
  }
  return schedule;
}

} // namespace

/// The memory figures of one stage of a candidate under its current shard
/// fractions.
class CandidateBuilder::StageMemory {
public:
  StageMemory(const CostModel &cost, const Plan &plan, size_t s)
      : cost(cost), plan(plan), s(s) {
    const Stage &stage = plan.stages[s];
    SegmentCost range =
        cost.profile().range(stage.firstSegment, stage.endSegment);
    parameters = range.parameters;
    parameterBytes = range.parameterBytes;
    bool replicated = stage.replicas.size() > 1;
    // Under full sharding the parameters and the summed gradients shrink
    // with the shard too; offloaded, the state leaves the device.
    shardsParameters = replicated && plan.sharding == ShardingKind::Full;
    perParameterByte = (stage.offloadOptimizer
                            ? 0
                            : cost.profile().optimizerStatePerParameterByte) +
                       (shardsParameters ? 2 : 0);
    shardedBytes = perParameterByte * range.parameterBytes;
    if (replicated && parameters > 0)
      counts = shardCounts(stage, parameters);
  }

  /// What the replica's shard holds, as the cost model counts it: bytes
  /// per byte of its parameter elements.
  int64_t shardBytes(size_t r) const {
    if (counts.empty())
      return shardedBytes;
    // Whole bytes per element (4 in fp32) keep the product in range.
    int64_t elementBytes = parameterBytes / parameters;
    int64_t bytes =
        elementBytes * parameters == parameterBytes
            ? counts[r] * elementBytes
            : static_cast<int64_t>(static_cast<double>(counts[r]) *
                                   parameterBytes / parameters);
    return perParameterByte * bytes;
  }

  int64_t besidesShard(size_t r) {
    const Replica &replica = plan.stages[s].replicas[r];
    // Under full sharding the shard's share of the peak depends on the
    // moment the peak falls on: exact per shard size.
    auto key =
        std::make_tuple(replica.numSamples, replica.microBatch,
                        shardsParameters && !counts.empty() ? counts[r] : 0);
    auto it = memo.find(key);
    if (it != memo.end())
      return it->second;
    int64_t bytes = cost.rankMemoryBytes(plan, opsWithoutStalls(plan, s, r)) -
                    shardBytes(r);
    memo.emplace(key, bytes);
    return bytes;
  }

  /// What the shards of the whole stage hold.
  int64_t shardedBytes = 0;

private:
  const CostModel &cost;
  const Plan &plan;
  size_t s;
  int64_t parameters = 0, parameterBytes = 0, perParameterByte = 0;
  bool shardsParameters = false;
  std::vector<int64_t> counts;
  std::map<std::tuple<int64_t, int64_t, int64_t>, int64_t> memo;
};

std::vector<int64_t>
CandidateBuilder::estimatedRankBytes(const Candidate &candidate,
                                     size_t s) const {
  StageMemory memory(cost_, candidate.plan, s);
  std::vector<int64_t> bytes;
  for (size_t r = 0; r < candidate.plan.stages[s].replicas.size(); ++r)
    bytes.push_back(memory.besidesShard(r) + memory.shardBytes(r));
  return bytes;
}

bool CandidateBuilder::fitMemory(Candidate &candidate, size_t s) const {
  if (inLockstep(candidate.plan, s))
    return fitLockstep(candidate, s);
  Stage &stage = candidate.plan.stages[s];
  StageMemory memory(cost_, candidate.plan, s);
  size_t replicas = stage.replicas.size();
  bool even = candidate.options.shards == ShardRule::Even;
  auto freeBytes = [&](size_t r) {
    int64_t free =
        usableBytes(candidate.devices[s][r]) - memory.besidesShard(r);
    return even ? free - memory.shardedBytes / static_cast<int64_t>(replicas)
                : free;
  };
  auto shrink = [&](size_t r) {
    Replica &replica = stage.replicas[r];
    if (replica.microBatch == 1)
      return false;
    replica.microBatch =
        largestDivisorAtMost(replica.numSamples, replica.microBatch - 1);
    return true;
  };
  // Each replica's own needs first.
  std::vector<int64_t> free(replicas);
  for (size_t r = 0; r < replicas; ++r) {
    free[r] = freeBytes(r);
    while (free[r] < 0 && shrink(r))
      free[r] = freeBytes(r);
    if (free[r] < 0)
      return false;
  }
  if (even)
    return true;
  // Then room for the state: shrink the largest micro-batches.
  int64_t totalFree = std::accumulate(free.begin(), free.end(), int64_t(0));
  std::priority_queue<std::pair<int64_t, size_t>> largest;
  for (size_t r = 0; r < replicas; ++r)
    largest.push({stage.replicas[r].microBatch, r});
  while (totalFree < memory.shardedBytes) {
    if (largest.empty())
      return false;
    size_t r = largest.top().second;
    largest.pop();
    if (!shrink(r))
      continue;
    int64_t before = free[r];
    free[r] = freeBytes(r);
    totalFree += free[r] - before;
    largest.push({stage.replicas[r].microBatch, r});
  }
  return true;
}

bool CandidateBuilder::fitLockstep(Candidate &candidate, size_t s) const {
  Stage &stage = candidate.plan.stages[s];
  int64_t batch = request_.globalBatch;
  int64_t replicas = stage.replicas.size();
  bool even = candidate.options.shards == ShardRule::Even;
  for (;;) {
    StageMemory memory(cost_, candidate.plan, s);
    int64_t evenShard = even ? memory.shardedBytes / replicas : 0;
    int64_t totalFree = 0;
    bool eachFits = true;
    for (int64_t r = 0; r < replicas; ++r) {
      int64_t free =
          usableBytes(candidate.devices[s][r]) - memory.besidesShard(r);
      eachFits &= free >= evenShard;
      totalFree += free;
    }
    if (eachFits && totalFree >= memory.shardedBytes)
      return true;
    int64_t count = stage.replicas.front().numMicroBatches();
    int64_t next = count + 1;
    while (next <= batch / replicas && batch % next != 0)
      ++next;
    if (next > batch / replicas)
      return false;
    lockstep(candidate, s, next);
  }
}

int64_t CandidateBuilder::usableHostBytes(int node) const {
  return static_cast<int64_t>(
      request_.memoryFraction *
      static_cast<double>(cost_.cluster().nodes[node].hostMemoryBytes));
}

bool CandidateBuilder::hostsHoldOffloadedState(
    const Candidate &candidate) const {
  const Cluster &cluster = cost_.cluster();
  std::vector<int64_t> used(cluster.nodes.size(), 0);
  for (size_t s = 0; s < candidate.plan.stages.size(); ++s)
    for (size_t r = 0; r < candidate.devices[s].size(); ++r)
      used[cluster.devices[candidate.devices[s][r]].node] +=
          cost_.offloadedHostBytes(candidate.plan, s, r);
  for (size_t n = 0; n < used.size(); ++n)
    if (used[n] > usableHostBytes(n))
      return false;
  return true;
}

void CandidateBuilder::decideMemorySaving(Candidate &candidate,
                                          size_t s) const {
  Stage &stage = candidate.plan.stages[s];
  std::vector<Replica> before = stage.replicas;
  stage.recompute = false;
  stage.offloadOptimizer = false;
  if (fitMemory(candidate, s))
    return;
  bool mayOffload = request_.allowOffload &&
                    cost_.profile().optimizerStatePerParameterByte > 0;
  // Of the savings allowed, the one whose candidate the estimate finds
  // fastest among those that fit; where none fits, the last tried, which
  // saves the most, for the shortfall.
  Stage chosen = stage;
  double fastest = std::numeric_limits<double>::infinity();
  bool chosenFits = false;
  for (auto [recompute, offload] :
       {std::pair{true, false}, {false, true}, {true, true}}) {
    if ((recompute && !request_.allowRecompute) || (offload && !mayOffload))
      continue;
    stage.replicas = before;
    stage.recompute = recompute;
    stage.offloadOptimizer = offload;
    bool fits = fitMemory(candidate, s);
    // The host holds the shards as assignShards cuts them.
    assignShards(candidate, s);
    if (offload && !hostsHoldOffloadedState(candidate))
      continue;
    if (!fits) {
      if (!chosenFits)
        chosen = stage;
      continue;
    }
    double seconds = estimateSeconds(candidate);
    if (seconds < fastest) {
      fastest = seconds;
      chosen = stage;
      chosenFits = true;
    }
  }
  stage = std::move(chosen);
}

void CandidateBuilder::assignShards(Candidate &candidate, size_t s) const {
  Stage &stage = candidate.plan.stages[s];
  StageMemory memory(cost_, candidate.plan, s);
  size_t replicas = stage.replicas.size();
  double state = static_cast<double>(memory.shardedBytes);
  std::vector<double> fraction(replicas, 1.0 / replicas);
  std::vector<double> free(replicas);
  double totalFree = 0;
  for (size_t r = 0; r < replicas; ++r) {
    free[r] = std::max<double>(0, usableBytes(candidate.devices[s][r]) -
                                      memory.besidesShard(r));
    totalFree += free[r];
  }
  ShardRule rule = candidate.options.shards;
  if (rule != ShardRule::Even && totalFree > 0 && state > 0) {
    if (rule == ShardRule::FreeMemory || totalFree <= state) {
      for (size_t r = 0; r < replicas; ++r)
        fraction[r] = free[r] / totalFree;
    } else {
      // Water-filling: the replicas with the least room hold what they
      // can, the rest share what is left evenly.
      std::vector<size_t> order(replicas);
      std::iota(order.begin(), order.end(), 0);
      llvm::stable_sort(order,
                        [&](size_t a, size_t b) { return free[a] < free[b]; });
      double left = state;
      for (size_t i = 0; i < replicas; ++i) {
        size_t r = order[i];
        double level = left / static_cast<double>(replicas - i);
        double held = std::min(free[r], level);
        fraction[r] = held / state;
        left -= held;
      }
    }
  }
  double sum = std::accumulate(fraction.begin(), fraction.end(), 0.0);
  for (size_t r = 0; r < replicas; ++r)
    stage.replicas[r].shard = fraction[r] / sum;
}

} // namespace hetc::planner
