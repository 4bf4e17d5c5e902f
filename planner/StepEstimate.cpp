//===- StepEstimate.cpp - a candidate's step from its stages' times -------===//
//
// The search ranks candidates by this estimate before simulating the best
// (docs/planner.md, "analytical step estimate"). Every term is a way the
// step cannot be shorter; the estimate is the longest.
//
//===----------------------------------------------------------------------===//

#include "planner/SearchSpace.h"

#include <algorithm>

namespace hetc::planner {

double estimateStep(llvm::ArrayRef<StageTimes> stages,
                    const llvm::DenseMap<int, double> &channelSeconds,
                    ScheduleKind schedule) {
  size_t numStages = stages.size();
  // The bottleneck stage's micro-batches, one micro-batch's forward and
  // backward through every other stage (the pipeline's fill and drain); a
  // stage's last backward ends before those of the stages ahead of it,
  // then its update runs.
  const StageTimes &bottleneck = *llvm::max_element(
      stages, [](const StageTimes &a, const StageTimes &b) {
        return a.busy < b.busy;
      });
  double pipeline = bottleneck.busy - bottleneck.forward - bottleneck.backward;
  for (const StageTimes &stage : stages)
    pipeline += stage.forward + stage.backward;
  double step = 0, ahead = 0;
  for (const StageTimes &stage : stages) {
    step = std::max(step, pipeline - ahead + stage.update);
    ahead += stage.backward;
  }
  // The trips through the stages before each one (and after the last),
  // forward and back, transfers included.
  std::vector<double> forwardBefore(numStages + 1, 0),
      backwardBefore(numStages + 1, 0);
  for (size_t s = 0; s < numStages; ++s) {
    forwardBefore[s + 1] = forwardBefore[s] + stages[s].forward;
    backwardBefore[s + 1] = backwardBefore[s] + stages[s].backward;
  }
  double allForward = forwardBefore[numStages],
         allBackward = backwardBefore[numStages];
  // Under 1F1B stage s keeps at most S - s micro-batches in flight: it
  // starts one only when the one that many before has come back, forward
  // and backward through the stages from s on and the links between them
  // (not its own gradient's send). Its micro-batches start after the trip
  // to it, and its update overlaps the trip back.
  if (schedule == ScheduleKind::OneForwardOneBackward)
    for (size_t s = 0; s < numStages; ++s) {
      int64_t inFlight = std::min<int64_t>(stages[s].microBatches,
                                           static_cast<int64_t>(numStages - s));
      if (inFlight == 0)
        continue;
      double roundTrip = allForward - forwardBefore[s] + allBackward -
                         backwardBefore[s + 1] + stages[s].ownBackward;
      step = std::max(step, forwardBefore[s] +
                                static_cast<double>(stages[s].microBatches) *
                                    roundTrip / inFlight +
                                std::max(backwardBefore[s], stages[s].update));
    }
  // A boundary's messages cross its busiest channel one after another: the
  // step takes at least the first micro-batch's way to that channel, the
  // channel's time, and the last message's way on from there (through the
  // stages after, back to the first, and its update).
  auto busiest = [&](llvm::ArrayRef<int> crossed) {
    double seconds = 0;
    for (int channel : crossed)
      seconds = std::max(seconds, channelSeconds.lookup(channel));
    return seconds;
  };
  double firstUpdate = stages.front().update;
  for (size_t s = 0; s < numStages; ++s) {
    // Activations from stage s on to s + 1.
    step = std::max(step, forwardBefore[s] + stages[s].ownForward +
                              busiest(stages[s].forwardChannels) + allForward -
                              forwardBefore[s + 1] + allBackward + firstUpdate);
    // Gradients from stage s back to s - 1.
    step = std::max(step, allForward + allBackward - backwardBefore[s + 1] +
                              stages[s].ownBackward +
                              busiest(stages[s].backwardChannels) +
                              backwardBefore[s] + firstUpdate);
  }
  // No channel carries more than its bandwidth allows.
  for (const auto &[channel, seconds] : channelSeconds)
    step = std::max(step, seconds);
  return step;
}

} // namespace hetc::planner
