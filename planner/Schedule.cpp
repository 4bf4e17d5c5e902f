//===- Schedule.cpp - the global micro-batch schedule and its check -------===//

#include "planner/Schedule.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace hetc::planner {

double defaultTaskCost(int64_t, ScheduledOp::Kind kind, int64_t numSamples) {
  return kind == ScheduledOp::Kind::Backward ? 2.0 * numSamples
                                             : 1.0 * numSamples;
}

namespace {

using Kind = ScheduledOp::Kind;
constexpr double notYet = std::numeric_limits<double>::infinity();

/// The samples a micro-batch shares with one micro-batch of the adjacent
/// stage: one message each way.
struct Overlap {
  int64_t peer = 0;
  int64_t peerMicroBatch = 0;
  int64_t firstSample = 0;
  int64_t numSamples = 0;
};

/// Every rank's micro-batches and, for each, its overlaps with the previous
/// and the next stage in sample order. Activations arrive over `previous` and
/// leave over `next`; gradients the other way.
struct Dataflow {
  std::vector<int64_t> stageOf;
  std::vector<std::vector<MicroBatch>> microBatches;
  std::vector<std::vector<std::vector<Overlap>>> previous;
  std::vector<std::vector<std::vector<Overlap>>> next;
};

std::vector<MicroBatch> microBatchesOf(const Replica &replica) {
  std::vector<MicroBatch> chunks;
  for (int64_t k = 0; k < replica.numMicroBatches(); ++k)
    chunks.push_back(
        {replica.firstSample + k * replica.microBatch, replica.microBatch});
  return chunks;
}

Dataflow buildDataflow(const Plan &plan) {
  Dataflow flow;
  std::vector<std::vector<int64_t>> ranksOfStage(plan.stages.size());
  for (const auto &[s, stage] : llvm::enumerate(plan.stages))
    for (const Replica &replica : stage.replicas) {
      ranksOfStage[s].push_back(flow.microBatches.size());
      flow.stageOf.push_back(s);
      flow.microBatches.push_back(microBatchesOf(replica));
    }
  for (const std::vector<MicroBatch> &chunks : flow.microBatches) {
    flow.previous.emplace_back(chunks.size());
    flow.next.emplace_back(chunks.size());
  }

  for (size_t s = 0; s + 1 < plan.stages.size(); ++s)
    for (int64_t sender : ranksOfStage[s])
      for (int64_t receiver : ranksOfStage[s + 1])
        for (const auto &[i, out] : llvm::enumerate(flow.microBatches[sender]))
          for (const auto &[j, in] :
               llvm::enumerate(flow.microBatches[receiver])) {
            int64_t begin = std::max(out.firstSample, in.firstSample);
            int64_t end = std::min(out.firstSample + out.numSamples,
                                   in.firstSample + in.numSamples);
            if (begin >= end)
              continue;
            flow.next[sender][i].push_back(
                {receiver, static_cast<int64_t>(j), begin, end - begin});
            flow.previous[receiver][j].push_back(
                {sender, static_cast<int64_t>(i), begin, end - begin});
          }

  auto bySample = [](const Overlap &a, const Overlap &b) {
    return a.firstSample < b.firstSample;
  };
  for (auto *side : {&flow.previous, &flow.next})
    for (auto &perRank : *side)
      for (auto &overlaps : perRank)
        llvm::sort(overlaps, bySample);
  return flow;
}

//===----------------------------------------------------------------------===//
// The list-scheduling simulation
//===----------------------------------------------------------------------===//

struct Computation {
  Kind kind = Kind::Forward;
  int64_t microBatch = 0;
};

/// The ranks that start each computation together, in rank order. Under
/// Full sharding a stage's replicas bracket every computation with
/// collectives over the stage, which all members must call in the same
/// order: the stage is one gang. Otherwise each rank is a gang of its own.
std::vector<std::vector<int64_t>> gangsOf(const Plan &plan) {
  std::vector<std::vector<int64_t>> gangs;
  int64_t rank = 0;
  for (const Stage &stage : plan.stages)
    for (size_t r = 0; r < stage.replicas.size(); ++r) {
      if (r == 0 || plan.sharding != ShardingKind::Full)
        gangs.emplace_back();
      gangs.back().push_back(rank++);
    }
  return gangs;
}

/// Simulates one step and returns each rank's computations in start order.
/// A gang computes its k-th micro-batch on all its ranks at once (each rank
/// its own k-th micro-batch), as one unit of the simulation. Forwards and
/// backwards each run in micro-batch order on a gang, so both ends of every
/// pair see its messages in sample order.
class Simulation {
public:
  Simulation(const Plan &plan, const Dataflow &flow, const TaskCost &cost)
      : plan(plan), flow(flow), cost(cost), gangOf(flow.stageOf.size()) {
    for (std::vector<int64_t> &members : gangsOf(plan)) {
      for (int64_t r : members)
        gangOf[r] = gangs.size();
      GangState &gang = gangs.emplace_back();
      // Validation gives the ranks of a gang equal micro-batch counts.
      size_t count = flow.microBatches[members.front()].size();
      gang.forwardDone.assign(count, notYet);
      gang.backwardDone.assign(count, notYet);
      gang.maxInFlight = plan.stages.size() - flow.stageOf[members.front()];
      gang.members = std::move(members);
    }
  }

  std::vector<std::vector<Computation>> run() {
    int64_t remaining = 0;
    for (const GangState &gang : gangs)
      remaining += 2 * gang.forwardDone.size();
    double now = 0;
    while (remaining > 0) {
      for (size_t g = 0; g < gangs.size(); ++g)
        if (!gangs[g].busy)
          startNext(g, now);
      if (llvm::none_of(gangs,
                        [](const GangState &gang) { return gang.busy; })) {
        waiveOneLimit(now);
        continue;
      }
      now = notYet;
      for (const GangState &gang : gangs)
        if (gang.busy)
          now = std::min(now, gang.busyUntil);
      for (GangState &gang : gangs)
        if (gang.busy && gang.busyUntil == now) {
          finish(gang, now);
          --remaining;
        }
    }
    std::vector<std::vector<Computation>> orders(gangOf.size());
    for (const GangState &gang : gangs)
      for (int64_t r : gang.members)
        orders[r] = gang.order;
    return orders;
  }

private:
  struct GangState {
    std::vector<int64_t> members;
    /// When micro-batch k finished on every member.
    std::vector<double> forwardDone, backwardDone;
    int64_t nextForward = 0, nextBackward = 0;
    /// 1F1B: micro-batches forwarded but not yet backwarded, at most.
    int64_t maxInFlight = 0;
    /// Lets the next forward past maxInFlight once, to end a global stall.
    bool limitWaived = false;
    bool busy = false;
    double busyUntil = 0;
    Computation running;
    std::vector<Computation> order;
  };

  double forwardReady(size_t g, int64_t k) const {
    double ready = 0;
    for (int64_t r : gangs[g].members)
      for (const Overlap &in : flow.previous[r][k])
        ready = std::max(ready,
                         gangs[gangOf[in.peer]].forwardDone[in.peerMicroBatch]);
    return ready;
  }

  double backwardReady(size_t g, int64_t k) const {
    double ready = gangs[g].forwardDone[k];
    for (int64_t r : gangs[g].members)
      for (const Overlap &in : flow.next[r][k])
        ready = std::max(
            ready, gangs[gangOf[in.peer]].backwardDone[in.peerMicroBatch]);
    return ready;
  }

  bool backwardStartable(size_t g, double now) const {
    const GangState &gang = gangs[g];
    int64_t count = gang.forwardDone.size();
    if (gang.nextBackward == count)
      return false;
    if (plan.schedule == ScheduleKind::GPipe && gang.nextForward < count)
      return false;
    return backwardReady(g, gang.nextBackward) <= now;
  }

  /// Whether the next forward's inputs have arrived, ignoring the limit.
  bool forwardInputsReady(size_t g, double now) const {
    const GangState &gang = gangs[g];
    return gang.nextForward < static_cast<int64_t>(gang.forwardDone.size()) &&
           forwardReady(g, gang.nextForward) <= now;
  }

  bool forwardStartable(size_t g, double now) const {
    const GangState &gang = gangs[g];
    bool underLimit = plan.schedule == ScheduleKind::GPipe ||
                      gang.limitWaived ||
                      gang.nextForward - gang.nextBackward < gang.maxInFlight;
    return underLimit && forwardInputsReady(g, now);
  }

  /// The members run together, so the slowest one sets the duration.
  double duration(const GangState &gang, const Computation &computation) const {
    double longest = 0;
    for (int64_t r : gang.members)
      longest = std::max(
          longest,
          cost(flow.stageOf[r], computation.kind,
               flow.microBatches[r][computation.microBatch].numSamples));
    return longest;
  }

  void startNext(size_t g, double now) {
    GangState &gang = gangs[g];
    if (backwardStartable(g, now)) {
      gang.running = {Kind::Backward, gang.nextBackward++};
    } else if (forwardStartable(g, now)) {
      gang.running = {Kind::Forward, gang.nextForward++};
      gang.limitWaived = false;
    } else {
      return;
    }
    gang.busy = true;
    gang.busyUntil = now + duration(gang, gang.running);
    gang.order.push_back(gang.running);
  }

  void finish(GangState &gang, double now) {
    auto &done = gang.running.kind == Kind::Forward ? gang.forwardDone
                                                    : gang.backwardDone;
    done[gang.running.microBatch] = now;
    gang.busy = false;
  }

  /// Nothing runs and nothing may start: uneven micro-batches can make a
  /// stage wait for more forwards than its limit allows (a receiver's
  /// micro-batch spanning several of the sender's). Let through the
  /// forward that has waited longest, lowest rank first.
  void waiveOneLimit(double now) {
    size_t chosen = gangs.size();
    double earliest = notYet;
    for (size_t g = 0; g < gangs.size(); ++g) {
      if (!forwardInputsReady(g, now))
        continue;
      double ready = forwardReady(g, gangs[g].nextForward);
      if (ready < earliest) {
        earliest = ready;
        chosen = g;
      }
    }
    assert(chosen < gangs.size() && "the dataflow of a valid plan is acyclic");
    gangs[chosen].limitWaived = true;
  }

  const Plan &plan;
  const Dataflow &flow;
  const TaskCost &cost;
  std::vector<GangState> gangs;
  /// The gang of each rank.
  std::vector<size_t> gangOf;
};

ScheduledOp transfer(Kind kind, int64_t microBatch, const Overlap &overlap,
                     bool gradient) {
  ScheduledOp op;
  op.kind = kind;
  op.microBatch = microBatch;
  op.peer = overlap.peer;
  op.firstSample = overlap.firstSample;
  op.numSamples = overlap.numSamples;
  op.gradient = gradient;
  return op;
}

/// A computation with its receives before it and its sends after it.
void emitComputation(const Dataflow &flow, int64_t rank,
                     const Computation &computation,
                     std::vector<ScheduledOp> &ops) {
  int64_t k = computation.microBatch;
  bool backward = computation.kind == Kind::Backward;
  const auto &inputs = backward ? flow.next[rank][k] : flow.previous[rank][k];
  const auto &outputs = backward ? flow.previous[rank][k] : flow.next[rank][k];
  for (const Overlap &in : inputs)
    ops.push_back(transfer(Kind::Recv, k, in, backward));
  ScheduledOp compute;
  compute.kind = computation.kind;
  compute.microBatch = k;
  ops.push_back(compute);
  for (const Overlap &out : outputs)
    ops.push_back(transfer(Kind::Send, k, out, backward));
}

} // namespace

std::vector<RankSchedule> buildSchedule(const Plan &plan,
                                        const TaskCost &cost) {
  Dataflow flow = buildDataflow(plan);
  std::vector<std::vector<Computation>> orders =
      Simulation(plan, flow, cost).run();
  std::vector<RankSchedule> schedule;
  for (int64_t rank = 0; rank < plan.numRanks(); ++rank) {
    RankSchedule &ranked = schedule.emplace_back();
    ranked.rank = rank;
    std::tie(ranked.stage, ranked.replica) = plan.stageAndReplicaOf(rank);
    ranked.microBatches = flow.microBatches[rank];
    for (const Computation &computation : orders[rank])
      emitComputation(flow, rank, computation, ranked.ops);
  }
  return schedule;
}

//===----------------------------------------------------------------------===//
// Checking a schedule
//===----------------------------------------------------------------------===//

namespace {

std::string messageText(bool gradient, int64_t firstSample,
                        int64_t numSamples) {
  return llvm::formatv("{0} of samples [{1}, {2})",
                       gradient ? "gradients" : "activations", firstSample,
                       firstSample + numSamples)
      .str();
}

std::string messageText(const ScheduledOp &op) {
  return messageText(op.gradient, op.firstSample, op.numSamples);
}

std::string computationText(Kind kind, int64_t microBatch) {
  return llvm::formatv("{0} of micro-batch {1}",
                       kind == Kind::Forward ? "Forward" : "Backward",
                       microBatch);
}

llvm::Error problemsToError(const std::vector<std::string> &problems) {
  if (problems.empty())
    return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 llvm::join(problems, "\n"));
}

/// The schedule has the plan's ranks and micro-batches, and its ops refer to
/// existing micro-batches and peers; the other checks rely on this.
void checkShape(const Plan &plan, const Dataflow &flow,
                const std::vector<RankSchedule> &schedule,
                std::vector<std::string> &problems) {
  int64_t numRanks = plan.numRanks();
  if (static_cast<int64_t>(schedule.size()) != numRanks) {
    problems.push_back(
        llvm::formatv("the plan has {0} ranks but the schedule {1}", numRanks,
                      schedule.size()));
    return;
  }
  for (const auto &[r, ranked] : llvm::enumerate(schedule)) {
    auto [stage, replica] = plan.stageAndReplicaOf(r);
    if (ranked.rank != static_cast<int64_t>(r) || ranked.stage != stage ||
        ranked.replica != replica) {
      // Its ops are another rank's; checking them would only repeat this.
      problems.push_back(llvm::formatv(
          "schedule entry {0} is rank {1}, stage {2}, replica {3}, but the "
          "plan's rank {0} is stage {4}, replica {5}",
          r, ranked.rank, ranked.stage, ranked.replica, stage, replica));
      continue;
    }
    const std::vector<MicroBatch> &expected = flow.microBatches[r];
    bool sameMicroBatches =
        ranked.microBatches.size() == expected.size() &&
        llvm::all_of(llvm::zip(ranked.microBatches, expected), [](auto pair) {
          auto [a, b] = pair;
          return a.firstSample == b.firstSample && a.numSamples == b.numSamples;
        });
    if (!sameMicroBatches)
      problems.push_back(llvm::formatv(
          "rank {0}: its micro-batches are not the plan's {1} chunks of {2} "
          "samples",
          r, expected.size(), plan.stages[stage].replicas[replica].microBatch));
    for (const auto &[i, op] : llvm::enumerate(ranked.ops)) {
      if (op.microBatch < 0 ||
          op.microBatch >= static_cast<int64_t>(expected.size()))
        problems.push_back(llvm::formatv(
            "rank {0}, op #{1}: micro-batch {2} does not exist (the rank has "
            "{3})",
            r, i, op.microBatch, expected.size()));
      bool moves = op.kind == Kind::Send || op.kind == Kind::Recv;
      if (moves && (op.peer < 0 || op.peer >= numRanks ||
                    op.peer == static_cast<int64_t>(r)))
        problems.push_back(llvm::formatv(
            "rank {0}, op #{1}: peer {2} is not another rank of the plan", r, i,
            op.peer));
    }
  }
}

/// One side of the messages of an ordered pair: the op indices, in order.
using Sequence = std::vector<size_t>;

bool sameMessage(const ScheduledOp &a, const ScheduledOp &b) {
  return a.firstSample == b.firstSample && a.numSamples == b.numSamples &&
         a.gradient == b.gradient;
}

void checkPairSequences(const std::vector<RankSchedule> &schedule,
                        std::vector<std::string> &problems) {
  // Keyed by (sender, receiver).
  std::map<std::pair<int64_t, int64_t>, Sequence> sends, recvs;
  for (const RankSchedule &ranked : schedule)
    for (const auto &[i, op] : llvm::enumerate(ranked.ops)) {
      if (op.kind == Kind::Send)
        sends[{ranked.rank, op.peer}].push_back(i);
      else if (op.kind == Kind::Recv)
        recvs[{op.peer, ranked.rank}].push_back(i);
    }
  std::set<std::pair<int64_t, int64_t>> pairs;
  for (auto *side : {&sends, &recvs})
    for (const auto &entry : *side)
      pairs.insert(entry.first);

  for (auto [sender, receiver] : pairs) {
    const Sequence &sent = sends[{sender, receiver}];
    const Sequence &received = recvs[{sender, receiver}];
    const auto &senderOps = schedule[sender].ops;
    const auto &receiverOps = schedule[receiver].ops;
    std::string pair = llvm::formatv("rank {0} -> rank {1}", sender, receiver);
    size_t common = std::min(sent.size(), received.size());
    size_t m = 0;
    while (m < common &&
           sameMessage(senderOps[sent[m]], receiverOps[received[m]]))
      ++m;
    if (m < common) {
      problems.push_back(llvm::formatv(
          "{0}: message #{1} is sent as {2} (rank {3} op #{4}) but received "
          "as {5} (rank {6} op #{7})",
          pair, m, messageText(senderOps[sent[m]]), sender, sent[m],
          messageText(receiverOps[received[m]]), receiver, received[m]));
    } else if (sent.size() > common) {
      problems.push_back(llvm::formatv(
          "{0}: {1} sent but {2} received; the first unreceived is {3} "
          "(rank {4} op #{5})",
          pair, sent.size(), received.size(),
          messageText(senderOps[sent[common]]), sender, sent[common]));
    } else if (received.size() > common) {
      problems.push_back(llvm::formatv(
          "{0}: {1} sent but {2} received; the first unsent is {3} "
          "(rank {4} op #{5})",
          pair, sent.size(), received.size(),
          messageText(receiverOps[received[common]]), receiver,
          received[common]));
    }
  }
}

/// Runs every rank's ops with buffered sends and blocking receives.
void checkReplay(const std::vector<RankSchedule> &schedule,
                 std::vector<std::string> &problems) {
  size_t numRanks = schedule.size();
  std::vector<size_t> position(numRanks, 0);
  // Messages sent and not yet received, by (sender, receiver).
  std::vector<std::vector<int64_t>> pending(numRanks,
                                            std::vector<int64_t>(numRanks));
  bool progress = true;
  while (progress) {
    progress = false;
    for (size_t r = 0; r < numRanks; ++r) {
      const auto &ops = schedule[r].ops;
      for (; position[r] < ops.size(); ++position[r], progress = true) {
        const ScheduledOp &op = ops[position[r]];
        if (op.kind == Kind::Send)
          ++pending[r][op.peer];
        if (op.kind == Kind::Recv) {
          if (pending[op.peer][r] == 0)
            break;
          --pending[op.peer][r];
        }
      }
    }
  }
  std::vector<std::string> waits;
  for (size_t r = 0; r < numRanks; ++r)
    if (position[r] < schedule[r].ops.size()) {
      const ScheduledOp &op = schedule[r].ops[position[r]];
      waits.push_back(llvm::formatv("rank {0} waits (op #{1}) for {2} from "
                                    "rank {3}",
                                    r, position[r], messageText(op), op.peer));
    }
  if (!waits.empty())
    problems.push_back("deadlock: " + llvm::join(waits, "; "));
}

/// Each micro-batch is forwarded, then backwarded, once; each computation
/// has received its inputs and each send follows the computation it sends.
void checkComputations(const Dataflow &flow, const RankSchedule &ranked,
                       std::vector<std::string> &problems) {
  int64_t r = ranked.rank;
  size_t count = flow.microBatches[r].size();
  std::vector<int> forwarded(count, 0), backwarded(count, 0);
  std::set<std::tuple<int64_t, int64_t, int64_t, bool>> received;
  auto requireInputs = [&](size_t i, const std::vector<Overlap> &inputs,
                           bool gradient, llvm::StringRef what) {
    for (const Overlap &in : inputs)
      if (!received.count({in.peer, in.firstSample, in.numSamples, gradient}))
        problems.push_back(llvm::formatv(
            "rank {0}: {1} (op #{2}) runs before receiving {3} from rank {4}",
            r, what, i, messageText(gradient, in.firstSample, in.numSamples),
            in.peer));
  };

  for (const auto &[i, op] : llvm::enumerate(ranked.ops)) {
    int64_t k = op.microBatch;
    std::string forwardName = computationText(Kind::Forward, k);
    std::string backwardName = computationText(Kind::Backward, k);
    switch (op.kind) {
    case Kind::Recv:
      received.insert({op.peer, op.firstSample, op.numSamples, op.gradient});
      break;
    case Kind::Send:
      if (!(op.gradient ? backwarded[k] : forwarded[k]))
        problems.push_back(llvm::formatv(
            "rank {0}: sends {1} to rank {2} (op #{3}) before its {4} "
            "computes them",
            r, messageText(op), op.peer, i,
            op.gradient ? backwardName : forwardName));
      break;
    case Kind::Forward:
      if (forwarded[k]++)
        problems.push_back(llvm::formatv("rank {0}: {1} runs twice (op #{2})",
                                         r, forwardName, i));
      requireInputs(i, flow.previous[r][k], false, forwardName);
      break;
    case Kind::Backward:
      if (backwarded[k]++)
        problems.push_back(llvm::formatv("rank {0}: {1} runs twice (op #{2})",
                                         r, backwardName, i));
      if (!forwarded[k])
        problems.push_back(
            llvm::formatv("rank {0}: {1} (op #{2}) runs before its forward", r,
                          backwardName, i));
      requireInputs(i, flow.next[r][k], true, backwardName);
      break;
    }
  }
  for (size_t k = 0; k < count; ++k) {
    if (!forwarded[k])
      problems.push_back(
          llvm::formatv("rank {0}: micro-batch {1} is never forwarded", r, k));
    if (!backwarded[k])
      problems.push_back(
          llvm::formatv("rank {0}: micro-batch {1} is never backwarded", r, k));
  }
}

/// The indices of the rank's Forward and Backward ops, in order.
std::vector<size_t> computationsOf(const RankSchedule &ranked) {
  std::vector<size_t> computations;
  for (const auto &[i, op] : llvm::enumerate(ranked.ops))
    if (op.kind == Kind::Forward || op.kind == Kind::Backward)
      computations.push_back(i);
  return computations;
}

bool sameComputation(const ScheduledOp &a, const ScheduledOp &b) {
  return a.kind == b.kind && a.microBatch == b.microBatch;
}

/// Computation #n of a rank, with its op index, or that it has none.
std::string nthComputationText(const RankSchedule &ranked,
                               const std::vector<size_t> &computations,
                               size_t n) {
  if (n == computations.size())
    return llvm::formatv("nothing on rank {0}", ranked.rank);
  const ScheduledOp &op = ranked.ops[computations[n]];
  return llvm::formatv("{0} on rank {1} (op #{2})",
                       computationText(op.kind, op.microBatch), ranked.rank,
                       computations[n]);
}

/// Under Full sharding each computation is bracketed by collectives over
/// its stage, so every replica must compute the same sequence as the
/// stage's first one.
void checkLockstep(const Plan &plan, const std::vector<RankSchedule> &schedule,
                   std::vector<std::string> &problems) {
  for (const auto &[s, stage] : llvm::enumerate(plan.stages)) {
    if (stage.replicas.size() < 2)
      continue;
    const RankSchedule &first = schedule[plan.rankOf(s, 0)];
    std::vector<size_t> expected = computationsOf(first);
    for (size_t replica = 1; replica < stage.replicas.size(); ++replica) {
      const RankSchedule &ranked = schedule[plan.rankOf(s, replica)];
      std::vector<size_t> actual = computationsOf(ranked);
      size_t n = 0;
      while (n < expected.size() && n < actual.size() &&
             sameComputation(first.ops[expected[n]], ranked.ops[actual[n]]))
        ++n;
      if (n == expected.size() && n == actual.size())
        continue;
      problems.push_back(llvm::formatv(
          "stage {0}: ranks {1} and {2} compute in different orders, but "
          "with \"sharding\": \"full\" the replicas of a stage run in "
          "lockstep: computation #{3} is {4} but {5}",
          s, first.rank, ranked.rank, n, nthComputationText(first, expected, n),
          nthComputationText(ranked, actual, n)));
    }
  }
}

} // namespace

llvm::Error checkScheduleMatches(const Plan &plan,
                                 const std::vector<RankSchedule> &schedule) {
  Dataflow flow = buildDataflow(plan);
  // Each check assumes the ones before it passed.
  std::vector<std::string> problems;
  checkShape(plan, flow, schedule, problems);
  if (problems.empty())
    checkPairSequences(schedule, problems);
  if (problems.empty())
    checkReplay(schedule, problems);
  if (problems.empty())
    for (const RankSchedule &ranked : schedule)
      checkComputations(flow, ranked, problems);
  if (problems.empty() && plan.sharding == ShardingKind::Full)
    checkLockstep(plan, schedule, problems);
  return problemsToError(problems);
}

} // namespace hetc::planner
