//===- StageSplit.cpp - stages as runs of devices over runs of segments ---===//
//
// A dynamic program over (stages left, first unit, first segment) that
// minimizes the slowest stage. A stage's time is its compute for the whole
// batch at throughput-proportional shares or, where they take longer, its
// replicas' sends of that share's activations and gradients over the links
// to the stages beside it (sends overlap compute), then its update
// (reduce-scatter and all-gather over its ring, the optimizer on an even
// shard): a slow link inside a stage shows in the ring, one between stages
// in the sends. The first stages keep more micro-batches in flight, so
// whether a stage fits (or needs recompute or optimizer offload) depends on
// how many stages follow it; the program runs from the last stage
// backwards to know. Everything it reads is tabulated
// first: per GPU type and segment range the compute time, per unit range the
// ring's fixed and per-byte cost, per stage option its time and the most stages
// it may lead. Under full sharding a replicated stage shards its parameters and
// their summed gradients with the optimizer state, and gathers the
// parameters and scatters the gradients around each micro-batch's calls
// instead of once per step. The memory figure here is a schedule-free
// approximation; the candidate builder checks the cost model's.
//
//===----------------------------------------------------------------------===//

#include "planner/SearchSpace.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <optional>

namespace hetc::planner {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
/// Token ids and labels are int64, kept for the whole step.
constexpr int64_t kTokenBytes = 8;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// What a stage's memory estimate combines, from the profile.
struct StageSizes {
  StageSizes(const ModelProfile &profile, int64_t firstSegment,
             int64_t endSegment) {
    SegmentCost range = profile.range(firstSegment, endSegment);
    auto boundary = [&](int64_t segment) {
      return segment < 0 ? 0 : profile.segments[segment].boundaryBytes;
    };
    parameterBytes = range.parameterBytes;
    stateBytes = profile.optimizerStatePerParameterByte * range.parameterBytes;
    savedBytes = range.savedActivationBytes;
    inputBytes = boundary(firstSegment - 1);
    outputBytes =
        endSegment < profile.numSegments() ? boundary(endSegment - 1) : 0;
    for (int64_t g = firstSegment; g < endSegment; ++g) {
      workingBytes = std::max(workingBytes, boundary(g - 1) + boundary(g));
      largestSegmentParameterBytes = std::max(
          largestSegmentParameterBytes, profile.segments[g].parameterBytes);
    }
  }

  int64_t parameterBytes = 0;
  /// Of one segment: what full sharding gathers at a time.
  int64_t largestSegmentParameterBytes = 0;
  /// Optimizer state of the whole stage.
  int64_t stateBytes = 0;
  /// Per sample: kept for the backward, arriving, leaving (0 in the last
  /// stage), and the largest in and out boundaries of one segment.
  int64_t savedBytes = 0;
  int64_t inputBytes = 0;
  int64_t outputBytes = 0;
  int64_t workingBytes = 0;
};

/// Bytes a replica needs besides its state shard at one sample per
/// micro-batch with `inFlight` micro-batches kept: parameters and their
/// gradients (whole, or under full sharding one segment's, gathered and
/// made around the segment), tokens, and the largest of the moments the cost
/// model's walk peaks at, with a margin for the placement gaps: with whole
/// gradients each micro-batch's sum is made beside the last, and several
/// replicas join them into one flat copy for the reduce-scatter. Close to
/// CostModel::rankMemoryBytes, which the candidate builder then uses.
int64_t bytesBesidesShard(const StageSizes &sizes, int64_t inFlight,
                          bool recompute, bool replicated,
                          bool shardsParameters, int64_t tokens) {
  constexpr double kActivationMargin = 1.1;
  int64_t saved = recompute ? sizes.inputBytes : sizes.savedBytes;
  int64_t kept = inFlight * saved;
  int64_t summing =
      shardsParameters ? 0 : sizes.parameterBytes + sizes.inputBytes - saved;
  int64_t transient = std::max(
      {sizes.outputBytes,
       (recompute ? sizes.savedBytes : 0) + sizes.workingBytes, summing});
  int64_t reduction =
      replicated && !shardsParameters ? sizes.parameterBytes : 0;
  int64_t activations = std::max(
      sizes.inputBytes + sizes.outputBytes + kept + transient, reduction);
  int64_t wholeParameters = shardsParameters
                                ? sizes.largestSegmentParameterBytes
                                : sizes.parameterBytes;
  return 2 * wholeParameters + tokens +
         static_cast<int64_t>(kActivationMargin * activations);
}

/// Segment chains longer than this are cut only between blocks of about
/// equal FLOPs, so that the program stays small for deep models.
constexpr size_t kMaxCutPoints = 33;

/// The segment indices stages may start or end at, 0 and L included.
std::vector<int64_t> cutPoints(const ModelProfile &profile) {
  int64_t numSegments = profile.numSegments();
  std::vector<int64_t> cuts;
  if (static_cast<size_t>(numSegments) + 1 <= kMaxCutPoints) {
    for (int64_t g = 0; g <= numSegments; ++g)
      cuts.push_back(g);
    return cuts;
  }
  double total = 0;
  for (const SegmentCost &segment : profile.segments)
    total += segment.forwardFlops + segment.backwardFlops;
  double block = total / (kMaxCutPoints - 1), sum = 0;
  cuts.push_back(0);
  for (int64_t g = 0; g < numSegments; ++g) {
    sum += profile.segments[g].forwardFlops + profile.segments[g].backwardFlops;
    if (sum >= block * cuts.size() && g + 1 < numSegments)
      cuts.push_back(g + 1);
  }
  cuts.push_back(numSegments);
  return cuts;
}

class StageSplitter {
public:
  StageSplitter(const CostModel &cost, const PlanRequest &request,
                llvm::ArrayRef<std::vector<int>> units, int64_t maxStages,
                ShardingKind sharding)
      : cost(cost), request(request), sharding(sharding), units(units),
        cuts(cutPoints(cost.profile())), numUnits(units.size()),
        numCuts(cuts.size()),
        maxStages(std::min<int64_t>(
            {maxStages, int64_t(units.size()), int64_t(cuts.size()) - 1})) {}

  std::vector<StageLayout> run() {
    tabulateTypes();
    tabulateRings();
    tabulateStages();
    solve();
    std::vector<StageLayout> layouts;
    for (int64_t stages = 1; stages <= maxStages; ++stages)
      if (best(stages, 0, 0) < kInfinity)
        layouts.push_back(reconstruct(stages));
    for (int64_t stages = 2; stages <= maxStages; ++stages)
      if (numUnits % stages == 0)
        if (std::optional<StageLayout> layout = equalUnits(stages))
          layouts.push_back(std::move(*layout));
    return layouts;
  }

private:
  /// One stage option: its time, and the most stages (itself included) it
  /// may lead and still fit.
  struct StageOption {
    double seconds = kInfinity;
    int64_t maxLead = 0;
  };
  /// A stage's options by what it does to fit: nothing, recompute,
  /// optimizer offload, or both.
  struct StageEntry {
    StageOption keep, recompute, offload, recomputeAndOffload;
  };

  size_t unitPair(size_t a, size_t b) const { return a * (numUnits + 1) + b; }
  size_t cutPair(size_t i, size_t j) const { return i * numCuts + j; }

  void tabulateTypes() {
    for (const std::vector<int> &unit : units)
      for (int d : unit) {
        const std::string &type = cost.cluster().devices[d].gpu.type;
        if (!llvm::is_contained(typeNames, type)) {
          typeNames.push_back(type);
          typeDevice.push_back(d);
        }
      }
    size_t numTypes = typeNames.size();
    // Counts per type over unit prefixes.
    typePrefix.assign((numUnits + 1) * numTypes, 0);
    for (size_t u = 0; u < numUnits; ++u) {
      for (size_t t = 0; t < numTypes; ++t)
        typePrefix[(u + 1) * numTypes + t] = typePrefix[u * numTypes + t];
      for (int d : units[u]) {
        size_t t = llvm::find(typeNames, cost.cluster().devices[d].gpu.type) -
                   typeNames.begin();
        ++typePrefix[(u + 1) * numTypes + t];
      }
    }
    int64_t devices = 0;
    for (const std::vector<int> &unit : units)
      devices += unit.size();
    referenceMicroBatch = std::max<int64_t>(1, request.globalBatch / devices);
    // Seconds per sample at the reference micro-batch, with and without
    // recompute; optimizer seconds per element, on the device and on its
    // host.
    perSample.assign(numTypes * numCuts * numCuts * 2, kInfinity);
    for (size_t t = 0; t < numTypes; ++t) {
      optimizerPerElement.push_back(
          cost.optimizerSeconds(typeDevice[t], 1 << 20) / (1 << 20));
      hostOptimizerPerElement.push_back(
          cost.optimizerSeconds(typeDevice[t], 1 << 20, /*offloaded=*/true) /
          (1 << 20));
      for (size_t i = 0; i < numCuts; ++i)
        for (size_t j = i + 1; j < numCuts; ++j)
          for (int recompute = 0; recompute < 2; ++recompute) {
            double seconds =
                cost.computeSeconds(typeDevice[t], cuts[i], cuts[j], false,
                                    referenceMicroBatch) +
                cost.computeSeconds(typeDevice[t], cuts[i], cuts[j], true,
                                    referenceMicroBatch, recompute);
            perSample[index(t, i, j, recompute)] =
                seconds / referenceMicroBatch;
          }
    }
  }

  size_t index(size_t t, size_t i, size_t j, int recompute) const {
    return ((t * numCuts + i) * numCuts + j) * 2 + recompute;
  }

  /// Reduce-scatter plus all-gather over each unit range, as fixed seconds
  /// and seconds per byte of one part.
  void tabulateRings() {
    constexpr int64_t probeBytes = 1 << 26;
    ringFixed.assign((numUnits + 1) * (numUnits + 1), 0);
    ringPerByte.assign((numUnits + 1) * (numUnits + 1), 0);
    for (size_t a = 0; a < numUnits; ++a) {
      std::vector<int> members;
      for (size_t b = a + 1; b <= numUnits; ++b) {
        llvm::append_range(members, units[b - 1]);
        if (members.size() < 2)
          continue;
        std::vector<int64_t> empty(members.size(), 0),
            probe(members.size(), probeBytes);
        double fixed = cost.reduceScatterSeconds(members, empty) +
                       cost.allGatherSeconds(members, empty);
        double full = cost.reduceScatterSeconds(members, probe) +
                      cost.allGatherSeconds(members, probe);
        ringFixed[unitPair(a, b)] = fixed;
        ringPerByte[unitPair(a, b)] = (full - fixed) / probeBytes;
      }
    }
  }

  /// Per unit range, the host memory each replica of a stage over it has
  /// for its state at the least: each node's usable host bytes over the
  /// range's devices on it.
  void tabulateHosts() {
    const Cluster &cluster = cost.cluster();
    hostRoom.assign((numUnits + 1) * (numUnits + 1), 0);
    for (size_t a = 0; a < numUnits; ++a) {
      llvm::SmallDenseMap<int, int64_t> devicesOnNode;
      for (size_t b = a + 1; b <= numUnits; ++b) {
        for (int d : units[b - 1])
          ++devicesOnNode[cluster.devices[d].node];
        int64_t room = std::numeric_limits<int64_t>::max();
        for (auto [node, devices] : devicesOnNode) {
          double usable =
              request.memoryFraction *
              static_cast<double>(cluster.nodes[node].hostMemoryBytes);
          room = std::min(room, static_cast<int64_t>(usable) / devices);
        }
        hostRoom[unitPair(a, b)] = room;
      }
    }
  }

  /// The option of one stage over units [a, b) and cuts [i, j).
  StageOption option(size_t a, size_t b, size_t i, size_t j, int recompute,
                     bool offload) {
    size_t numTypes = typeNames.size();
    int64_t replicas = 0;
    double rate = 0, optimizer = 0;
    for (size_t t = 0; t < numTypes; ++t) {
      int64_t count =
          typePrefix[b * numTypes + t] - typePrefix[a * numTypes + t];
      replicas += count;
      if (count > 0)
        rate += count / perSample[index(t, i, j, recompute)];
    }
    if (replicas > request.globalBatch)
      return {};
    const StageSizes &sizes = stageSizes[cutPair(i, j)];
    // Offloaded, the state's even shards go to the replicas' hosts.
    if (offload && sizes.stateBytes / replicas > hostRoom[unitPair(a, b)])
      return {};
    bool gathers = replicas > 1 && sharding == ShardingKind::Full;
    int64_t shardedBytes = (offload ? 0 : sizes.stateBytes) +
                           (gathers ? 2 * sizes.parameterBytes : 0);
    double elements =
        static_cast<double>(sizes.parameterBytes) / kElementBytes / replicas;
    int64_t samples = (request.globalBatch + replicas - 1) / replicas;
    int64_t tokens = samples * cost.profile().seqLen * kTokenBytes *
                     ((i == 0 ? 1 : 0) + (j + 1 == numCuts ? 1 : 0));
    // The most stages this one can lead: all its devices keep their own
    // needs and together hold the state.
    StageOption result;
    for (int64_t lead = 1; lead <= maxStages; ++lead) {
      int64_t needed =
          bytesBesidesShard(sizes, std::min(lead, samples), recompute,
                            replicas > 1, gathers, tokens);
      int64_t totalFree = 0;
      bool fits = true;
      for (size_t t = 0; t < numTypes && fits; ++t) {
        int64_t count =
            typePrefix[b * numTypes + t] - typePrefix[a * numTypes + t];
        if (count == 0)
          continue;
        fits = usable[t] >= needed;
        totalFree += count * (usable[t] - needed);
      }
      if (!fits || totalFree < shardedBytes)
        break;
      result.maxLead = lead;
    }
    if (result.maxLead == 0)
      return result;
    for (size_t t = 0; t < numTypes; ++t)
      if (typePrefix[b * numTypes + t] > typePrefix[a * numTypes + t])
        optimizer = std::max(optimizer, (offload ? hostOptimizerPerElement[t]
                                                 : optimizerPerElement[t]) *
                                            elements);
    double update = optimizer;
    if (replicas > 1 && sizes.parameterBytes > 0) {
      double ring = ringFixed[unitPair(a, b)] + ringPerByte[unitPair(a, b)] *
                                                    sizes.parameterBytes /
                                                    replicas;
      // Full sharding: a gather per forward, a gather and a scatter per
      // backward, at the reference micro-batch.
      update +=
          gathers ? 1.5 * ring * ceilDiv(samples, referenceMicroBatch) : ring;
    }
    result.seconds = std::max(request.globalBatch / rate,
                              transferSeconds(a, b, i, j, replicas)) +
                     update;
    return result;
  }

  /// A replica's share of the batch crossing the links to the stages
  /// before and after: the activations one way, their gradients the other.
  double transferSeconds(size_t a, size_t b, size_t i, size_t j,
                         int64_t replicas) const {
    const Cluster &cluster = cost.cluster();
    const ModelProfile &profile = cost.profile();
    double samples = static_cast<double>(request.globalBatch) / replicas;
    double seconds = 0;
    if (i > 0 && a > 0)
      seconds += samples * profile.segments[cuts[i] - 1].boundaryBytes /
                 (cluster.linkBetween(units[a - 1].back(), units[a].front())
                      .bandwidthGBps *
                  1e9);
    if (j + 1 < numCuts && b < numUnits)
      seconds += samples * profile.segments[cuts[j] - 1].boundaryBytes /
                 (cluster.linkBetween(units[b - 1].back(), units[b].front())
                      .bandwidthGBps *
                  1e9);
    return seconds;
  }

  void tabulateStages() {
    for (size_t i = 0; i < numCuts; ++i)
      for (size_t j = 0; j < numCuts; ++j)
        stageSizes.emplace_back(cost.profile(), cuts[i],
                                std::max(cuts[i], cuts[j]));
    for (int d : typeDevice)
      usable.push_back(static_cast<int64_t>(
          request.memoryFraction *
          static_cast<double>(cost.cluster().devices[d].gpu.memoryBytes())));
    bool mayOffload = request.allowOffload &&
                      cost.profile().optimizerStatePerParameterByte > 0;
    if (mayOffload)
      tabulateHosts();
    entries.resize(unitPair(numUnits, numUnits) + 1);
    for (size_t a = 0; a < numUnits; ++a)
      for (size_t b = a + 1; b <= numUnits; ++b) {
        std::vector<StageEntry> &row = entries[unitPair(a, b)];
        row.resize(numCuts * numCuts);
        for (size_t i = 0; i < numCuts; ++i)
          for (size_t j = i + 1; j < numCuts; ++j) {
            StageEntry &entry = row[cutPair(i, j)];
            entry.keep = option(a, b, i, j, 0, false);
            if (entry.keep.maxLead == maxStages)
              continue;
            if (request.allowRecompute)
              entry.recompute = option(a, b, i, j, 1, false);
            if (mayOffload)
              entry.offload = option(a, b, i, j, 0, true);
            if (request.allowRecompute && mayOffload)
              entry.recomputeAndOffload = option(a, b, i, j, 1, true);
          }
      }
  }

  /// The stage's seconds when it leads `lead` stages: the fastest of its
  /// options that fit (doing nothing, where that fits).
  double stageSeconds(size_t a, size_t b, size_t i, size_t j,
                      int64_t lead) const {
    const StageEntry &entry = entries[unitPair(a, b)][cutPair(i, j)];
    double seconds = kInfinity;
    for (const StageOption &option : {entry.keep, entry.recompute,
                                      entry.offload, entry.recomputeAndOffload})
      if (option.maxLead >= lead)
        seconds = std::min(seconds, option.seconds);
    return seconds;
  }

  double &best(int64_t stages, size_t a, size_t i) {
    return table[(stages * (numUnits + 1) + a) * numCuts + i];
  }

  void solve() {
    size_t states = (maxStages + 1) * (numUnits + 1) * numCuts;
    table.assign(states, kInfinity);
    choice.assign(states, {0, 0});
    // No stages left: done once every segment is covered; the remaining
    // units stay idle.
    for (size_t a = 0; a <= numUnits; ++a)
      best(0, a, numCuts - 1) = 0;
    for (int64_t stages = 1; stages <= maxStages; ++stages)
      for (size_t a = 0; a < numUnits; ++a)
        for (size_t i = 0; i + 1 < numCuts; ++i) {
          double &here = best(stages, a, i);
          for (size_t b = a + 1; b <= numUnits; ++b)
            for (size_t j = i + 1; j < numCuts; ++j) {
              double rest = best(stages - 1, b, j);
              if (rest >= here)
                continue;
              double seconds = std::max(rest, stageSeconds(a, b, i, j, stages));
              if (seconds < here) {
                here = seconds;
                choice[(stages * (numUnits + 1) + a) * numCuts + i] = {b, j};
              }
            }
        }
  }

  /// The best segment split when stage s holds units [s u, (s + 1) u).
  std::optional<StageLayout> equalUnits(int64_t stages) {
    size_t perStage = numUnits / stages;
    // rest[k][i]: the slowest of stages k.. when stage k starts at cut i.
    std::vector<std::vector<double>> rest(
        stages + 1, std::vector<double>(numCuts, kInfinity));
    std::vector<std::vector<size_t>> end(stages, std::vector<size_t>(numCuts));
    rest[stages][numCuts - 1] = 0;
    for (int64_t k = stages - 1; k >= 0; --k)
      for (size_t i = 0; i + 1 < numCuts; ++i)
        for (size_t j = i + 1; j < numCuts; ++j) {
          double seconds = std::max(
              rest[k + 1][j],
              stageSeconds(k * perStage, (k + 1) * perStage, i, j, stages - k));
          if (seconds < rest[k][i]) {
            rest[k][i] = seconds;
            end[k][i] = j;
          }
        }
    if (rest[0][0] == kInfinity)
      return std::nullopt;
    StageLayout layout;
    for (int64_t k = 0, i = 0; k < stages; ++k) {
      StageDevices &stage = layout.emplace_back();
      for (size_t u = k * perStage; u < (k + 1) * perStage; ++u)
        llvm::append_range(stage.devices, units[u]);
      stage.firstSegment = cuts[i];
      i = end[k][i];
      stage.endSegment = cuts[i];
    }
    return layout;
  }

  StageLayout reconstruct(int64_t stages) {
    StageLayout layout;
    size_t a = 0, i = 0;
    for (; stages > 0; --stages) {
      auto [b, j] = choice[(stages * (numUnits + 1) + a) * numCuts + i];
      StageDevices &stage = layout.emplace_back();
      for (size_t u = a; u < b; ++u)
        llvm::append_range(stage.devices, units[u]);
      stage.firstSegment = cuts[i];
      stage.endSegment = cuts[j];
      a = b;
      i = j;
    }
    return layout;
  }

  const CostModel &cost;
  const PlanRequest &request;
  ShardingKind sharding;
  llvm::ArrayRef<std::vector<int>> units;
  std::vector<int64_t> cuts;
  size_t numUnits, numCuts;
  int64_t maxStages;

  std::vector<std::string> typeNames;
  std::vector<int> typeDevice;
  std::vector<int64_t> typePrefix;
  std::vector<int64_t> usable;
  int64_t referenceMicroBatch = 1;
  std::vector<double> perSample, optimizerPerElement, hostOptimizerPerElement;
  /// Per unit range (unitPair), tabulateHosts' bytes.
  std::vector<int64_t> hostRoom;
  std::vector<double> ringFixed, ringPerByte;
  std::vector<StageSizes> stageSizes;
  std::vector<std::vector<StageEntry>> entries;
  std::vector<double> table;
  std::vector<std::pair<size_t, size_t>> choice;
};

} // namespace

std::vector<StageLayout> splitStages(const CostModel &cost,
                                     const PlanRequest &request,
                                     llvm::ArrayRef<std::vector<int>> units,
                                     int64_t maxStages, ShardingKind sharding) {
  if (units.empty() || cost.profile().numSegments() == 0)
    return {};
  return StageSplitter(cost, request, units, maxStages, sharding).run();
}

} // namespace hetc::planner
