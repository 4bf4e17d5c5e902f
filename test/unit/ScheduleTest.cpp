//===- ScheduleTest.cpp - the global micro-batch schedule -----------------===//
//
// Hand-derived op lists for small pipelines (1F1B, GPipe, uneven replicas
// and micro-batches, the stall where one receiver micro-batch spans more
// sender micro-batches than 1F1B lets into flight); each schedule passes the
// matching check, computes every micro-batch once each way, and is rejected
// once corrupted. Under Full sharding the replicas of each stage compute in
// lockstep. Then 200 random valid plans of each sharding.
//
//===----------------------------------------------------------------------===//

#include "planner/Schedule.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <random>

using namespace hetc::planner;
using Kind = ScheduledOp::Kind;

namespace {

struct ReplicaSpec {
  int64_t firstSample;
  int64_t endSample;
  int64_t microBatch;
};

/// Stage s covers segment s; devices are gpu0, gpu1, ... in rank order;
/// shards are proportional.
Plan makePlan(const std::vector<std::vector<ReplicaSpec>> &stages,
              ScheduleKind schedule = ScheduleKind::OneForwardOneBackward,
              ShardingKind sharding = ShardingKind::Optimizer) {
  Plan plan;
  plan.schedule = schedule;
  plan.sharding = sharding;
  int device = 0;
  for (size_t s = 0; s < stages.size(); ++s) {
    Stage &stage = plan.stages.emplace_back();
    stage.firstSegment = s;
    stage.endSegment = s + 1;
    int64_t stageSamples = 0;
    for (const ReplicaSpec &spec : stages[s])
      stageSamples += spec.endSample - spec.firstSample;
    plan.globalBatch = stageSamples;
    for (const ReplicaSpec &spec : stages[s]) {
      int64_t samples = spec.endSample - spec.firstSample;
      stage.replicas.push_back({"gpu" + std::to_string(device++),
                                spec.firstSample, samples, spec.microBatch,
                                static_cast<double>(samples) / stageSamples});
    }
  }
  return plan;
}

std::string opText(const ScheduledOp &op) {
  switch (op.kind) {
  case Kind::Forward:
    return "F" + std::to_string(op.microBatch);
  case Kind::Backward:
    return "B" + std::to_string(op.microBatch);
  case Kind::Send:
  case Kind::Recv:
    return llvm::formatv("{0}{1}:{2}[{3},{4})",
                         op.kind == Kind::Send ? "S" : "R", op.peer,
                         op.gradient ? "g" : "a", op.firstSample,
                         op.firstSample + op.numSamples);
  }
  return "?";
}

/// The rank's ops as "F0 S1:a[0,1) R1:g[0,1) B0 ...".
std::string opsText(const RankSchedule &ranked, bool computationsOnly = false) {
  std::string text;
  for (const ScheduledOp &op : ranked.ops) {
    if (computationsOnly && op.kind != Kind::Forward &&
        op.kind != Kind::Backward)
      continue;
    text += (text.empty() ? "" : " ") + opText(op);
  }
  return text;
}

std::string checkError(const Plan &plan,
                       const std::vector<RankSchedule> &schedule) {
  llvm::Error error = checkScheduleMatches(plan, schedule);
  if (!error)
    return "(matches)";
  return llvm::toString(std::move(error));
}

/// The most micro-batches forwarded and not yet backwarded at once.
int64_t maxInFlight(const RankSchedule &ranked) {
  int64_t inFlight = 0, most = 0;
  for (const ScheduledOp &op : ranked.ops) {
    if (op.kind == Kind::Forward)
      most = std::max(most, ++inFlight);
    else if (op.kind == Kind::Backward)
      --inFlight;
  }
  return most;
}

/// Checked independently of checkScheduleMatches: the ranks and their
/// micro-batches are the plan's, and each micro-batch is forwarded once,
/// then backwarded once.
void expectComplete(const Plan &plan,
                    const std::vector<RankSchedule> &schedule) {
  ASSERT_EQ(static_cast<int64_t>(schedule.size()), plan.numRanks());
  for (const RankSchedule &ranked : schedule) {
    auto [s, r] = plan.stageAndReplicaOf(ranked.rank);
    EXPECT_EQ(ranked.stage, s);
    EXPECT_EQ(ranked.replica, r);
    const Replica &replica = plan.stages[s].replicas[r];
    ASSERT_EQ(static_cast<int64_t>(ranked.microBatches.size()),
              replica.numMicroBatches());
    for (size_t k = 0; k < ranked.microBatches.size(); ++k) {
      EXPECT_EQ(ranked.microBatches[k].firstSample,
                replica.firstSample +
                    static_cast<int64_t>(k) * replica.microBatch);
      EXPECT_EQ(ranked.microBatches[k].numSamples, replica.microBatch);
    }
    std::vector<int> forwards(ranked.microBatches.size(), 0);
    std::vector<int> backwards(ranked.microBatches.size(), 0);
    for (const ScheduledOp &op : ranked.ops) {
      if (op.kind == Kind::Forward)
        ++forwards[op.microBatch];
      if (op.kind == Kind::Backward) {
        EXPECT_EQ(forwards[op.microBatch], 1)
            << "rank " << ranked.rank << " B" << op.microBatch;
        ++backwards[op.microBatch];
      }
    }
    for (size_t k = 0; k < forwards.size(); ++k) {
      EXPECT_EQ(forwards[k], 1) << "rank " << ranked.rank << " F" << k;
      EXPECT_EQ(backwards[k], 1) << "rank " << ranked.rank << " B" << k;
    }
  }
}

void expectSound(const Plan &plan, const std::vector<RankSchedule> &schedule) {
  EXPECT_EQ(checkError(plan, schedule), "(matches)");
  expectComplete(plan, schedule);
}

/// Swaps the first two sends from one rank to one peer; the first mismatch
/// on that pair is then the earlier of the two messages.
bool swapTwoSends(std::vector<RankSchedule> &schedule) {
  for (RankSchedule &ranked : schedule)
    for (size_t i = 0; i < ranked.ops.size(); ++i)
      for (size_t j = i + 1; j < ranked.ops.size(); ++j) {
        ScheduledOp &a = ranked.ops[i], &b = ranked.ops[j];
        if (a.kind == Kind::Send && b.kind == Kind::Send && a.peer == b.peer) {
          std::swap(a, b);
          return true;
        }
      }
  return false;
}

/// Drops the last receive of the last rank that has one, so that its sender
/// sends one message more than it receives.
bool dropLastRecv(std::vector<RankSchedule> &schedule) {
  for (auto ranked = schedule.rbegin(); ranked != schedule.rend(); ++ranked)
    for (auto op = ranked->ops.rbegin(); op != ranked->ops.rend(); ++op)
      if (op->kind == Kind::Recv) {
        ranked->ops.erase(std::next(op).base());
        return true;
      }
  return false;
}

/// Each replica computes the same sequence as the first replica of its
/// stage.
void expectLockstep(const Plan &plan,
                    const std::vector<RankSchedule> &schedule) {
  for (const RankSchedule &ranked : schedule)
    EXPECT_EQ(opsText(ranked, /*computationsOnly=*/true),
              opsText(schedule[plan.rankOf(ranked.stage, 0)],
                      /*computationsOnly=*/true))
        << "rank " << ranked.rank;
}

/// Swaps the rank's first backward that is directly followed by a forward
/// with that forward, each with its receives before and sends after it.
bool swapBackwardWithNextForward(RankSchedule &ranked) {
  std::vector<std::vector<ScheduledOp>> blocks;
  std::vector<Kind> computed;
  for (const ScheduledOp &op : ranked.ops) {
    bool blockHasComputation = blocks.size() == computed.size();
    if (blocks.empty() || (blockHasComputation && op.kind != Kind::Send))
      blocks.emplace_back();
    blocks.back().push_back(op);
    if (op.kind == Kind::Forward || op.kind == Kind::Backward)
      computed.push_back(op.kind);
  }
  for (size_t b = 0; b + 1 < blocks.size(); ++b)
    if (computed[b] == Kind::Backward && computed[b + 1] == Kind::Forward) {
      std::swap(blocks[b], blocks[b + 1]);
      ranked.ops.clear();
      for (const std::vector<ScheduledOp> &block : blocks)
        llvm::append_range(ranked.ops, block);
      return true;
    }
  return false;
}

/// Both corruptions are caught on any plan with more than one stage.
void expectCorruptionsRejected(const Plan &plan,
                               const std::vector<RankSchedule> &schedule) {
  std::vector<RankSchedule> swapped = schedule;
  if (swapTwoSends(swapped)) {
    EXPECT_NE(checkError(plan, swapped).find(" is sent as "),
              std::string::npos);
  }
  std::vector<RankSchedule> dropped = schedule;
  if (dropLastRecv(dropped)) {
    EXPECT_NE(
        checkError(plan, dropped).find(" received; the first unreceived is "),
        std::string::npos);
  }
}

TEST(Schedule, DefaultCostsAreSamplesAndTwiceSamples) {
  EXPECT_EQ(defaultTaskCost(0, Kind::Forward, 3), 3.0);
  EXPECT_EQ(defaultTaskCost(2, Kind::Backward, 3), 6.0);
}

TEST(Schedule, OneStageAlternatesForwardAndBackward) {
  Plan plan = makePlan({{{0, 4, 2}}});
  std::vector<RankSchedule> schedule = buildSchedule(plan);
  ASSERT_EQ(schedule.size(), 1u);
  EXPECT_EQ(opsText(schedule[0]), "F0 B0 F1 B1");
  expectSound(plan, schedule);

  std::vector<RankSchedule> corrupt = schedule;
  corrupt[0].ops.erase(corrupt[0].ops.begin() + 3);
  EXPECT_EQ(checkError(plan, corrupt),
            "rank 0: micro-batch 1 is never backwarded");
  corrupt = schedule;
  corrupt[0].ops.push_back(corrupt[0].ops[0]);
  EXPECT_EQ(checkError(plan, corrupt),
            "rank 0: Forward of micro-batch 0 runs twice (op #4)");
  corrupt = schedule;
  std::swap(corrupt[0].ops[0], corrupt[0].ops[1]);
  EXPECT_EQ(checkError(plan, corrupt),
            "rank 0: Backward of micro-batch 0 (op #0) runs before its "
            "forward");
}

/// Two stages of one replica each, four micro-batches of one sample.
Plan twoStagePlan(ScheduleKind schedule) {
  return makePlan({{{0, 4, 1}}, {{0, 4, 1}}}, schedule);
}

TEST(Schedule, TwoStagesFollowOneForwardOneBackward) {
  Plan plan = twoStagePlan(ScheduleKind::OneForwardOneBackward);
  std::vector<RankSchedule> schedule = buildSchedule(plan);
  ASSERT_EQ(schedule.size(), 2u);
  EXPECT_EQ(opsText(schedule[0], /*computationsOnly=*/true),
            "F0 F1 B0 F2 B1 F3 B2 B3");
  EXPECT_EQ(opsText(schedule[0]),
            "F0 S1:a[0,1) F1 S1:a[1,2) R1:g[0,1) B0 F2 S1:a[2,3) R1:g[1,2) B1 "
            "F3 S1:a[3,4) R1:g[2,3) B2 R1:g[3,4) B3");
  EXPECT_EQ(opsText(schedule[1]),
            "R0:a[0,1) F0 B0 S0:g[0,1) R0:a[1,2) F1 B1 S0:g[1,2) "
            "R0:a[2,3) F2 B2 S0:g[2,3) R0:a[3,4) F3 B3 S0:g[3,4)");
  EXPECT_EQ(maxInFlight(schedule[0]), 2);
  EXPECT_EQ(maxInFlight(schedule[1]), 1);
  expectSound(plan, schedule);
  expectCorruptionsRejected(plan, schedule);
}

TEST(Schedule, CheckNamesTheRanksAndTheFirstMismatch) {
  Plan plan = twoStagePlan(ScheduleKind::OneForwardOneBackward);
  const std::vector<RankSchedule> schedule = buildSchedule(plan);

  std::vector<RankSchedule> corrupt = schedule;
  std::swap(corrupt[0].ops[1], corrupt[0].ops[3]);
  EXPECT_EQ(checkError(plan, corrupt),
            "rank 0 -> rank 1: message #0 is sent as activations of samples "
            "[1, 2) (rank 0 op #1) but received as activations of samples "
            "[0, 1) (rank 1 op #0)");

  corrupt = schedule;
  corrupt[0].ops.erase(corrupt[0].ops.end() - 2);
  EXPECT_EQ(checkError(plan, corrupt),
            "rank 1 -> rank 0: 4 sent but 3 received; the first unreceived is "
            "gradients of samples [3, 4) (rank 1 op #15)");

  corrupt = schedule;
  corrupt[1].ops.erase(corrupt[1].ops.begin());
  EXPECT_EQ(checkError(plan, corrupt),
            "rank 0 -> rank 1: message #0 is sent as activations of samples "
            "[0, 1) (rank 0 op #1) but received as activations of samples "
            "[1, 2) (rank 1 op #3)");

  corrupt = schedule;
  corrupt[1].ops.push_back(corrupt[1].ops[0]);
  EXPECT_EQ(checkError(plan, corrupt),
            "rank 0 -> rank 1: 4 sent but 5 received; the first unsent is "
            "activations of samples [0, 1) (rank 1 op #16)");

  // Rank 0 waits for the gradient of micro-batch 0 before sending its
  // activation: the sequences still match, the replay sticks.
  corrupt = schedule;
  ScheduledOp gradient = corrupt[0].ops[4];
  corrupt[0].ops.erase(corrupt[0].ops.begin() + 4);
  corrupt[0].ops.insert(corrupt[0].ops.begin() + 1, gradient);
  EXPECT_EQ(checkError(plan, corrupt),
            "deadlock: rank 0 waits (op #1) for gradients of samples [0, 1) "
            "from rank 1; rank 1 waits (op #0) for activations of samples "
            "[0, 1) from rank 0");

  corrupt = schedule;
  std::swap(corrupt[1].ops[0], corrupt[1].ops[1]);
  EXPECT_EQ(checkError(plan, corrupt),
            "rank 1: Forward of micro-batch 0 (op #0) runs before receiving "
            "activations of samples [0, 1) from rank 0");

  corrupt = schedule;
  std::swap(corrupt[0].ops[0], corrupt[0].ops[1]);
  EXPECT_EQ(checkError(plan, corrupt),
            "rank 0: sends activations of samples [0, 1) to rank 1 (op #0) "
            "before its Forward of micro-batch 0 computes them");
}

TEST(Schedule, CheckRejectsAScheduleOfAnotherShape) {
  Plan plan = twoStagePlan(ScheduleKind::OneForwardOneBackward);
  const std::vector<RankSchedule> schedule = buildSchedule(plan);

  EXPECT_EQ(checkError(plan, {schedule[0]}),
            "the plan has 2 ranks but the schedule 1");

  std::vector<RankSchedule> corrupt = schedule;
  corrupt[0].ops[1].peer = 7;
  EXPECT_EQ(checkError(plan, corrupt),
            "rank 0, op #1: peer 7 is not another rank of the plan");

  corrupt = schedule;
  corrupt[1].ops[1].microBatch = 4;
  EXPECT_EQ(checkError(plan, corrupt),
            "rank 1, op #1: micro-batch 4 does not exist (the rank has 4)");

  corrupt = schedule;
  corrupt[1].microBatches.pop_back();
  EXPECT_EQ(checkError(plan, corrupt),
            "rank 1: its micro-batches are not the plan's 4 chunks of 1 "
            "samples");

  corrupt = schedule;
  std::swap(corrupt[0], corrupt[1]);
  EXPECT_EQ(checkError(plan, corrupt),
            "schedule entry 0 is rank 1, stage 1, replica 0, but the plan's "
            "rank 0 is stage 0, replica 0\n"
            "schedule entry 1 is rank 0, stage 0, replica 0, but the plan's "
            "rank 1 is stage 1, replica 0");
}

TEST(Schedule, GPipeRunsEveryForwardFirst) {
  Plan plan = twoStagePlan(ScheduleKind::GPipe);
  std::vector<RankSchedule> schedule = buildSchedule(plan);
  EXPECT_EQ(opsText(schedule[0]),
            "F0 S1:a[0,1) F1 S1:a[1,2) F2 S1:a[2,3) F3 S1:a[3,4) "
            "R1:g[0,1) B0 R1:g[1,2) B1 R1:g[2,3) B2 R1:g[3,4) B3");
  EXPECT_EQ(opsText(schedule[1]),
            "R0:a[0,1) F0 R0:a[1,2) F1 R0:a[2,3) F2 R0:a[3,4) F3 "
            "B0 S0:g[0,1) B1 S0:g[1,2) B2 S0:g[2,3) B3 S0:g[3,4)");
  expectSound(plan, schedule);
  expectCorruptionsRejected(plan, schedule);
}

/// Three stages of 2, 1 and 3 replicas over 8 samples, split 5:3, 8 and
/// 2:4:2, in micro-batches of 1 and 3, 4, and 1, 4 and 2 samples. Stage 1's
/// first micro-batch needs four forwards of rank 0, one more than 1F1B lets
/// rank 0 have in flight (stages after it + 1 = 3); rank 4's micro-batch
/// spans both of stage 1's, so it needs rank 0's fifth forward as well.
Plan unevenPlan(ScheduleKind schedule) {
  return makePlan(
      {{{0, 5, 1}, {5, 8, 3}}, {{0, 8, 4}}, {{0, 2, 1}, {2, 6, 4}, {6, 8, 2}}},
      schedule);
}

TEST(Schedule, UnevenReplicasExchangeOverlappingSlices) {
  Plan plan = unevenPlan(ScheduleKind::OneForwardOneBackward);
  ASSERT_FALSE(validatePlan(plan, 8, 3));
  std::vector<RankSchedule> schedule = buildSchedule(plan);
  ASSERT_EQ(schedule.size(), 6u);

  // The stalls: rank 0 forwards everything before its first backward, and
  // rank 2 both of its micro-batches.
  EXPECT_EQ(opsText(schedule[0], /*computationsOnly=*/true),
            "F0 F1 F2 F3 F4 B0 B1 B2 B3 B4");
  EXPECT_EQ(maxInFlight(schedule[0]), 5);
  EXPECT_EQ(opsText(schedule[1]), "F0 S2:a[5,8) R2:g[5,8) B0");
  // Rank 2 receives per sender micro-batch and sends per receiver
  // micro-batch, all in sample order.
  EXPECT_EQ(opsText(schedule[2]), "R0:a[0,1) R0:a[1,2) R0:a[2,3) R0:a[3,4) F0 "
                                  "S3:a[0,1) S3:a[1,2) S4:a[2,4) "
                                  "R0:a[4,5) R1:a[5,8) F1 S4:a[4,6) S5:a[6,8) "
                                  "R3:g[0,1) R3:g[1,2) R4:g[2,4) B0 "
                                  "S0:g[0,1) S0:g[1,2) S0:g[2,3) S0:g[3,4) "
                                  "R4:g[4,6) R5:g[6,8) B1 S0:g[4,5) S1:g[5,8)");
  EXPECT_EQ(opsText(schedule[4]), "R2:a[2,4) R2:a[4,6) F0 B0 "
                                  "S2:g[2,4) S2:g[4,6)");
  expectSound(plan, schedule);

  std::vector<RankSchedule> corrupt = schedule;
  ASSERT_TRUE(swapTwoSends(corrupt));
  EXPECT_EQ(checkError(plan, corrupt),
            "rank 0 -> rank 2: message #0 is sent as activations of samples "
            "[1, 2) (rank 0 op #1) but received as activations of samples "
            "[0, 1) (rank 2 op #0)");
  corrupt = schedule;
  ASSERT_TRUE(dropLastRecv(corrupt));
  EXPECT_EQ(checkError(plan, corrupt),
            "rank 2 -> rank 5: 1 sent but 0 received; the first unreceived is "
            "activations of samples [6, 8) (rank 2 op #12)");
}

TEST(Schedule, UnevenReplicasUnderGPipe) {
  Plan plan = unevenPlan(ScheduleKind::GPipe);
  std::vector<RankSchedule> schedule = buildSchedule(plan);
  EXPECT_EQ(opsText(schedule[0], /*computationsOnly=*/true),
            "F0 F1 F2 F3 F4 B0 B1 B2 B3 B4");
  EXPECT_EQ(opsText(schedule[3], /*computationsOnly=*/true), "F0 F1 B0 B1");
  expectSound(plan, schedule);
  expectCorruptionsRejected(plan, schedule);
}

TEST(Schedule, SimulationUsesTheGivenCosts) {
  Plan plan = unevenPlan(ScheduleKind::OneForwardOneBackward);
  std::vector<std::tuple<int64_t, Kind, int64_t>> calls;
  auto recordingCost = [&](int64_t stage, Kind kind, int64_t samples) {
    calls.emplace_back(stage, kind, samples);
    return 1.0;
  };
  std::vector<RankSchedule> schedule = buildSchedule(plan, recordingCost);
  expectSound(plan, schedule);
  // One call per computation, with its stage and micro-batch size.
  std::vector<std::tuple<int64_t, Kind, int64_t>> expected;
  for (const RankSchedule &ranked : schedule)
    for (const ScheduledOp &op : ranked.ops)
      if (op.kind == Kind::Forward || op.kind == Kind::Backward)
        expected.emplace_back(ranked.stage, op.kind,
                              ranked.microBatches[op.microBatch].numSamples);
  llvm::sort(calls);
  llvm::sort(expected);
  EXPECT_EQ(calls, expected);
}

/// Three stages of 2, 1 and 3 replicas over 12 samples, split 4:8, 12 and
/// 2:4:6, in micro-batches of 1 and 2, 6, and 1, 2 and 3: four, two and two
/// micro-batches per replica. 1F1B lets stage 0 have three in flight, but
/// stage 1's first micro-batch needs all four of replica 0's (rank 0), and
/// only the first of replica 1's (rank 1).
Plan lockstepPlan(ShardingKind sharding) {
  return makePlan({{{0, 4, 1}, {4, 12, 2}},
                   {{0, 12, 6}},
                   {{0, 2, 1}, {2, 6, 2}, {6, 12, 3}}},
                  ScheduleKind::OneForwardOneBackward, sharding);
}

TEST(Schedule, FullShardingRunsTheReplicasOfAStageInLockstep) {
  Plan plan = lockstepPlan(ShardingKind::Full);
  ASSERT_FALSE(validatePlan(plan, 12, 3));
  std::vector<RankSchedule> schedule = buildSchedule(plan);
  ASSERT_EQ(schedule.size(), 6u);
  // Stage 0 stalls at three in flight until its fourth forward is let
  // through; rank 1 then forwards its fourth too, in step with rank 0.
  for (int rank : {0, 1})
    EXPECT_EQ(opsText(schedule[rank], /*computationsOnly=*/true),
              "F0 F1 F2 F3 B0 B1 B2 B3");
  EXPECT_EQ(opsText(schedule[2], /*computationsOnly=*/true), "F0 F1 B0 B1");
  for (int rank : {3, 4, 5})
    EXPECT_EQ(opsText(schedule[rank], /*computationsOnly=*/true),
              "F0 B0 F1 B1");
  EXPECT_EQ(opsText(schedule[4]), "R2:a[2,4) F0 B0 S2:g[2,4) "
                                  "R2:a[4,6) F1 B1 S2:g[4,6)");
  expectSound(plan, schedule);
  expectLockstep(plan, schedule);
  expectCorruptionsRejected(plan, schedule);

  std::vector<RankSchedule> corrupt = schedule;
  ASSERT_TRUE(swapBackwardWithNextForward(corrupt[4]));
  EXPECT_EQ(opsText(corrupt[4]), "R2:a[2,4) F0 R2:a[4,6) F1 B0 S2:g[2,4) "
                                 "B1 S2:g[4,6)");
  EXPECT_EQ(checkError(plan, corrupt),
            "stage 2: ranks 3 and 4 compute in different orders, but with "
            "\"sharding\": \"full\" the replicas of a stage run in lockstep: "
            "computation #1 is Backward of micro-batch 0 on rank 3 (op #2) "
            "but Forward of micro-batch 1 on rank 4 (op #3)");
}

TEST(Schedule, OptimizerShardingLetsReplicasOfAStageDiverge) {
  Plan plan = lockstepPlan(ShardingKind::Optimizer);
  std::vector<RankSchedule> schedule = buildSchedule(plan);
  // Rank 1 backwards its first micro-batch as soon as stage 1 returns its
  // gradients, before its fourth forward, which stage 1 needs only later.
  EXPECT_EQ(opsText(schedule[0], /*computationsOnly=*/true),
            "F0 F1 F2 F3 B0 B1 B2 B3");
  EXPECT_EQ(opsText(schedule[1], /*computationsOnly=*/true),
            "F0 F1 F2 B0 F3 B1 B2 B3");
  expectSound(plan, schedule);
  // The same schedule breaks the lockstep a Full plan needs.
  EXPECT_EQ(checkError(lockstepPlan(ShardingKind::Full), schedule),
            "stage 0: ranks 0 and 1 compute in different orders, but with "
            "\"sharding\": \"full\" the replicas of a stage run in lockstep: "
            "computation #3 is Forward of micro-batch 3 on rank 0 (op #6) "
            "but Backward of micro-batch 0 on rank 1 (op #7)");
}

TEST(Schedule, FullShardingOfSingleReplicaStagesChangesNothing) {
  for (ScheduleKind kind :
       {ScheduleKind::OneForwardOneBackward, ScheduleKind::GPipe}) {
    Plan plan = twoStagePlan(kind);
    std::vector<RankSchedule> optimizer = buildSchedule(plan);
    plan.sharding = ShardingKind::Full;
    std::vector<RankSchedule> full = buildSchedule(plan);
    ASSERT_EQ(full.size(), optimizer.size());
    for (size_t rank = 0; rank < full.size(); ++rank)
      EXPECT_EQ(opsText(full[rank]), opsText(optimizer[rank]));
  }
}

int64_t uniform(std::mt19937 &random, int64_t low, int64_t high) {
  return std::uniform_int_distribution<int64_t>(low, high)(random);
}

std::vector<int64_t> divisorsOf(int64_t n) {
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0)
      divisors.push_back(d);
  return divisors;
}

int64_t randomDivisor(std::mt19937 &random, int64_t n) {
  std::vector<int64_t> divisors = divisorsOf(n);
  return divisors[uniform(random, 0, divisors.size() - 1)];
}

/// A random split of [0, total) into `parts` non-empty ranges: the sorted
/// bounds 0 < ... < total.
std::vector<int64_t> randomCuts(std::mt19937 &random, int64_t total,
                                int64_t parts) {
  // parts - 1 distinct cuts in [1, total).
  std::vector<int64_t> cuts;
  for (int64_t c = 1; c < total; ++c)
    cuts.push_back(c);
  std::shuffle(cuts.begin(), cuts.end(), random);
  cuts.resize(parts - 1);
  cuts.push_back(0);
  cuts.push_back(total);
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

/// 1-3 replicas over a random partition of the batch, each in micro-batches
/// of a random divisor of its samples.
std::vector<ReplicaSpec> randomStage(std::mt19937 &random,
                                     int64_t globalBatch) {
  int64_t numReplicas = uniform(random, 1, std::min<int64_t>(3, globalBatch));
  std::vector<int64_t> cuts = randomCuts(random, globalBatch, numReplicas);
  std::vector<ReplicaSpec> stage;
  for (size_t r = 0; r + 1 < cuts.size(); ++r)
    stage.push_back(
        {cuts[r], cuts[r + 1], randomDivisor(random, cuts[r + 1] - cuts[r])});
  return stage;
}

/// The same with one random micro-batch count for the whole stage, as Full
/// sharding needs: the batch is split in units of `count` samples, and a
/// replica of n units takes micro-batches of n samples.
std::vector<ReplicaSpec> randomLockstepStage(std::mt19937 &random,
                                             int64_t globalBatch) {
  int64_t count = randomDivisor(random, globalBatch);
  int64_t units = globalBatch / count;
  int64_t numReplicas = uniform(random, 1, std::min<int64_t>(3, units));
  std::vector<int64_t> cuts = randomCuts(random, units, numReplicas);
  std::vector<ReplicaSpec> stage;
  for (size_t r = 0; r + 1 < cuts.size(); ++r)
    stage.push_back(
        {count * cuts[r], count * cuts[r + 1], cuts[r + 1] - cuts[r]});
  return stage;
}

/// A random valid plan: 1-4 stages of B <= 12 samples.
Plan randomPlan(std::mt19937 &random, ShardingKind sharding) {
  int64_t globalBatch = uniform(random, 1, 12);
  std::vector<std::vector<ReplicaSpec>> stages(uniform(random, 1, 4));
  for (std::vector<ReplicaSpec> &stage : stages)
    stage = sharding == ShardingKind::Full
                ? randomLockstepStage(random, globalBatch)
                : randomStage(random, globalBatch);
  return makePlan(stages,
                  uniform(random, 0, 1) ? ScheduleKind::GPipe
                                        : ScheduleKind::OneForwardOneBackward,
                  sharding);
}

/// Breaking the lockstep of a stage of several replicas is caught (as such,
/// or as the deadlock or mismatch the swap may also cause).
void expectBrokenLockstepRejected(const Plan &plan,
                                  const std::vector<RankSchedule> &schedule) {
  for (const auto &[s, stage] : llvm::enumerate(plan.stages)) {
    if (stage.replicas.size() < 2)
      continue;
    std::vector<RankSchedule> corrupt = schedule;
    if (swapBackwardWithNextForward(
            corrupt[plan.rankOf(s, stage.replicas.size() - 1)])) {
      EXPECT_NE(checkError(plan, corrupt), "(matches)") << "stage " << s;
    }
  }
}

TEST(Schedule, RandomValidPlansGiveMatchingSchedules) {
  std::mt19937 random(20240607);
  for (ShardingKind sharding : {ShardingKind::Optimizer, ShardingKind::Full}) {
    for (int trial = 0; trial < 200; ++trial) {
      Plan plan = randomPlan(random, sharding);
      SCOPED_TRACE(printPlan(plan));
      llvm::Error invalid =
          validatePlan(plan, plan.globalBatch, plan.stages.size());
      ASSERT_FALSE(invalid) << llvm::toString(std::move(invalid));
      // Uneven stage costs move the simulation's choices around.
      std::vector<double> weight;
      for (size_t s = 0; s < plan.stages.size(); ++s)
        weight.push_back(
            std::uniform_real_distribution<double>(0.5, 3)(random));
      auto cost = [&](int64_t stage, Kind kind, int64_t samples) {
        return weight[stage] * defaultTaskCost(stage, kind, samples);
      };
      std::vector<RankSchedule> schedule =
          trial % 2 ? buildSchedule(plan) : buildSchedule(plan, cost);
      expectSound(plan, schedule);
      expectCorruptionsRejected(plan, schedule);
      if (sharding == ShardingKind::Full) {
        expectLockstep(plan, schedule);
        expectBrokenLockstepRejected(plan, schedule);
      }
    }
  }
}

} // namespace
