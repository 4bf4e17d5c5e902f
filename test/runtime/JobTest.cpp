//===- JobTest.cpp - packages of several ranks as threads -----------------===//
//
// Hand-built multi-rank packages run by a Job over an in-process world:
// sample slices sent between views, the collectives with uneven counts, a
// pipeline with sharded optimizer state against one device in double, and
// failures that end the job with the failing rank's error, never a hang.
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/Job.h"

#include "PipelineModel.h"
#include "ProgramBuilder.h"
#include "TestUtil.h"

#include <chrono>
#include <thread>

namespace hetc::runtime::test {
namespace {

using exec::Job;
using Clock = std::chrono::steady_clock;

std::vector<float> valuesOf(const TensorView &view) {
  const float *p = view.as<float>();
  return std::vector<float>(p, p + view.numel());
}

exec::JobOptions withTimeout(std::chrono::milliseconds timeout) {
  exec::JobOptions options;
  options.threadsPerRank = 1;
  options.timeout = timeout;
  return options;
}

// Steps need a data file even where no rank reads tokens.
struct Data {
  TokenFile file{tokenStream(64, 4)};
  TokenLoader loader;
  Data() { EXPECT_TRUE(loader.open(file.path(), TokenDType::kUInt16).ok()); }
};

pkg::Instruction &sendTo(ProgramBuilder &b, int x, int peer, int64_t tag) {
  pkg::Instruction &send = b.launch("send", {x}, {});
  setInt(send, "peer", peer);
  setInt(send, "tag", tag);
  return send;
}
pkg::Instruction &recvFrom(ProgramBuilder &b, int y, int peer, int64_t tag) {
  pkg::Instruction &recv = b.launch("recv", {}, {y});
  setInt(recv, "peer", peer);
  setInt(recv, "tag", tag);
  return recv;
}

// loss = sum(x * x) over both axes of a [rows, cols] buffer.
int sumOfSquares(ProgramBuilder &b, int x, Shape shape) {
  int squares = b.f32("mul.sq", shape);
  int loss = b.f32("reduce_sum.loss", {});
  b.launch("mul", {x, x}, {squares});
  pkg::Instruction &sum = b.launch("reduce_sum", {squares}, {loss});
  setInts(sum, "axes", {0, 1});
  setBool(sum, "keep_dims", false);
  b.setLoss(loss);
  return loss;
}

// Rank 0 sends samples [2, 4) of a [4, 2] buffer; rank 1 receives them into
// rows [1, 3) of its [3, 2] buffer and computes from it.
TEST(Job, SendsASampleSliceIntoAView) {
  ProgramBuilder sender(4, 1, 2);
  int x = sender.f32("x", {4, 2}, pkg::CONSTANT);
  sendTo(sender, sender.view(x, 4, {2, 2}, "x[2:4]"), 1, 7);
  sender.setLoss(-1);
  sender.constant("x", {4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});

  ProgramBuilder receiver(4, 1, 2);
  receiver.setSamples(2, 2);
  int y = receiver.f32("y", {3, 2});
  recvFrom(receiver, receiver.view(y, 2, {2, 2}, "y[1:3]"), 0, 7);
  sumOfSquares(receiver, y, {3, 2});

  exec::LoadedPackage package = multiRankPackage({sender, receiver});
  std::unique_ptr<Job> job;
  HETC_ASSERT_OK(Job::createInProcess(package, exec::cpuKernelRegistry(),
                                      withTimeout(std::chrono::seconds(10)),
                                      &job));
  Data data;
  float loss = 0;
  HETC_ASSERT_OK(job->runStep(0, data.loader, &loss));
  EXPECT_EQ(loss, 25.0f + 36.0f + 49.0f + 64.0f);
  EXPECT_EQ(valuesOf(job->localRank(1).buffers().view(y)),
            (std::vector<float>{0, 0, 5, 6, 7, 8}));
}

// x_r[i] = (r + 1)(i + 1) / 2 on three ranks: all_reduce gives 3(i + 1);
// reduce_scatter of that over counts [4, 0, 2] gives each rank its part
// times 3; all_gather puts the parts back together on every rank.
TEST(Job, CollectivesWithUnevenCountsRoundTripExactly) {
  std::vector<int64_t> group = {0, 1, 2}, counts = {4, 0, 2};
  std::vector<ProgramBuilder> ranks;
  std::vector<int> reducedIds, pieceIds, gatheredIds;
  for (int r = 0; r < 3; ++r) {
    ProgramBuilder b(3, 1, 2);
    b.setSamples(r, 1);
    int x = b.f32("x" + std::to_string(r), {6}, pkg::CONSTANT);
    int reduced = b.f32("all_reduce", {6});
    int piece = b.f32("reduce_scatter", {counts[r]});
    int gathered = b.f32("all_gather", {6});
    b.launch("copy", {x}, {reduced});
    setInts(b.launch("all_reduce", {reduced}, {reduced}), "group", group);
    pkg::Instruction &scatter = b.launch("reduce_scatter", {reduced}, {piece});
    setInts(scatter, "group", group);
    setInts(scatter, "counts", counts);
    pkg::Instruction &gather = b.launch("all_gather", {piece}, {gathered});
    setInts(gather, "group", group);
    setInts(gather, "counts", counts);
    sumOfSquares(b, b.alias(gathered, {1, 6}), {1, 6});
    std::vector<float> values;
    for (int i = 0; i < 6; ++i)
      values.push_back(0.5f * static_cast<float>((r + 1) * (i + 1)));
    b.constant("x" + std::to_string(r), {6}, values);
    ranks.push_back(b);
    reducedIds.push_back(reduced);
    pieceIds.push_back(piece);
    gatheredIds.push_back(gathered);
  }
  exec::LoadedPackage package = multiRankPackage(ranks);
  std::unique_ptr<Job> job;
  HETC_ASSERT_OK(Job::createInProcess(package, exec::cpuKernelRegistry(),
                                      withTimeout(std::chrono::seconds(10)),
                                      &job));
  Data data;
  float loss = 0;
  HETC_ASSERT_OK(job->runStep(0, data.loader, &loss));

  std::vector<float> gathered = {9, 18, 27, 36, 45, 54};
  float squares = 0;
  for (float g : gathered)
    squares += g * g;
  EXPECT_EQ(loss, 3 * squares);
  std::vector<std::vector<float>> pieces = {{9, 18, 27, 36}, {}, {45, 54}};
  for (int r = 0; r < 3; ++r) {
    const exec::BufferTable &buffers = job->localRank(r).buffers();
    EXPECT_EQ(valuesOf(buffers.view(reducedIds[r])),
              (std::vector<float>{3, 6, 9, 12, 15, 18}))
        << "rank " << r;
    EXPECT_EQ(valuesOf(buffers.view(pieceIds[r])), pieces[r]) << "rank " << r;
    EXPECT_EQ(valuesOf(buffers.view(gatheredIds[r])), gathered) << "rank " << r;
  }
}

// The invariant: the pipeline with sharded state trains like one device,
// and its checkpoint holds every tensor whole.
TEST(Job, PipelineWithShardedStateTrainsLikeOneDevice) {
  exec::LoadedPackage package = pipeline::package();
  std::unique_ptr<Job> job;
  HETC_ASSERT_OK(Job::createInProcess(package, exec::cpuKernelRegistry(),
                                      withTimeout(std::chrono::seconds(10)),
                                      &job));
  EXPECT_EQ(job->numLocalRanks(), 3);
  std::vector<uint16_t> tokens = tokenStream(40, pipeline::kV);
  TokenFile file(tokens);
  TokenLoader loader;
  HETC_ASSERT_OK(loader.open(file.path(), TokenDType::kUInt16));
  pipeline::Reference reference;
  for (int64_t step = 0; step < 4; ++step) {
    float loss = 0;
    HETC_ASSERT_OK(job->runStep(step, loader, &loss));
    EXPECT_NEAR(loss, reference.step(tokens, step), 1e-5) << "step " << step;
  }

  std::vector<exec::RankTensors> ranks;
  HETC_ASSERT_OK(job->gatherTensors(&ranks));
  ASSERT_EQ(ranks.size(), 3u);
  exec::CheckpointTensors checkpoint;
  HETC_ASSERT_OK(exec::assembleCheckpoint(ranks, &checkpoint));
  ASSERT_EQ(checkpoint.parameters.size(), 2u);
  EXPECT_EQ(checkpoint.parameters[0].name, "wte");
  EXPECT_EQ(checkpoint.parameters[1].name, "proj");
  auto floats = [](const hetc::package::NamedTensor &t) {
    std::vector<float> values(t.data.size() / sizeof(float));
    std::memcpy(values.data(), t.data.data(), t.data.size());
    return values;
  };
  EXPECT_TRUE(
      allClose(floats(checkpoint.parameters[0]), reference.wte, 1e-5, 1e-5));
  EXPECT_TRUE(
      allClose(floats(checkpoint.parameters[1]), reference.proj, 1e-5, 1e-5));
  std::vector<std::string> names;
  for (const auto &state : checkpoint.optimizerState)
    names.push_back(state.name);
  EXPECT_EQ(names, (std::vector<std::string>{"wte.adam_m", "wte.adam_v",
                                             "optimizer.step", "proj.adam_m",
                                             "proj.adam_v"}));
  const auto &projM = checkpoint.optimizerState[3];
  EXPECT_EQ(projM.shape, (std::vector<int64_t>{pipeline::kV, pipeline::kE}));
  EXPECT_TRUE(allClose(floats(projM), reference.projM, 1e-5, 1e-5));
  EXPECT_EQ(floats(checkpoint.optimizerState[2]), std::vector<float>{4.0f});
}

// Rank 0 sends tag 1, rank 1 expects tag 2: the job fails at once with the
// receiver's error naming both ranks (not the sender's, nor a timeout).
TEST(Job, MismatchedProgramsFailNamingBothRanks) {
  ProgramBuilder sender(2, 1, 2);
  sender.setSamples(0, 1);
  sender.place(0, 0, "gpu0");
  int x = sender.f32("x", {2}, pkg::CONSTANT);
  sendTo(sender, x, 1, 1);
  sender.setLoss(-1);
  sender.constant("x", {2}, {1, 2});

  ProgramBuilder receiver(2, 1, 2);
  receiver.setSamples(1, 1);
  receiver.place(0, 1, "gpu1");
  int y = receiver.f32("y", {1, 2});
  recvFrom(receiver, y, 0, 2);
  sumOfSquares(receiver, y, {1, 2});

  exec::LoadedPackage package = multiRankPackage({sender, receiver});
  std::unique_ptr<Job> job;
  HETC_ASSERT_OK(Job::createInProcess(package, exec::cpuKernelRegistry(),
                                      withTimeout(std::chrono::seconds(20)),
                                      &job));
  Data data;
  float loss;
  Clock::time_point begin = Clock::now();
  Status status = job->runStep(0, data.loader, &loss);
  EXPECT_TRUE(isError(status, StatusCode::kFailedPrecondition,
                      "rank 1 (stage 0, replica 1, device gpu1): step 0: "
                      "instruction 0 (recv) at loc(\"test\":1:1): rank 1 "
                      "expected message tag 2 (8 bytes) from rank 0 but "
                      "received tag 1 (8 bytes)"));
  EXPECT_LT(Clock::now() - begin, std::chrono::seconds(10));
}

// A receive that no rank sends to times out instead of hanging.
TEST(Job, AMissingMessageTimesOut) {
  ProgramBuilder idle(2, 1, 2);
  idle.setSamples(0, 1);
  idle.launch("copy", {idle.f32("x", {1}, pkg::CONSTANT)},
              {idle.f32("y", {1})});
  idle.setLoss(-1);
  idle.constant("x", {1}, {1});

  ProgramBuilder receiver(2, 1, 2);
  receiver.setSamples(1, 1);
  int y = receiver.f32("y", {1, 2});
  recvFrom(receiver, y, 0, 0);
  sumOfSquares(receiver, y, {1, 2});

  exec::LoadedPackage package = multiRankPackage({idle, receiver});
  std::unique_ptr<Job> job;
  HETC_ASSERT_OK(
      Job::createInProcess(package, exec::cpuKernelRegistry(),
                           withTimeout(std::chrono::milliseconds(200)), &job));
  Data data;
  float loss;
  EXPECT_TRUE(isError(job->runStep(0, data.loader, &loss),
                      StatusCode::kDeadlineExceeded,
                      "rank 1 (stage 0, replica 0): step 0: instruction 0 "
                      "(recv) at loc(\"test\":1:1): rank 1 waited"));
}

// Rank 1's data holds a token outside the vocabulary: it fails before
// sending, rank 0 (waiting for it) is aborted, and the job reports rank 1.
TEST(Job, AFailingRankEndsTheJobWithItsError) {
  const int64_t kT = 3, kV = 4;
  ProgramBuilder waiter(4, kT, kV);
  waiter.setSamples(0, 2);
  waiter.place(0, 0, "cpu0");
  int y = waiter.f32("y", {2, 3});
  recvFrom(waiter, y, 1, 0);
  sumOfSquares(waiter, y, {2, 3});

  ProgramBuilder failing(4, kT, kV);
  failing.setSamples(2, 2);
  failing.place(1, 0, "cpu1");
  int ids = failing.tokens("input_ids", pkg::TOKENS, 2, 2);
  int asFloat = failing.f32("cast.0", {2, 3});
  setString(failing.launch("cast", {ids}, {asFloat}), "to", "f32");
  sendTo(failing, asFloat, 0, 0);
  failing.setLoss(-1);

  exec::LoadedPackage package = multiRankPackage({waiter, failing});
  std::unique_ptr<Job> job;
  HETC_ASSERT_OK(Job::createInProcess(package, exec::cpuKernelRegistry(),
                                      withTimeout(std::chrono::seconds(20)),
                                      &job));
  // Step 0, sample 3 starts at (3 * 3) mod (40 - 4) = 9; its position 1.
  std::vector<uint16_t> tokens = tokenStream(40, kV);
  tokens[10] = 9;
  TokenFile file(tokens);
  TokenLoader loader;
  HETC_ASSERT_OK(loader.open(file.path(), TokenDType::kUInt16));
  float loss;
  Clock::time_point begin = Clock::now();
  EXPECT_TRUE(isError(job->runStep(0, loader, &loss), StatusCode::kOutOfRange,
                      "rank 1 (stage 1, replica 0, device cpu1): step 0, "
                      "sample 3, position 1: token id 9 (token 10 of data "
                      "file"));
  EXPECT_LT(Clock::now() - begin, std::chrono::seconds(10));
}

// A kernel that never returns, as one stuck on a lost GPU or in a loop: it
// shows no progress and ignores the abort.
Status sleepForever(const pkg::Instruction &, exec::BufferTable &) {
  for (;;)
    std::this_thread::sleep_for(std::chrono::seconds(1));
}

// Rank 1 is stuck in its step: rank 0, waiting for it, fails by the
// watchdog; the job then waits the stall limit for rank 1, gives up on it
// and ends with rank 0's error naming it, instead of hanging.
TEST(Job, ARankStuckInAKernelDoesNotHangTheJob) {
  static const exec::KernelRegistry *registry = [] {
    auto *made = new exec::KernelRegistry(
        exec::makeKernelRegistry(exec::cpu_backend::registerComputeKernels));
    exec::KernelInfo stuck;
    stuck.name = "sleep_forever";
    stuck.numResults = 0;
    stuck.run = sleepForever;
    EXPECT_TRUE(made->add(stuck).ok());
    return made;
  }();
  ProgramBuilder waiter(2, 1, 2);
  waiter.setSamples(0, 1);
  int y = waiter.f32("y", {1, 2});
  recvFrom(waiter, y, 1, 0);
  sumOfSquares(waiter, y, {1, 2});

  ProgramBuilder stuck(2, 1, 2);
  stuck.setSamples(1, 1);
  int x = stuck.f32("x", {1, 2}, pkg::CONSTANT);
  stuck.constant("x", {1, 2}, {1, 2});
  stuck.launch("sleep_forever", {}, {});
  sendTo(stuck, x, 0, 0);
  stuck.setLoss(-1);

  exec::LoadedPackage package = multiRankPackage({waiter, stuck});
  exec::JobOptions options = withTimeout(std::chrono::seconds(20));
  options.stallTimeout = std::chrono::milliseconds(300);
  std::unique_ptr<Job> job;
  HETC_ASSERT_OK(Job::createInProcess(package, *registry, options, &job));
  Data data;
  float loss;
  Clock::time_point begin = Clock::now();
  Status status = job->runStep(0, data.loader, &loss);
  EXPECT_TRUE(isError(status, StatusCode::kDeadlineExceeded,
                      "which has shown no progress for 0.3 s"));
  EXPECT_TRUE(isError(status, StatusCode::kDeadlineExceeded,
                      "; still running 0.3 s after that, and given up on: "
                      "rank 1 (stage 0, replica 0)"));
  EXPECT_LT(Clock::now() - begin, std::chrono::seconds(5));
  EXPECT_TRUE(isError(job->runStep(1, data.loader, &loss),
                      StatusCode::kFailedPrecondition,
                      "the job gave up on a rank stuck in its step"));
}

TEST(Job, APackageWithoutALossIsNotTrained) {
  ProgramBuilder b(1, 1, 2);
  b.launch("copy", {b.f32("x", {1}, pkg::CONSTANT)}, {b.f32("y", {1})});
  b.setLoss(-1);
  b.constant("x", {1}, {1});
  exec::LoadedPackage package = b.package();
  std::unique_ptr<Job> job;
  EXPECT_TRUE(isError(Job::createInProcess(package, exec::cpuKernelRegistry(),
                                           exec::JobOptions(), &job),
                      StatusCode::kInvalidArgument,
                      "no rank of the package computes a loss"));
}

} // namespace
} // namespace hetc::runtime::test
