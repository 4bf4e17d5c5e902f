//===- Simulator.h - replaying a plan's schedule under the cost model -*- C++
//-*-===//
//
// Replays what the ranks run: each rank's op list from the global schedule
// (the order the compiler gives its program), then the update phase the
// compiler appends (the stage's reduce-scatter, the all-reduces of tied
// parameters its stages split, clipping, the optimizer, the all-gather),
// with computations and transfers
// timed by the cost model. A rank does one thing at a time, but a send
// only copies its message into the communicator's buffer: the message
// crosses the link while its sender computes on (as every communicator of
// the runtime sends), arrives a transfer time later, and a receive waits
// for it; a collective starts when its last member arrives.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PLANNER_SIMULATOR_H
#define HETC_PLANNER_SIMULATOR_H

#include "planner/CostModel.h"

namespace hetc::planner {

/// One span of a rank's timeline, for the Chrome trace.
struct TraceSpan {
  int64_t rank = 0;
  std::string name;     // "F3" / "B3" (micro-batch), "send 0:4 to 2",
                        // "reduce_scatter", "adamw", ...
  std::string category; // "compute", "comm", "wait", "transfer" (a sent
                        // message crossing its link, while its sender
                        // goes on)
  double start = 0;     // seconds from the step's start
  double seconds = 0;
};

/// The time a step moves data over one of the cluster's links (a node's
/// inside, the fabric between nodes, the link between datacenters), summed
/// over the ranks; a collective counts against the slowest link of its ring.
struct LinkUse {
  const Link *link = nullptr; // into the cost model's cluster
  double seconds = 0;
};

struct SimulationResult {
  double stepSeconds = 0;
  double tokensPerSecond = 0;
  std::vector<double> busySeconds;      // per rank: computing or moving data
  std::vector<double> computeSeconds;   // per rank: the computing part
  std::vector<double> communicationSeconds; // per rank: the moving part
  std::vector<double> idleSeconds;      // per rank: stepSeconds - busy (its
                                        // waits: the pipeline's bubble)
  std::vector<int64_t> peakMemoryBytes; // per rank (CostModel::rankMemoryBytes)
  std::vector<LinkUse> linkUses;        // busiest first
  /// The channel of the links (LinkChannels.h) booked longest, and for how
  /// long: no step is shorter. Empty when nothing moves between devices.
  std::string busiestChannel;
  double busiestChannelSeconds = 0;
  std::vector<TraceSpan> spans;         // filled when asked for
};

/// Simulates one step of `plan` (its devices must be the cluster's) with
/// `schedule` = buildSchedule(plan, ...).
llvm::Expected<SimulationResult>
simulate(const Plan &plan, const std::vector<RankSchedule> &schedule,
         const CostModel &cost, bool recordSpans = false);

/// The spans as a Chrome trace (JSON; opens in Perfetto): one process per
/// rank named by its device, compute and communication on separate tracks.
std::string chromeTrace(const Plan &plan, const SimulationResult &result);

} // namespace hetc::planner

#endif // HETC_PLANNER_SIMULATOR_H
