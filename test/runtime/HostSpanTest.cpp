//===- HostSpanTest.cpp - offloaded updates on the host of a device -------===//
//
// An optimizer offloaded to the host of a device with memory of its own:
// its pieces' copies and host updates in three lanes (HostPipeline.h), what
// each waits for, that the next piece's copies run beside this piece's
// update, that an error stops every lane, and that the executor computes
// with them what the kernel and the CPU backend compute.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Optimizers.h"
#include "runtime/exec/Executor.h"
#include "runtime/exec/HostPipeline.h"

#include "ProgramBuilder.h"
#include "TestUtil.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace hetc::runtime::test {
namespace {

using exec::HostLane;
using exec::HostPipeline;
using exec::RankExecutor;

// A device whose arena the executor must treat as out of the host's reach,
// as a GPU's: host buffers then live in a host arena of their own, and the
// launches that touch them run on the host between copies. Its memory is
// host memory underneath, so the host kernels compute on it as well, and
// it counts the copies each way.
class SeparateMemoryDevice final : public exec::Device {
public:
  std::string describe() const override { return "separate-memory"; }
  bool hostMemory() const override { return false; }
  const exec::KernelRegistry &registry() const override {
    return exec::cpuKernelRegistry();
  }
  Status bind() override { return okStatus(); }
  Status allocate(int64_t bytes, void **data) override {
    size_t rounded =
        static_cast<size_t>((std::max<int64_t>(bytes, 1) + 255) / 256 * 256);
    *data = std::aligned_alloc(256, rounded);
    if (!*data)
      return resourceExhausted("cannot allocate ", bytes, " bytes");
    std::memset(*data, 0, rounded);
    noteAllocated(*data, bytes);
    return okStatus();
  }
  void release(void *data) override {
    noteReleased(data);
    std::free(data);
  }
  Status copyToDevice(void *dst, const void *src, size_t bytes) override {
    ++copiesToDevice;
    std::memcpy(dst, src, bytes);
    return okStatus();
  }
  Status copyToHost(void *dst, const void *src, size_t bytes) override {
    ++copiesToHost;
    std::memcpy(dst, src, bytes);
    return okStatus();
  }
  Status copyOnDevice(void *dst, const void *src, size_t bytes) override {
    std::memcpy(dst, src, bytes);
    return okStatus();
  }
  Status runSpan(int, const std::function<Status()> &launch) override {
    return launch();
  }
  Status synchronize() override { return okStatus(); }

  std::atomic<int> copiesToHost{0}, copiesToDevice{0};
};

constexpr int kPieces = 3;

float initialValue(int piece, int i) { return 0.5f * (piece + 1) - i; }
float gradientValue(int piece, int i) { return 0.3f * (i + 1) - 0.2f * piece; }

// An AdamW update of kPieces parameters with their state in host memory,
// as hetd-build-ranks offloads it: the step count copied to the host once,
// then per piece its parameter and gradient copied to the host, AdamW
// there and the updated piece copied back. `sharedStaging`: every piece
// copies into the same host buffers (an arena that reuses them at once).
ProgramBuilder offloadedAdamwProgram(bool sharedStaging) {
  ProgramBuilder b(1, 2, 4);
  int step = b.f32("optimizer.step", {}, pkg::OPTIMIZER_STATE);
  int one = b.f32("constant.one", {}, pkg::CONSTANT);
  b.buffer("input_ids", pkg::I64, {1, 2}, pkg::INPUT, pkg::TOKENS);
  int hostStep = b.hostF32("copy.step", {});
  b.launch("add", {step, one}, {step});
  b.launch("copy", {step}, {hostStep});
  int hostP = -1, hostG = -1, updated = -1;
  for (int piece = 0; piece < kPieces; ++piece) {
    std::string name = "p" + std::to_string(piece);
    int p = b.f32(name, {3}, pkg::PARAMETER);
    int g = b.f32("constant.g" + std::to_string(piece), {3}, pkg::CONSTANT);
    int m = b.hostF32(name + ".adam_m", {3}, pkg::OPTIMIZER_STATE);
    int v = b.hostF32(name + ".adam_v", {3}, pkg::OPTIMIZER_STATE);
    if (!sharedStaging || piece == 0) {
      hostP = b.hostF32("copy.p" + std::to_string(piece), {3});
      hostG = b.hostF32("copy.g" + std::to_string(piece), {3});
      updated = b.hostF32("adamw.p" + std::to_string(piece), {3});
    }
    b.launch("copy", {p}, {hostP});
    b.launch("copy", {g}, {hostG});
    pkg::Instruction &adamw =
        b.launch("adamw", {hostP, hostG, m, v, hostStep}, {updated, m, v});
    setFloat(adamw, "lr", 0.1);
    setFloat(adamw, "beta1", 0.9);
    setFloat(adamw, "beta2", 0.999);
    setFloat(adamw, "eps", 1e-8);
    setFloat(adamw, "weight_decay", 0.01);
    b.launch("copy", {updated}, {p});
    std::vector<float> initial, gradient;
    for (int i = 0; i < 3; ++i) {
      initial.push_back(initialValue(piece, i));
      gradient.push_back(gradientValue(piece, i));
    }
    b.weight(name, {3}, initial);
    b.constant("constant.g" + std::to_string(piece), {3}, gradient);
  }
  b.setLoss(step);
  b.constant("constant.one", {}, {1.0f});
  return b;
}

// The instructions of the host span: everything after the add.
constexpr int kSpanBegin = 1;
constexpr int kSpanEnd = 2 + 4 * kPieces;
// Instruction indices of piece `k`'s launches.
int copyParameter(int k) { return 2 + 4 * k; }
int update(int k) { return 4 + 4 * k; }
int copyBack(int k) { return 5 + 4 * k; }

const HostPipeline::Launch &launchOf(const HostPipeline &pipeline,
                                     int instruction) {
  for (HostLane lane :
       {HostLane::kToHost, HostLane::kCompute, HostLane::kToDevice})
    for (const HostPipeline::Launch &launch : pipeline.lane(lane))
      if (launch.instruction == instruction)
        return launch;
  ADD_FAILURE() << "instruction " << instruction << " is in no lane";
  static HostPipeline::Launch none;
  return none;
}

TEST(HostPipeline, CopiesGoToTheirLanesAndWaitOnlyForSharedBytes) {
  ProgramBuilder separate = offloadedAdamwProgram(/*sharedStaging=*/false);
  HostPipeline pipeline(separate.program(), kSpanBegin, kSpanEnd);
  EXPECT_EQ(pipeline.lane(HostLane::kToHost).size(), 1u + 2 * kPieces);
  EXPECT_EQ(pipeline.lane(HostLane::kCompute).size(), size_t{kPieces});
  EXPECT_EQ(pipeline.lane(HostLane::kToDevice).size(), size_t{kPieces});
  using Waits = std::array<int, exec::kHostLanes>;
  // The second piece's copies to the host share no bytes with the first
  // piece's update: they wait for nothing of the other lanes.
  EXPECT_EQ(launchOf(pipeline, copyParameter(1)).waitFor, (Waits{0, 0, 0}));
  // Its update waits for the step count and its own two copies (5 of the
  // lane's launches) and, writing no bytes the first update touches, for
  // nothing else: the compute lane keeps the order.
  EXPECT_EQ(launchOf(pipeline, update(1)).waitFor, (Waits{5, 0, 0}));
  // The copy back waits for its update, and for the copy that read the
  // parameter it overwrites.
  EXPECT_EQ(launchOf(pipeline, copyBack(1)).waitFor, (Waits{4, 2, 0}));

  // With one set of staging buffers for every piece, the next piece's copy
  // to the host waits for this piece's update, and the next update for
  // this piece's copy back.
  ProgramBuilder shared = offloadedAdamwProgram(/*sharedStaging=*/true);
  HostPipeline serial(shared.program(), kSpanBegin, kSpanEnd);
  EXPECT_EQ(launchOf(serial, copyParameter(1)).waitFor, (Waits{0, 1, 0}));
  EXPECT_EQ(launchOf(serial, update(1)).waitFor, (Waits{5, 0, 1}));
}

TEST(HostPipeline, TheNextPiecesCopiesRunBesideThisPiecesUpdate) {
  ProgramBuilder b = offloadedAdamwProgram(/*sharedStaging=*/false);
  HostPipeline pipeline(b.program(), kSpanBegin, kSpanEnd);
  // The first update runs only once the second piece's parameter is on its
  // way to the host: in program order that copy comes after the update, so
  // a span run in order would time out here.
  std::mutex mutex;
  std::condition_variable copied;
  bool secondCopied = false;
  auto run = [&](int instruction) -> Status {
    std::unique_lock<std::mutex> lock(mutex);
    if (instruction == copyParameter(1)) {
      secondCopied = true;
      copied.notify_all();
    }
    if (instruction == update(0) &&
        !copied.wait_for(lock, std::chrono::seconds(20),
                         [&] { return secondCopied; }))
      return internalError("the copies did not run beside the update");
    return okStatus();
  };
  HETC_ASSERT_OK(pipeline.run([] { return okStatus(); }, run));
}

TEST(HostPipeline, AnErrorStopsEveryLane) {
  ProgramBuilder b = offloadedAdamwProgram(/*sharedStaging=*/true);
  HostPipeline pipeline(b.program(), kSpanBegin, kSpanEnd);
  std::mutex mutex;
  std::vector<int> ran;
  auto run = [&](int instruction) -> Status {
    std::lock_guard<std::mutex> lock(mutex);
    if (instruction == copyBack(0))
      return dataLoss("the copy back failed");
    ran.push_back(instruction);
    return okStatus();
  };
  EXPECT_TRUE(isError(pipeline.run([] { return okStatus(); }, run),
                      StatusCode::kDataLoss, "the copy back failed"));
  // With shared staging the second update waits for the failed copy back,
  // and everything after it for that update.
  for (int instruction : ran)
    EXPECT_LT(instruction, update(1));
  // A copy lane that cannot bind its thread stops the span as well.
  EXPECT_TRUE(isError(pipeline.run([] { return internalError("no device"); },
                                   [](int) { return okStatus(); }),
                      StatusCode::kInternal, "no device"));
}

TEST(HostSpan, OffloadedAdamWRunsOnTheHostOfADeviceWithItsOwnMemory) {
  TokenFile file(tokenStream(16, 4));
  TokenLoader loader;
  HETC_ASSERT_OK(loader.open(file.path(), TokenDType::kUInt16));
  ProgramBuilder b = offloadedAdamwProgram(/*sharedStaging=*/false);
  exec::LoadedPackage package = b.package();
  auto device = std::make_unique<SeparateMemoryDevice>();
  SeparateMemoryDevice &separate = *device;
  std::unique_ptr<RankExecutor> onDevice, onCpu;
  HETC_ASSERT_OK(
      RankExecutor::create(package, 0, std::move(device), &onDevice));
  HETC_ASSERT_OK(
      RankExecutor::create(package, 0, exec::cpuKernelRegistry(), &onCpu));
  for (int64_t s = 0; s < 3; ++s) {
    int toHost = separate.copiesToHost, toDevice = separate.copiesToDevice;
    float stepCount;
    for (RankExecutor *rank : {onDevice.get(), onCpu.get()}) {
      HETC_ASSERT_OK(rank->runStep(s, loader, &stepCount));
      EXPECT_EQ(stepCount, static_cast<float>(s + 1));
    }
    // A step copies the step count and each piece's parameter and gradient
    // to the host and reads the loss; it copies the tokens in and each
    // updated piece back.
    EXPECT_EQ(separate.copiesToHost - toHost, 1 + 2 * kPieces + 1);
    EXPECT_EQ(separate.copiesToDevice - toDevice, 1 + kPieces);
  }

  cpu::AdamWOptions options;
  options.lr = 0.1;
  options.weightDecay = 0.01;
  for (int piece = 0; piece < kPieces; ++piece) {
    SCOPED_TRACE("piece " + std::to_string(piece));
    F32 p({3}), g({3}), m({3}), v({3});
    for (int i = 0; i < 3; ++i) {
      p.v[i] = initialValue(piece, i);
      g.v[i] = gradientValue(piece, i);
    }
    for (int64_t t = 1; t <= 3; ++t)
      HETC_ASSERT_OK(cpu::adamwStep(p.view(), g.view(), m.view(), v.view(),
                                    I64({}, {t}).view(), options));
    std::string name = "p" + std::to_string(piece);
    for (RankExecutor *rank : {onDevice.get(), onCpu.get()}) {
      std::vector<hetc::package::NamedTensor> parameters, state;
      HETC_ASSERT_OK(rank->snapshot(pkg::PARAMETER, &parameters));
      HETC_ASSERT_OK(rank->snapshot(pkg::OPTIMIZER_STATE, &state));
      auto expectValues =
          [&](const std::vector<hetc::package::NamedTensor> &tensors,
              const std::string &tensorName,
              const std::vector<float> &expected) {
            for (const hetc::package::NamedTensor &tensor : tensors) {
              if (tensor.name != tensorName)
                continue;
              std::vector<float> values(3);
              ASSERT_EQ(tensor.data.size(), values.size() * sizeof(float));
              std::memcpy(values.data(), tensor.data.data(),
                          tensor.data.size());
              EXPECT_EQ(values, expected) << tensorName;
              return;
            }
            ADD_FAILURE() << "no tensor " << tensorName;
          };
      expectValues(parameters, name, p.v);
      // The state stays on the host, where checkpoints read it.
      expectValues(state, name + ".adam_m", m.v);
      expectValues(state, name + ".adam_v", v.v);
    }
  }
}

} // namespace
} // namespace hetc::runtime::test
