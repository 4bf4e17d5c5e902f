//===- OptimizersTest.cpp - CUDA Optimizers against the CPU backend ---===//
//
// The CUDA updates round every operation as the CPU kernels do, so f32
// results are compared in ulps: m, v and SGD exactly, AdamW's param within
// one ulp (its bias corrections come from the device's pow).
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Optimizers.h"
#include "runtime/cuda/Optimizers.h"

#include "test/runtime/cuda/CudaTestUtil.h"

#include <climits>
#include <cstdlib>
#include <memory>
#include <string>

namespace hetc::runtime::cuda::test {
namespace {

using runtime::LrScheduleKind;

// Floats mapped to integers in the order of their values, so that the
// difference counts the floats in between (-0 and +0 are one).
int64_t orderedBits(float x) {
  int32_t bits;
  std::memcpy(&bits, &x, 4);
  return bits < 0 ? int64_t(INT32_MIN) - bits : bits;
}

void expectUlps(const std::vector<float> &got, const std::vector<float> &want,
                int64_t maxUlps, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int misses = 0;
  for (size_t i = 0; i < got.size() && misses < 5; ++i) {
    bool bothNaN = std::isnan(got[i]) && std::isnan(want[i]);
    if (bothNaN)
      continue;
    if (std::isnan(got[i]) || std::isnan(want[i]) ||
        std::llabs(orderedBits(got[i]) - orderedBits(want[i])) > maxUlps) {
      ADD_FAILURE() << what << "[" << i << "]: got " << got[i] << ", want "
                    << want[i] << " (at most " << maxUlps << " ulps apart)";
      ++misses;
    }
  }
}

std::vector<float> slice(const std::vector<float> &values, int64_t offset,
                         int64_t count) {
  return std::vector<float>(values.begin() + offset,
                            values.begin() + offset + count);
}

// A view of `count` elements starting `offset` elements into `t`.
TensorView viewAt(const DeviceTensor &t, int64_t offset, int64_t count) {
  TensorView whole = t.view();
  return TensorView(static_cast<char *>(whole.data) + offset * dtypeSize(whole.dtype),
                    whole.dtype, {count});
}

// A 0-D device tensor of `dtype` holding the whole number `value`.
void writeStep(DeviceTensor &step, DType dtype, int64_t value) {
  switch (dtype) {
  case DType::kI64:
    step.write<int64_t>({value});
    break;
  case DType::kI32:
    step.write<int32_t>({static_cast<int32_t>(value)});
    break;
  case DType::kF64:
    step.write<double>({static_cast<double>(value)});
    break;
  default: // f32, bf16, f16: small whole numbers are exact
    step.writeFloats({static_cast<float>(value)});
    break;
  }
}

void expectInvalid(const Status &status, const std::string &message) {
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.toString();
  EXPECT_NE(status.message().find(message), std::string::npos)
      << status.message() << "\n  does not contain: " << message;
}

//===----------------------------------------------------------------------===//
// SGD
//===----------------------------------------------------------------------===//

struct SgdCase {
  DType paramType, gradType;
  double weightDecay;
};

void PrintTo(const SgdCase &c, std::ostream *os) {
  *os << dtypeName(c.paramType) << " param, " << dtypeName(c.gradType)
      << " grad, wd " << c.weightDecay;
}

class CudaSgd : public ::testing::TestWithParam<SgdCase> {};

TEST_P(CudaSgd, MatchesCpu) {
  HETC_REQUIRE_CUDA();
  const SgdCase &c = GetParam();
  const int64_t n = 70001; // odd: not a multiple of any block
  SgdOptions options;
  options.lr = 0.05;
  options.weightDecay = c.weightDecay;
  std::vector<float> p = randomValues(n, c.paramType, -2.0f, 2.0f, 1);
  std::vector<float> g = randomValues(n, c.gradType, -1.0f, 1.0f, 2);
  DeviceTensor dp(c.paramType, {n}, p), dg(c.gradType, {n}, g);
  for (int step = 0; step < 2; ++step) {
    HETC_EXPECT_CUDA_OK(sgdStep(dp.view(), dg.view(), options));
    HETC_EXPECT_CUDA_OK(cpu::sgdStep(makeView(p.data(), {n}),
                                     makeView(g.data(), {n}), options));
    // The CPU keeps f32; the device rounds to the param's dtype each step.
    for (float &x : p)
      x = roundTo(c.paramType, x);
  }
  if (c.paramType == DType::kF32)
    expectUlps(dp.readFloats(), p, 0, "param");
  else
    expectClose(dp.readFloats(), p, storageTolerance(c.paramType), 0.0, "param");
}

INSTANTIATE_TEST_SUITE_P(
    Optimizers, CudaSgd,
    ::testing::Values(SgdCase{DType::kF32, DType::kF32, 0.1},
                      SgdCase{DType::kF32, DType::kF32, 0.0},
                      SgdCase{DType::kF32, DType::kBF16, 0.01},
                      SgdCase{DType::kBF16, DType::kBF16, 0.1},
                      SgdCase{DType::kF16, DType::kF16, 0.0},
                      SgdCase{DType::kBF16, DType::kF32, 0.1}));

//===----------------------------------------------------------------------===//
// AdamW on one tensor
//===----------------------------------------------------------------------===//

struct AdamWCase {
  DType stepType;
  DType gradType;
  bool decay;
  double beta1;
  int64_t n;
  int64_t offset; // elements into the buffers: 1 makes them unaligned
};

void PrintTo(const AdamWCase &c, std::ostream *os) {
  *os << dtypeName(c.stepType) << " step, " << dtypeName(c.gradType)
      << " grad, " << (c.decay ? "decay" : "no decay") << ", beta1 " << c.beta1
      << ", n " << c.n << ", offset " << c.offset;
}

class CudaAdamW : public ::testing::TestWithParam<AdamWCase> {};

// Several steps with fresh gradients; the step count is written to the
// device between them, as the executor does.
TEST_P(CudaAdamW, StepsMatchCpu) {
  HETC_REQUIRE_CUDA();
  const AdamWCase &c = GetParam();
  const int64_t n = c.n, total = c.n + c.offset;
  AdamWOptions options;
  options.lr = 0.01;
  options.beta1 = c.beta1;
  options.weightDecay = 0.1;
  options.applyWeightDecay = c.decay;

  std::vector<float> p = randomValues(total, DType::kF32, -1.0f, 1.0f, 3);
  std::vector<float> m(total, 0.0f), v(total, 0.0f);
  DeviceTensor dp(DType::kF32, {total}, p), dm(DType::kF32, {total}),
      dv(DType::kF32, {total}), dg(c.gradType, {total});
  DeviceTensor dstep(c.stepType, {});
  TensorView cp = makeView(p.data() + c.offset, {n});
  TensorView cm = makeView(m.data() + c.offset, {n});
  TensorView cv = makeView(v.data() + c.offset, {n});
  for (int t = 1; t <= 4; ++t) {
    std::vector<float> g = randomValues(total, c.gradType, -1.0f, 1.0f, 10 + t);
    g[c.offset] = 0.0f; // a zero gradient: the update is decay only
    dg.writeFloats(g);
    writeStep(dstep, c.stepType, t);
    HETC_EXPECT_CUDA_OK(adamwStep(viewAt(dp, c.offset, n), viewAt(dg, c.offset, n),
                                  viewAt(dm, c.offset, n), viewAt(dv, c.offset, n),
                                  dstep.view(), options));
    int64_t step = t;
    HETC_EXPECT_CUDA_OK(cpu::adamwStep(cp, makeView(g.data() + c.offset, {n}), cm,
                                       cv, makeView(&step, {}), options));
    std::string when = "step " + std::to_string(t) + " ";
    expectUlps(slice(dm.readFloats(), c.offset, n), slice(m, c.offset, n), 0,
               when + "m");
    expectUlps(slice(dv.readFloats(), c.offset, n), slice(v, c.offset, n), 0,
               when + "v");
    expectUlps(slice(dp.readFloats(), c.offset, n), slice(p, c.offset, n), 1,
               when + "param");
  }
  // The element in front of an offset view is untouched.
  if (c.offset > 0) {
    EXPECT_EQ(dp.readFloats()[0], p[0]);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Optimizers, CudaAdamW,
    ::testing::Values(
        AdamWCase{DType::kI64, DType::kF32, true, 0.9, 5003, 0},
        AdamWCase{DType::kF32, DType::kF32, false, 0.9, 5003, 1},
        AdamWCase{DType::kI32, DType::kBF16, true, 0.9, 40001, 0},
        AdamWCase{DType::kF64, DType::kF16, true, 0.9, 16384, 2},
        AdamWCase{DType::kBF16, DType::kF32, true, 0.3, 33000, 0},
        AdamWCase{DType::kF16, DType::kF32, false, 0.5, 7, 0}));

// A step count the CPU rejects cannot be reported from the device: the
// kernel makes the update NaN instead of applying a wrong one.
TEST(CudaAdamWStep, BadStepCountGivesNaN) {
  HETC_REQUIRE_CUDA();
  DeviceTensor p(DType::kF32, {4}, {1, 2, 3, 4}), g(DType::kF32, {4}, {1, 1, 1, 1}),
      m(DType::kF32, {4}), v(DType::kF32, {4}), step(DType::kF32, {});
  for (float bad : {0.0f, 1.5f, -2.0f}) {
    step.writeFloats({bad});
    p.writeFloats({1, 2, 3, 4});
    HETC_EXPECT_CUDA_OK(adamwStep(p.view(), g.view(), m.view(), v.view(),
                                  step.view(), AdamWOptions()));
    for (float x : p.readFloats())
      EXPECT_TRUE(std::isnan(x)) << "step " << bad;
  }
}

//===----------------------------------------------------------------------===//
// Multi-tensor AdamW
//===----------------------------------------------------------------------===//

// 70 sizes around the chunk (16384) and vector (4) sizes, with empty ones.
std::vector<int64_t> assortedSizes() {
  const int64_t base[] = {1,    3,     4,     5,     7,     64,    768,
                          1023, 2304,  3072,  16383, 16384, 16385, 32773,
                          50257, 0,    2,     9,     100,   1000};
  std::vector<int64_t> sizes;
  for (int i = 0; i < 70; ++i) {
    int64_t size = base[i % 20];
    sizes.push_back(size == 0 ? 0 : size + (i / 20) * 3);
  }
  return sizes;
}

class CudaMultiTensorAdamW : public ::testing::TestWithParam<bool> {};

// Tensors packed back to back in flat buffers (so most start unaligned);
// with mixed grad dtypes a launch also ends at each change of dtype.
TEST_P(CudaMultiTensorAdamW, SeventyTensorsMatchPerTensorCpu) {
  HETC_REQUIRE_CUDA();
  bool mixedGrads = GetParam();
  std::vector<int64_t> sizes = assortedSizes();
  std::vector<int64_t> offsets;
  int64_t total = 0;
  for (int64_t size : sizes) {
    offsets.push_back(total);
    total += size;
  }
  AdamWOptions options;
  options.lr = 3e-4;
  options.weightDecay = 0.1;

  std::vector<float> p = randomValues(total, DType::kF32, -1.0f, 1.0f, 5);
  std::vector<float> m(total, 0.0f), v(total, 0.0f);
  DeviceTensor dp(DType::kF32, {total}, p), dm(DType::kF32, {total}),
      dv(DType::kF32, {total}), dstep(DType::kI64, {});
  std::vector<std::unique_ptr<DeviceTensor>> dgrads;
  for (size_t i = 0; i < sizes.size(); ++i) {
    DType type = !mixedGrads ? DType::kF32
                 : i % 7 == 3 ? DType::kBF16
                 : i % 11 == 5 ? DType::kF16
                               : DType::kF32;
    dgrads.push_back(std::make_unique<DeviceTensor>(type, Shape{sizes[i]}));
  }
  std::vector<AdamWTensors> tensors;
  for (size_t i = 0; i < sizes.size(); ++i)
    tensors.push_back({viewAt(dp, offsets[i], sizes[i]), dgrads[i]->view(),
                       viewAt(dm, offsets[i], sizes[i]),
                       viewAt(dv, offsets[i], sizes[i])});

  for (int t = 1; t <= 3; ++t) {
    int64_t step = t;
    for (size_t i = 0; i < sizes.size(); ++i) {
      DType type = dgrads[i]->view().dtype;
      std::vector<float> g = randomValues(sizes[i], type, -1.0f, 1.0f,
                                          static_cast<unsigned>(100 * t + i));
      dgrads[i]->writeFloats(g);
      int64_t o = offsets[i], n = sizes[i];
      HETC_EXPECT_CUDA_OK(cpu::adamwStep(
          makeView(p.data() + o, {n}), makeView(g.data(), {n}),
          makeView(m.data() + o, {n}), makeView(v.data() + o, {n}),
          makeView(&step, {}), options));
    }
    writeStep(dstep, DType::kI64, t);
    HETC_EXPECT_CUDA_OK(multiTensorAdamW(tensors, dstep.view(), options));
    std::string when = "step " + std::to_string(t) + " ";
    expectUlps(dm.readFloats(), m, 0, when + "m");
    expectUlps(dv.readFloats(), v, 0, when + "v");
    expectUlps(dp.readFloats(), p, 1, when + "param");
  }
}

INSTANTIATE_TEST_SUITE_P(Optimizers, CudaMultiTensorAdamW,
                         ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? "MixedGrads" : "F32Grads";
                         });

//===----------------------------------------------------------------------===//
// Global norm
//===----------------------------------------------------------------------===//

// The norm of `sizes` tensors of `types` (cycled) against cpu::globalNorm
// on the same values in f32, into f32 and f64 outputs.
void checkGlobalNorm(const std::vector<int64_t> &sizes,
                     const std::vector<DType> &types) {
  std::vector<std::unique_ptr<DeviceTensor>> device;
  std::vector<std::vector<float>> host;
  std::vector<TensorView> deviceViews, hostViews;
  for (size_t i = 0; i < sizes.size(); ++i) {
    DType type = types[i % types.size()];
    host.push_back(randomValues(sizes[i], type, -2.0f, 2.0f,
                                static_cast<unsigned>(7 + i)));
    device.push_back(std::make_unique<DeviceTensor>(type, Shape{sizes[i]}, host.back()));
    deviceViews.push_back(device.back()->view());
  }
  for (std::vector<float> &values : host)
    hostViews.push_back(makeView(values.data(), {static_cast<int64_t>(values.size())}));

  double want64 = 0.0;
  float want32 = 0.0f;
  HETC_EXPECT_CUDA_OK(cpu::globalNorm(hostViews, makeView(&want64, {})));
  HETC_EXPECT_CUDA_OK(cpu::globalNorm(hostViews, makeView(&want32, {})));

  DeviceTensor out32(DType::kF32, {});
  DeviceTensor out64(DType::kF64, {});
  HETC_EXPECT_CUDA_OK(globalNorm(deviceViews, out32.view()));
  HETC_EXPECT_CUDA_OK(globalNorm(deviceViews, out64.view()));
  double got64 = out64.read<double>()[0];
  EXPECT_NEAR(got64, want64, 1e-12 * want64);
  expectUlps(out32.readFloats(), {want32}, 1, "f32 norm");

  // Deterministic: the same inputs give the same bits.
  HETC_EXPECT_CUDA_OK(globalNorm(deviceViews, out64.view()));
  EXPECT_EQ(out64.read<double>()[0], got64);
}

TEST(CudaGlobalNorm, MixedDTypesMatchCpu) {
  HETC_REQUIRE_CUDA();
  checkGlobalNorm({1, 5, 16384, 16385, 100003, 4096 * 33, 0, 2},
                  {DType::kF32, DType::kF32, DType::kBF16, DType::kF16});
}

TEST(CudaGlobalNorm, SeventyTensorsMatchCpu) {
  HETC_REQUIRE_CUDA();
  checkGlobalNorm(assortedSizes(), {DType::kF32});
}

TEST(CudaGlobalNorm, NoElementsGiveZero) {
  HETC_REQUIRE_CUDA();
  DeviceTensor out(DType::kF32, {}, {5.0f}), empty(DType::kF32, {0});
  HETC_EXPECT_CUDA_OK(globalNorm({}, out.view()));
  EXPECT_EQ(out.readFloats()[0], 0.0f);
  out.writeFloats({5.0f});
  HETC_EXPECT_CUDA_OK(globalNorm({empty.view(), empty.view()}, out.view()));
  EXPECT_EQ(out.readFloats()[0], 0.0f);
}

//===----------------------------------------------------------------------===//
// CUDA graphs
//===----------------------------------------------------------------------===//

// A step captured once and replayed with the step count advanced on the
// device matches the CPU's steps: nothing of step 1 is baked in.
TEST(CudaOptimizerGraph, ReplayedStepReadsTheStepCount) {
  HETC_REQUIRE_CUDA();
  const int64_t n = 20000;
  AdamWOptions options;
  options.lr = 0.01;
  std::vector<float> p = randomValues(n, DType::kF32, -1.0f, 1.0f, 21);
  std::vector<float> g = randomValues(n, DType::kF32, -1.0f, 1.0f, 22);
  std::vector<float> m(n, 0.0f), v(n, 0.0f);
  DeviceTensor dp(DType::kF32, {n}, p), dg(DType::kF32, {n}, g),
      dm(DType::kF32, {n}), dv(DType::kF32, {n}), dstep(DType::kI64, {}),
      dnorm(DType::kF32, {});

  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  // Capture needs a stream of its own; the guard restores the thread's
  // stream even when an assertion returns early.
  struct StreamGuard {
    cudaStream_t previous, own;
    ~StreamGuard() {
      setCurrentStream(previous);
      cudaStreamDestroy(own);
    }
  } guard{currentStream(), stream};
  setCurrentStream(stream);
  // The first call allocates the norm's scratch, which capture forbids.
  HETC_EXPECT_CUDA_OK(globalNorm({dg.view()}, dnorm.view()));
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);

  cudaGraph_t graph;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
            cudaSuccess);
  Status normStatus = globalNorm({dg.view()}, dnorm.view());
  Status stepStatus = adamwStep(dp.view(), dg.view(), dm.view(), dv.view(),
                                dstep.view(), options);
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  HETC_EXPECT_CUDA_OK(normStatus);
  HETC_EXPECT_CUDA_OK(stepStatus);
  cudaGraphExec_t exec;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);

  for (int64_t t = 1; t <= 3; ++t) {
    writeStep(dstep, DType::kI64, t);
    ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    HETC_EXPECT_CUDA_OK(cpu::adamwStep(makeView(p.data(), {n}), makeView(g.data(), {n}),
                                       makeView(m.data(), {n}), makeView(v.data(), {n}),
                                       makeView(&t, {}), options));
    expectUlps(dp.readFloats(), p, 1, "param after replay " + std::to_string(t));
  }
  float want = 0.0f;
  HETC_EXPECT_CUDA_OK(cpu::globalNorm({makeView(g.data(), {n})}, makeView(&want, {})));
  expectUlps(dnorm.readFloats(), {want}, 1, "norm");

  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
}

// A schedule computed on the device from the step index on the device, fed
// to SGD and AdamW as their lr factor, matches the CPU step by step.
TEST(CudaLrSchedule, ScheduledUpdatesMatchCpu) {
  HETC_REQUIRE_CUDA();
  const int64_t n = 5000;
  LrSchedule schedule{LrScheduleKind::kCosine, 2, 6, 0.1};
  SgdOptions sgd;
  sgd.lr = 0.05;
  AdamWOptions adam;
  adam.lr = 0.01;
  adam.weightDecay = 0.1;
  std::vector<float> p = randomValues(n, DType::kF32, -1.0f, 1.0f, 31);
  std::vector<float> q = p, m(n, 0.0f), v(n, 0.0f);
  std::vector<float> g = randomValues(n, DType::kF32, -1.0f, 1.0f, 32);
  DeviceTensor dp(DType::kF32, {n}, p), dq(DType::kF32, {n}, q),
      dg(DType::kF32, {n}, g), dm(DType::kF32, {n}), dv(DType::kF32, {n}),
      dindex(DType::kI64, {}), dcount(DType::kI64, {}),
      dfactor(DType::kF64, {});
  TensorView deviceFactor = dfactor.view();
  for (int64_t it = 0; it < 8; ++it) {
    writeStep(dindex, DType::kI64, it);
    writeStep(dcount, DType::kI64, it + 1);
    HETC_EXPECT_CUDA_OK(lrSchedule(dindex.view(), schedule, dfactor.view()));
    HETC_EXPECT_CUDA_OK(sgdStep(dp.view(), dg.view(), sgd, &deviceFactor));
    HETC_EXPECT_CUDA_OK(adamwStep(dq.view(), dg.view(), dm.view(), dv.view(),
                                  dcount.view(), adam, &deviceFactor));
    double factor = 0.0;
    int64_t count = it + 1;
    HETC_EXPECT_CUDA_OK(cpu::lrSchedule(makeView(&it, {}), schedule,
                                        makeView(&factor, {})));
    TensorView cpuFactor = makeView(&factor, {});
    HETC_EXPECT_CUDA_OK(cpu::sgdStep(makeView(p.data(), {n}),
                                     makeView(g.data(), {n}), sgd, &cpuFactor));
    HETC_EXPECT_CUDA_OK(cpu::adamwStep(
        makeView(q.data(), {n}), makeView(g.data(), {n}), makeView(m.data(), {n}),
        makeView(v.data(), {n}), makeView(&count, {}), adam, &cpuFactor));
    std::string when = "step index " + std::to_string(it) + " ";
    EXPECT_NEAR(dfactor.read<double>()[0], factor, 1e-15) << when;
    expectUlps(dp.readFloats(), p, 1, when + "sgd param");
    expectUlps(dq.readFloats(), q, 1, when + "adamw param");
  }
}

//===----------------------------------------------------------------------===//
// Errors (checked on the host before any launch: no GPU needed)
//===----------------------------------------------------------------------===//

// A view that is never dereferenced: every call below fails its checks.
TensorView fake(DType dtype, Shape shape) {
  return TensorView(reinterpret_cast<void *>(uintptr_t{4096}), dtype,
                    std::move(shape));
}

TEST(CudaOptimizerErrors, LrFactorAndSchedule) {
  TensorView p = fake(DType::kF32, {4}), factor = fake(DType::kF32, {});
  expectInvalid(sgdStep(p, p, SgdOptions(), &factor),
                "lr_factor must be one f64 element");
  expectInvalid(lrSchedule(fake(DType::kF32, {}), LrSchedule(),
                           fake(DType::kF64, {})),
                "lr_schedule: step must be one i64 or i32");
}

TEST(CudaOptimizerErrors, Sgd) {
  SgdOptions o;
  expectInvalid(sgdStep(fake(DType::kI64, {4}), fake(DType::kF32, {4}), o),
                "sgd: param must be f32, bf16 or f16, got i64[4]");
  expectInvalid(sgdStep(fake(DType::kF32, {4}), fake(DType::kI32, {4}), o),
                "sgd: grad must be f32, bf16 or f16");
  expectInvalid(sgdStep(fake(DType::kF32, {4}), fake(DType::kF32, {2, 2}), o),
                "sgd: grad f32[2,2] does not match param f32[4]");
  expectInvalid(sgdStep(TensorView(nullptr, DType::kF32, {4}), fake(DType::kF32, {4}), o),
                "sgd: param has no data");
}

TEST(CudaOptimizerErrors, AdamW) {
  AdamWOptions o;
  TensorView p = fake(DType::kF32, {4}), step = fake(DType::kI64, {});
  expectInvalid(adamwStep(fake(DType::kBF16, {4}), p, p, p, step, o),
                "adamw: param must be f32, got bf16[4]");
  expectInvalid(adamwStep(p, fake(DType::kI32, {4}), p, p, step, o),
                "adamw: grad must be f32, bf16 or f16");
  expectInvalid(adamwStep(p, fake(DType::kF32, {3}), p, p, step, o),
                "adamw: grad f32[3] does not match param f32[4]");
  expectInvalid(adamwStep(p, p, fake(DType::kF16, {4}), p, step, o),
                "adamw: m must be f32, got f16[4]");
  expectInvalid(adamwStep(p, p, p, fake(DType::kF32, {5}), step, o),
                "adamw: v f32[5] does not match param f32[4]");
  expectInvalid(adamwStep(p, p, p, p, fake(DType::kI64, {2}), o),
                "adamw: step must hold one element, got i64[2]");
  expectInvalid(adamwStep(p, p, p, p, TensorView(nullptr, DType::kI64, {}), o),
                "adamw: step has no data");
  AdamWOptions badBeta;
  badBeta.beta2 = 1.0;
  expectInvalid(adamwStep(p, p, p, p, step, badBeta),
                "adamw: betas must be in [0, 1)");
}

TEST(CudaOptimizerErrors, MultiTensorAdamW) {
  TensorView p = fake(DType::kF32, {4}), step = fake(DType::kI64, {});
  std::vector<AdamWTensors> tensors = {{p, p, p, p},
                                       {fake(DType::kF64, {4}), p, p, p}};
  expectInvalid(multiTensorAdamW(tensors, step, AdamWOptions()),
                "multi_tensor_adamw: tensor 1: param must be f32, got f64[4]");
  expectInvalid(multiTensorAdamW({{p, p, p, p}}, fake(DType::kF32, {1, 2}),
                                 AdamWOptions()),
                "multi_tensor_adamw: step must hold one element");
}

TEST(CudaOptimizerErrors, GlobalNorm) {
  TensorView g = fake(DType::kF32, {4});
  expectInvalid(globalNorm({g}, fake(DType::kF32, {1})),
                "global_norm: out must be a 0-D f32 or f64 tensor, got f32[1]");
  expectInvalid(globalNorm({g}, fake(DType::kBF16, {})),
                "global_norm: out must be a 0-D f32 or f64 tensor");
  expectInvalid(globalNorm({g, fake(DType::kI32, {4})}, fake(DType::kF32, {})),
                "global_norm: tensor 1: gradient must be f32, bf16 or f16, got i32[4]");
  expectInvalid(globalNorm({g}, TensorView(nullptr, DType::kF64, {})),
                "global_norm: out has no data");
}

} // namespace
} // namespace hetc::runtime::cuda::test
