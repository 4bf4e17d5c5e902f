//===- PlanTest.cpp - plan JSON, validation, data parallelism, shards -----===//
//
// The documented example parses to the numbers it states; every parse error
// and every validation rule produces its message; printing round-trips; the
// data-parallel plan and the largest-remainder shard split give hand-computed
// numbers.
//
//===----------------------------------------------------------------------===//

#include "planner/Plan.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <functional>

using namespace hetc::planner;

namespace {

constexpr const char *examplePlan = R"({
  "global_batch": 8,
  "schedule": "1f1b",
  "sharding": "optimizer",
  "stages": [
    {"segments": [0, 7],
     "replicas": [
       {"device": "gpu0", "samples": [0, 5], "micro_batch": 5, "shard": 0.7},
       {"device": "gpu1", "samples": [5, 8], "micro_batch": 1, "shard": 0.3}]},
    {"segments": [7, 18],
     "replicas": [{"device": "gpu2", "samples": [0, 8], "micro_batch": 2}]}
  ]
})";

Plan parseOrDie(llvm::StringRef json) {
  llvm::Expected<Plan> plan = parsePlan(json);
  if (!plan) {
    ADD_FAILURE() << llvm::toString(plan.takeError());
    return Plan();
  }
  return std::move(*plan);
}

std::string parseError(llvm::StringRef json) {
  llvm::Expected<Plan> plan = parsePlan(json);
  if (plan)
    return "(parsed)";
  return llvm::toString(plan.takeError());
}

std::string validationError(const Plan &plan, int64_t globalBatch = 8,
                            int64_t numSegments = 18) {
  llvm::Error error = validatePlan(plan, globalBatch, numSegments);
  if (!error)
    return "(valid)";
  return llvm::toString(std::move(error));
}

/// A one-stage plan around one replica entry, for parse errors in it.
std::string withReplica(llvm::StringRef replica) {
  return (R"({"stages": [{"segments": [0, 1], "replicas": [)" + replica +
          "]}]}")
      .str();
}

TEST(Plan, ParsesTheExample) {
  Plan plan = parseOrDie(examplePlan);
  EXPECT_EQ(plan.globalBatch, 8);
  EXPECT_EQ(plan.schedule, ScheduleKind::OneForwardOneBackward);
  EXPECT_EQ(plan.sharding, ShardingKind::Optimizer);
  ASSERT_EQ(plan.stages.size(), 2u);

  const Stage &first = plan.stages[0];
  EXPECT_EQ(first.firstSegment, 0);
  EXPECT_EQ(first.endSegment, 7);
  ASSERT_EQ(first.replicas.size(), 2u);
  EXPECT_EQ(first.replicas[0].device, "gpu0");
  EXPECT_EQ(first.replicas[0].firstSample, 0);
  EXPECT_EQ(first.replicas[0].numSamples, 5);
  EXPECT_EQ(first.replicas[0].microBatch, 5);
  EXPECT_EQ(first.replicas[0].shard, 0.7);
  EXPECT_EQ(first.replicas[1].device, "gpu1");
  EXPECT_EQ(first.replicas[1].firstSample, 5);
  EXPECT_EQ(first.replicas[1].numSamples, 3);
  EXPECT_EQ(first.replicas[1].microBatch, 1);
  EXPECT_EQ(first.replicas[1].numMicroBatches(), 3);
  EXPECT_EQ(first.replicas[1].shard, 0.3);

  const Stage &second = plan.stages[1];
  EXPECT_EQ(second.firstSegment, 7);
  EXPECT_EQ(second.endSegment, 18);
  ASSERT_EQ(second.replicas.size(), 1u);
  EXPECT_EQ(second.replicas[0].numMicroBatches(), 4);
  EXPECT_EQ(second.replicas[0].shard, 1.0);

  EXPECT_EQ(validationError(plan), "(valid)");
}

TEST(Plan, RanksGoStageByStageReplicaByReplica) {
  Plan plan = parseOrDie(examplePlan);
  EXPECT_EQ(plan.numRanks(), 3);
  EXPECT_EQ(plan.rankOf(0, 0), 0);
  EXPECT_EQ(plan.rankOf(0, 1), 1);
  EXPECT_EQ(plan.rankOf(1, 0), 2);
  using StageAndReplica = std::pair<int64_t, int64_t>;
  EXPECT_EQ(plan.stageAndReplicaOf(0), StageAndReplica(0, 0));
  EXPECT_EQ(plan.stageAndReplicaOf(1), StageAndReplica(0, 1));
  EXPECT_EQ(plan.stageAndReplicaOf(2), StageAndReplica(1, 0));
}

TEST(Plan, OmittedFieldsTakeTheirDefaults) {
  Plan plan = parseOrDie(R"({"stages": [{"segments": [0, 3], "replicas": [
      {"device": "a", "samples": [0, 5]},
      {"device": "b", "samples": [5, 8]}]}]})");
  EXPECT_EQ(plan.globalBatch, 0);
  EXPECT_EQ(plan.schedule, ScheduleKind::OneForwardOneBackward);
  EXPECT_EQ(plan.sharding, ShardingKind::Optimizer);
  const auto &replicas = plan.stages[0].replicas;
  EXPECT_EQ(replicas[0].microBatch, 5);
  EXPECT_EQ(replicas[1].microBatch, 3);
  // Proportional to the samples of the stage.
  EXPECT_DOUBLE_EQ(replicas[0].shard, 5.0 / 8);
  EXPECT_DOUBLE_EQ(replicas[1].shard, 3.0 / 8);
  // An unstated global batch matches any.
  EXPECT_EQ(validationError(plan, 8, 3), "(valid)");
}

TEST(Plan, ParsesTheOtherKeywords) {
  Plan plan = parseOrDie(R"({"schedule": "gpipe", "sharding": "full",
      "stages": [{"segments": [0, 1],
                  "replicas": [{"device": "a", "samples": [0, 2]}]}]})");
  EXPECT_EQ(plan.schedule, ScheduleKind::GPipe);
  EXPECT_EQ(plan.sharding, ShardingKind::Full);
}

TEST(Plan, ParseErrorsNameThePathAndTheExpectation) {
  struct Case {
    std::string json;
    std::string error;
  };
  std::vector<Case> cases = {
      {"{", "plan: invalid JSON: "},
      {"[1]", "plan: expected a JSON object, got [1]"},
      {R"({"stage": []})",
       R"(plan: unknown key "stage" (the keys here are "global_batch", )"
       R"("schedule", "sharding", "stages"))"},
      {"{}", R"(plan: missing "stages")"},
      {R"({"stages": 3})", "stages: expected an array of stages"},
      {R"({"global_batch": -1, "stages": []})",
       "global_batch: expected a non-negative integer (0 = unstated), got -1"},
      {R"({"global_batch": 2.5, "stages": []})",
       "global_batch: expected a non-negative integer (0 = unstated), got 2.5"},
      {R"({"schedule": "1F1B", "stages": []})",
       R"(schedule: expected "1f1b" or "gpipe", got "1F1B")"},
      {R"({"sharding": "zero3", "stages": []})",
       R"(sharding: expected "optimizer" or "full", got "zero3")"},
      {R"({"stages": [7]})", "stages[0]: expected an object with "
                             R"("segments" and "replicas", got 7)"},
      {R"({"stages": [{"segment": [0, 1], "replicas": []}]})",
       R"(stages[0]: unknown key "segment" (the keys here are "segments", )"
       R"("replicas", "recompute", "offload_optimizer", "precision"))"},
      {R"({"stages": [{"segments": [0, 1], "recompute": 1, "replicas": []}]})",
       "stages[0].recompute: expected true or false, got 1"},
      {R"({"stages": [{"segments": [0, 1], "offload_optimizer": "yes", )"
       R"("replicas": []}]})",
       R"(stages[0].offload_optimizer: expected true or false, got "yes")"},
      {R"({"stages": [{"segments": [0, 1], "precision": "fp16", )"
       R"("replicas": []}]})",
       R"(stages[0].precision: expected "f32", "bf16" or "f16", got "fp16")"},
      {R"({"stages": [{"segments": [0, 1], "precision": 16, )"
       R"("replicas": []}]})",
       R"(stages[0].precision: expected "f32", "bf16" or "f16", got 16)"},
      {R"({"stages": [{"replicas": []}]})", R"(stages[0]: missing "segments")"},
      {R"({"stages": [{"segments": [0, 1]}]})",
       R"(stages[0]: missing "replicas")"},
      {R"({"stages": [{"segments": [-1, 3], "replicas": []}]})",
       "stages[0].segments: expected [begin, end) with 0 <= begin < end, "
       "got [-1,3]"},
      {R"({"stages": [{"segments": [0, 1], "replicas": {}}]})",
       "stages[0].replicas: expected an array of replicas"},
      {withReplica(R"("gpu0")"),
       R"(stages[0].replicas[0]: expected an object with "device" and )"
       R"("samples", got "gpu0")"},
      {withReplica(R"({"devcie": "a", "samples": [0, 1]})"),
       R"(stages[0].replicas[0]: unknown key "devcie" (the keys here are )"
       R"("device", "samples", "micro_batch", "shard"))"},
      {withReplica(R"({"samples": [0, 1]})"),
       R"(stages[0].replicas[0]: missing "device")"},
      {withReplica(R"({"device": "", "samples": [0, 1]})"),
       R"(stages[0].replicas[0].device: expected a non-empty string, got "")"},
      {withReplica(R"({"device": "a"})"),
       R"(stages[0].replicas[0]: missing "samples")"},
      {withReplica(R"({"device": "a", "samples": [5, 5]})"),
       "stages[0].replicas[0].samples: expected [begin, end) with "
       "0 <= begin < end, got [5,5]"},
      {withReplica(R"({"device": "a", "samples": [0, 4, 8]})"),
       "stages[0].replicas[0].samples: expected [begin, end) with "
       "0 <= begin < end, got [0,4,8]"},
      {withReplica(R"({"device": "a", "samples": [0, 4], "micro_batch": 0})"),
       "stages[0].replicas[0].micro_batch: expected a positive integer, got 0"},
      {withReplica(R"({"device": "a", "samples": [0, 4], "shard": "half"})"),
       R"(stages[0].replicas[0].shard: expected a number in [0, 1], )"
       R"(got "half")"},
      {withReplica(R"({"device": "a", "samples": [0, 4], "shard": 1},
                      {"device": "b", "samples": [4, 8]})"),
       R"(stages[0].replicas[1]: no "shard", but replica 0 of this stage )"
       R"(has one: give every replica of a stage a "shard", or none )"
       "(fractions proportional to samples)"},
  };
  for (const Case &c : cases) {
    std::string error = parseError(c.json);
    if (c.error.back() == ' ')
      EXPECT_EQ(error.rfind(c.error, 0), 0u) << c.json << "\n" << error;
    else
      EXPECT_EQ(error, c.error) << c.json;
  }
}

TEST(Plan, ReadPlanFileNamesTheFile) {
  llvm::Expected<Plan> missing = readPlanFile("/nonexistent/plan.json");
  ASSERT_FALSE(missing);
  EXPECT_EQ(llvm::toString(missing.takeError())
                .rfind("cannot read plan file '/nonexistent/plan.json': ", 0),
            0u);

  llvm::SmallString<128> path;
  int fd;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("plan", "json", fd, path));
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << R"({"stages": [], "schedul": "gpipe"})";
  }
  llvm::Expected<Plan> bad = readPlanFile(path);
  ASSERT_FALSE(bad);
  EXPECT_EQ(llvm::toString(bad.takeError()),
            (path + R"(: plan: unknown key "schedul" (the keys here are )"
                    R"("global_batch", "schedule", "sharding", "stages"))")
                .str());

  {
    std::error_code ec;
    llvm::raw_fd_ostream out(path, ec);
    out << examplePlan;
  }
  llvm::Expected<Plan> good = readPlanFile(path);
  ASSERT_TRUE(bool(good)) << llvm::toString(good.takeError());
  EXPECT_EQ(good->numRanks(), 3);
  llvm::sys::fs::remove(path);
}

/// The example with one change applied, checked against B = 8 and 18
/// segments.
std::string exampleError(const std::function<void(Plan &)> &change,
                         int64_t globalBatch = 8) {
  Plan plan = parseOrDie(examplePlan);
  change(plan);
  return validationError(plan, globalBatch);
}

TEST(Plan, EveryValidationRuleHasItsMessage) {
  EXPECT_EQ(exampleError([](Plan &p) { p.stages.clear(); }),
            "the plan has no stages");
  EXPECT_EQ(exampleError([](Plan &p) { p.stages[0].firstSegment = 1; }),
            "stage 0 covers segments [1, 7): the first stage must start at "
            "segment 0");
  EXPECT_EQ(exampleError([](Plan &p) { p.stages[1].firstSegment = 9; }),
            "segments [7, 9) belong to no stage: stage 1 must start at 7, "
            "where stage 0 ends");
  EXPECT_EQ(exampleError([](Plan &p) { p.stages[1].firstSegment = 5; }),
            "stages 0 and 1 both cover segments [5, 7): stage 1 must start at "
            "7, where stage 0 ends");
  EXPECT_EQ(exampleError([](Plan &p) { p.stages[1].endSegment = 12; }),
            "stage 1 covers segments [7, 12) but the model has 18 segments "
            "(0..17): the last stage must end at 18");
  EXPECT_EQ(exampleError([](Plan &p) { p.stages[1].endSegment = 7; }),
            "stage 1 covers no segments ([7, 7) is empty)\n"
            "stage 1 covers segments [7, 7) but the model has 18 segments "
            "(0..17): the last stage must end at 18");

  EXPECT_EQ(exampleError([](Plan &p) {
              p.stages[0].replicas[1].firstSample = 6;
              p.stages[0].replicas[1].numSamples = 2;
            }),
            "stage 0: samples [5, 6) belong to no replica: the replicas of a "
            "stage must split samples 0..7 between them");
  EXPECT_EQ(exampleError([](Plan &p) {
              p.stages[0].replicas[1].firstSample = 4;
              p.stages[0].replicas[1].numSamples = 4;
            }),
            "stage 0: samples [4, 5) are owned by both replica 0 (gpu0) and "
            "replica 1 (gpu1)");
  EXPECT_EQ(
      exampleError([](Plan &p) { p.stages[0].replicas[1].numSamples = 5; }),
      "stage 0, replica 1 (gpu1): samples [5, 10) reach past the global "
      "batch of 8 (samples 0..7)");
  EXPECT_EQ(
      exampleError([](Plan &p) { p.stages[0].replicas[1].numSamples = 0; }),
      "stage 0, replica 1 (gpu1): samples [5, 5) must be a non-empty "
      "range of samples 0..7\n"
      "stage 0: samples [5, 8) belong to no replica: the replicas of a "
      "stage must split samples 0..7 between them");

  EXPECT_EQ(
      exampleError([](Plan &p) { p.stages[0].replicas[0].microBatch = 2; }),
      "stage 0, replica 0 (gpu0): micro_batch 2 does not divide its 5 "
      "samples");
  EXPECT_EQ(
      exampleError([](Plan &p) { p.stages[1].replicas[0].microBatch = 0; }),
      "stage 1, replica 0 (gpu2): micro_batch must be positive, got 0");

  EXPECT_EQ(exampleError([](Plan &p) {
              p.stages[0].replicas[0].shard = 1.2;
              p.stages[0].replicas[1].shard = -0.2;
            }),
            "stage 0, replica 0 (gpu0): shard 1.2 is outside [0, 1]\n"
            "stage 0, replica 1 (gpu1): shard -0.2 is outside [0, 1]");
  EXPECT_EQ(exampleError([](Plan &p) { p.stages[0].replicas[1].shard = 0.2; }),
            "stage 0: shard fractions sum to 0.9, not 1 (within 1e-6)");
  EXPECT_EQ(
      exampleError([](Plan &p) { p.stages[0].replicas[1].shard = 0.3 + 5e-7; }),
      "(valid)");

  EXPECT_EQ(
      exampleError([](Plan &p) { p.stages[1].replicas[0].device = "gpu0"; }),
      "device \"gpu0\" runs both stage 0, replica 0 and stage 1, replica "
      "0: a device holds one replica");
  EXPECT_EQ(exampleError([](Plan &p) { p.stages[1].replicas[0].device = ""; }),
            "stage 1, replica 0: the device name is empty");

  EXPECT_EQ(
      exampleError([](Plan &p) {}, 16)
          .rfind("the plan is for a global_batch of 8, but the step has 16 "
                 "samples\n",
                 0),
      0u);
  EXPECT_EQ(exampleError([](Plan &p) { p.globalBatch = 0; }, 0),
            "the global batch must be positive, got 0");
  EXPECT_EQ(exampleError([](Plan &p) { p.stages[1].replicas.clear(); }),
            "stage 1 has no replicas");
}

TEST(Plan, FullShardingNeedsEqualMicroBatchCountsPerStage) {
  auto fullError = [](const std::function<void(Plan &)> &change) {
    return exampleError([&](Plan &p) {
      p.sharding = ShardingKind::Full;
      change(p);
    });
  };
  // Samples 5 and 3 in micro-batches of 5 and 1.
  EXPECT_EQ(fullError([](Plan &p) {}),
            "stage 0: with \"sharding\": \"full\" every replica needs the "
            "same number of micro-batches (replica 0 has 1, replica 1 has 3)");
  // Sizes may differ: 5 and 3 in one micro-batch each, or 6 and 2 in two.
  EXPECT_EQ(fullError([](Plan &p) { p.stages[0].replicas[1].microBatch = 3; }),
            "(valid)");
  EXPECT_EQ(fullError([](Plan &p) {
              Replica &first = p.stages[0].replicas[0];
              Replica &second = p.stages[0].replicas[1];
              first.numSamples = 6;
              first.microBatch = 3;
              second.firstSample = 6;
              second.numSamples = 2;
              second.microBatch = 1;
            }),
            "(valid)");
  // Every count of the stage is named.
  EXPECT_EQ(fullError([](Plan &p) {
              p.stages[0].replicas[1].microBatch = 3;
              std::vector<Replica> &replicas = p.stages[1].replicas;
              replicas[0].numSamples = 4;
              replicas[0].shard = 0.5;
              replicas.push_back({"gpu3", 4, 3, 1, 0.25});
              replicas.push_back({"gpu4", 7, 1, 1, 0.25});
            }),
            "stage 1: with \"sharding\": \"full\" every replica needs the "
            "same number of micro-batches (replica 0 has 2, replica 1 has 3, "
            "replica 2 has 1)");
  // A micro-batch that does not divide its samples has no count to compare.
  EXPECT_EQ(fullError([](Plan &p) { p.stages[0].replicas[0].microBatch = 2; }),
            "stage 0, replica 0 (gpu0): micro_batch 2 does not divide its 5 "
            "samples");
}

TEST(Plan, ValidationReportsEveryViolation) {
  std::string error = exampleError([](Plan &p) {
    p.stages[1].endSegment = 12;
    p.stages[0].replicas[0].microBatch = 2;
    p.stages[1].replicas[0].device = "gpu1";
  });
  EXPECT_EQ(error,
            "stage 1 covers segments [7, 12) but the model has 18 segments "
            "(0..17): the last stage must end at 18\n"
            "stage 0, replica 0 (gpu0): micro_batch 2 does not divide its 5 "
            "samples\n"
            "device \"gpu1\" runs both stage 0, replica 1 and stage 1, replica "
            "0: a device holds one replica");
}

TEST(Plan, PrintsTheDocumentedFormat) {
  EXPECT_EQ(printPlan(parseOrDie(examplePlan)),
            R"({
  "global_batch": 8,
  "schedule": "1f1b",
  "sharding": "optimizer",
  "stages": [
    {"segments": [0, 7],
     "replicas": [
       {"device": "gpu0", "samples": [0, 5], "micro_batch": 5, "shard": 0.7},
       {"device": "gpu1", "samples": [5, 8], "micro_batch": 1, "shard": 0.3}]},
    {"segments": [7, 18],
     "replicas": [
       {"device": "gpu2", "samples": [0, 8], "micro_batch": 2, "shard": 1}]}
  ]
}
)");
}

void expectSamePlan(const Plan &a, const Plan &b) {
  EXPECT_EQ(a.globalBatch, b.globalBatch);
  EXPECT_EQ(a.schedule, b.schedule);
  EXPECT_EQ(a.sharding, b.sharding);
  ASSERT_EQ(a.stages.size(), b.stages.size());
  for (size_t s = 0; s < a.stages.size(); ++s) {
    EXPECT_EQ(a.stages[s].firstSegment, b.stages[s].firstSegment);
    EXPECT_EQ(a.stages[s].endSegment, b.stages[s].endSegment);
    EXPECT_EQ(a.stages[s].recompute, b.stages[s].recompute);
    EXPECT_EQ(a.stages[s].offloadOptimizer, b.stages[s].offloadOptimizer);
    EXPECT_EQ(a.stages[s].precision, b.stages[s].precision);
    ASSERT_EQ(a.stages[s].replicas.size(), b.stages[s].replicas.size());
    for (size_t r = 0; r < a.stages[s].replicas.size(); ++r) {
      const Replica &x = a.stages[s].replicas[r];
      const Replica &y = b.stages[s].replicas[r];
      EXPECT_EQ(x.device, y.device);
      EXPECT_EQ(x.firstSample, y.firstSample);
      EXPECT_EQ(x.numSamples, y.numSamples);
      EXPECT_EQ(x.microBatch, y.microBatch);
      // Exactly: the printed fraction reads back as the same double.
      EXPECT_EQ(x.shard, y.shard);
    }
  }
}

TEST(Plan, PrintingRoundTrips) {
  Plan example = parseOrDie(examplePlan);
  Plan unusual = dataParallelPlan(7, 23, 4);
  unusual.globalBatch = 0;
  unusual.schedule = ScheduleKind::GPipe;
  unusual.sharding = ShardingKind::Full;
  unusual.stages[0].replicas[2].device = "node \"a\"\\gpu";
  unusual.stages[0].replicas[3].microBatch = 1;
  unusual.stages[0].recompute = true;
  unusual.stages[0].offloadOptimizer = true;
  Plan mixed = parseOrDie(examplePlan);
  mixed.stages[0].precision = Precision::BF16;
  mixed.stages[1].precision = Precision::F16;
  for (const Plan &plan : {example, unusual, mixed, Plan()}) {
    std::string text = printPlan(plan);
    Plan reread = parseOrDie(text);
    expectSamePlan(plan, reread);
    EXPECT_EQ(printPlan(reread), text);
  }
}

TEST(Plan, DataParallelSplitsSamplesNearEvenly) {
  Plan plan = dataParallelPlan(3, 8, 5);
  EXPECT_EQ(plan.globalBatch, 8);
  ASSERT_EQ(plan.stages.size(), 1u);
  EXPECT_EQ(plan.stages[0].firstSegment, 0);
  EXPECT_EQ(plan.stages[0].endSegment, 5);
  const auto &replicas = plan.stages[0].replicas;
  ASSERT_EQ(replicas.size(), 3u);
  int64_t expectedFirst[] = {0, 3, 6}, expectedCount[] = {3, 3, 2};
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(replicas[r].device, "device" + std::to_string(r));
    EXPECT_EQ(replicas[r].firstSample, expectedFirst[r]);
    EXPECT_EQ(replicas[r].numSamples, expectedCount[r]);
    EXPECT_EQ(replicas[r].microBatch, expectedCount[r]);
    EXPECT_DOUBLE_EQ(replicas[r].shard, expectedCount[r] / 8.0);
  }
  EXPECT_EQ(validationError(plan, 8, 5), "(valid)");
  EXPECT_EQ(validationError(dataParallelPlan(8, 8, 1), 8, 1), "(valid)");
}

Stage stageWithShards(std::vector<double> fractions) {
  Stage stage;
  for (double fraction : fractions)
    stage.replicas.push_back({"d", 0, 1, 1, fraction});
  return stage;
}

TEST(Plan, ShardCountsUseLargestRemainders) {
  using Counts = std::vector<int64_t>;
  EXPECT_EQ(shardCounts(stageWithShards({0.7, 0.3}), 10), (Counts{7, 3}));
  // 7.7 and 3.3: floors 7 and 3, the one left over goes to the .7.
  EXPECT_EQ(shardCounts(stageWithShards({0.7, 0.3}), 11), (Counts{8, 3}));
  // 3.75, 3.75, 2.5: two left over, the tie goes to the lower indices.
  EXPECT_EQ(shardCounts(stageWithShards({3.0 / 8, 3.0 / 8, 2.0 / 8}), 10),
            (Counts{4, 4, 2}));
  // 1.5, 0, 1.5: one left over, the tie goes to replica 0.
  EXPECT_EQ(shardCounts(stageWithShards({0.5, 0, 0.5}), 3), (Counts{2, 0, 1}));
  EXPECT_EQ(shardCounts(stageWithShards({0, 1, 0}), 1001),
            (Counts{0, 1001, 0}));
  EXPECT_EQ(shardCounts(stageWithShards({0.25, 0.75}), 0), (Counts{0, 0}));
  // Fractions within the tolerance of 1 still split the whole tensor: they
  // are scaled by their sum, 0.9999991.
  EXPECT_EQ(shardCounts(stageWithShards({0.5, 0.5 - 9e-7}), 1'000'000'000),
            (Counts{500'000'450, 499'999'550}));
  EXPECT_EQ(shardCounts(Stage(), 10), Counts{});
}

} // namespace
