//===- CostModelPlannerTest.cpp - the planner's cost model ----------------===//
//
// Times on the hand-built X1 cluster of PlannerTestCluster.h (10 TFLOP/s,
// 100 GB/s, efficiency max 0.4 with half point 8e7 FLOPs; links 10 GB/s +
// 5 us in a node, 1 GB/s + 20 us between nodes), each derived by hand in
// its comment; the calibration's fit; the memory walk on a small plan.
//
//===----------------------------------------------------------------------===//

#include "PlannerTestCluster.h"

#include "planner/CostModel.h"

#include <gtest/gtest.h>

#include <numeric>
#include <tuple>

using namespace hetc::planner;
using namespace hetc::planner::testing;

namespace {

/// Relative comparison for derived times.
void expectNear(double expected, double actual) {
  EXPECT_NEAR(expected, actual, 1e-9 * std::abs(expected))
      << "expected " << expected << ", got " << actual;
}

TEST(CostModelPlanner, TrainingPrecisionFollowsTheFastestUnitTheGpuHas) {
  EXPECT_EQ(trainingPrecision(*findGpu("H100-SXM")), Precision::BF16);
  EXPECT_EQ(trainingPrecision(*findGpu("V100-32GB")), Precision::F16);
  EXPECT_EQ(trainingPrecision(*findGpu("T4")), Precision::F16);
  EXPECT_EQ(trainingPrecision(*findGpu("P40")), Precision::F32);
  EXPECT_EQ(trainingPrecision(x1Gpu()), Precision::F32);
}

TEST(CostModelPlanner, DefaultEfficiencyIsPerGpuFamily) {
  Cluster cluster = makeCluster({1});
  cluster.devices.push_back({"n0/H100-SXM:0", *findGpu("H100-SXM"), 0});
  ModelProfile profile = uniformProfile(1);
  CostModel cost(cluster, profile);
  // Half point = 20 us of overhead x peak x max.
  EXPECT_EQ(cost.efficiency("X1").maxEfficiency, 0.4);
  expectNear(20e-6 * 10e12 * 0.4, cost.efficiency("X1").halfEfficiencyFlops);
  EXPECT_EQ(cost.efficiency("H100-SXM").maxEfficiency, 0.4);
  expectNear(20e-6 * 989e12 * 0.4,
             cost.efficiency("H100-SXM").halfEfficiencyFlops);
}

TEST(CostModelPlanner, MeasuredEfficiencyReplacesTheFamilyDefault) {
  Cluster cluster = makeCluster({1});
  cluster.devices[0].gpu.maxEfficiency = 0.7;
  ModelProfile profile = uniformProfile(1);
  CostModel cost(cluster, profile);
  EXPECT_EQ(cost.efficiency("X1").maxEfficiency, 0.7);
  expectNear(20e-6 * 10e12 * 0.7, cost.efficiency("X1").halfEfficiencyFlops);
}

TEST(CostModelPlanner, ComputeFollowsTheEfficiencyCurve) {
  Cluster cluster = makeCluster({1});
  ModelProfile profile = uniformProfile(2);
  CostModel cost(cluster, profile);
  // F FLOPs take F / (peak * 0.4 * F / (F + 8e7)) = (F + 8e7) / 4e12 s.
  // Forward of segment 0 for 4 samples: F = 4e9.
  expectNear((4e9 + 8e7) / 4e12, cost.computeSeconds(0, 0, 1, false, 4));
  // Backward of segments [0, 2) for 2 samples: F = 2 x 2 x 2e9 = 8e9.
  expectNear((8e9 + 8e7) / 4e12, cost.computeSeconds(0, 0, 2, true, 2));
  // With recompute the backward runs the forward again: 2e9 + 1e9.
  expectNear((3e9 + 8e7) / 4e12,
             cost.computeSeconds(0, 0, 1, true, 1, /*recompute=*/true));
  // A call of the half point's size reaches half the max efficiency: twice
  // the time it would take at 40% of peak.
  profile.segments[0].forwardFlops = 8e7;
  expectNear(2 * 8e7 / 4e12, cost.computeSeconds(0, 0, 1, false, 1));
  // No work, no time.
  profile.segments[0].forwardFlops = 0;
  EXPECT_EQ(cost.computeSeconds(0, 0, 1, false, 3), 0);
}

TEST(CostModelPlanner, CountedOpKindsAreARooflinePerOp) {
  // Per sample: a matmul kind of 1e9 FLOPs and 1e6 bytes forward in 2 ops
  // (2e9 and 2e6 backward in 4) and a gelu kind of 1e7 FLOPs and 4e7 bytes
  // each way in 1 op. On X1 (10 TFLOP/s at 80%, 100 GB/s) each kind takes
  // 4 us a launch plus the longer of FLOPs / 8e12 and bytes / 1e11.
  Cluster cluster = makeCluster({1});
  ModelProfile profile = uniformProfile(1);
  profile.segments[0].kinds["matmul"] = {1e9, 2e9, 1e6, 2e6, 2, 4};
  profile.segments[0].kinds["gelu"] = {1e7, 1e7, 4e7, 4e7, 1, 1};
  CostModel cost(cluster, profile);
  auto forward = [](double n) {
    return (2 * 4e-6 + n * 1e9 / 8e12) + (4e-6 + n * 4e7 / 1e11);
  };
  auto backward = [](double n) {
    return (4 * 4e-6 + n * 2e9 / 8e12) + (4e-6 + n * 4e7 / 1e11);
  };
  expectNear(forward(1), cost.computeSeconds(0, 0, 1, false, 1));
  expectNear(forward(8), cost.computeSeconds(0, 0, 1, false, 8));
  expectNear(backward(8), cost.computeSeconds(0, 0, 1, true, 8));
  // Recompute launches the forward's ops again.
  expectNear(backward(8) + forward(8),
             cost.computeSeconds(0, 0, 1, true, 8, /*recompute=*/true));
  // Small micro-batches pay their launches: a sample alone costs more than
  // one of eight.
  EXPECT_GT(cost.computeSeconds(0, 0, 1, false, 1),
            cost.computeSeconds(0, 0, 1, false, 8) / 8 * 1.01);
  // 16-bit activations halve the memory-bound kind's bytes; X1 has no
  // tensor rate, so its FLOPs take as long.
  expectNear((2 * 4e-6 + 8 * 1e9 / 8e12) + (4e-6 + 8 * 2e7 / 1e11),
             cost.computeSeconds(0, 0, 1, false, 8, false, Precision::BF16));
  // A kind whose launches the profile does not count keeps the range's
  // roofline: (F + 8e7) / 4e12 at 40%.
  profile.segments[0].kinds["softmax"] = {1e8, 0, 0, 0};
  expectNear(forward(1) + (1e8 + 8e7) / 4e12,
             cost.computeSeconds(0, 0, 1, false, 1));
}

TEST(CostModelPlanner, KernelRooflineFitRecoversExactTimings) {
  // Kernels timed exactly by a roofline of 50% of X1's peak and 10 us per
  // launch: compute-bound ones at two sizes, a memory-bound one, a small
  // one where the launches dominate.
  GpuSpec gpu = x1Gpu();
  KernelRoofline truth{0.5, 10e-6};
  std::vector<MeasuredKernel> kernels;
  for (auto [flops, bytes, launches] :
       {std::tuple{1e10, 1e6, 10}, std::tuple{4e10, 4e6, 10},
        std::tuple{1e7, 4e8, 10}, std::tuple{1e8, 1e5, 100}})
    kernels.push_back(
        {"X1", Precision::F32, "k" + std::to_string(kernels.size()), launches,
         flops, bytes,
         truth.seconds(gpu, Precision::F32, flops, bytes, launches)});
  KernelRoofline fitted = fitKernelRoofline(gpu, kernels);
  EXPECT_NEAR(fitted.efficiency, 0.5, 5e-4);
  EXPECT_NEAR(fitted.launchSeconds, 10e-6, 1e-8);
  // Nothing timed: the defaults.
  KernelRoofline defaults = fitKernelRoofline(gpu, {});
  EXPECT_EQ(defaults.efficiency, KernelRoofline().efficiency);
  EXPECT_EQ(defaults.launchSeconds, KernelRoofline().launchSeconds);

  // A cost model measuring X1's kernels in f32 times a bf16 call, which no
  // kernel measured, by the fitted roofline per op.
  Cluster cluster = makeCluster({1});
  ModelProfile profile = uniformProfile(1);
  profile.segments[0].kinds["matmul"] = {1e9, 2e9, 1e6, 2e6, 2, 4};
  MeasuredProfile measured("uniform", 16, 1);
  for (const MeasuredKernel &kernel : kernels)
    measured.addKernel(kernel);
  CostModel cost(cluster, profile);
  cost.useMeasurements(measured);
  EXPECT_NEAR(cost.kernelRoofline("X1").efficiency, 0.5, 5e-4);
  // X1 has no tensor rate: bf16 at 10 TFLOP/s x 50%, bytes halved.
  expectNear(2 * 10e-6 + 8e9 / 5e12,
             cost.computeSeconds(0, 0, 1, false, 8, false, Precision::BF16));
}

TEST(CostModelPlanner, MemoryBoundCallsTakeTheirBytesOverBandwidth) {
  Cluster cluster = makeCluster({1});
  ModelProfile profile = uniformProfile(1);
  profile.segments[0].forwardFlops = 1e6;
  profile.segments[0].forwardBytes = 1e9;
  CostModel cost(cluster, profile);
  // 2 GB at 100 GB/s = 0.02 s, above the FLOPs' (2e6 + 8e7) / 4e12.
  expectNear(0.02, cost.computeSeconds(0, 0, 1, false, 2));
  // The profile's bytes are f32 tensors; 16-bit activations halve them.
  expectNear(0.01,
             cost.computeSeconds(0, 0, 1, false, 2, false, Precision::BF16));
  expectNear(0.01,
             cost.computeSeconds(0, 0, 1, false, 2, false, Precision::F16));
}

TEST(CostModelPlanner, TransfersTakeLatencyPlusBytesOverBandwidth) {
  Cluster cluster = makeCluster({2, 1});
  ModelProfile profile = uniformProfile(1);
  CostModel cost(cluster, profile);
  EXPECT_EQ(cost.transferSeconds(1, 1, 1000000), 0);
  // In a node: 5 us + 1e6 / 10e9.
  expectNear(5e-6 + 1e-4, cost.transferSeconds(0, 1, 1000000));
  // Between nodes: 20 us + 1e6 / 1e9.
  expectNear(20e-6 + 1e-3, cost.transferSeconds(1, 2, 1000000));
}

TEST(CostModelPlanner, AllReduceIsARingOrATreeOverTheSlowestLink) {
  Cluster cluster = makeCluster({2, 1});
  ModelProfile profile = uniformProfile(1);
  CostModel cost(cluster, profile);
  // 2(p-1)/p * n / beta + 2(p-1) alpha. Two GPUs of a node, 100 MB:
  // 1 * 1e8 / 10e9 + 2 * 5 us.
  expectNear(0.01 + 10e-6, cost.allReduceSeconds({0, 1}, 100000000));
  // Three GPUs, the ring crossing nodes, 120 MB: 4/3 * 1.2e8 / 1e9 +
  // 4 * 20 us.
  expectNear(0.16 + 80e-6, cost.allReduceSeconds({0, 1, 2}, 120000000));
  EXPECT_EQ(cost.allReduceSeconds({2}, 120000000), 0);
  // Small buffers over many members go up and down a tree: 16 GPUs of two
  // nodes, 1 KB: 2 * 1e3 / 1e9 + 2 * log2(16) * 20 us, where the ring's 30
  // latencies take 600 us.
  Cluster sixteen = makeCluster({8, 8});
  CostModel wide(sixteen, profile);
  std::vector<int> all(16);
  std::iota(all.begin(), all.end(), 0);
  expectNear(2e-6 + 160e-6, wide.allReduceSeconds(all, 1000));
}

TEST(CostModelPlanner, UnevenCollectivesWaitForTheLargestPart) {
  Cluster cluster = makeCluster({2, 1});
  ModelProfile profile = uniformProfile(1);
  CostModel cost(cluster, profile);
  // (p - 1) steps of alpha + largest part / beta. In a node, parts 3 MB and
  // 1 MB: 5 us + 3e6 / 10e9.
  expectNear(5e-6 + 3e-4,
             cost.reduceScatterSeconds({0, 1}, {3000000, 1000000}));
  expectNear(5e-6 + 3e-4, cost.allGatherSeconds({1, 0}, {1000000, 3000000}));
  // Across nodes, parts 1, 2, 3 MB: 2 * (20 us + 3e6 / 1e9).
  expectNear(2 * (20e-6 + 3e-3),
             cost.reduceScatterSeconds({0, 1, 2}, {1000000, 2000000, 3000000}));
  EXPECT_EQ(cost.allGatherSeconds({1}, {4000000}), 0);
}

TEST(CostModelPlanner, RingTransfersSharingAChannelTakeTurns) {
  Cluster cluster = makeCluster({2, 2});
  ModelProfile profile = uniformProfile(1);
  CostModel cost(cluster, profile);
  // In node order the ring leaves each node once: 3 steps of 20 us + 1 MB
  // over the 1 GB/s network.
  std::vector<int64_t> parts(4, 1000000);
  expectNear(3 * (20e-6 + 1e-3),
             cost.reduceScatterSeconds({0, 1, 2, 3}, parts));
  // Alternating nodes, every transfer crosses the network and each node's
  // port carries two of them at once: twice the bytes a step.
  expectNear(3 * (20e-6 + 2e-3),
             cost.reduceScatterSeconds({0, 2, 1, 3}, parts));
  expectNear(3 * (20e-6 + 2e-3), cost.allGatherSeconds({0, 2, 1, 3}, parts));
  // The all-reduce's ring likewise: 6 steps of n / 4 = 1 MB, against the
  // tree's 2 * 4 MB / 1 GB/s + 4 * 20 us.
  expectNear(6 * (20e-6 + 1e-3), cost.allReduceSeconds({0, 1, 2, 3}, 4000000));
  expectNear(8e-3 + 80e-6, cost.allReduceSeconds({0, 2, 1, 3}, 4000000));
}

TEST(CostModelPlanner, OptimizerIsBoundByMemoryBandwidth) {
  Cluster cluster = makeCluster({1});
  ModelProfile profile = uniformProfile(1);
  CostModel cost(cluster, profile);
  // AdamW reads parameter, gradient, m, v and writes parameter, m, v:
  // 7 x 4 bytes x 1e6 elements at 100 GB/s.
  expectNear(28e6 / 100e9, cost.optimizerSeconds(0, 1000000));
  // SGD: parameter and gradient in, parameter out.
  profile.optimizerStatePerParameterByte = 0;
  expectNear(12e6 / 100e9, cost.optimizerSeconds(0, 1000000));
}

TEST(CostModelPlanner, OffloadedOptimizerCopiesBesideTheHostsUpdate) {
  Cluster cluster = makeCluster({1});
  ModelProfile profile = uniformProfile(1);
  CostModel cost(cluster, profile);
  // The gradient and parameter pieces down and the updated pieces up, 3 x
  // 4 bytes x 1e6 elements over the default 25 GB/s + 10 us host link,
  // beside AdamW's 28 bytes per element at the host's default 20 GB/s:
  // the host's update is the longer.
  expectNear(28e6 / 20e9, cost.optimizerSeconds(0, 1000000, true));
  // A faster host waits for the copies.
  cluster.nodes[0].hostUpdateGBps = 200;
  expectNear(10e-6 + 12e6 / 25e9, cost.optimizerSeconds(0, 1000000, true));
  // SGD keeps no state to offload: its update stays on the device.
  profile.optimizerStatePerParameterByte = 0;
  expectNear(12e6 / 100e9, cost.optimizerSeconds(0, 1000000, true));
}

TEST(CostModelPlanner, FullShardingGathersSegmentBySegment) {
  Cluster cluster = makeCluster({2});
  ModelProfile profile = uniformProfile(3);
  CostModel cost(cluster, profile);
  // Segments 0 and 1 of 2^20 parameters each over two replicas holding
  // 0.25 and 0.75 of them: replica 0 holds half of segment 0, replica 1
  // the rest of it and all of segment 1. Segment 2 is another stage's.
  Stage stage;
  stage.firstSegment = 0;
  stage.endSegment = 2;
  stage.replicas.resize(2);
  stage.replicas[0].shard = 0.25;
  stage.replicas[1].shard = 0.75;
  std::vector<int> devices = {0, 1};
  int64_t half = 2 << 20; // bytes of half a segment
  expectNear(cost.allGatherSeconds(devices, {half, half}) +
                 cost.allGatherSeconds(devices, {0, 2 * half}),
             cost.segmentCollectivesSeconds(stage, devices, /*gather=*/true));
  expectNear(cost.reduceScatterSeconds(devices, {half, half}) +
                 cost.reduceScatterSeconds(devices, {0, 2 * half}),
             cost.segmentCollectivesSeconds(stage, devices, /*gather=*/false));
  // One more collective than gathering the stage at once: one more
  // latency for the same bytes.
  EXPECT_GT(cost.segmentCollectivesSeconds(stage, devices, true),
            cost.allGatherSeconds(devices, {half, 3 * half}));
}

/// Exact timings of calls of `flops` FLOPs under the curve (max, half) on a
/// GPU of `peak` FLOP/s: (F + half) / (peak * max).
std::vector<Measurement> timings(double peak, double max, double half) {
  std::vector<Measurement> points;
  for (double flops : {1e7, 1e8, 1e9, 1e10, 1e11, 1e12})
    points.push_back({flops, (flops + half) / (peak * max)});
  return points;
}

TEST(CostModelPlanner, CalibrationRecoversTheCurveOfExactTimings) {
  Cluster cluster = makeCluster({1});
  ModelProfile profile = uniformProfile(1);
  CostModel cost(cluster, profile);
  cost.calibrate("X1", timings(10e12, 0.55, 3e9));
  EXPECT_NEAR(cost.efficiency("X1").maxEfficiency, 0.55, 1e-6);
  EXPECT_NEAR(cost.efficiency("X1").halfEfficiencyFlops, 3e9, 3e9 * 1e-5);
  // The new curve times the calls: 1e9 FLOPs take (1e9 + 3e9) / 5.5e12.
  profile.segments[0].forwardFlops = 1e9;
  EXPECT_NEAR(cost.computeSeconds(0, 0, 1, false, 1), 4e9 / 5.5e12, 1e-12);
}

TEST(CostModelPlanner, CalibrationFitsNoisyTimings) {
  Cluster cluster = makeCluster({1});
  ModelProfile profile = uniformProfile(1);
  CostModel cost(cluster, profile);
  // +-3% alternating noise on the times still lands near the curve.
  std::vector<Measurement> points = timings(10e12, 0.7, 5e8);
  for (size_t i = 0; i < points.size(); ++i)
    points[i].seconds *= i % 2 ? 1.03 : 0.97;
  cost.calibrate("X1", points);
  EXPECT_NEAR(cost.efficiency("X1").maxEfficiency, 0.7, 0.7 * 0.05);
  EXPECT_NEAR(cost.efficiency("X1").halfEfficiencyFlops, 5e8, 5e8 * 0.15);
}

TEST(CostModelPlanner, CalibrationOfATypeOutsideTheClusterUsesTheCatalog) {
  Cluster cluster = makeCluster({1});
  ModelProfile profile = uniformProfile(1);
  CostModel cost(cluster, profile);
  // The A100 trains in BF16 at 312 TFLOP/s.
  cost.calibrate("A100-80GB", timings(312e12, 0.5, 2e10));
  EXPECT_NEAR(cost.efficiency("A100-80GB").maxEfficiency, 0.5, 1e-6);
  EXPECT_NEAR(cost.efficiency("A100-80GB").halfEfficiencyFlops, 2e10,
              2e10 * 1e-5);
  // X1 keeps its default.
  EXPECT_EQ(cost.efficiency("X1").maxEfficiency, 0.4);
}

TEST(ModelProfile, JsonFiguresArePerSample) {
  // As `hetc profile --batch 2 --json` prints them: FLOPs and bytes moved
  // for the batch, sizes per sample.
  llvm::Expected<ModelProfile> profile = parseModelProfile(R"({
    "batch": 2, "seq": 16, "model": "m.onnx", "segments": [
      {"index": 0, "ops": 3, "parameters": 10, "parameter_bytes": 40,
       "forward_flops": 200, "backward_flops": 400, "forward_bytes": 60,
       "backward_bytes": 80, "saved_activation_bytes_per_sample": 128,
       "boundary_bytes_per_sample": 64, "recompute": false,
       "kinds": {"matmul": {"forward_flops": 180, "backward_flops": 360,
                            "forward_bytes": 40, "backward_bytes": 60,
                            "forward_ops": 2, "backward_ops": 4},
                 "gelu": {"forward_flops": 20, "backward_flops": 40,
                          "forward_bytes": 20, "backward_bytes": 20}}},
      {"index": 1, "ops": 1, "parameters": 0, "parameter_bytes": 0,
       "forward_flops": 20, "backward_flops": 40,
       "saved_activation_bytes_per_sample": 8,
       "boundary_bytes_per_sample": 0, "recompute": false,
       "kinds": {"gelu": {"forward_flops": 20, "backward_flops": 40,
                          "forward_ops": 1, "backward_ops": 1}}}]})");
  ASSERT_TRUE(static_cast<bool>(profile))
      << llvm::toString(profile.takeError());
  EXPECT_EQ(profile->seqLen, 16);
  EXPECT_EQ(profile->model, "m.onnx");
  ASSERT_EQ(profile->numSegments(), 2);
  EXPECT_EQ(profile->segments[0].forwardFlops, 100);
  EXPECT_EQ(profile->segments[0].backwardBytes, 40);
  // Bytes moved default to 0 where the profile predates them.
  EXPECT_EQ(profile->segments[1].forwardBytes, 0);
  // Op kinds are per sample too; the range adds them up by kind.
  EXPECT_EQ(profile->segments[0].kinds.at("matmul").backwardFlops, 180);
  EXPECT_EQ(profile->segments[1].kinds.at("gelu").backwardBytes, 0);
  // Launches are per call, whatever the batch; none where not counted.
  EXPECT_EQ(profile->segments[0].kinds.at("matmul").backwardOps, 4);
  EXPECT_EQ(profile->segments[0].kinds.at("gelu").forwardOps, 0);

  SegmentCost both = profile->range(0, 2);
  EXPECT_EQ(both.ops, 4);
  EXPECT_EQ(both.parameterBytes, 40);
  EXPECT_EQ(both.backwardFlops, 220);
  EXPECT_EQ(both.savedActivationBytes, 136);
  EXPECT_EQ(both.kinds.at("gelu").forwardFlops, 20);
  EXPECT_EQ(both.kinds.at("matmul").forwardBytes, 20);
  EXPECT_EQ(both.kinds.at("gelu").backwardOps, 1);
  // What leaves the range leaves its last segment.
  EXPECT_EQ(both.boundaryBytes, 0);
  EXPECT_EQ(profile->range(0, 1).boundaryBytes, 64);
}

TEST(ModelProfile, ErrorsNameTheField) {
  auto errorOf = [](const char *json) {
    llvm::Expected<ModelProfile> profile = parseModelProfile(json);
    return profile ? std::string() : llvm::toString(profile.takeError());
  };
  EXPECT_EQ(errorOf(R"({"batch": 1, "seq": 16, "segments": [
                {"parameters": 1, "parameter_bytes": 4, "forward_flops": 1,
                 "backward_flops": 2, "boundary_bytes_per_sample": 4}]})"),
            "segments[0].saved_activation_bytes_per_sample: missing");
  EXPECT_EQ(errorOf(R"({"batch": 1, "seq": 16, "segments": [
                {"parameters": -1, "parameter_bytes": 4, "forward_flops": 1,
                 "backward_flops": 2, "saved_activation_bytes_per_sample": 0,
                 "boundary_bytes_per_sample": 4}]})"),
            "segments[0].parameters: expected a number >= 0, got -1");
  EXPECT_EQ(errorOf(R"({"batch": 1, "seq": 16, "segments": [
                {"parameters": 1, "parameter_bytes": 4, "forward_flops": 1,
                 "backward_flops": 2, "saved_activation_bytes_per_sample": 0,
                 "boundary_bytes_per_sample": 4,
                 "kinds": {"add": {"forward_flops": -1}}}]})"),
            "segments[0].kinds.add.forward_flops: expected a number >= 0, "
            "got -1");
  EXPECT_EQ(errorOf(R"({"batch": 1, "segments": []})"),
            "seq: expected a positive integer");
  EXPECT_EQ(errorOf("[1, 2]"), "profile: expected a JSON object");
  const char *segments = R"({"batch": 1, "seq": 16, "segments": [
      {"parameters": 1, "parameter_bytes": 4, "forward_flops": 1,
       "backward_flops": 2, "saved_activation_bytes_per_sample": 0,
       "boundary_bytes_per_sample": 4},
      {"parameters": 0, "parameter_bytes": 0, "forward_flops": 1,
       "backward_flops": 2, "saved_activation_bytes_per_sample": 0,
       "boundary_bytes_per_sample": 0}], "shared_parameters": )";
  EXPECT_EQ(errorOf((std::string(segments) +
                     R"([{"name": "t", "elements": 1, "bytes": 4,
                         "segments": [1, 0]}]})")
                        .c_str()),
            "shared_parameters[0].segments: expected increasing segment "
            "indices below 2");
  EXPECT_EQ(errorOf((std::string(segments) +
                     R"([{"name": "t", "elements": 1, "bytes": 4,
                         "segments": [0]}]})")
                        .c_str()),
            "shared_parameters[0].segments: expected the two or more "
            "segments reading it");
  llvm::Expected<ModelProfile> tied = parseModelProfile(
      std::string(segments) + R"([{"name": "t", "elements": 1, "bytes": 4,
                                   "segments": [0, 1]}]})");
  ASSERT_TRUE(static_cast<bool>(tied)) << llvm::toString(tied.takeError());
  ASSERT_EQ(tied->sharedParameters.size(), 1u);
  EXPECT_EQ(tied->sharedParameters[0].segments,
            (std::vector<int64_t>{0, 1}));
}

Plan singleDevicePlan(int64_t firstSegment, int64_t endSegment, int64_t samples,
                      int64_t microBatch) {
  Plan plan;
  plan.globalBatch = samples;
  Stage &stage = plan.stages.emplace_back();
  stage.firstSegment = firstSegment;
  stage.endSegment = endSegment;
  stage.replicas.push_back({"n0/X1:0", 0, samples, microBatch, 1.0});
  return plan;
}

constexpr int64_t MiB = 1 << 20;

TEST(CostModelPlanner, RankMemoryWalksTheOpList) {
  Cluster cluster = makeCluster({1});
  ModelProfile profile = uniformProfile(2);
  CostModel cost(cluster, profile);
  // One device, 4 samples of 16 tokens in 2 micro-batches: F0 B0 F1 B1.
  Plan plan = singleDevicePlan(0, 2, 4, 2);
  std::vector<RankSchedule> schedule = buildSchedule(plan);
  // Persistent: 8 MiB of parameters, 16 MiB of AdamW state, token ids and
  // labels 2 x 4 x 16 x 8 bytes.
  int64_t persistent = 8 * MiB + 16 * MiB + 1024;
  // The peak is in B1, when the new gradients are added to those of B0:
  // the sum (8 MiB), the new gradients (8 MiB) and the first parameter's
  // new sum, bounded by segment 0's parameters (4 MiB). Before that, at
  // the start of segment 0's backward: sum 8 MiB + segment 0's kept
  // 2 x 1 MiB + both segments' new gradients 8 MiB + 2 x 64 KiB arriving
  // = 18 MiB + 128 KiB < 20 MiB. The greedy placement's gaps add 3%.
  int64_t activations = 20 * MiB;
  EXPECT_EQ(cost.rankMemoryBytes(plan, schedule[0]),
            persistent + activations + activations * 3 / 100);
}

TEST(CostModelPlanner, RecomputeKeepsOnlySegmentInputs) {
  Cluster cluster = makeCluster({1});
  ModelProfile profile = uniformProfile(8);
  CostModel cost(cluster, profile);
  // 8 samples in micro-batches of 4 keep 8 x 4 x 1 MiB, more than the
  // 32 MiB of gradients the update adds.
  Plan plan = singleDevicePlan(0, 8, 8, 4);
  int64_t kept = cost.rankMemoryBytes(plan, buildSchedule(plan)[0]);
  plan.stages[0].recompute = true;
  int64_t recomputed = cost.rankMemoryBytes(plan, buildSchedule(plan)[0]);
  EXPECT_LT(recomputed, kept);
}

TEST(CostModelPlanner, LowPrecisionHalvesActivationsAndAddsParameterCopies) {
  Cluster cluster = makeCluster({1});
  ModelProfile profile = uniformProfile(4);
  CostModel cost(cluster, profile);
  Plan plan = singleDevicePlan(0, 4, 8, 2);
  std::vector<RankSchedule> schedule = buildSchedule(plan);
  // bf16 and f16 count what f32 counts for a model whose activations are
  // half as large, plus a 2-byte copy of the 16 MiB of parameters.
  ModelProfile halved = profile;
  for (SegmentCost &segment : halved.segments) {
    segment.savedActivationBytes /= 2;
    segment.boundaryBytes /= 2;
  }
  CostModel halvedCost(cluster, halved);
  int64_t f32 = halvedCost.rankMemoryBytes(plan, schedule[0]);
  for (Precision low : {Precision::BF16, Precision::F16}) {
    plan.stages[0].precision = low;
    EXPECT_EQ(cost.rankMemoryBytes(plan, schedule[0]), f32 + 8 * MiB);
  }
  // A stage without a precision takes the cost model's choice.
  plan.stages[0].precision.reset();
  CostModel bf16Cost(cluster, profile, Precision::BF16);
  EXPECT_EQ(bf16Cost.rankMemoryBytes(plan, schedule[0]), f32 + 8 * MiB);
}

TEST(CostModelPlanner, LowPrecisionComputesAtTheTensorRate) {
  Cluster cluster;
  for (const char *type : {"H100-SXM", "V100-32GB", "P40"})
    cluster.devices.push_back({std::string("n0/") + type + ":0",
                               *findGpu(type), 0});
  ModelProfile profile = uniformProfile(1);
  CostModel cost(cluster, profile);
  // F FLOPs take F / (peak * max) plus the curve's fixed 20 us per call
  // (the half point at the GPU's fastest peak, scaled to the one used).
  auto seconds = [](double tflops, double max) {
    return 1e9 / (tflops * 1e12 * max) + 20e-6;
  };
  expectNear(seconds(989, 0.4),
             cost.computeSeconds(0, 0, 1, false, 1, false, Precision::BF16));
  expectNear(seconds(67, 0.4), cost.computeSeconds(0, 0, 1, false, 1));
  expectNear(seconds(125, 0.3),
             cost.computeSeconds(1, 0, 1, false, 1, false, Precision::F16));
  // Without the type's tensor cores the kernels compute at the f32 rate.
  expectNear(seconds(15.7, 0.3),
             cost.computeSeconds(1, 0, 1, false, 1, false, Precision::BF16));
  expectNear(seconds(11.76, 0.5),
             cost.computeSeconds(2, 0, 1, false, 1, false, Precision::F16));
}

TEST(CostModelPlanner, AutoPrecisionIsBf16WhereEveryGpuHasIt) {
  Cluster cluster;
  for (const char *type : {"A100-80GB", "A10G", "V100-16GB", "T4"})
    cluster.devices.push_back({std::string("n0/") + type + ":0",
                               *findGpu(type), 0});
  ModelProfile profile = uniformProfile(1);
  CostModel automatic(cluster, profile, PrecisionChoice());
  EXPECT_EQ(automatic.precisionOn({0, 1}), Precision::BF16);
  EXPECT_EQ(automatic.precisionOn({0, 2}), Precision::F16);
  EXPECT_EQ(automatic.precisionOn({3}), Precision::F16);
  CostModel fixed(cluster, profile);
  EXPECT_EQ(fixed.precisionOn({0, 1}), Precision::F32);
  // A stage's own precision wins.
  Stage stage;
  stage.replicas.push_back({"n0/A100-80GB:0", 0, 1, 1, 1.0});
  EXPECT_EQ(automatic.precisionOf(stage), Precision::BF16);
  stage.precision = Precision::F16;
  EXPECT_EQ(automatic.precisionOf(stage), Precision::F16);
  // Without the stage's own, the cost model's choice decides.
  stage.precision.reset();
  EXPECT_EQ(fixed.precisionOf(stage), Precision::F32);
}

TEST(CostModelPlanner, ShardsHoldTheirFractionOfTheState) {
  Cluster cluster = makeCluster({2});
  ModelProfile profile = uniformProfile(8);
  CostModel cost(cluster, profile);
  Plan plan = dataParallelPlan(2, 8, 8);
  plan.stages[0].replicas[0].shard = 0.75;
  plan.stages[0].replicas[1].shard = 0.25;
  std::vector<RankSchedule> schedule = buildSchedule(plan);
  // Equal samples: under optimizer sharding the ranks differ by their
  // AdamW state, 2 x (0.75 - 0.25) x 32 MiB.
  EXPECT_EQ(cost.rankMemoryBytes(plan, schedule[0]) -
                cost.rankMemoryBytes(plan, schedule[1]),
            32 * MiB);
  // Under full sharding by their parameters and gradients too.
  plan.sharding = ShardingKind::Full;
  EXPECT_GT(cost.rankMemoryBytes(plan, schedule[0]) -
                cost.rankMemoryBytes(plan, schedule[1]),
            32 * MiB);
}

TEST(CostModelPlanner, OffloadMovesEachShardsStateToTheHost) {
  Cluster cluster = makeCluster({2});
  ModelProfile profile = uniformProfile(8);
  CostModel cost(cluster, profile);
  Plan plan = dataParallelPlan(2, 8, 8);
  plan.stages[0].replicas[0].shard = 0.75;
  plan.stages[0].replicas[1].shard = 0.25;
  std::vector<RankSchedule> schedule = buildSchedule(plan);
  // AdamW's 2 x 4 bytes per element of 0.75 and 0.25 of 8 Mi elements.
  const int64_t stateBytes[] = {48 * MiB, 16 * MiB};
  for (ShardingKind sharding : {ShardingKind::Optimizer, ShardingKind::Full}) {
    plan.sharding = sharding;
    plan.stages[0].offloadOptimizer = false;
    int64_t kept[] = {cost.rankMemoryBytes(plan, schedule[0]),
                      cost.rankMemoryBytes(plan, schedule[1])};
    plan.stages[0].offloadOptimizer = true;
    for (int64_t r : {0, 1}) {
      EXPECT_EQ(cost.rankMemoryBytes(plan, schedule[r]),
                kept[r] - stateBytes[r]);
      EXPECT_EQ(cost.offloadedStateBytes(plan, 0, r), stateBytes[r]);
    }
  }
  plan.stages[0].offloadOptimizer = false;
  EXPECT_EQ(cost.offloadedStateBytes(plan, 0, 0), 0);
}

TEST(CostModelPlanner, TiedParametersKeepTheirStateOnTheDevice) {
  Cluster cluster = makeCluster({2});
  ModelProfile profile = uniformProfile(2);
  // Segment 1 reads a 1 MiB table that segment 0 counts (a tied weight):
  // both stages hold it whole and update it on the device.
  profile.sharedParameters.push_back({"table", 1 << 18, 1 << 20, {0, 1}});
  CostModel cost(cluster, profile);
  llvm::Expected<Plan> plan = parsePlan(R"({"stages": [
      {"segments": [0, 1], "replicas": [
        {"device": "n0/X1:0", "samples": [0, 4]}]},
      {"segments": [1, 2], "replicas": [
        {"device": "n0/X1:1", "samples": [0, 4]}]}]})");
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  std::vector<RankSchedule> schedule = buildSchedule(*plan);
  // AdamW's 8 bytes per parameter byte of segment 0 without the table,
  // and of segment 1 without the table's copy.
  const int64_t stateBytes[] = {2 * 3 * MiB, 2 * 4 * MiB};
  for (int64_t s : {0, 1}) {
    plan->stages[s].offloadOptimizer = false;
    int64_t kept = cost.rankMemoryBytes(*plan, schedule[s]);
    plan->stages[s].offloadOptimizer = true;
    EXPECT_EQ(cost.rankMemoryBytes(*plan, schedule[s]), kept - stateBytes[s]);
    EXPECT_EQ(cost.offloadedStateBytes(*plan, s, 0), stateBytes[s]);
  }
}

} // namespace
