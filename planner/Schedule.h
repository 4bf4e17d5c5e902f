//===- Schedule.h - one global micro-batch schedule for a plan --*- C++ -*-===//
//
// The pipeline schedule is computed once for the whole plan and then read
// per rank, so that every pair of ranks agrees on the order of the messages
// between them: the compiler turns each rank's op list into its program, and
// the simulator replays the same lists under a cost model.
//
// Each replica splits its samples into micro-batches of its own size. At a
// stage boundary the activations of samples [x, y) travel from the replica
// of stage s that owns them to the replica of stage s+1 that owns them, one
// message per overlap of a sender micro-batch and a receiver micro-batch;
// their gradients travel back the same way. A rank's op list interleaves its
// forward and backward computations with these sends and receives: receives
// right before the computation that reads them, sends right after the one
// that produces them.
//
// The order comes from a list-scheduling simulation (unit costs unless
// given): a computation starts once its inputs have arrived; among ready
// computations a rank prefers backward ones, and under 1F1B it starts a new
// forward only while fewer than (stages after it + 1) micro-batches are in
// flight, unless nothing else in the whole plan could run. The resulting
// global order is topological, so blocking receives with buffered sends
// cannot deadlock.
//
// Under Full sharding every computation is bracketed by collectives over the
// stage's replicas, which must call them in the same order. The replicas of
// a stage are then simulated as one gang: each computation (the forward or
// backward of micro-batch k, each replica its own k-th) starts on all of
// them at once, when all are free and all their inputs have arrived, and
// lasts as long as the slowest of them; the choice rules above apply to the
// gang as a whole.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PLANNER_SCHEDULE_H
#define HETC_PLANNER_SCHEDULE_H

#include "planner/Plan.h"

#include <functional>

namespace hetc::planner {

/// One micro-batch of a replica: a global sample range.
struct MicroBatch {
  int64_t firstSample = 0;
  int64_t numSamples = 0;
};

struct ScheduledOp {
  enum class Kind { Forward, Backward, Send, Recv };
  Kind kind = Kind::Forward;
  /// Forward/Backward: the micro-batch computed. Send: the sender's
  /// micro-batch the data comes from. Recv: the receiver's micro-batch the
  /// data goes to. Indices into RankSchedule::microBatches of this rank.
  int64_t microBatch = 0;
  /// Send/Recv: the other rank.
  int64_t peer = -1;
  /// Send/Recv: the global sample range moved.
  int64_t firstSample = 0;
  int64_t numSamples = 0;
  /// Send/Recv: an activation gradient (backward direction) rather than an
  /// activation (forward direction).
  bool gradient = false;
};

struct RankSchedule {
  int64_t rank = 0;
  int64_t stage = 0;
  int64_t replica = 0;
  std::vector<MicroBatch> microBatches;
  std::vector<ScheduledOp> ops;
};

/// Cost of computing one micro-batch (seconds or any unit) on a stage.
using TaskCost = std::function<double(int64_t stage, ScheduledOp::Kind kind,
                                      int64_t numSamples)>;

/// Unit costs: forward = samples, backward = 2 * samples.
double defaultTaskCost(int64_t stage, ScheduledOp::Kind kind,
                       int64_t numSamples);

/// The schedule of a valid plan (validatePlan succeeded): ranks in rank
/// order.
std::vector<RankSchedule> buildSchedule(const Plan &plan,
                                        const TaskCost &cost = defaultTaskCost);

/// Checks that the schedule's messages match: for every ordered pair of
/// ranks, the sequence of sends from one equals the sequence of receives on
/// the other (sample range and direction), and every computation's inputs
/// are received before it runs; under Full sharding, the replicas of each
/// stage compute the same sequence of forwards and backwards. Errors name
/// the pair (or the stage and its ranks) and the first mismatch.
llvm::Error checkScheduleMatches(const Plan &plan,
                                 const std::vector<RankSchedule> &schedule);

} // namespace hetc::planner

#endif // HETC_PLANNER_SCHEDULE_H
