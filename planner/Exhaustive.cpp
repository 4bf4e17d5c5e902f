//===- Exhaustive.cpp - every plan of the search space, for small clusters ===//
//
// Enumerates every ordered partition of the devices into stages (devices of
// one type on one node are interchangeable, so a stage is a count per such
// class), every contiguous segment split, every split of the batch over a
// stage's classes (even within a class), every micro-batch count, both
// shardings (full where every replica of a stage can run the count in
// lockstep), and both schedules where the stages' sample ranges differ; the
// builder's rules give recompute, optimizer offload, memory fits and
// shards, and the simulator judges.
//
// Branch and bound keeps it tractable: it starts from the search's plan and
// skips whatever a lower bound on the simulated step shows cannot beat the
// best plan so far. A stage's replicas cannot start before one sample has
// gone forward through the earlier stages and over the fastest links
// between them, nor end their update before it has come back; in between,
// the busiest computes its share (at the most efficient call size while
// shares are open, at its micro-batches once they are known), or sends it
// on and back over its fastest links where that takes longer (sends
// overlap compute; sends through one port add up, and a node's replicas
// whose neighbour stage is all elsewhere share its network port); its
// update takes at least the ring collectives of even parts, and the
// all-reduce of a tied parameter whose readers it splits. The stages still
// to come share their FLOPs at best at every remaining device's peak
// efficiency. The bounds only prune what cannot win, so the result is the
// optimum of the space.
//
//===----------------------------------------------------------------------===//

#include "planner/SearchSpace.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <set>

namespace hetc::planner {

namespace {

constexpr size_t kMaxExhaustiveDevices = 8;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// How a device reaches a neighbour stage: the fastest link to one of its
/// devices (0: no such stage) and whether all of them are on the device's
/// node, or all elsewhere.
struct NeighbourLink {
  double bytesPerSecond = 0;
  bool onNode = false, offNode = false;
};

class ExhaustiveSearch {
public:
  ExhaustiveSearch(const CandidateBuilder &builder, BestCandidate &best)
      : builder(builder), cost(builder.cost()), profile(cost.profile()),
        best(best), batch(builder.request().globalBatch),
        numSegments(profile.numSegments()) {
    const Cluster &cluster = cost.cluster();
    std::map<std::pair<int, std::string>, size_t> classIndex;
    for (const auto &[d, device] : llvm::enumerate(cluster.devices)) {
      auto [it, inserted] = classIndex.try_emplace(
          {device.node, device.gpu.type}, classes.size());
      if (inserted)
        classes.emplace_back();
      classes[it->second].push_back(d);
      classOf.push_back(it->second);
    }
    tabulate();
  }

  llvm::Error run() {
    std::vector<int64_t> remaining;
    for (const std::vector<int> &members : classes)
      remaining.push_back(members.size());
    return partition(remaining);
  }

private:
  size_t at(size_t c, int64_t i, int64_t j) const {
    return (c * (numSegments + 1) + i) * (numSegments + 1) + j;
  }

  /// Per class and segment range: the fewest seconds per sample (at the
  /// whole batch, the most efficient call) and one sample's forward and
  /// backward; per class, the fewest seconds per FLOP of any segment.
  void tabulate() {
    size_t ranges = (numSegments + 1) * (numSegments + 1);
    perSample.assign(classes.size() * ranges, kInfinity);
    oneForward.assign(classes.size() * ranges, kInfinity);
    oneBackward.assign(classes.size() * ranges, kInfinity);
    flopsBefore.assign(numSegments + 1, 0);
    for (int64_t g = 0; g < numSegments; ++g)
      flopsBefore[g + 1] = flopsBefore[g] + profile.segments[g].forwardFlops +
                           profile.segments[g].backwardFlops;
    constexpr double kHugeBatch = 1e12;
    for (size_t c = 0; c < classes.size(); ++c) {
      int d = classes[c][0];
      double perFlop = kInfinity;
      for (int64_t i = 0; i < numSegments; ++i) {
        for (bool backward : {false, true}) {
          const SegmentCost &segment = profile.segments[i];
          double flops =
              backward ? segment.backwardFlops : segment.forwardFlops;
          if (flops > 0)
            perFlop = std::min(perFlop, cost.computeSeconds(
                                            d, i, i + 1, backward, kHugeBatch) /
                                            (flops * kHugeBatch));
        }
        for (int64_t j = i + 1; j <= numSegments; ++j) {
          perSample[at(c, i, j)] = (cost.computeSeconds(d, i, j, false, batch) +
                                    cost.computeSeconds(d, i, j, true, batch)) /
                                   batch;
          oneForward[at(c, i, j)] = cost.computeSeconds(d, i, j, false, 1);
          oneBackward[at(c, i, j)] = cost.computeSeconds(d, i, j, true, 1);
        }
      }
      // Rounding must not make the bound exceed the truth.
      flopsPerSecond.push_back((1 - 1e-9) / perFlop);
    }
  }

  /// Stages as class counts: every way to take a non-empty stage from
  /// what remains, then the rest.
  llvm::Error partition(std::vector<int64_t> &remaining) {
    if (llvm::all_of(remaining, [](int64_t n) { return n == 0; }))
      return split();
    if (static_cast<int64_t>(stages.size()) == numSegments)
      return llvm::Error::success();
    std::vector<int64_t> take(remaining.size(), 0);
    return takeStage(remaining, take, 0);
  }

  llvm::Error takeStage(std::vector<int64_t> &remaining,
                        std::vector<int64_t> &take, size_t c) {
    if (c == remaining.size()) {
      if (llvm::all_of(take, [](int64_t n) { return n == 0; }))
        return llvm::Error::success();
      for (size_t k = 0; k < take.size(); ++k)
        remaining[k] -= take[k];
      stages.push_back(take);
      llvm::Error error = partition(remaining);
      stages.pop_back();
      for (size_t k = 0; k < take.size(); ++k)
        remaining[k] += take[k];
      return error;
    }
    for (int64_t n = 0; n <= remaining[c]; ++n) {
      take[c] = n;
      if (llvm::Error error = takeStage(remaining, take, c + 1))
        return error;
    }
    take[c] = 0;
    return llvm::Error::success();
  }

  llvm::Error split() {
    size_t numStages = stages.size();
    layout.assign(numStages, {});
    std::vector<size_t> used(classes.size(), 0);
    peakAfter.assign(numStages + 1, 0);
    for (size_t s = 0; s < numStages; ++s) {
      int64_t replicas = 0;
      for (size_t c = 0; c < classes.size(); ++c)
        for (int64_t n = 0; n < stages[s][c]; ++n, ++replicas)
          layout[s].devices.push_back(classes[c][used[c]++]);
      if (replicas > batch)
        return llvm::Error::success();
      llvm::sort(layout[s].devices);
    }
    for (size_t s = numStages; s-- > 0;) {
      peakAfter[s] = peakAfter[s + 1];
      for (size_t c = 0; c < classes.size(); ++c)
        peakAfter[s] += stages[s][c] * flopsPerSecond[c];
    }
    // How each device reaches the stages before and after it.
    const Cluster &cluster = cost.cluster();
    neighbours.assign(numStages, {});
    for (size_t s = 0; s < numStages; ++s)
      for (int d : layout[s].devices) {
        auto reach = [&](size_t other) {
          NeighbourLink link;
          link.onNode = link.offNode = true;
          for (int e : layout[other].devices) {
            link.bytesPerSecond =
                std::max(link.bytesPerSecond,
                         cluster.linkBetween(d, e).bandwidthGBps * 1e9);
            bool sameNode = cluster.devices[d].node == cluster.devices[e].node;
            link.onNode &= sameNode;
            link.offNode &= !sameNode;
          }
          return link;
        };
        neighbours[s].push_back(
            {s > 0 ? reach(s - 1) : NeighbourLink(),
             s + 1 < numStages ? reach(s + 1) : NeighbourLink()});
      }
    crossingLinks.assign(numStages, {});
    for (size_t s = 0; s + 1 < numStages; ++s)
      for (int d : layout[s].devices)
        for (int e : layout[s + 1].devices)
          if (const Link *link = &cluster.linkBetween(d, e);
              !llvm::is_contained(crossingLinks[s], link))
            crossingLinks[s].push_back(link);
    return splitFrom(0, 0, 0, 0);
  }

  /// Seconds per sample replica r of stage s at least keeps one of its
  /// ports busy over segments [first, end), sending one sample's
  /// activations on and its gradients back at the fastest links' speed:
  /// both through the GPU's own port where both stages are on its node,
  /// both through the node's where both are elsewhere, else either. Sends
  /// overlap compute, so the replica takes the longer of the two.
  double sendPerSample(size_t s, size_t r, int64_t first, int64_t end) const {
    double onNode = 0, offNode = 0, either = 0;
    for (auto [link, seconds] : sendsPerSample(s, r, first, end)) {
      if (link->onNode)
        onNode += seconds;
      else if (link->offNode)
        offNode += seconds;
      else
        either = std::max(either, seconds);
    }
    return std::max({onNode, offNode, either});
  }

  /// Seconds per sample that replica r of stage s keeps its node's network
  /// port busy at least: its sends to stages wholly on other nodes, which
  /// the node's other replicas of the stage share.
  double nodePortPerSample(size_t s, size_t r, int64_t first,
                           int64_t end) const {
    double seconds = 0;
    for (auto [link, perSample] : sendsPerSample(s, r, first, end))
      if (link->offNode)
        seconds += perSample;
    return seconds;
  }

  /// The sends of one sample by replica r of stage s: to the stage before
  /// (gradients) and after (activations), at the fastest link's speed.
  llvm::SmallVector<std::pair<const NeighbourLink *, double>, 2>
  sendsPerSample(size_t s, size_t r, int64_t first, int64_t end) const {
    llvm::SmallVector<std::pair<const NeighbourLink *, double>, 2> sends;
    const auto &[before, after] = neighbours[s][r];
    if (before.bytesPerSecond > 0)
      sends.push_back({&before, profile.segments[first - 1].boundaryBytes /
                                    before.bytesPerSecond});
    if (after.bytesPerSecond > 0)
      sends.push_back({&after, profile.segments[end - 1].boundaryBytes /
                                   after.bytesPerSecond});
    return sends;
  }

  /// Seconds one sample's activations (or their gradients) take at least
  /// from stage s, ending at segment `end`, to the stage after it (or
  /// back); 0 for the last stage.
  double crossingSeconds(size_t s, int64_t end) const {
    double seconds = crossingLinks[s].empty() ? 0 : kInfinity;
    for (const Link *link : crossingLinks[s])
      seconds = std::min(
          seconds, link->seconds(profile.segments[end - 1].boundaryBytes));
    return seconds;
  }

  /// The most samples per second stage s's replicas can take over segments
  /// [first, end): each at its compute or sending rate, the replicas of a
  /// node together at most at its network port's.
  double stageRate(size_t s, int64_t first, int64_t end) const {
    const std::vector<int> &devices = layout[s].devices;
    std::map<int, std::pair<double, double>> byNode; // rate, port s/sample
    for (size_t r = 0; r < devices.size(); ++r) {
      auto &[rate, port] = byNode[cost.cluster().devices[devices[r]].node];
      rate += 1 / std::max(perSample[at(classOf[devices[r]], first, end)],
                           sendPerSample(s, r, first, end));
      port = nodePortPerSample(s, r, first, end);
    }
    double rate = 0;
    for (const auto &[node, nodeRate] : byNode)
      rate += nodeRate.second > 0
                  ? std::min(nodeRate.first, 1 / nodeRate.second)
                  : nodeRate.first;
    return rate;
  }

  /// The least the update after stage s's last backward takes over
  /// segments [first, end): reduce-scatter and all-gather of even parts
  /// (the largest part is at least that), the optimizer on an even shard,
  /// on the device or, where allowed, on its host.
  double updateSeconds(size_t s, int64_t first, int64_t end) const {
    const std::vector<int> &devices = layout[s].devices;
    int64_t parameters = profile.range(first, end).parameters;
    int64_t replicas = devices.size();
    double optimizer = kInfinity;
    for (int d : devices) {
      optimizer =
          std::min(optimizer, cost.optimizerSeconds(d, parameters / replicas));
      if (builder.request().allowOffload)
        optimizer =
            std::min(optimizer, cost.optimizerSeconds(d, parameters / replicas,
                                                      /*offloaded=*/true));
    }
    if (replicas == 1)
      return optimizer;
    std::vector<int64_t> parts(replicas, parameters / replicas * kElementBytes);
    return optimizer + cost.reduceScatterSeconds(devices, parts) +
           cost.allGatherSeconds(devices, parts);
  }

  /// The all-reduce of the tied parameters' gradients that stage s pays
  /// over segments [first, end), at least: where a tie's readers are split
  /// over stages, one over this stage's devices, those of the earlier
  /// stages reading it and, where later segments read it too, those of the
  /// later stage that makes it cheapest.
  double tieSeconds(size_t s, int64_t first, int64_t end) const {
    double seconds = 0;
    for (const SharedParameter &tied : profile.sharedParameters) {
      std::vector<int> devices = layout[s].devices;
      bool here = false, later = false, split = false;
      for (int64_t segment : tied.segments) {
        if (segment >= first && segment < end) {
          here = true;
          continue;
        }
        split = true;
        if (segment >= end) {
          later = true;
          continue;
        }
        for (size_t t = 0; t < s; ++t)
          if (segment >= layout[t].firstSegment &&
              segment < layout[t].endSegment &&
              !llvm::is_contained(devices, layout[t].devices.front()))
            llvm::append_range(devices, layout[t].devices);
      }
      if (!here || !split)
        continue;
      if (!later) {
        seconds += cost.allReduceSeconds(devices, tied.bytes);
        continue;
      }
      double cheapest = kInfinity;
      for (size_t t = s + 1; t < layout.size(); ++t) {
        std::vector<int> with = devices;
        llvm::append_range(with, layout[t].devices);
        cheapest = std::min(cheapest, cost.allReduceSeconds(with, tied.bytes));
      }
      seconds += cheapest;
    }
    return seconds;
  }

  /// A stage cannot start before one sample has gone forward through the
  /// earlier stages, and its replicas' update cannot end before that sample
  /// has gone back through them.
  static double stageBound(double tripForward, double tripBackward, double busy,
                           double update) {
    return tripForward + busy + std::max(tripBackward, update);
  }

  /// Chooses stage s's segments [first, end), one sample having gone
  /// forward and back through the earlier stages and the links between
  /// them in `tripForward` and `tripBackward`.
  llvm::Error splitFrom(size_t s, int64_t first, double tripForward,
                        double tripBackward) {
    if (s == stages.size())
      return first == numSegments ? shareFrom(0) : llvm::Error::success();
    // The stages left share their FLOPs at best at their peak efficiency.
    double left = batch * (flopsBefore[numSegments] - flopsBefore[first]);
    if (tripForward + tripBackward + left / peakAfter[s] >= best.stepSeconds())
      return llvm::Error::success();
    int64_t stagesAfter = stages.size() - s - 1;
    const std::vector<int> &devices = layout[s].devices;
    for (int64_t end = first + 1; end <= numSegments - stagesAfter; ++end) {
      double rate = stageRate(s, first, end), forward = kInfinity,
             backward = kInfinity;
      for (size_t r = 0; r < devices.size(); ++r) {
        size_t c = classOf[devices[r]];
        forward = std::min(forward, oneForward[at(c, first, end)]);
        backward = std::min(backward, oneBackward[at(c, first, end)]);
      }
      // Longer stages only compute longer.
      if (tripForward + batch / rate >= best.stepSeconds())
        break;
      if (stageBound(tripForward, tripBackward, batch / rate,
                     updateSeconds(s, first, end) +
                         tieSeconds(s, first, end)) >= best.stepSeconds())
        continue;
      layout[s].firstSegment = first;
      layout[s].endSegment = end;
      double crossing = crossingSeconds(s, end);
      if (llvm::Error error =
              splitFrom(s + 1, end, tripForward + forward + crossing,
                        tripBackward + backward + crossing))
        return error;
    }
    return llvm::Error::success();
  }

  /// Every split of the batch over stage s's classes, even within each.
  llvm::Error shareFrom(size_t s) {
    if (s == stages.size())
      return tryMicroBatches();
    std::vector<size_t> present;
    for (size_t c = 0; c < classes.size(); ++c)
      if (stages[s][c] > 0)
        present.push_back(c);
    std::vector<int64_t> totals(present.size());
    return classShares(s, present, totals, 0, batch);
  }

  llvm::Error classShares(size_t s, llvm::ArrayRef<size_t> present,
                          std::vector<int64_t> &totals, size_t k,
                          int64_t left) {
    size_t c = present[k];
    int64_t members = stages[s][c];
    bool lastClass = k + 1 == present.size();
    int64_t later = 0;
    for (size_t l = k + 1; l < present.size(); ++l)
      later += stages[s][present[l]];
    const StageDevices &stage = layout[s];
    double perSampleHere =
        perSample[at(c, stage.firstSegment, stage.endSegment)];
    double portPerSample = 0;
    for (size_t r = 0; r < stage.devices.size(); ++r)
      if (classOf[stage.devices[r]] == c) {
        perSampleHere =
            std::max(perSampleHere,
                     sendPerSample(s, r, stage.firstSegment, stage.endSegment));
        portPerSample =
            nodePortPerSample(s, r, stage.firstSegment, stage.endSegment);
        break;
      }
    for (int64_t total = lastClass ? left : members; total <= left - later;
         ++total) {
      // The class's busiest member at the most efficient call size, or
      // its node's port sending the class's share.
      double busiest = std::max((total + members - 1) / members * perSampleHere,
                                total * portPerSample);
      if (busiest >= best.stepSeconds())
        break;
      totals[k] = total;
      if (!lastClass) {
        if (llvm::Error error =
                classShares(s, present, totals, k + 1, left - total))
          return error;
        continue;
      }
      std::vector<int64_t> &stageShares = shares.emplace_back();
      std::vector<int64_t> handed(classes.size(), 0);
      for (int d : stage.devices) {
        size_t p = classOf[d];
        size_t i = llvm::find(present, p) - present.begin();
        int64_t n = stages[s][p];
        stageShares.push_back(totals[i] / n +
                              (handed[p]++ < totals[i] % n ? 1 : 0));
      }
      llvm::Error error = shareFrom(s + 1);
      shares.pop_back();
      if (error)
        return error;
    }
    return llvm::Error::success();
  }

  /// Forward and backward seconds of a micro-batch of `samples` on device
  /// `d` over stage s's segments.
  std::pair<double, double> callSeconds(size_t s, int d, int64_t samples) {
    const StageDevices &stage = layout[s];
    auto key = std::make_tuple(cost.cluster().devices[d].gpu.type,
                               stage.firstSegment, stage.endSegment, samples);
    auto it = callMemo.find(key);
    if (it != callMemo.end())
      return it->second;
    std::pair<double, double> seconds = {
        cost.computeSeconds(d, stage.firstSegment, stage.endSegment, false,
                            samples, false, cost.precisionOn(stage.devices)),
        cost.computeSeconds(d, stage.firstSegment, stage.endSegment, true,
                            samples, false, cost.precisionOn(stage.devices))};
    callMemo.emplace(key, seconds);
    return seconds;
  }

  /// The bound with each replica's micro-batches: each stage's busiest
  /// replica computing and sending them between the trips through the
  /// earlier stages, then its update.
  double lowerBound(llvm::ArrayRef<std::vector<int64_t>> microBatches) {
    double bound = 0, tripForward = 0, tripBackward = 0;
    for (size_t s = 0; s < stages.size(); ++s) {
      const StageDevices &stage = layout[s];
      double busiest = 0, forwardOne = kInfinity, backwardOne = kInfinity;
      std::map<int, double> portSeconds; // per node
      for (size_t r = 0; r < stage.devices.size(); ++r) {
        int d = stage.devices[r];
        int64_t samples = shares[s][r], microBatch = microBatches[s][r];
        auto [forward, backward] = callSeconds(s, d, microBatch);
        busiest =
            std::max({busiest, samples / microBatch * (forward + backward),
                      samples * sendPerSample(s, r, stage.firstSegment,
                                              stage.endSegment)});
        portSeconds[cost.cluster().devices[d].node] +=
            samples *
            nodePortPerSample(s, r, stage.firstSegment, stage.endSegment);
        auto [oneF, oneB] = callSeconds(s, d, 1);
        forwardOne = std::min(forwardOne, oneF);
        backwardOne = std::min(backwardOne, oneB);
      }
      for (const auto &[node, seconds] : portSeconds)
        busiest = std::max(busiest, seconds);
      bound = std::max(
          bound,
          stageBound(tripForward, tripBackward, busiest,
                     updateSeconds(s, stage.firstSegment, stage.endSegment) +
                         tieSeconds(s, stage.firstSegment, stage.endSegment)));
      double crossing = crossingSeconds(s, stage.endSegment);
      tripForward += forwardOne + crossing;
      tripBackward += backwardOne + crossing;
    }
    return bound;
  }

  llvm::Error tryMicroBatches() {
    int64_t largest = 0;
    for (const std::vector<int64_t> &stageShares : shares)
      largest = std::max(largest, *llvm::max_element(stageShares));
    std::set<std::vector<std::vector<int64_t>>> seen;
    for (int64_t target = 1; target <= largest; ++target) {
      // The builder's rule, before memory makes any smaller: a bound.
      std::vector<std::vector<int64_t>> microBatches;
      for (const std::vector<int64_t> &stageShares : shares) {
        std::vector<int64_t> &stage = microBatches.emplace_back();
        for (int64_t n : stageShares)
          stage.push_back(largestDivisorAtMost(n, (n + target - 1) / target));
      }
      if (!seen.insert(microBatches).second ||
          lowerBound(microBatches) >= best.stepSeconds())
        continue;
      CandidateOptions options{ShareRule::Throughput, ShardRule::Balanced,
                               target, ScheduleKind::OneForwardOneBackward};
      for (ShardingKind sharding :
           {ShardingKind::Optimizer, ShardingKind::Full}) {
        if (builder.request().sharding.value_or(sharding) != sharding ||
            (sharding == ShardingKind::Full && !sharesAllowLockstep(target)))
          continue;
        options.sharding = sharding;
        if (llvm::Error error = offerSchedules(options))
          return error;
      }
    }
    return llvm::Error::success();
  }

  /// Whether the shares let every replicated stage run `count`
  /// micro-batches on each replica (full sharding's lockstep): the bound
  /// above holds for those micro-batches too, and the builder keeps the
  /// shares.
  bool sharesAllowLockstep(int64_t count) const {
    if (batch % count != 0)
      return false;
    return llvm::all_of(shares, [&](const std::vector<int64_t> &stageShares) {
      return stageShares.size() == 1 ||
             llvm::all_of(stageShares,
                          [&](int64_t n) { return n % count == 0; });
    });
  }

  /// The candidate of the current shares under `options`, with GPipe too
  /// where the stages' sample ranges differ.
  llvm::Error offerSchedules(CandidateOptions options) {
    for (ScheduleKind schedule :
         {ScheduleKind::OneForwardOneBackward, ScheduleKind::GPipe}) {
      options.schedule = schedule;
      std::optional<Candidate> candidate =
          builder.build(layout, options, &shares);
      if (!candidate)
        return llvm::Error::success();
      bool aligned = candidate->rangesAligned();
      if (llvm::Expected<double> seconds = best.offer(*candidate); !seconds)
        return seconds.takeError();
      if (aligned)
        break;
    }
    return llvm::Error::success();
  }

  const CandidateBuilder &builder;
  const CostModel &cost;
  const ModelProfile &profile;
  BestCandidate &best;
  int64_t batch;
  int64_t numSegments;

  /// Devices of one type on one node, and each device's class.
  std::vector<std::vector<int>> classes;
  std::vector<size_t> classOf;
  std::vector<double> perSample, oneForward, oneBackward;
  std::vector<double> flopsBefore, flopsPerSecond;
  std::map<std::tuple<std::string, int64_t, int64_t, int64_t>,
           std::pair<double, double>>
      callMemo;
  /// The partition, layout and shares being built; the peak FLOP/s of the
  /// devices of stages s.. .
  std::vector<std::vector<int64_t>> stages;
  StageLayout layout;
  std::vector<double> peakAfter;
  /// Per stage and replica, the fastest link to the stage before and after
  /// (bytes per second; 0 where there is none).
  /// Per stage and replica: the stage before, the stage after.
  std::vector<std::vector<std::pair<NeighbourLink, NeighbourLink>>> neighbours;
  /// Per stage: the links between its devices and the next stage's.
  std::vector<std::vector<const Link *>> crossingLinks;
  std::vector<std::vector<int64_t>> shares;
};

/// The search's plan as a candidate, to start the bound from.
Candidate candidateOf(const CandidateBuilder &builder, const Plan &plan) {
  Candidate candidate;
  candidate.plan = plan;
  for (const Stage &stage : plan.stages) {
    std::vector<int> &devices = candidate.devices.emplace_back();
    for (const Replica &replica : stage.replicas)
      devices.push_back(builder.cost().cluster().deviceIndex(replica.device));
  }
  return candidate;
}

} // namespace

llvm::Expected<PlanResult> exhaustivePlan(const Cluster &cluster,
                                          const CostModel &cost,
                                          const PlanRequest &request) {
  if (cluster.devices.size() > kMaxExhaustiveDevices)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("the exhaustive search takes at most {0} devices; the "
                      "cluster has {1}",
                      kMaxExhaustiveDevices, cluster.devices.size()));
  llvm::Expected<PlanResult> searched = choosePlan(cluster, cost, request);
  if (!searched)
    return searched.takeError();
  CandidateBuilder builder(cost, request);
  BestCandidate best(builder);
  llvm::Expected<double> seeded =
      best.offer(candidateOf(builder, searched->plan));
  if (!seeded)
    return seeded.takeError();
  if (llvm::Error error = ExhaustiveSearch(builder, best).run())
    return std::move(error);
  return best.take();
}

} // namespace hetc::planner
