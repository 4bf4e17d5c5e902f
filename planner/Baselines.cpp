//===- Baselines.cpp - plans the way other systems would make them --------===//
//
// Each baseline fixes its layout rule and its share and shard rules, and
// tries the micro-batch counts (and, for uniform, the stage counts) its
// system's user would tune; the best simulated one stands for it.
//   uniform              devices in file order cut into S equal stages over
//                        equal segment counts, equal batches, even shards
//                        (Megatron-LM: PP x DP on a homogeneous grid).
//   dp-uneven            one stage of every device, batch shares by
//                        throughput, shards by free memory (Cephalo).
//   stages-proportional  one stage per node and GPU type, segments split in
//                        proportion to each stage's peak FLOP/s, batch
//                        shares by throughput, even shards; GPipe too where
//                        the stages' sample ranges differ (Zorse).
//
//===----------------------------------------------------------------------===//

#include "planner/SearchSpace.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <numeric>

namespace hetc::planner {

namespace {

/// A baseline's rules, in the sharding the request asks for (optimizer
/// sharding, as the systems the baselines stand for, unless it says).
CandidateOptions baselineOptions(const CandidateBuilder &builder,
                                 ShareRule shares, ShardRule shards) {
  CandidateOptions options{shares, shards};
  options.sharding =
      builder.request().sharding.value_or(ShardingKind::Optimizer);
  return options;
}

/// Segment ends splitting the chain over stages in proportion to `weights`
/// (by FLOPs), each stage at least one segment.
std::vector<int64_t> proportionalEnds(const ModelProfile &profile,
                                      llvm::ArrayRef<double> weights) {
  int64_t numSegments = profile.numSegments();
  int64_t numStages = weights.size();
  std::vector<double> before(numSegments + 1, 0);
  for (int64_t g = 0; g < numSegments; ++g)
    before[g + 1] = before[g] + profile.segments[g].forwardFlops +
                    profile.segments[g].backwardFlops;
  double totalWeight = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<int64_t> ends;
  double cumulative = 0;
  int64_t end = 0;
  for (int64_t s = 0; s + 1 < numStages; ++s) {
    cumulative += weights[s];
    double target = before[numSegments] * cumulative / totalWeight;
    // The closest cut, leaving a segment for each later stage.
    int64_t best = end + 1;
    for (int64_t g = end + 1; g <= numSegments - (numStages - s - 1); ++g)
      if (std::abs(before[g] - target) < std::abs(before[best] - target))
        best = g;
    end = best;
    ends.push_back(end);
  }
  ends.push_back(numSegments);
  return ends;
}

/// Segment ends with near-equal segment counts.
std::vector<int64_t> equalEnds(int64_t numSegments, int64_t numStages) {
  std::vector<int64_t> ends;
  for (int64_t s = 1; s <= numStages; ++s)
    ends.push_back(s * numSegments / numStages);
  return ends;
}

StageLayout layoutOf(const std::vector<std::vector<int>> &stageDevices,
                     llvm::ArrayRef<int64_t> ends) {
  StageLayout layout;
  int64_t first = 0;
  for (size_t s = 0; s < stageDevices.size(); ++s) {
    layout.push_back({stageDevices[s], first, ends[s]});
    first = ends[s];
  }
  return layout;
}

void uniform(const CandidateBuilder &builder,
             std::vector<Candidate> &candidates) {
  const Cluster &cluster = builder.cost().cluster();
  int64_t numDevices = cluster.devices.size();
  int64_t numSegments = builder.cost().profile().numSegments();
  for (int64_t numStages = 1; numStages <= std::min(numDevices, numSegments);
       ++numStages) {
    if (numDevices % numStages != 0)
      continue;
    int64_t perStage = numDevices / numStages;
    std::vector<std::vector<int>> stageDevices(numStages);
    for (int d = 0; d < numDevices; ++d)
      stageDevices[d / perStage].push_back(d);
    addCandidates(builder,
                  layoutOf(stageDevices, equalEnds(numSegments, numStages)),
                  baselineOptions(builder, ShareRule::Equal, ShardRule::Even),
                  false, candidates);
  }
}

void dataParallelUneven(const CandidateBuilder &builder,
                        std::vector<Candidate> &candidates) {
  const Cluster &cluster = builder.cost().cluster();
  std::vector<int> all(cluster.devices.size());
  std::iota(all.begin(), all.end(), 0);
  addCandidates(
      builder, {{all, 0, builder.cost().profile().numSegments()}},
      baselineOptions(builder, ShareRule::Throughput, ShardRule::FreeMemory),
      false, candidates);
}

void stagesProportional(const CandidateBuilder &builder,
                        std::vector<Candidate> &candidates) {
  const Cluster &cluster = builder.cost().cluster();
  const ModelProfile &profile = builder.cost().profile();
  // One group per node and GPU type, in file order.
  std::vector<std::vector<int>> groups;
  for (const auto &[d, device] : llvm::enumerate(cluster.devices)) {
    if (groups.empty() ||
        cluster.devices[groups.back()[0]].node != device.node ||
        cluster.devices[groups.back()[0]].gpu.type != device.gpu.type)
      groups.emplace_back();
    groups.back().push_back(d);
  }
  // More groups than segments: merge neighbours into as many stages.
  size_t numStages = std::min<size_t>(groups.size(), profile.numSegments());
  std::vector<std::vector<int>> stageDevices(numStages);
  for (size_t g = 0; g < groups.size(); ++g)
    llvm::append_range(stageDevices[g * numStages / groups.size()], groups[g]);
  std::vector<double> peak;
  for (const std::vector<int> &devices : stageDevices) {
    double flops = 0;
    for (int d : devices) {
      const GpuSpec &gpu = cluster.devices[d].gpu;
      flops += std::max({gpu.fp32Tflops, gpu.fp16Tflops, gpu.bf16Tflops});
    }
    peak.push_back(flops);
  }
  addCandidates(
      builder, layoutOf(stageDevices, proportionalEnds(profile, peak)),
      baselineOptions(builder, ShareRule::Throughput, ShardRule::Even), true,
      candidates);
}

} // namespace

std::vector<Candidate> baselineCandidates(const CandidateBuilder &builder,
                                          Strategy strategy) {
  std::vector<Candidate> candidates;
  switch (strategy) {
  case Strategy::Uniform:
    uniform(builder, candidates);
    break;
  case Strategy::DataParallelUneven:
    dataParallelUneven(builder, candidates);
    break;
  case Strategy::StagesProportional:
    stagesProportional(builder, candidates);
    break;
  case Strategy::Search:
    for (Strategy baseline : baselineStrategies())
      llvm::append_range(candidates, baselineCandidates(builder, baseline));
    break;
  }
  return candidates;
}

} // namespace hetc::planner
