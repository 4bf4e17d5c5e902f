//===- MeasuredProfileTest.cpp - measured calls in the cost model ---------===//
//
// The measured profile's interpolation in the micro-batch size, averaging
// and JSON round trip, its kernel kinds, and the cost model taking measured
// seconds where they cover a call and the kinds' rates where they do not
// (on the X1 cluster of PlannerTestCluster.h).
//
//===----------------------------------------------------------------------===//

#include "PlannerTestCluster.h"

#include "planner/CostModel.h"
#include "planner/MeasuredProfile.h"

#include <gtest/gtest.h>

using namespace hetc::planner;
using namespace hetc::planner::testing;

namespace {

MeasuredCall call(Pass pass, int64_t segment, int64_t microBatch,
                  double seconds, std::string type = "X1") {
  return {std::move(type), Precision::F32, pass, segment, microBatch, seconds};
}

double secondsAt(const MeasuredProfile &profile, int64_t samples) {
  return profile.seconds("X1", Precision::F32, Pass::Forward, 0, samples)
      .value_or(-1);
}

TEST(MeasuredProfile, InterpolatesBetweenSizesAndExtrapolatesOutside) {
  MeasuredProfile profile("m", 16, 2);
  profile.add(call(Pass::Forward, 0, 2, 1.0));
  profile.add(call(Pass::Forward, 0, 4, 1.5));
  EXPECT_DOUBLE_EQ(secondsAt(profile, 2), 1.0);
  EXPECT_DOUBLE_EQ(secondsAt(profile, 3), 1.25);
  // Above the largest: in proportion.
  EXPECT_DOUBLE_EQ(secondsAt(profile, 8), 3.0);
  // Below the smallest: the line through the two smallest (0.5 per call
  // plus 0.25 a sample), never below proportional (0.5).
  EXPECT_DOUBLE_EQ(secondsAt(profile, 1), 0.75);
  // Unmeasured: another segment, pass, type or precision.
  EXPECT_FALSE(profile.seconds("X1", Precision::F32, Pass::Forward, 1, 2));
  EXPECT_FALSE(profile.seconds("X1", Precision::F32, Pass::Backward, 0, 2));
  EXPECT_FALSE(profile.seconds("Y", Precision::F32, Pass::Forward, 0, 2));
  EXPECT_FALSE(profile.seconds("X1", Precision::BF16, Pass::Forward, 0, 2));
}

TEST(MeasuredProfile, OneSizeScalesInProportionAndFasterThanProportionalIsNot) {
  MeasuredProfile profile("m", 16, 1);
  profile.add(call(Pass::Forward, 0, 4, 2.0));
  EXPECT_DOUBLE_EQ(secondsAt(profile, 1), 0.5);
  EXPECT_DOUBLE_EQ(secondsAt(profile, 6), 3.0);
  // A line through the two smallest falling below proportional (the larger
  // size slower per sample) stops at proportional.
  profile.add(call(Pass::Forward, 0, 8, 8.0));
  EXPECT_DOUBLE_EQ(secondsAt(profile, 2), 1.0);
}

TEST(MeasuredProfile, RanksOfOneCallAreAveragedAndSurviveTheJson) {
  MeasuredProfile profile("m", 16, 3);
  profile.add(call(Pass::Backward, 2, 4, 1.0));
  profile.add(call(Pass::Backward, 2, 4, 2.0));
  profile.add(call(Pass::Forward, 1, 1, 0.25, "Y"));
  EXPECT_DOUBLE_EQ(
      *profile.seconds("X1", Precision::F32, Pass::Backward, 2, 4), 1.5);

  llvm::Expected<MeasuredProfile> read =
      parseMeasuredProfile(profile.toJSON(), "p.json");
  ASSERT_TRUE(static_cast<bool>(read)) << llvm::toString(read.takeError());
  EXPECT_EQ(read->model(), "m");
  EXPECT_EQ(read->seqLen(), 16);
  EXPECT_EQ(read->numSegments(), 3);
  std::vector<MeasuredCall> calls = read->calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].deviceType, "X1");
  EXPECT_EQ(calls[0].pass, Pass::Backward);
  EXPECT_DOUBLE_EQ(calls[0].seconds, 1.5);
  EXPECT_EQ(calls[1].deviceType, "Y");

  // Merging weighs by the ranks each average holds: (1 + 2 + 4) / 3.
  MeasuredProfile more("m", 16, 3);
  more.add(call(Pass::Backward, 2, 4, 4.0));
  ASSERT_FALSE(static_cast<bool>(read->merge(more)));
  EXPECT_NEAR(*read->seconds("X1", Precision::F32, Pass::Backward, 2, 4),
              7.0 / 3, 1e-6);
  MeasuredProfile other("m", 32, 3);
  llvm::Error mismatch = read->merge(other);
  EXPECT_EQ(llvm::toString(std::move(mismatch)),
            "measured 'm' at seq 32 with 3 segments, but 'm' at seq 16 with "
            "3 segments");
}

TEST(MeasuredProfile, ErrorsNameTheFileAndTheField) {
  auto error = [](llvm::StringRef json) {
    llvm::Expected<MeasuredProfile> read = parseMeasuredProfile(json, "p.json");
    return read ? std::string("parsed") : llvm::toString(read.takeError());
  };
  EXPECT_EQ(error("[]"),
            "p.json: expected an object (the output of hetc measure)");
  EXPECT_EQ(error(R"({"format": "x"})"),
            "p.json: \"format\" must be \"hetc-measured-profile\": write it "
            "with hetc measure");
  const char *head = R"({"format": "hetc-measured-profile", "version": 1,
      "model": "m", "seq_len": 16, "segments": 2, "calls": [)";
  EXPECT_EQ(error(std::string(head) +
                  R"({"device_type": "X1", "precision": "f32", "pass":
                      "forward", "segment": 2, "micro_batch": 1,
                      "seconds": 1}]})"),
            "p.json: calls[0]: \"segment\" must be an integer in [0, 2)");
  EXPECT_EQ(error(std::string(head) +
                  R"({"device_type": "X1", "precision": "f32", "pass":
                      "sideways", "segment": 0, "micro_batch": 1,
                      "seconds": 1}]})"),
            "p.json: calls[0]: \"pass\" must be forward or backward");
  EXPECT_EQ(error(std::string(head) +
                  R"({"device_type": "X1", "precision": "f32", "pass":
                      "forward", "segment": 0, "micro_batch": 0,
                      "seconds": 1}]})"),
            "p.json: calls[0]: \"micro_batch\" and \"count\" must be "
            "positive integers and \"seconds\" a number >= 0");
  EXPECT_EQ(error(std::string(head) + R"({"precision": "f32"}]})"),
            "p.json: calls[0]: needs \"device_type\" (a GPU type of the "
            "cluster file)");
  EXPECT_EQ(error(R"({"format": "hetc-measured-profile", "version": 2})"),
            "p.json: \"version\" must be 1");
  EXPECT_EQ(error(R"({"format": "hetc-measured-profile", "version": 1,
                      "model": "m", "seq_len": 16})"),
            "p.json: needs \"model\" (a string), \"seq_len\" and "
            "\"segments\" (positive integers)");
  EXPECT_EQ(error(R"({"format": "hetc-measured-profile", "version": 1,
                      "model": "m", "seq_len": 16, "segments": 2})"),
            "p.json: needs \"calls\" (an array)");
}

TEST(MeasuredProfile, CostModelTakesMeasuredCallsWhereTheyCoverTheRange) {
  Cluster cluster = makeCluster({2});
  ModelProfile profile = uniformProfile(3);
  MeasuredProfile measured("uniform", 16, 3);
  for (int64_t segment = 0; segment < 2; ++segment) {
    measured.add(call(Pass::Forward, segment, 2, 0.01 * (segment + 1)));
    measured.add(call(Pass::Backward, segment, 2, 0.03 * (segment + 1)));
  }
  CostModel formula(cluster, profile);
  CostModel cost(cluster, profile);
  cost.useMeasurements(measured);
  // Segments 0 and 1 measured: their sum, at the size asked.
  EXPECT_DOUBLE_EQ(cost.computeSeconds(0, 0, 2, false, 2), 0.03);
  EXPECT_DOUBLE_EQ(cost.computeSeconds(1, 0, 2, true, 4), 0.18);
  // Recompute adds the measured forward.
  EXPECT_DOUBLE_EQ(cost.computeSeconds(0, 1, 2, true, 2, true), 0.08);
  // Segment 2 was not measured: the formula, with the curve calibrated by
  // the measured calls (slower than the default here, so larger).
  double unmeasured = cost.computeSeconds(0, 1, 3, false, 2);
  EXPECT_GT(unmeasured, formula.computeSeconds(0, 1, 3, false, 2));
  EXPECT_NE(cost.efficiency("X1").maxEfficiency,
            formula.efficiency("X1").maxEfficiency);
  // Another precision was not measured either: X1 computes bf16 at its
  // f32 peak (10 TFLOP/s), by the calibrated curve, F = 2 x 2 x 1e9.
  const Efficiency &curve = cost.efficiency("X1");
  EXPECT_NEAR(cost.computeSeconds(0, 0, 2, false, 2, false, Precision::BF16),
              (4e9 + curve.halfEfficiencyFlops) /
                  (10e12 * curve.maxEfficiency),
              1e-12);
}

MeasuredKernel kernel(const char *name, double flops, double bytes,
                      double seconds, int64_t launches = 1) {
  return {"X1", Precision::F32, name, launches, flops, bytes, seconds};
}

TEST(MeasuredProfile, KernelKindsAreSummedMergedAndSurviveTheJson) {
  MeasuredProfile profile("m", 16, 2);
  profile.addKernel(kernel("matmul", 4e9, 1e6, 0.001, 3));
  profile.addKernel(kernel("matmul", 2e9, 1e6, 0.002, 1));
  profile.addKernel(kernel("transpose", 0, 8e6, 0.004, 2));
  EXPECT_TRUE(profile.hasKernels("X1", Precision::F32));
  EXPECT_FALSE(profile.hasKernels("X1", Precision::BF16));
  EXPECT_FALSE(profile.hasKernels("X", Precision::F32));
  std::optional<MeasuredKernel> matmul =
      profile.kernel("X1", Precision::F32, "matmul");
  ASSERT_TRUE(matmul);
  EXPECT_EQ(matmul->launches, 4);
  EXPECT_DOUBLE_EQ(matmul->flops, 6e9);
  EXPECT_DOUBLE_EQ(matmul->seconds, 0.003);

  llvm::Expected<MeasuredProfile> read =
      parseMeasuredProfile(profile.toJSON(), "p.json");
  ASSERT_TRUE(static_cast<bool>(read)) << llvm::toString(read.takeError());
  std::vector<MeasuredKernel> kernels = read->kernels();
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[1].kernel, "transpose");
  EXPECT_EQ(kernels[1].launches, 2);
  EXPECT_DOUBLE_EQ(kernels[1].bytes, 8e6);
  EXPECT_NEAR(kernels[0].seconds, 0.003, 1e-9);

  ASSERT_FALSE(static_cast<bool>(read->merge(profile)));
  EXPECT_EQ(read->kernel("X1", Precision::F32, "transpose")->launches, 4);

  auto error = [](llvm::StringRef kernelJson) {
    llvm::Expected<MeasuredProfile> parsed = parseMeasuredProfile(
        (R"({"format": "hetc-measured-profile", "version": 1, "model": "m",
             "seq_len": 16, "segments": 2, "calls": [], "kernels": [)" +
         kernelJson + "]}")
            .str(),
        "p.json");
    return parsed ? std::string("parsed") : llvm::toString(parsed.takeError());
  };
  EXPECT_EQ(error(R"({"device_type": "X1", "precision": "f32"})"),
            "p.json: kernels[0]: needs \"device_type\", \"kernel\" and "
            "\"precision\" (f32, bf16 or f16)");
  EXPECT_EQ(error(R"({"device_type": "X1", "precision": "f32", "kernel":
                      "add", "launches": 1, "flops": 0, "bytes": 8,
                      "seconds": 0})"),
            "p.json: kernels[0]: \"launches\" must be a positive integer, "
            "\"flops\" and \"bytes\" numbers >= 0 and \"seconds\" a number "
            "> 0");
  for (const char *size : {"-1", "2.5", "\"four\""})
    EXPECT_EQ(error((R"({"device_type": "X1", "precision": "f32", "kernel":
                         "add", "launches": 1, "flops": 0, "bytes": 8,
                         "seconds": 1, "micro_batch": )" +
                     std::string(size) + "}")),
              "p.json: kernels[0]: \"micro_batch\" must be an integer >= 0")
        << size;
}

TEST(MeasuredProfile, KernelRatesFollowTheMicroBatchSize) {
  // matmul measured at micro-batch 2 at 1 TFLOP/s and at 8 at 4 TFLOP/s;
  // a transpose (no FLOPs) at 1 GB/s at micro-batch 2 only.
  MeasuredProfile profile("m", 16, 2);
  auto sized = [](const char *name, double flops, double bytes, double seconds,
                  int64_t microBatch) {
    MeasuredKernel measured = kernel(name, flops, bytes, seconds);
    measured.microBatch = microBatch;
    return measured;
  };
  profile.addKernel(sized("matmul", 2e9, 1e6, 2e-3, 2));
  profile.addKernel(sized("matmul", 8e9, 4e6, 2e-3, 8));
  profile.addKernel(sized("transpose", 0, 4e6, 4e-3, 2));
  auto perFlop = [&](int64_t samples) {
    return profile.kernelSecondsPer("X1", Precision::F32, "matmul", samples,
                                    /*perFlop=*/true);
  };
  EXPECT_DOUBLE_EQ(*perFlop(2), 1e-12);
  EXPECT_DOUBLE_EQ(*perFlop(8), 0.25e-12);
  // Linear between the sizes, the nearest one's outside them.
  EXPECT_DOUBLE_EQ(*perFlop(5), 0.625e-12);
  EXPECT_DOUBLE_EQ(*perFlop(1), 1e-12);
  EXPECT_DOUBLE_EQ(*perFlop(64), 0.25e-12);
  EXPECT_DOUBLE_EQ(
      *profile.kernelSecondsPer("X1", Precision::F32, "transpose", 4, false),
      1e-9);
  EXPECT_FALSE(
      profile.kernelSecondsPer("X1", Precision::F32, "transpose", 4, true));
  EXPECT_FALSE(
      profile.kernelSecondsPer("X1", Precision::BF16, "matmul", 4, true));
  // The sums over the sizes.
  EXPECT_DOUBLE_EQ(profile.kernel("X1", Precision::F32, "matmul")->flops, 10e9);

  // The sizes survive the JSON; a file without them reads as one size.
  llvm::Expected<MeasuredProfile> read =
      parseMeasuredProfile(profile.toJSON(), "p.json");
  ASSERT_TRUE(static_cast<bool>(read)) << llvm::toString(read.takeError());
  EXPECT_DOUBLE_EQ(
      *read->kernelSecondsPer("X1", Precision::F32, "matmul", 5, true),
      0.625e-12);
  llvm::Expected<MeasuredProfile> unsized = parseMeasuredProfile(R"({
      "format": "hetc-measured-profile", "version": 1, "model": "m",
      "seq_len": 16, "segments": 2, "calls": [], "kernels": [
        {"device_type": "X1", "precision": "f32", "kernel": "matmul",
         "launches": 1, "flops": 1e9, "bytes": 0, "seconds": 1e-3}]})",
                                                                 "p.json");
  ASSERT_TRUE(static_cast<bool>(unsized))
      << llvm::toString(unsized.takeError());
  EXPECT_EQ(unsized->kernels()[0].microBatch, 0);
  EXPECT_DOUBLE_EQ(
      *unsized->kernelSecondsPer("X1", Precision::F32, "matmul", 7, true),
      1e-12);

  // The cost model takes the rate at the call's size: segment 0's forward
  // is 1e9 FLOPs of matmul a sample.
  Cluster cluster = makeCluster({1});
  ModelProfile model = uniformProfile(2);
  for (SegmentCost &segment : model.segments)
    segment.kinds["matmul"] = {1e9, 2e9, 0, 0};
  CostModel cost(cluster, model);
  cost.useMeasurements(profile);
  EXPECT_NEAR(cost.computeSeconds(0, 0, 1, false, 2), 2e9 * 1e-12, 1e-15);
  EXPECT_NEAR(cost.computeSeconds(0, 0, 1, false, 8), 8e9 * 0.25e-12, 1e-15);
}

TEST(MeasuredProfile, CostModelTimesUnmeasuredSegmentsByTheirKinds) {
  Cluster cluster = makeCluster({2});
  ModelProfile profile = uniformProfile(3);
  for (SegmentCost &segment : profile.segments) {
    // 1e9 forward FLOPs: 0.9e9 of matmul, 0.1e9 of gelu; a transpose
    // moving 4e6 f32 bytes and no FLOPs; a softmax nobody measured.
    segment.kinds["matmul"] = {0.9e9, 1.8e9, 1e6, 2e6};
    segment.kinds["gelu"] = {0.1e9, 0.2e9, 1e6, 1e6};
    segment.kinds["transpose"] = {0, 0, 4e6, 4e6};
    segment.kinds["softmax"] = {0, 0, 0, 2e6};
  }
  MeasuredProfile measured("uniform", 16, 3);
  measured.add(call(Pass::Forward, 0, 2, 0.5));
  // matmul at 1e12 FLOP/s, gelu at 1e10, transpose at 1e9 bytes/s.
  measured.addKernel(kernel("matmul", 2e12, 0, 2.0, 10));
  measured.addKernel(kernel("gelu", 1e10, 1e9, 1.0, 10));
  measured.addKernel(kernel("transpose", 0, 4e9, 4.0, 10));
  CostModel cost(cluster, profile);
  cost.useMeasurements(measured);
  // Segment 0's forward was measured: as measured.
  EXPECT_DOUBLE_EQ(cost.computeSeconds(0, 0, 1, false, 2), 0.5);
  // Segments 1 and 2, forward, 2 samples: 2 x 2 x (0.9e9 / 1e12 +
  // 0.1e9 / 1e10 + 4e6 / 1e9) = 0.0596 s.
  EXPECT_NEAR(cost.computeSeconds(0, 1, 3, false, 2), 0.0596, 1e-12);
  // The backward adds the softmax, which no launch measured: its bytes by
  // the roofline, 2 x 2 x 2e6 bytes over X1's memory bandwidth.
  double softmax = 8e6 / (cluster.devices[0].gpu.memoryBandwidthGBps * 1e9);
  EXPECT_NEAR(cost.computeSeconds(0, 1, 3, true, 2),
              4 * (1.8e9 / 1e12 + 0.2e9 / 1e10 + 4e6 / 1e9) + softmax, 1e-12);
  // No kernel measured in bf16: the roofline of the whole range, as
  // without kernels.
  MeasuredProfile callsOnly("uniform", 16, 3);
  callsOnly.add(call(Pass::Forward, 0, 2, 0.5));
  CostModel withoutKinds(cluster, profile);
  withoutKinds.useMeasurements(callsOnly);
  EXPECT_DOUBLE_EQ(
      cost.computeSeconds(0, 1, 3, false, 2, false, Precision::BF16),
      withoutKinds.computeSeconds(0, 1, 3, false, 2, false, Precision::BF16));
  EXPECT_NE(cost.computeSeconds(0, 1, 3, false, 2),
            withoutKinds.computeSeconds(0, 1, 3, false, 2));
}

} // namespace
