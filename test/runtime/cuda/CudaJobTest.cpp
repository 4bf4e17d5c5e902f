//===- CudaJobTest.cpp - jobs on the CUDA backend -------------------------===//
//
// The three-rank pipeline of PipelineModel.h (a sharded optimizer state,
// reduce-scatter, all-gather, sends of sample slices) on GPUs trains like
// the double-precision reference and like the CPU job, with the steps
// replayed as CUDA graphs and without. Tests that need a GPU skip without
// one; the errors and the SM split are checked everywhere.
//
//===----------------------------------------------------------------------===//

#include "test/runtime/PipelineModel.h"
#include "test/runtime/TestUtil.h"

#include "runtime/cuda/Stream.h"
#include "runtime/exec/Job.h"
#include "runtime/exec/cuda/CudaDevice.h"
#include "runtime/exec/cuda/CudaJob.h"
#include "runtime/exec/cuda/GreenContexts.h"

#include <gtest/gtest.h>

#include <map>

namespace hetc::runtime::test {
namespace {

using exec::CudaJobSettings;
using exec::Job;
using exec::JobOptions;

// Trains the pipeline package for `steps` steps; the losses in *losses and,
// with `profile`, every launch timed.
void trainPipeline(const CudaJobSettings *cuda, int steps,
                   std::vector<float> *losses,
                   std::vector<exec::LaunchRecord> *profile = nullptr) {
  exec::LoadedPackage package = pipeline::package();
  JobOptions options;
  options.timeout = std::chrono::seconds(30);
  std::vector<std::string> layout;
  if (cuda)
    HETC_ASSERT_OK(exec::configureCudaJob(package, *cuda, &options, &layout));
  std::unique_ptr<Job> job;
  HETC_ASSERT_OK(Job::createInProcess(package, exec::cpuKernelRegistry(),
                                      options, &job));
  TokenFile file(tokenStream(40, pipeline::kV));
  TokenLoader loader;
  HETC_ASSERT_OK(loader.open(file.path(), TokenDType::kUInt16));
  if (profile)
    job->startProfile(std::chrono::steady_clock::now());
  for (int64_t step = 0; step < steps; ++step) {
    float loss = 0;
    HETC_ASSERT_OK(job->runStep(step, loader, &loss));
    losses->push_back(loss);
  }
  if (profile)
    *profile = job->profileRecords();
}

TEST(CudaJob, SharedGpuPipelineTrainsLikeOneDevice) {
  if (cuda::cudaDeviceCount() == 0)
    GTEST_SKIP() << "no CUDA device";
  std::vector<uint16_t> tokens = tokenStream(40, pipeline::kV);
  pipeline::Reference reference;
  std::vector<float> cpu, graphs, eager;
  trainPipeline(nullptr, 4, &cpu);
  CudaJobSettings settings;
  settings.shareGpu = true;
  trainPipeline(&settings, 4, &graphs);
  settings.graphs = false;
  trainPipeline(&settings, 4, &eager);
  ASSERT_EQ(graphs.size(), 4u);
  ASSERT_EQ(eager.size(), 4u);
  for (int step = 0; step < 4; ++step) {
    double want = reference.step(tokens, step);
    EXPECT_NEAR(graphs[step], want, 1e-5) << "step " << step;
    EXPECT_NEAR(graphs[step], cpu[step], 1e-5) << "step " << step;
    // A graph replays exactly the launches it captured.
    EXPECT_EQ(graphs[step], eager[step]) << "step " << step;
  }
}

TEST(CudaJob, ProfileTimesEveryLaunchOnTheStream) {
  if (cuda::cudaDeviceCount() == 0)
    GTEST_SKIP() << "no CUDA device";
  constexpr int kSteps = 3;
  std::vector<float> plain, profiled;
  std::vector<exec::LaunchRecord> records;
  CudaJobSettings settings;
  settings.shareGpu = true;
  trainPipeline(&settings, kSteps, &plain);
  trainPipeline(&settings, kSteps, &profiled, &records);
  // Timing runs the steps without graphs, which replay the same launches.
  EXPECT_EQ(plain, profiled);

  // Every instruction of every rank once a step, in program order, each
  // starting after the one before it on the rank's stream ended.
  exec::LoadedPackage package = pipeline::package();
  std::map<int, std::vector<const exec::LaunchRecord *>> byRank;
  for (const exec::LaunchRecord &record : records)
    byRank[record.rank].push_back(&record);
  ASSERT_EQ(byRank.size(), package.programs.size());
  double computeSeconds = 0;
  for (const auto &[rank, launches] : byRank) {
    size_t count = package.programs[rank].instructions_size();
    ASSERT_EQ(launches.size(), count * kSteps) << "rank " << rank;
    for (size_t i = 0; i < launches.size(); ++i) {
      const exec::LaunchRecord &launch = *launches[i];
      EXPECT_EQ(launch.step, static_cast<int64_t>(i / count));
      EXPECT_EQ(launch.instruction, static_cast<int>(i % count));
      EXPECT_GE(launch.seconds, 0);
      if (i % count > 0) {
        const exec::LaunchRecord &before = *launches[i - 1];
        EXPECT_GE(launch.start + 1e-6, before.start + before.seconds)
            << "rank " << rank << ", launch " << i;
      }
      if (!launch.communication)
        computeSeconds += launch.seconds;
    }
  }
  EXPECT_GT(computeSeconds, 0);
}

TEST(CudaJob, NcclPipelineWithAGpuPerRank) {
  if (cuda::cudaDeviceCount() < 3)
    GTEST_SKIP() << "needs 3 CUDA devices, has " << cuda::cudaDeviceCount();
  std::vector<uint16_t> tokens = tokenStream(40, pipeline::kV);
  pipeline::Reference reference;
  std::vector<float> losses;
  CudaJobSettings settings;
  trainPipeline(&settings, 4, &losses);
  ASSERT_EQ(losses.size(), 4u);
  for (int step = 0; step < 4; ++step)
    EXPECT_NEAR(losses[step], reference.step(tokens, step), 1e-5);
}

TEST(CudaJob, WithoutAGpuTheJobSaysSo) {
  if (cuda::cudaDeviceCount() > 0)
    GTEST_SKIP() << "this machine has a CUDA device";
  exec::LoadedPackage package = pipeline::package();
  JobOptions options;
  std::vector<std::string> layout;
  EXPECT_TRUE(isError(
      exec::configureCudaJob(package, CudaJobSettings(), &options, &layout),
      StatusCode::kFailedPrecondition,
      "--backend cuda: this machine has no CUDA device (or no driver); use "
      "--backend cpu"));
}

TEST(CudaJob, MoreRanksThanGpusNeedsSharing) {
  int gpus = cuda::cudaDeviceCount();
  if (gpus == 0 || gpus >= 3)
    GTEST_SKIP() << "needs 1 or 2 CUDA devices";
  exec::LoadedPackage package = pipeline::package();
  JobOptions options;
  std::vector<std::string> layout;
  EXPECT_TRUE(isError(
      exec::configureCudaJob(package, CudaJobSettings(), &options, &layout),
      StatusCode::kFailedPrecondition, "run them all on GPU 0 with --share-gpu"));
}

TEST(SmShares, FollowTheWeightsAtTheGranularity) {
  // 132 SMs (H100 SXM) in groups of 8: weights 1:1:2:4 of 132.
  EXPECT_EQ(exec::smShares(132, {1, 1, 2, 4}, 8, 8),
            (std::vector<int>{16, 16, 32, 64}));
  // Unknown weights: equal shares.
  EXPECT_EQ(exec::smShares(132, {0, 0, 0}, 8, 8),
            (std::vector<int>{40, 40, 40}));
  // A tiny weight still gets the minimum; the largest gives SMs back.
  EXPECT_EQ(exec::smShares(32, {0.01, 10}, 8, 8),
            (std::vector<int>{8, 24}));
  // More groups than fit: every one at the minimum, over the total.
  EXPECT_EQ(exec::smShares(16, {1, 1, 1}, 8, 8),
            (std::vector<int>{8, 8, 8}));
}

TEST(CudaJob, Bf16NeedsComputeCapabilityEight) {
  hetc::pkg::Program program;
  program.add_buffers()->set_dtype(hetc::pkg::F32);
  // f32 and f16 run on every target; bf16 only from Ampere on.
  EXPECT_TRUE(exec::checkBf16Support(program, 0, 0, 75).ok());
  program.add_buffers()->set_dtype(hetc::pkg::BF16);
  EXPECT_TRUE(exec::checkBf16Support(program, 2, 1, 80).ok());
  EXPECT_TRUE(exec::checkBf16Support(program, 2, 1, 90).ok());
  Status refused = exec::checkBf16Support(program, 2, 1, 75);
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.message(),
            "--backend cuda: rank 2 computes in bf16, which needs a GPU of "
            "compute capability 8.0 or newer (Ampere); GPU 1 is 7.5: compile "
            "with --precision f16 (or --precision auto and a --cluster that "
            "names this GPU)");
}

} // namespace
} // namespace hetc::runtime::test
