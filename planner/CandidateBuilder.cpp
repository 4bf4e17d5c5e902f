//===- CandidateBuilder.cpp - from a layout to a plan ---------------------===//
//
// Batch shares by rule, then moved sample by sample while that shortens the
// slowest replica (of a stage, or of a pipeline under the pipelines rule);
// micro-batches by the target count, made smaller where memory requires
// (under full sharding, shares in multiples of one count for the whole
// stage, which memory makes larger);
// recompute or optimizer offload only where a device does not fit without
// them even at one sample per micro-batch; state shards from the memory
// left (CandidateMemory.cpp).
// Then an analytical estimate of the step, linear in the replicas: the
// busiest replica of the bottleneck stage, one micro-batch's trip through
// the other stages, and each stage's update after its last backward (with
// the all-reduce of any tied parameter it shares with other stages).
//
//===----------------------------------------------------------------------===//

#include "planner/SearchSpace.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

namespace hetc::planner {

namespace {

/// Stages (or pipelines) beyond this many keep their first shares: moving
/// one sample at a time is quadratic in the replicas, and with many
/// replicas the rounding it corrects is a small part of each share.
constexpr size_t kMaxBalancedReplicas = 64;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

void layOutSamples(Stage &stage) {
  int64_t first = 0;
  for (Replica &replica : stage.replicas) {
    replica.firstSample = first;
    first += replica.numSamples;
  }
}

/// Integer shares of `batch` close to `ideal` (largest remainders), at
/// least one each.
std::vector<int64_t> roundShares(llvm::ArrayRef<double> ideal, int64_t batch) {
  size_t count = ideal.size();
  std::vector<int64_t> share(count);
  int64_t assigned = 0;
  for (size_t r = 0; r < count; ++r) {
    share[r] = std::max<int64_t>(1, static_cast<int64_t>(ideal[r]));
    assigned += share[r];
  }
  std::vector<size_t> byRemainder(count);
  std::iota(byRemainder.begin(), byRemainder.end(), 0);
  llvm::stable_sort(byRemainder, [&](size_t a, size_t b) {
    return ideal[a] - share[a] > ideal[b] - share[b];
  });
  for (size_t i = 0; assigned < batch; i = (i + 1) % count, ++assigned)
    ++share[byRemainder[i]];
  // The one-sample floor may overshoot: take from the largest shares.
  while (assigned > batch) {
    --*std::max_element(share.begin(), share.end());
    --assigned;
  }
  return share;
}

/// Moves one sample at a time from the slowest member to the one it delays
/// least, while the slowest gets faster; `busyWith(member, samples)`.
template <typename BusyWith>
void balance(std::vector<int64_t> &share, BusyWith busyWith) {
  size_t count = share.size();
  if (count < 2 || count > kMaxBalancedReplicas)
    return;
  for (size_t step = 0; step < 4 * count; ++step) {
    std::vector<double> busy(count);
    for (size_t r = 0; r < count; ++r)
      busy[r] = busyWith(r, share[r]);
    size_t slowest = std::max_element(busy.begin(), busy.end()) - busy.begin();
    if (share[slowest] == 1)
      return;
    double before = busy[slowest];
    busy[slowest] = busyWith(slowest, share[slowest] - 1);
    size_t receiver = count;
    double receiverBusy = 0;
    for (size_t r = 0; r < count; ++r) {
      if (r == slowest)
        continue;
      double longer = busyWith(r, share[r] + 1);
      if (receiver == count || longer < receiverBusy) {
        receiver = r;
        receiverBusy = longer;
      }
    }
    busy[receiver] = receiverBusy;
    if (*std::max_element(busy.begin(), busy.end()) >= before * (1 - 1e-9))
      return;
    --share[slowest];
    ++share[receiver];
  }
}

} // namespace

int64_t lockstepCount(int64_t batch, size_t replicas, int64_t target) {
  return largestDivisorAtMost(
      batch, std::min(target, batch / static_cast<int64_t>(replicas)));
}

bool equalCounts(const Stage &stage) {
  return llvm::all_of(stage.replicas, [&](const Replica &replica) {
    return replica.numMicroBatches() ==
           stage.replicas.front().numMicroBatches();
  });
}

int64_t largestDivisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, std::max<int64_t>(limit, 1)); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

StageLayout Candidate::layout() const {
  StageLayout layout;
  for (const auto &[s, stage] : llvm::enumerate(plan.stages))
    layout.push_back({devices[s], stage.firstSegment, stage.endSegment});
  return layout;
}

bool Candidate::rangesAligned() const {
  auto cuts = [](const Stage &stage) {
    std::vector<int64_t> starts;
    for (const Replica &replica : stage.replicas)
      starts.push_back(replica.firstSample);
    return starts;
  };
  for (size_t s = 0; s + 1 < plan.stages.size(); ++s)
    if (cuts(plan.stages[s]) != cuts(plan.stages[s + 1]))
      return false;
  return true;
}

/// Forward and backward seconds of one micro-batch, shared by the alike
/// devices of a stage.
struct CandidateBuilder::StageCosts {
  const CostModel &cost;
  const Stage &stage;
  std::map<std::pair<std::string, int64_t>, std::pair<double, double>> memo;

  std::pair<double, double> of(int device, int64_t microBatch) {
    auto key =
        std::make_pair(cost.cluster().devices[device].gpu.type, microBatch);
    auto it = memo.find(key);
    if (it != memo.end())
      return it->second;
    std::pair<double, double> seconds = {
        cost.computeSeconds(device, stage.firstSegment, stage.endSegment, false,
                            microBatch, false, cost.precisionOf(stage)),
        cost.computeSeconds(device, stage.firstSegment, stage.endSegment, true,
                            microBatch, stage.recompute,
                            cost.precisionOf(stage))};
    memo.emplace(key, seconds);
    return seconds;
  }
  /// Seconds a device computes `samples` samples in micro-batches of
  /// about `samples / target`.
  double busy(int device, int64_t samples, int64_t target) {
    int64_t microBatch =
        largestDivisorAtMost(samples, ceilDiv(samples, target));
    auto [forward, backward] = of(device, microBatch);
    return samples / microBatch * (forward + backward);
  }
};

CandidateBuilder::CandidateBuilder(const CostModel &cost,
                                   const PlanRequest &request)
    : cost_(cost), request_(request), channels_(cost.cluster()) {}

int64_t CandidateBuilder::usableBytes(int device) const {
  return static_cast<int64_t>(
      request_.memoryFraction *
      static_cast<double>(cost_.cluster().devices[device].gpu.memoryBytes()));
}

std::optional<Candidate>
CandidateBuilder::build(const StageLayout &layout,
                        const CandidateOptions &options,
                        const std::vector<std::vector<int64_t>> *shares) const {
  Candidate candidate;
  candidate.options = options;
  candidate.plan.globalBatch = request_.globalBatch;
  candidate.plan.schedule = options.schedule;
  candidate.plan.sharding = options.sharding;
  std::set<size_t> counts;
  for (const StageDevices &stageDevices : layout) {
    if (static_cast<int64_t>(stageDevices.devices.size()) >
        request_.globalBatch)
      return std::nullopt;
    Stage &stage = candidate.plan.stages.emplace_back();
    stage.firstSegment = stageDevices.firstSegment;
    stage.endSegment = stageDevices.endSegment;
    stage.precision = cost_.precisionOn(stageDevices.devices);
    // Even shards until the memory left decides them.
    double shard = 1.0 / stageDevices.devices.size();
    for (int d : stageDevices.devices)
      stage.replicas.push_back(
          {cost_.cluster().devices[d].name, 0, 0, 0, shard});
    candidate.devices.push_back(stageDevices.devices);
    counts.insert(stageDevices.devices.size());
  }
  auto given = [&](size_t s) { return shares ? &(*shares)[s] : nullptr; };
  // Every stage's shares first: whether a stage fits depends on the
  // micro-batches of the stages after it.
  for (size_t s = 0; s < layout.size(); ++s) {
    assignShares(candidate, s, given(s));
    chooseMicroBatches(candidate, s);
  }
  bool pipelines =
      !shares && options.shares == ShareRule::Pipelines && counts.size() == 1;
  bool balanced = !shares && options.shares != ShareRule::Equal;
  for (size_t s = 0; s < layout.size(); ++s) {
    decideMemorySaving(candidate, s);
    // Throughput shares depend on whether the stage recomputes.
    if (candidate.plan.stages[s].recompute) {
      assignShares(candidate, s, given(s));
      chooseMicroBatches(candidate, s);
      fitMemory(candidate, s);
    }
    if (balanced && !pipelines)
      balanceShares(candidate, s);
  }
  if (pipelines)
    alignPipelines(candidate);
  finish(candidate);
  return candidate;
}

void CandidateBuilder::assignShares(Candidate &candidate, size_t s,
                                    const std::vector<int64_t> *shares) const {
  Stage &stage = candidate.plan.stages[s];
  size_t replicas = stage.replicas.size();
  std::vector<int64_t> share;
  if (shares) {
    share = *shares;
  } else if (candidate.options.shares == ShareRule::Equal) {
    share = roundShares(
        std::vector<double>(
            replicas, static_cast<double>(request_.globalBatch) / replicas),
        request_.globalBatch);
  } else {
    // Rates at about the micro-batch the replicas will run.
    int64_t batch = request_.globalBatch;
    int64_t samples = std::max<int64_t>(1, batch / replicas);
    StageCosts costs{cost_, stage, {}};
    std::vector<double> ideal;
    double total = 0;
    for (int d : candidate.devices[s]) {
      ideal.push_back(samples /
                      costs.busy(d, samples, candidate.options.microBatches));
      total += ideal.back();
    }
    for (double &rate : ideal)
      rate *= batch / total;
    share = roundShares(ideal, batch);
  }
  for (size_t r = 0; r < replicas; ++r)
    stage.replicas[r].numSamples = share[r];
  layOutSamples(stage);
}

void CandidateBuilder::chooseMicroBatches(Candidate &candidate,
                                          size_t s) const {
  if (inLockstep(candidate.plan, s)) {
    lockstep(candidate, s,
             lockstepCount(request_.globalBatch,
                           candidate.plan.stages[s].replicas.size(),
                           candidate.options.microBatches));
    return;
  }
  for (Replica &replica : candidate.plan.stages[s].replicas)
    replica.microBatch = largestDivisorAtMost(
        replica.numSamples,
        ceilDiv(replica.numSamples, candidate.options.microBatches));
}

void CandidateBuilder::lockstep(Candidate &candidate, size_t s,
                                int64_t count) const {
  Stage &stage = candidate.plan.stages[s];
  std::vector<double> ideal;
  for (const Replica &replica : stage.replicas)
    ideal.push_back(static_cast<double>(replica.numSamples) / count);
  std::vector<int64_t> microBatch =
      roundShares(ideal, request_.globalBatch / count);
  for (size_t r = 0; r < stage.replicas.size(); ++r) {
    stage.replicas[r].numSamples = microBatch[r] * count;
    stage.replicas[r].microBatch = microBatch[r];
  }
  layOutSamples(stage);
}

void CandidateBuilder::balanceShares(Candidate &candidate, size_t s) const {
  Stage &stage = candidate.plan.stages[s];
  StageCosts costs{cost_, stage, {}};
  // In lockstep samples move a micro-batch count at a time, one sample to
  // each of a replica's micro-batches.
  int64_t grain = 1, target = candidate.options.microBatches;
  if (inLockstep(candidate.plan, s))
    grain = target = stage.replicas.front().numMicroBatches();
  std::vector<int64_t> share;
  for (const Replica &replica : stage.replicas)
    share.push_back(replica.numSamples / grain);
  balance(share, [&](size_t r, int64_t grains) {
    return costs.busy(candidate.devices[s][r], grains * grain, target);
  });
  for (size_t r = 0; r < share.size(); ++r)
    stage.replicas[r].numSamples = share[r] * grain;
  layOutSamples(stage);
  chooseMicroBatches(candidate, s);
  fitMemory(candidate, s);
}

void CandidateBuilder::alignPipelines(Candidate &candidate) const {
  Plan &plan = candidate.plan;
  size_t numStages = plan.stages.size();
  size_t pipelines = plan.stages.front().replicas.size();
  int64_t batch = request_.globalBatch;
  int64_t target = candidate.options.microBatches;
  std::vector<StageCosts> costs;
  for (const Stage &stage : plan.stages)
    costs.push_back({cost_, stage, {}});
  // A pipeline is as slow as its slowest device.
  auto busyWith = [&](size_t p, int64_t samples) {
    double slowest = 0;
    for (size_t s = 0; s < numStages; ++s)
      slowest = std::max(
          slowest, costs[s].busy(candidate.devices[s][p], samples, target));
    return slowest;
  };
  int64_t samples = std::max<int64_t>(1, batch / pipelines);
  std::vector<double> ideal;
  double total = 0;
  for (size_t p = 0; p < pipelines; ++p) {
    ideal.push_back(samples / busyWith(p, samples));
    total += ideal.back();
  }
  for (double &rate : ideal)
    rate *= batch / total;
  std::vector<int64_t> share = roundShares(ideal, batch);
  balance(share, busyWith);
  for (size_t s = 0; s < numStages; ++s) {
    for (size_t p = 0; p < pipelines; ++p)
      plan.stages[s].replicas[p].numSamples = share[p];
    layOutSamples(plan.stages[s]);
    chooseMicroBatches(candidate, s);
  }
  for (size_t s = 0; s < numStages; ++s)
    fitMemory(candidate, s);
}

void CandidateBuilder::finish(Candidate &candidate) const {
  size_t numStages = candidate.plan.stages.size();
  for (size_t s = 0; s < numStages; ++s) {
    Stage &stage = candidate.plan.stages[s];
    layOutSamples(stage);
    for (Replica &replica : stage.replicas)
      replica.microBatch =
          largestDivisorAtMost(replica.numSamples, replica.microBatch);
    if (inLockstep(candidate.plan, s) && !equalCounts(stage))
      lockstep(candidate, s,
               lockstepCount(request_.globalBatch, stage.replicas.size(),
                             stage.replicas.front().numMicroBatches()));
  }
  for (size_t s = 0; s < numStages; ++s) {
    decideMemorySaving(candidate, s);
    assignShards(candidate, s);
  }
  candidate.shortfall.reset();
  for (size_t s = 0; s < numStages; ++s) {
    std::vector<int64_t> needed = estimatedRankBytes(candidate, s);
    for (size_t r = 0; r < needed.size(); ++r) {
      int device = candidate.devices[s][r];
      MemoryShortfall here{device, needed[r], usableBytes(device)};
      if (here.missingBytes() > 0 &&
          (!candidate.shortfall ||
           here.missingBytes() > candidate.shortfall->missingBytes()))
        candidate.shortfall = here;
    }
  }
  candidate.estimatedSeconds = estimateSeconds(candidate);
}

double CandidateBuilder::estimateSeconds(const Candidate &candidate) const {
  const Plan &plan = candidate.plan;
  const ModelProfile &profile = cost_.profile();
  size_t numStages = plan.stages.size();
  std::vector<StageTimes> times(numStages);
  // The messages between stages on each channel of the links they cross
  // (LinkChannels.h).
  llvm::DenseMap<int, double> channelSeconds;
  // A send keeps its sender only for the copy into the communicator's
  // buffer; the transfer delays its receiver. Returns both.
  auto sendAll = [&](const Replica &replica, int from, int to, int64_t bytes,
                     llvm::SmallVectorImpl<int> &crossed) {
    int64_t messageBytes = replica.microBatch * bytes;
    double seconds = cost_.transferSeconds(from, to, messageBytes);
    llvm::SmallVector<int, 4> path;
    channels_.path(from, to, path);
    for (int channel : path) {
      channelSeconds[channel] += replica.numMicroBatches() * seconds;
      if (!llvm::is_contained(crossed, channel))
        crossed.push_back(channel);
    }
    return std::pair{cost_.stagingSeconds(from, messageBytes), seconds};
  };
  for (size_t s = 0; s < numStages; ++s) {
    const Stage &stage = plan.stages[s];
    const std::vector<int> &devices = candidate.devices[s];
    StageTimes &stageTimes = times[s];
    StageCosts costs{cost_, stage, {}};
    SegmentCost range = profile.range(stage.firstSegment, stage.endSegment);
    int64_t inputBytes =
        s > 0 ? profile.segments[stage.firstSegment - 1].boundaryBytes : 0;
    std::vector<int64_t> parts = shardCounts(stage, range.parameters);
    // In lockstep every call gathers the parameters segment by segment,
    // every backward scatters its gradients, and each call waits for the
    // slowest replica.
    bool lockstep = inLockstep(candidate.plan, s);
    double gather = 0, scatter = 0;
    if (lockstep) {
      gather = cost_.segmentCollectivesSeconds(stage, devices, true);
      scatter = cost_.segmentCollectivesSeconds(stage, devices, false);
    } else if (stage.replicas.size() > 1) {
      std::vector<int64_t> partBytes;
      for (int64_t elements : parts)
        partBytes.push_back(elements * kElementBytes);
      gather = cost_.allGatherSeconds(devices, partBytes);
      scatter = cost_.reduceScatterSeconds(devices, partBytes);
    }
    bool gathers = lockstep && range.parameters > 0;
    double optimizer = 0;
    for (size_t r = 0; r < stage.replicas.size(); ++r) {
      const Replica &replica = stage.replicas[r];
      auto [f, b] = costs.of(devices[r], replica.microBatch);
      if (gathers) {
        f += gather;
        b += gather + scatter;
      }
      // Activations go to the next stage, gradients to the previous one.
      double forwardTransfer = 0, backwardTransfer = 0;
      if (s + 1 < numStages) {
        auto [staging, transfer] =
            sendAll(replica, devices[r], candidate.devices[s + 1][0],
                    range.boundaryBytes, stageTimes.forwardChannels);
        f += staging;
        forwardTransfer = transfer;
      }
      if (s > 0) {
        auto [staging, transfer] =
            sendAll(replica, devices[r], candidate.devices[s - 1][0],
                    inputBytes, stageTimes.backwardChannels);
        b += staging;
        backwardTransfer = transfer;
      }
      stageTimes.busy =
          std::max(stageTimes.busy, replica.numMicroBatches() * (f + b));
      stageTimes.microBatches =
          std::max(stageTimes.microBatches, replica.numMicroBatches());
      stageTimes.forward = std::max(stageTimes.forward, f + forwardTransfer);
      stageTimes.backward = std::max(stageTimes.backward, b + backwardTransfer);
      stageTimes.ownForward = std::max(stageTimes.ownForward, f);
      stageTimes.ownBackward = std::max(stageTimes.ownBackward, b);
      optimizer =
          std::max(optimizer, cost_.optimizerSeconds(devices[r], parts[r],
                                                     stage.offloadOptimizer));
    }
    if (lockstep)
      stageTimes.busy = stage.replicas.front().numMicroBatches() *
                        (stageTimes.ownForward + stageTimes.ownBackward);
    stageTimes.update = optimizer;
    if (stage.replicas.size() > 1 && !lockstep)
      stageTimes.update += scatter + gather;
  }
  // Tied parameters the stages split: an all-reduce over all their ranks.
  for (const TiedParameter &tied : tiedParameters(profile, plan)) {
    std::vector<int> devices;
    for (int64_t s : tied.stages)
      llvm::append_range(devices, candidate.devices[s]);
    double seconds = cost_.allReduceSeconds(devices, tied.parameter->bytes);
    for (int64_t s : tied.stages)
      times[s].update += seconds;
  }
  return estimateStep(times, channelSeconds, plan.schedule);
}

void addCandidates(const CandidateBuilder &builder, const StageLayout &layout,
                   const CandidateOptions &base, bool gpipeWhereUneven,
                   std::vector<Candidate> &candidates) {
  size_t fewest = layout.front().devices.size();
  for (const StageDevices &stage : layout)
    fewest = std::min(fewest, stage.devices.size());
  int64_t maxShare = builder.request().globalBatch / fewest;
  int64_t stages = layout.size();
  std::vector<int64_t> targets = microBatchTargets(stages, maxShare);
  // In lockstep every call gathers the stage's parameters: few calls, as
  // many as fill the pipeline; memory raises the count where it must.
  if (base.sharding == ShardingKind::Full)
    llvm::erase_if(targets, [&](int64_t target) {
      return target != 1 && target != stages && target != 2 * stages;
    });
  for (int64_t target : targets) {
    CandidateOptions options = base;
    options.microBatches = target;
    options.schedule = ScheduleKind::OneForwardOneBackward;
    std::optional<Candidate> candidate = builder.build(layout, options);
    if (!candidate)
      return;
    bool aligned = candidate->rangesAligned();
    candidates.push_back(std::move(*candidate));
    options.schedule = ScheduleKind::GPipe;
    if (gpipeWhereUneven && !aligned &&
        (candidate = builder.build(layout, options)))
      candidates.push_back(std::move(*candidate));
  }
}

std::vector<int64_t> microBatchTargets(int64_t stages, int64_t maxShare) {
  std::vector<int64_t> targets;
  for (int64_t k = 1; k <= maxShare; k *= 2)
    targets.push_back(k);
  for (int64_t k : {stages, 2 * stages, 3 * stages})
    if (k <= maxShare)
      targets.push_back(k);
  llvm::sort(targets);
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  return targets;
}

} // namespace hetc::planner
