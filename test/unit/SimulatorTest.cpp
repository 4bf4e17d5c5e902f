//===- SimulatorTest.cpp - replaying a plan's step ------------------------===//
//
// Step times of small plans on the X1 cluster of PlannerTestCluster.h,
// derived by hand from the cost model's pieces: a call of F FLOPs takes
// (F + 8e7) / 4e12 s, so a uniform segment's forward of n samples takes
// F(n) = (n * 1e9 + 8e7) / 4e12 and its backward B(n) = (n * 2e9 + 8e7) /
// 4e12; the AdamW update of its 2^20 parameters takes 28 * 2^20 / 1e11.
// Then the Chrome trace's shape.
//
//===----------------------------------------------------------------------===//

#include "PlannerTestCluster.h"

#include "planner/Simulator.h"

#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

using namespace hetc::planner;
using namespace hetc::planner::testing;

namespace {

double forwardSeconds(double samples, double segments = 1) {
  return (samples * segments * 1e9 + 8e7) / 4e12;
}
double backwardSeconds(double samples, double segments = 1) {
  return (samples * segments * 2e9 + 8e7) / 4e12;
}
double adamwSeconds(double elements) { return 28 * elements / 1e11; }
constexpr double kSegmentParameters = 1 << 20;

void expectNear(double expected, double actual) {
  EXPECT_NEAR(expected, actual, 1e-9 * std::abs(expected))
      << "expected " << expected << ", got " << actual;
}

Plan planFrom(const char *json) {
  llvm::Expected<Plan> plan = parsePlan(json);
  EXPECT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  return *plan;
}

SimulationResult simulateOrFail(const Plan &plan, const CostModel &cost,
                                bool recordSpans = false) {
  llvm::Expected<SimulationResult> result =
      simulate(plan, buildSchedule(plan), cost, recordSpans);
  EXPECT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  return *result;
}

TEST(Simulator, OneDeviceRunsForwardBackwardAndTheUpdate) {
  Cluster cluster = makeCluster({1});
  ModelProfile profile = uniformProfile(1);
  CostModel cost(cluster, profile);
  Plan plan = planFrom(R"({"stages": [{"segments": [0, 1], "replicas": [
      {"device": "n0/X1:0", "samples": [0, 4]}]}]})");
  SimulationResult result = simulateOrFail(plan, cost);
  double step =
      forwardSeconds(4) + backwardSeconds(4) + adamwSeconds(kSegmentParameters);
  expectNear(step, result.stepSeconds);
  // 4 samples of 16 tokens.
  expectNear(64 / step, result.tokensPerSecond);
  expectNear(step, result.busySeconds[0]);
  EXPECT_NEAR(result.idleSeconds[0], 0, 1e-15);
  EXPECT_EQ(result.peakMemoryBytes[0],
            cost.rankMemoryBytes(plan, buildSchedule(plan)[0]));
}

TEST(Simulator, OffloadedUpdateRunsOnTheHost) {
  Cluster cluster = makeCluster({1});
  ModelProfile profile = uniformProfile(1);
  CostModel cost(cluster, profile);
  Plan plan = planFrom(R"({"stages": [{"segments": [0, 1],
      "offload_optimizer": true, "replicas": [
      {"device": "n0/X1:0", "samples": [0, 4]}]}]})");
  // 12 bytes per parameter cross the 25 GB/s + 10 us host link while
  // AdamW streams 28 at the host's 20 GB/s, which takes longer.
  SimulationResult result = simulateOrFail(plan, cost, /*recordSpans=*/true);
  expectNear(forwardSeconds(4) + backwardSeconds(4) +
                 28 * kSegmentParameters / 20e9,
             result.stepSeconds);
  EXPECT_EQ(result.spans.back().name, "adamw on host");
  // Over a 1 GB/s host link the copies take longer.
  cluster.nodes[0].hostLink.bandwidthGBps = 1;
  expectNear(forwardSeconds(4) + backwardSeconds(4) + 10e-6 +
                 12 * kSegmentParameters / 1e9,
             simulateOrFail(plan, cost).stepSeconds);
}

/// Two stages of one segment each on two GPUs of a node whose link costs
/// nothing, so that only the computations count.
struct FreeLinkPipeline {
  Cluster cluster = makeCluster({2});
  ModelProfile profile = uniformProfile(2);
  FreeLinkPipeline() {
    cluster.nodes[0].intraNode = {"nvlink", 1e9, 0};
    profile.segments[0].boundaryBytes = 0;
  }
};

TEST(Simulator, PipelineOfEqualStagesTakesMicroBatchesPlusStagesMinusOne) {
  FreeLinkPipeline setup;
  CostModel cost(setup.cluster, setup.profile);
  for (const char *schedule : {"1f1b", "gpipe"}) {
    SCOPED_TRACE(schedule);
    std::string json = std::string(R"({"schedule": ")") + schedule +
                       R"(", "stages": [
      {"segments": [0, 1], "replicas": [
        {"device": "n0/X1:0", "samples": [0, 8], "micro_batch": 2}]},
      {"segments": [1, 2], "replicas": [
        {"device": "n0/X1:1", "samples": [0, 8], "micro_batch": 2}]}]})";
    SimulationResult result = simulateOrFail(planFrom(json.c_str()), cost);
    // m = 4 micro-batches, S = 2 stages: the last backward of stage 0 ends
    // at (m + S - 1)(F + B); then its update.
    double f = forwardSeconds(2), b = backwardSeconds(2);
    expectNear((4 + 2 - 1) * (f + b) + adamwSeconds(kSegmentParameters),
               result.stepSeconds);
    // Each stage computes 4 (F + B) and updates once; the rest is bubble.
    for (int rank : {0, 1})
      expectNear(4 * (f + b) + adamwSeconds(kSegmentParameters),
                 result.busySeconds[rank]);
    expectNear(f + b, result.idleSeconds[0]);
  }
}

TEST(Simulator, MessagesArriveATransferTimeAfterTheirSend) {
  Cluster cluster = makeCluster({2});
  ModelProfile profile = uniformProfile(2);
  CostModel cost(cluster, profile);
  Plan plan = planFrom(R"({"stages": [
      {"segments": [0, 1], "replicas": [{"device": "n0/X1:0", "samples": [0, 1]}]},
      {"segments": [1, 2], "replicas": [{"device": "n0/X1:1", "samples": [0, 1]}]}]})");
  SimulationResult result = simulateOrFail(plan, cost, /*recordSpans=*/true);
  // 64 KiB each way: the sender copies it out (2 x 65536 / 100e9), then it
  // crosses in 5 us + 65536 / 10e9. Rank 0 computes F, sends, waits for
  // rank 1's F, B and gradient, computes B, updates.
  double staging = 2 * 65536 / 100e9;
  double transfer = 5e-6 + 65536 / 10e9;
  double f = forwardSeconds(1), b = backwardSeconds(1);
  expectNear(2 * f + 2 * (staging + transfer) + 2 * b +
                 adamwSeconds(kSegmentParameters),
             result.stepSeconds);
  // Rank 1 waits for the activation from the start; rank 0 for the gradient
  // from the end of its copy.
  auto waited = [&](int64_t rank) {
    double seconds = 0;
    for (const TraceSpan &span : result.spans)
      if (span.rank == rank && span.category == "wait")
        seconds += span.seconds;
    return seconds;
  };
  expectNear(f + staging + transfer, waited(1));
  expectNear(f + b + staging + 2 * transfer, waited(0));
  // The busy time of rank 0 counts the copy of its send, not the transfer
  // nor its waits: computing its forward, backward and update,
  // communicating the copy.
  expectNear(f + staging + b + adamwSeconds(kSegmentParameters),
             result.busySeconds[0]);
  expectNear(f + b + adamwSeconds(kSegmentParameters),
             result.computeSeconds[0]);
  expectNear(staging, result.communicationSeconds[0]);
  expectNear(f + b + staging + 2 * transfer, result.idleSeconds[0]);
  // Both messages cross the node's own link: the one link in use. Each
  // GPU's port out and in carries one of them; the first is reported.
  ASSERT_EQ(result.linkUses.size(), 1u);
  EXPECT_EQ(result.linkUses[0].link, &cluster.linkBetween(0, 1));
  expectNear(2 * transfer, result.linkUses[0].seconds);
  EXPECT_EQ(result.busiestChannel, "n0/X1:0 out");
  expectNear(transfer, result.busiestChannelSeconds);
}

TEST(Simulator, DataParallelReplicasReduceScatterUpdateAndGather) {
  Cluster cluster = makeCluster({2});
  ModelProfile profile = uniformProfile(1);
  CostModel cost(cluster, profile);
  Plan plan = planFrom(R"({"stages": [{"segments": [0, 1], "replicas": [
      {"device": "n0/X1:0", "samples": [0, 4], "shard": 0.75},
      {"device": "n0/X1:1", "samples": [4, 8], "shard": 0.25}]}]})");
  SimulationResult result = simulateOrFail(plan, cost);
  // The uneven collectives wait for the larger shard, 3/4 of 4 MiB:
  // 5 us + 3 MiB / 10 GB/s each. Rank 0 updates 3/4 of the parameters.
  double collective = 5e-6 + 3 * 1048576 / 10e9;
  double step = forwardSeconds(4) + backwardSeconds(4) + collective +
                adamwSeconds(0.75 * kSegmentParameters) + collective;
  expectNear(step, result.stepSeconds);
  // Rank 1's smaller update leaves it waiting for the all-gather.
  expectNear(adamwSeconds(0.5 * kSegmentParameters), result.idleSeconds[1]);
}

TEST(Simulator, FullShardingGathersAroundEveryCall) {
  Cluster cluster = makeCluster({2});
  ModelProfile profile = uniformProfile(1);
  CostModel cost(cluster, profile);
  Plan plan = planFrom(R"({"sharding": "full", "stages": [
      {"segments": [0, 1], "replicas": [
        {"device": "n0/X1:0", "samples": [0, 4]},
        {"device": "n0/X1:1", "samples": [4, 8]}]}]})");
  SimulationResult result = simulateOrFail(plan, cost);
  // Halves of 4 MiB: 5 us + 2 MiB / 10 GB/s per collective. All-gather,
  // F, all-gather, B, reduce-scatter, the update of half; no final gather.
  double collective = 5e-6 + 2 * 1048576 / 10e9;
  expectNear(3 * collective + forwardSeconds(4) + backwardSeconds(4) +
                 adamwSeconds(0.5 * kSegmentParameters),
             result.stepSeconds);
}

/// A balanced model of 18 segments and the 2/1/3 replica layout of
/// test/e2e/Inputs/replicas-2-1-3.json on six GPUs of one node.
TEST(Simulator, UnevenReplicasAreFasterThanOneDevice) {
  Cluster cluster = makeCluster({6});
  ModelProfile profile = uniformProfile(18);
  CostModel cost(cluster, profile);
  Plan uneven = planFrom(R"({"stages": [
      {"segments": [0, 5], "replicas": [
        {"device": "n0/X1:0", "samples": [0, 5], "micro_batch": 5, "shard": 0.7},
        {"device": "n0/X1:1", "samples": [5, 8], "micro_batch": 1, "shard": 0.3}]},
      {"segments": [5, 13], "replicas": [
        {"device": "n0/X1:2", "samples": [0, 8], "micro_batch": 4}]},
      {"segments": [13, 18], "replicas": [
        {"device": "n0/X1:3", "samples": [0, 3], "micro_batch": 3, "shard": 0.5},
        {"device": "n0/X1:4", "samples": [3, 6], "micro_batch": 1, "shard": 0.2},
        {"device": "n0/X1:5", "samples": [6, 8], "micro_batch": 2, "shard": 0.3}]}]})");
  Plan single = planFrom(R"({"stages": [{"segments": [0, 18], "replicas": [
      {"device": "n0/X1:0", "samples": [0, 8]}]}]})");
  SimulationResult six = simulateOrFail(uneven, cost);
  SimulationResult one = simulateOrFail(single, cost);
  EXPECT_LT(six.stepSeconds, one.stepSeconds);
  EXPECT_GT(six.tokensPerSecond, one.tokensPerSecond);
  // The middle stage computes 8 of 18 segments for all 8 samples, so the
  // step is at least its work, and a single device does all of it.
  EXPECT_GT(six.stepSeconds,
            2 * (forwardSeconds(4, 8) + backwardSeconds(4, 8)));
  ASSERT_EQ(six.busySeconds.size(), 6u);
  for (size_t rank = 0; rank < 6; ++rank) {
    expectNear(six.stepSeconds, six.busySeconds[rank] + six.idleSeconds[rank]);
    expectNear(six.busySeconds[rank],
               six.computeSeconds[rank] + six.communicationSeconds[rank]);
  }
}

TEST(Simulator, ChromeTraceHasOneProcessPerRankNamedByItsDevice) {
  Cluster cluster = makeCluster({3});
  ModelProfile profile = uniformProfile(2);
  CostModel cost(cluster, profile);
  Plan plan = planFrom(R"({"stages": [
      {"segments": [0, 1], "replicas": [
        {"device": "n0/X1:0", "samples": [0, 2]},
        {"device": "n0/X1:1", "samples": [2, 4]}]},
      {"segments": [1, 2], "replicas": [
        {"device": "n0/X1:2", "samples": [0, 4], "micro_batch": 2}]}]})");
  SimulationResult result = simulateOrFail(plan, cost, /*recordSpans=*/true);
  llvm::Expected<llvm::json::Value> trace =
      llvm::json::parse(chromeTrace(plan, result));
  ASSERT_TRUE(static_cast<bool>(trace)) << llvm::toString(trace.takeError());
  const llvm::json::Array *events =
      trace->getAsObject()->getArray("traceEvents");
  ASSERT_TRUE(events);

  std::map<int64_t, std::string> processNames;
  std::set<int64_t> ranksWithSpans;
  size_t spans = 0;
  for (const llvm::json::Value &value : *events) {
    const llvm::json::Object &event = *value.getAsObject();
    int64_t pid = *event.getInteger("pid");
    llvm::StringRef phase = *event.getString("ph");
    if (phase == "M" && *event.getString("name") == "process_name")
      processNames[pid] = event.getObject("args")->getString("name")->str();
    if (phase != "X")
      continue;
    ++spans;
    ranksWithSpans.insert(pid);
    EXPECT_GE(*event.getNumber("ts"), 0);
    EXPECT_GE(*event.getNumber("dur"), 0);
    // Computations on thread 0, communication and waits on thread 1,
    // messages in flight on thread 2.
    llvm::StringRef category = *event.getString("cat");
    EXPECT_EQ(*event.getInteger("tid"), category == "compute"    ? 0
                                        : category == "transfer" ? 2
                                                                 : 1);
  }
  EXPECT_EQ(spans, result.spans.size());
  EXPECT_EQ(ranksWithSpans, (std::set<int64_t>{0, 1, 2}));
  EXPECT_EQ(processNames, (std::map<int64_t, std::string>{
                              {0, "n0/X1:0"}, {1, "n0/X1:1"}, {2, "n0/X1:2"}}));
}

TEST(Simulator, SpansNameMicroBatchesMessagesAndTheUpdate) {
  Cluster cluster = makeCluster({2});
  ModelProfile profile = uniformProfile(2);
  CostModel cost(cluster, profile);
  Plan plan = planFrom(R"({"stages": [
      {"segments": [0, 1], "replicas": [
        {"device": "n0/X1:0", "samples": [0, 4], "micro_batch": 2}]},
      {"segments": [1, 2], "replicas": [
        {"device": "n0/X1:1", "samples": [0, 4], "micro_batch": 4}]}]})");
  SimulationResult result = simulateOrFail(plan, cost, /*recordSpans=*/true);
  std::vector<std::string> rank0;
  for (const TraceSpan &span : result.spans)
    if (span.rank == 0 && span.category != "wait" &&
        span.category != "transfer")
      rank0.push_back(span.name);
  EXPECT_EQ(rank0,
            (std::vector<std::string>{"F0", "send 0:2 to 1", "F1",
                                      "send 2:4 to 1", "B0", "B1", "adamw"}));
}

TEST(Simulator, ASenderComputesOnWhileItsMessageCrosses) {
  // Rank 0 sends each micro-batch's activations (128 KiB) over a slow
  // link: 1 ms + 131072 / 1 GB/s. It computes its second forward right
  // after copying the first message out; the messages cross one after the
  // other, and rank 1 starts on the first when it has arrived.
  Cluster cluster = makeCluster({2});
  cluster.nodes[0].intraNode = {"pcie", 1, 1000};
  ModelProfile profile = uniformProfile(2);
  CostModel cost(cluster, profile);
  Plan plan = planFrom(R"({"stages": [
      {"segments": [0, 1], "replicas": [
        {"device": "n0/X1:0", "samples": [0, 4], "micro_batch": 2}]},
      {"segments": [1, 2], "replicas": [
        {"device": "n0/X1:1", "samples": [0, 4], "micro_batch": 2}]}]})");
  SimulationResult result = simulateOrFail(plan, cost, /*recordSpans=*/true);
  std::map<std::tuple<int64_t, std::string, std::string>, double> startOf;
  for (const TraceSpan &span : result.spans)
    startOf.emplace(std::make_tuple(span.rank, span.category, span.name),
                    span.start);
  double f = forwardSeconds(2), staging = 2 * 131072 / 100e9;
  double transfer = 1e-3 + 131072 / 1e9;
  ASSERT_GT(transfer, f);
  expectNear(f + staging, startOf.at({0, "compute", "F1"}));
  expectNear(f + staging, startOf.at({0, "transfer", "send 0:2 to 1"}));
  // The second message waits for the first to cross.
  expectNear(f + staging + transfer,
             startOf.at({0, "transfer", "send 2:4 to 1"}));
  expectNear(f + staging + transfer, startOf.at({1, "compute", "F0"}));
  // Rank 0 spent only the copies communicating.
  expectNear(2 * staging, result.communicationSeconds[0]);
}

TEST(Simulator, StagesSplittingATiedParameterAllReduceItsGradient) {
  Cluster cluster = makeCluster({2});
  ModelProfile profile = uniformProfile(2);
  // Segment 1 reads a 1 MiB table that segment 0 counts (a tied weight).
  profile.sharedParameters.push_back({"table", 1 << 18, 1 << 20, {0, 1}});
  CostModel cost(cluster, profile);
  Plan plan = planFrom(R"({"stages": [
      {"segments": [0, 1], "replicas": [
        {"device": "n0/X1:0", "samples": [0, 4], "micro_batch": 4}]},
      {"segments": [1, 2], "replicas": [
        {"device": "n0/X1:1", "samples": [0, 4], "micro_batch": 4}]}]})");
  SimulationResult result = simulateOrFail(plan, cost, /*recordSpans=*/true);
  // A ring of two over the node's link: 2 x 1/2 MiB at 10 GB/s, 2 x 5 us.
  double allReduce = 1048576 / 10e9 + 2 * 5e-6;
  std::map<int64_t, std::vector<std::string>> updates;
  for (const TraceSpan &span : result.spans)
    if (span.name == "all_reduce" && span.category == "comm") {
      expectNear(allReduce, span.seconds);
      updates[span.rank].push_back(span.name);
    }
  EXPECT_EQ(updates.size(), 2u);
  // Rank 1 updates its own segment and its whole copy of the table.
  expectNear(adamwSeconds(kSegmentParameters + (1 << 18)),
             result.computeSeconds[1] - forwardSeconds(4) -
                 backwardSeconds(4));
  // Offloading, it updates its segment on the host (28 bytes a parameter
  // at 20 GB/s, beside the copies of 12 over the 25 GB/s + 10 us host link)
  // and the table on the device, where that state stays.
  plan.stages[1].offloadOptimizer = true;
  expectNear(28 * kSegmentParameters / 20e9 + adamwSeconds(1 << 18),
             simulateOrFail(plan, cost).computeSeconds[1] - forwardSeconds(4) -
                 backwardSeconds(4));

  // One stage holding both readers exchanges nothing.
  Plan together = planFrom(R"({"stages": [{"segments": [0, 2], "replicas": [
      {"device": "n0/X1:0", "samples": [0, 4]}]}]})");
  for (const TraceSpan &span :
       simulateOrFail(together, cost, /*recordSpans=*/true).spans)
    EXPECT_NE(span.name, "all_reduce");
}

TEST(Simulator, TransfersSharingANetworkPortTakeTurns) {
  // Two replicas of stage 0 on node n0 send their activations to stage 1 on
  // n1 at the same moment: both leave through n0's network port, so the
  // second waits for the first (20 us + 64 KiB / 1 GB/s each), and stage 1
  // starts after both.
  Cluster cluster = makeCluster({2, 1});
  ModelProfile profile = uniformProfile(2);
  CostModel cost(cluster, profile);
  Plan plan = planFrom(R"({"stages": [
      {"segments": [0, 1], "replicas": [
        {"device": "n0/X1:0", "samples": [0, 1]},
        {"device": "n0/X1:1", "samples": [1, 2]}]},
      {"segments": [1, 2], "replicas": [
        {"device": "n1/X1:0", "samples": [0, 2]}]}]})");
  SimulationResult result = simulateOrFail(plan, cost, /*recordSpans=*/true);
  double transfer = 20e-6 + 65536 / 1e9;
  double f = forwardSeconds(1);
  double staging = 2 * 65536 / 100e9;
  std::map<std::pair<int64_t, std::string>, TraceSpan> byName;
  for (const TraceSpan &span : result.spans)
    if (span.category == "compute" || span.category == "transfer")
      byName.emplace(std::make_pair(span.rank, span.name), span);
  const TraceSpan &first = byName.at({0, "send 0:1 to 2"});
  const TraceSpan &second = byName.at({1, "send 1:2 to 2"});
  expectNear(f + staging, first.start);
  expectNear(f + staging + transfer, second.start);
  expectNear(f + staging + 2 * transfer, byName.at({2, "F0"}).start);
  // The gradients back leave through n1's port one after the other too.
  const TraceSpan &back0 = byName.at({2, "send grad 0:1 to 0"});
  const TraceSpan &back1 = byName.at({2, "send grad 1:2 to 1"});
  expectNear(back0.start + transfer, back1.start);
  // n0's port carries both activations out; the replicas' collectives over
  // the node's own link are longer.
  EXPECT_GE(result.busiestChannelSeconds, 2 * transfer);
}

TEST(Simulator, TransfersLeavingADatacenterShareItsUplink) {
  // Stage 0's replicas on nodes n0 and n1 of datacenter a send their
  // activations to stage 1's on n2 (in b) and n3 (in c): different ports
  // and datacenter links, but both leave through a's uplink where the
  // cluster gives one, and then take turns at its bandwidth.
  Cluster cluster = makeCluster({1, 1, 1, 1});
  for (auto [node, datacenter] :
       {std::pair{0, "a"}, {1, "a"}, {2, "b"}, {3, "c"}})
    cluster.nodes[node].datacenter = datacenter;
  ModelProfile profile = uniformProfile(2);
  Plan plan = planFrom(R"({"stages": [
      {"segments": [0, 1], "replicas": [
        {"device": "n0/X1:0", "samples": [0, 1]},
        {"device": "n1/X1:0", "samples": [1, 2]}]},
      {"segments": [1, 2], "replicas": [
        {"device": "n2/X1:0", "samples": [0, 1]},
        {"device": "n3/X1:0", "samples": [1, 2]}]}]})");
  double start = forwardSeconds(1) + 2 * 65536 / 100e9;
  auto sendStarts = [&](const Cluster &withLinks) {
    CostModel cost(withLinks, profile);
    SimulationResult result = simulateOrFail(plan, cost, /*recordSpans=*/true);
    std::map<std::string, double> starts;
    for (const TraceSpan &span : result.spans)
      if (span.category == "transfer")
        starts.emplace(span.name, span.start);
    return std::pair{starts.at("send 0:1 to 2"), starts.at("send 1:2 to 3")};
  };
  // Without an uplink both cross the 0.1 GB/s + 1 ms WAN at once.
  auto [first, second] = sendStarts(cluster);
  expectNear(start, first);
  expectNear(start, second);
  // A 0.05 GB/s uplink is slower than the WAN: each transfer takes 1 ms +
  // 64 KiB / 0.05 GB/s, one after the other.
  cluster.datacenterUplinks.push_back({"a", {"uplink", 0.05, 0}});
  CostModel cost(cluster, profile);
  double transfer = 1e-3 + 65536 / 0.05e9;
  expectNear(transfer, cost.transferSeconds(0, 2, 65536));
  std::tie(first, second) = sendStarts(cluster);
  expectNear(start, std::min(first, second));
  expectNear(start + transfer, std::max(first, second));
}

TEST(Simulator, DevicesMustBeTheClusters) {
  Cluster cluster = makeCluster({1});
  ModelProfile profile = uniformProfile(1);
  CostModel cost(cluster, profile);
  Plan plan = planFrom(R"({"stages": [{"segments": [0, 1], "replicas": [
      {"device": "gpu0", "samples": [0, 4]}]}]})");
  llvm::Expected<SimulationResult> result =
      simulate(plan, buildSchedule(plan), cost);
  ASSERT_FALSE(static_cast<bool>(result));
  EXPECT_EQ(llvm::toString(result.takeError()),
            "device \"gpu0\" of the plan is not in cluster \"test\" (devices "
            "are named NODE/TYPE:INDEX)");
}

} // namespace
