//===- DataMovementTest.cpp - CUDA DataMovement against the CPU backend ---===//
//
// Pure moves are compared bit for bit with runtime/cpu on random bytes of
// every dtype; slice_backward, range and fill compare values. The error
// tests need no GPU: validation runs on the host before any CUDA call.
//
//===----------------------------------------------------------------------===//

#include "test/runtime/cuda/CudaTestUtil.h"

#include "runtime/cpu/DataMovement.h"
#include "runtime/cuda/DataMovement.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <numeric>

namespace hetc::runtime::cuda::test {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

const DType kAllDTypes[] = {DType::kF32, DType::kF64, DType::kI64, DType::kI32,
                            DType::kBool, DType::kBF16, DType::kF16};
const DType kFloatDTypes[] = {DType::kF32, DType::kBF16, DType::kF16};

// A host tensor of raw bytes: pure moves copy any pattern (bool stays 0/1).
struct HostTensor {
  DType dtype;
  Shape shape;
  std::vector<uint8_t> bytes;

  HostTensor(DType dtype, Shape shape, unsigned seed = 0)
      : dtype(dtype), shape(std::move(shape)),
        bytes(numElements(this->shape) * dtypeSize(dtype)) {
    std::mt19937 gen(seed + 17);
    for (uint8_t &b : bytes)
      b = dtype == DType::kBool ? gen() % 2 : static_cast<uint8_t>(gen());
  }
  TensorView view() { return TensorView(bytes.data(), dtype, shape); }
};

// A device copy of `host`.
class DeviceCopy : public DeviceTensor {
public:
  explicit DeviceCopy(const HostTensor &host)
      : DeviceTensor(host.dtype, host.shape) {
    write(host.bytes);
  }
};

void expectSameBytes(const std::vector<uint8_t> &got,
                     const std::vector<uint8_t> &want) {
  ASSERT_EQ(got.size(), want.size());
  auto miss = std::mismatch(got.begin(), got.end(), want.begin());
  EXPECT_TRUE(miss.first == got.end())
      << "first differing byte " << (miss.first - got.begin()) << " of "
      << got.size();
}

void checkTranspose(DType dtype, const Shape &shape,
                    const std::vector<int64_t> &perm) {
  SCOPED_TRACE(std::string(dtypeName(dtype)) + shapeToString(shape) +
               " perm " + shapeToString(perm));
  Shape ys;
  for (int64_t p : perm)
    ys.push_back(shape[p]);
  HostTensor x(dtype, shape), want(dtype, ys);
  HETC_EXPECT_CUDA_OK(cpu::transpose(x.view(), perm, want.view()));
  DeviceCopy dx(x);
  DeviceTensor dy(dtype, ys);
  HETC_EXPECT_CUDA_OK(cuda::transpose(dx.view(), perm, dy.view()));
  expectSameBytes(dy.read<uint8_t>(), want.bytes);
}

TEST(CudaTranspose, EveryPermutationOfThreeAndFourDims) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kAllDTypes) {
    std::vector<int64_t> perm3 = {0, 1, 2};
    do
      checkTranspose(dtype, {5, 7, 9}, perm3);
    while (std::next_permutation(perm3.begin(), perm3.end()));
    std::vector<int64_t> perm4 = {0, 1, 2, 3};
    do
      checkTranspose(dtype, {3, 4, 5, 6}, perm4);
    while (std::next_permutation(perm4.begin(), perm4.end()));
  }
}

TEST(CudaTranspose, TiledWidenedAndDegenerateShapes) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : {DType::kF32, DType::kBF16, DType::kI64, DType::kBool}) {
    // Last two dims swapped (shared-memory tiles), sizes not multiples of 32.
    checkTranspose(dtype, {3, 33, 65}, {0, 2, 1});
    checkTranspose(dtype, {70, 40}, {1, 0});
    checkTranspose(dtype, {2, 40, 3, 50}, {0, 3, 2, 1});
    checkTranspose(dtype, {4, 3, 37, 9}, {1, 0, 3, 2}); // strided batch
    // Attention head split and merge (the last dim stays: wide moves).
    checkTranspose(dtype, {2, 16, 4, 64}, {0, 2, 1, 3});
    checkTranspose(dtype, {2, 4, 16, 64}, {0, 2, 1, 3});
    checkTranspose(dtype, {2, 16, 4, 64}, {0, 2, 3, 1});
    checkTranspose(dtype, {3, 5, 6}, {1, 0, 2});
    // Size-1 dims, a scalar and an empty tensor.
    checkTranspose(dtype, {1, 7, 1, 3}, {3, 2, 1, 0});
    checkTranspose(dtype, {}, {});
    checkTranspose(dtype, {4, 0, 3}, {2, 1, 0});
  }
}

TEST(CudaTranspose, Errors) {
  void *fake = reinterpret_cast<void *>(uintptr_t{256});
  TensorView x(fake, DType::kI64, {2, 3}), y(fake, DType::kI64, {3, 2});
  Status s = cuda::transpose(x, {1, 1}, y);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "transpose: [1,1] is not a permutation of rank 2");
  s = cuda::transpose(x, {0, 1}, y);
  EXPECT_EQ(s.message(), "transpose: y must have shape [2,3], got [3,2]");
  s = cuda::transpose(x, {1, 0}, TensorView(fake, DType::kF32, {3, 2}));
  EXPECT_EQ(s.message(), "transpose: y must have x's dtype i64, got f32[3,2]");
  // Nine dimensions that no merge can reduce.
  Shape nine(9, 2);
  std::vector<int64_t> reversed(9);
  std::iota(reversed.rbegin(), reversed.rend(), 0);
  s = cuda::transpose(TensorView(fake, DType::kF32, nine), reversed,
                      TensorView(fake, DType::kF32, nine));
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented) << s.toString();
}

struct SliceCase {
  Shape shape;
  SliceParams params;
};

const SliceCase kSlices[] = {
    {{4, 5}, {{1, 0}, {3, 5}, {}, {}}},
    {{4, 5}, {{-2}, {kMax}, {1}, {}}},
    {{3, 8}, {{1}, {100}, {-1}, {3}}},
    {{2, 5}, {{-1}, {kMin}, {1}, {-1}}},            // reversed
    {{2, 6}, {{9, 10}, {-7, 1}, {0, 1}, {-1, -2}}}, // negative steps, clamped
    {{3, 4}, {{1, 3}, {kMax, kMin}, {0, 1}, {kMax, kMin}}},
    {{3, 4}, {{2}, {1}, {0}, {}}}, // empty
    {{2, 6, 3}, {{1}, {5}, {1}, {2}}},
    {{4, 6, 8}, {{1}, {5}, {1}, {}}},                      // wide rows
    {{4, 6, 64}, {{0, 2}, {4, 34}, {0, 2}, {2, 1}}},       // wide, stepped
    {{5, 7, 9, 11}, {{4, 6, 1}, {kMin, 0, 10}, {0, 2, 3}, {-2, -3, 3}}},
    {{3, 5, 7, 2}, {{-1, 0}, {kMin, kMax}, {1, 3}, {-1, 1}}},
};

std::string describe(const SliceCase &c) {
  return shapeToString(c.shape) + " starts " + shapeToString(c.params.starts) +
         " ends " + shapeToString(c.params.ends) + " axes " +
         shapeToString(c.params.axes) + " steps " +
         shapeToString(c.params.steps);
}

TEST(CudaSlice, MatchesCpuForEveryDType) {
  HETC_REQUIRE_CUDA();
  for (const SliceCase &c : kSlices) {
    Shape ys, cpuShape;
    HETC_EXPECT_CUDA_OK(cuda::sliceShape(c.shape, c.params, &ys));
    HETC_EXPECT_CUDA_OK(cpu::sliceShape(c.shape, c.params, &cpuShape));
    ASSERT_EQ(ys, cpuShape) << describe(c);
    for (DType dtype : kAllDTypes) {
      SCOPED_TRACE(std::string(dtypeName(dtype)) + " " + describe(c));
      HostTensor x(dtype, c.shape), want(dtype, ys);
      HETC_EXPECT_CUDA_OK(cpu::slice(x.view(), c.params, want.view()));
      DeviceCopy dx(x);
      DeviceTensor dy(dtype, ys);
      HETC_EXPECT_CUDA_OK(cuda::slice(dx.view(), c.params, dy.view()));
      expectSameBytes(dy.read<uint8_t>(), want.bytes);
    }
  }
}

TEST(CudaSliceBackward, OverwritesAndAccumulates) {
  HETC_REQUIRE_CUDA();
  for (const SliceCase &c : kSlices) {
    Shape ys;
    HETC_EXPECT_CUDA_OK(cpu::sliceShape(c.shape, c.params, &ys));
    for (DType dtype : kFloatDTypes) {
      SCOPED_TRACE(std::string(dtypeName(dtype)) + " " + describe(c));
      std::vector<float> dy = randomValues(numElements(ys), dtype, -1, 1, 3);
      std::vector<float> dx0 =
          randomValues(numElements(c.shape), dtype, -1, 1, 4);
      DeviceTensor ddy(dtype, ys, dy);
      for (bool accumulate : {false, true}) {
        std::vector<float> want = dx0;
        HETC_EXPECT_CUDA_OK(cpu::sliceBackward(makeView(dy.data(), ys),
                                               c.params,
                                               makeView(want.data(), c.shape),
                                               accumulate));
        DeviceTensor ddx(dtype, c.shape, dx0);
        HETC_EXPECT_CUDA_OK(
            cuda::sliceBackward(ddy.view(), c.params, ddx.view(), accumulate));
        expectClose(ddx.readFloats(), want, storageTolerance(dtype, 0), 1e-6,
                    accumulate ? "accumulate" : "overwrite");
      }
    }
  }
}

TEST(CudaSlice, Errors) {
  void *fake = reinterpret_cast<void *>(uintptr_t{256});
  TensorView x(fake, DType::kF32, {3, 4}), y(fake, DType::kF32, {3, 4});
  Status s = cuda::slice(x, {{0}, {2}, {0}, {0}}, y);
  EXPECT_EQ(s.message(), "slice: slice step of axis 0 is 0");
  s = cuda::slice(x, {{0, 0}, {1, 1}, {1, -1}, {}}, y);
  EXPECT_EQ(s.message(), "slice: axis 1 is sliced twice");
  s = cuda::slice(x, {{0}, {2}, {0}, {}}, y);
  EXPECT_EQ(s.message(), "slice: y must have shape [2,4], got [3,4]");
  Shape out;
  s = cuda::sliceShape({3}, {{0, 0}, {1, 1}, {}, {}}, &out);
  EXPECT_EQ(s.message(), "2 slice bounds for rank 1");
  s = cuda::sliceBackward(TensorView(fake, DType::kI64, {2, 4}),
                          {{0}, {2}, {0}, {}}, TensorView(fake, DType::kI64, {3, 4}),
                          false);
  EXPECT_EQ(s.message(),
            "slice_backward: dy must be f32, bf16 or f16, got i64[2,4]");
  s = cuda::sliceBackward(TensorView(fake, DType::kBF16, {2, 4}),
                          {{0}, {2}, {0}, {}}, x, false);
  EXPECT_EQ(s.message(), "slice_backward: dx must be bf16, got f32[3,4]");
}

void checkConcat(DType dtype, const std::vector<Shape> &shapes, int64_t axis,
                 const Shape &outShape) {
  SCOPED_TRACE(std::string(dtypeName(dtype)) + " axis " +
               std::to_string(axis) + " out " + shapeToString(outShape));
  std::vector<HostTensor> hosts;
  for (size_t i = 0; i < shapes.size(); ++i)
    hosts.emplace_back(dtype, shapes[i], static_cast<unsigned>(i));
  std::vector<TensorView> hostViews;
  std::vector<std::unique_ptr<DeviceCopy>> devices;
  std::vector<TensorView> deviceViews;
  for (HostTensor &h : hosts) {
    hostViews.push_back(h.view());
    devices.push_back(std::make_unique<DeviceCopy>(h));
    deviceViews.push_back(devices.back()->view());
  }
  HostTensor want(dtype, outShape);
  HETC_EXPECT_CUDA_OK(cpu::concat(hostViews, axis, want.view()));
  DeviceTensor out(dtype, outShape);
  HETC_EXPECT_CUDA_OK(cuda::concat(deviceViews, axis, out.view()));
  expectSameBytes(out.read<uint8_t>(), want.bytes);
}

TEST(CudaConcat, EveryAxisAndDType) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kAllDTypes) {
    checkConcat(dtype, {{2, 3, 5}, {2, 1, 5}, {2, 4, 5}}, 1, {2, 8, 5});
    checkConcat(dtype, {{2, 3, 5}, {2, 0, 5}, {2, 4, 5}}, -2, {2, 7, 5});
    checkConcat(dtype, {{3, 4}, {1, 4}, {2, 4}}, 0, {6, 4});
    checkConcat(dtype, {{3, 7}, {3, 1}, {3, 9}}, -1, {3, 17});
    checkConcat(dtype, {{8, 2, 64}, {8, 3, 64}, {8, 1, 64}}, 1, {8, 6, 64});
    checkConcat(dtype, {{5, 6}}, 1, {5, 6});
  }
}

TEST(CudaConcat, Errors) {
  void *fake = reinterpret_cast<void *>(uintptr_t{256});
  TensorView out(fake, DType::kF32, {2, 5});
  Status s = cuda::concat({}, 0, out);
  EXPECT_EQ(s.message(), "concat: no inputs");
  s = cuda::concat({TensorView(fake, DType::kF32, {2, 2}),
                    TensorView(fake, DType::kF32, {2, 2})},
                   1, out);
  EXPECT_EQ(s.message(), "concat: inputs add up to 4 along axis 1, out has 5");
  s = cuda::concat({TensorView(fake, DType::kF32, {3, 5})}, 1, out);
  EXPECT_EQ(s.message(),
            "concat: input 0 f32[3,5] does not fit f32[2,5] along axis 1");
  s = cuda::concat({TensorView(fake, DType::kF32, {2, 5})}, 2, out);
  EXPECT_EQ(s.message(), "concat: axis 2 is out of range for rank 2");
}

TEST(CudaBroadcastTo, MatchesCpu) {
  HETC_REQUIRE_CUDA();
  const std::pair<Shape, Shape> cases[] = {
      {{3, 1, 5}, {2, 3, 4, 5}}, {{1}, {7, 9}},  {{}, {4, 33}},
      {{6, 1}, {6, 40}},         {{40, 1}, {3, 40, 33}},
      {{1, 64}, {37, 64}},       {{2, 3}, {2, 3}}, {{5}, {0, 5}}};
  for (DType dtype : kAllDTypes)
    for (const auto &[in, outShape] : cases) {
      SCOPED_TRACE(std::string(dtypeName(dtype)) + shapeToString(in) + " to " +
                   shapeToString(outShape));
      HostTensor x(dtype, in), want(dtype, outShape);
      HETC_EXPECT_CUDA_OK(cpu::broadcastTo(x.view(), want.view()));
      DeviceCopy dx(x);
      DeviceTensor out(dtype, outShape);
      HETC_EXPECT_CUDA_OK(cuda::broadcastTo(dx.view(), out.view()));
      expectSameBytes(out.read<uint8_t>(), want.bytes);
    }
}

TEST(CudaBroadcastTo, Errors) {
  void *fake = reinterpret_cast<void *>(uintptr_t{256});
  Status s = cuda::broadcastTo(TensorView(fake, DType::kF32, {3, 2}),
                               TensorView(fake, DType::kF32, {3, 4}));
  EXPECT_EQ(s.message(), "broadcast: shape [3,2] does not broadcast to [3,4]");
  s = cuda::broadcastTo(TensorView(fake, DType::kF32, {3}),
                        TensorView(fake, DType::kI32, {3}));
  EXPECT_EQ(s.message(), "broadcast: y must have x's dtype f32, got i32[3]");
}

TEST(CudaTrilu, UpperAndLowerWithOffsets) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kAllDTypes)
    for (const Shape &shape : {Shape{2, 5, 7}, Shape{7, 5}, Shape{3, 1, 40}})
      for (int64_t k : {-2, 0, 3})
        for (bool upper : {false, true}) {
          SCOPED_TRACE(std::string(dtypeName(dtype)) + shapeToString(shape) +
                       " k " + std::to_string(k) + (upper ? " upper" : " lower"));
          HostTensor x(dtype, shape), want(dtype, shape);
          HETC_EXPECT_CUDA_OK(cpu::trilu(x.view(), k, upper, want.view()));
          DeviceCopy dx(x);
          DeviceTensor y(dtype, shape);
          HETC_EXPECT_CUDA_OK(cuda::trilu(dx.view(), k, upper, y.view()));
          expectSameBytes(y.read<uint8_t>(), want.bytes);
        }
}

TEST(CudaTrilu, Errors) {
  void *fake = reinterpret_cast<void *>(uintptr_t{256});
  Status s = cuda::trilu(TensorView(fake, DType::kF32, {4}), 0, true,
                         TensorView(fake, DType::kF32, {4}));
  EXPECT_EQ(s.message(), "trilu: x must have rank >= 2, got f32[4]");
}

TEST(CudaRange, MatchesCpu) {
  HETC_REQUIRE_CUDA();
  {
    std::vector<float> want(7);
    HETC_EXPECT_CUDA_OK(cpu::range(-1.5, 2.0, 0.5, makeView(want.data(), {7})));
    for (DType dtype : kFloatDTypes) {
      DeviceTensor out(dtype, {7});
      HETC_EXPECT_CUDA_OK(cuda::range(-1.5, 2.0, 0.5, out.view()));
      expectClose(out.readFloats(), want, storageTolerance(dtype, 0), 0,
                  dtypeName(dtype));
    }
  }
  {
    std::vector<double> want(4);
    HETC_EXPECT_CUDA_OK(cpu::range(0.1, 1.0, 0.25, makeView(want.data(), {4})));
    DeviceTensor out(DType::kF64, {4});
    HETC_EXPECT_CUDA_OK(cuda::range(0.1, 1.0, 0.25, out.view()));
    EXPECT_EQ(out.read<double>(), want);
  }
  {
    std::vector<int64_t> want(1000);
    HETC_EXPECT_CUDA_OK(cpu::range(10, -2990, -3, makeView(want.data(), {1000})));
    DeviceTensor out(DType::kI64, {1000});
    HETC_EXPECT_CUDA_OK(cuda::range(10, -2990, -3, out.view()));
    EXPECT_EQ(out.read<int64_t>(), want);
  }
  {
    std::vector<int32_t> want(5);
    HETC_EXPECT_CUDA_OK(cpu::range(0, 5, 1, makeView(want.data(), {5})));
    DeviceTensor out(DType::kI32, {5});
    HETC_EXPECT_CUDA_OK(cuda::range(0, 5, 1, out.view()));
    EXPECT_EQ(out.read<int32_t>(), want);
  }
  DeviceTensor empty(DType::kI64, {0});
  HETC_EXPECT_CUDA_OK(cuda::range(5, 0, 1, empty.view()));
}

TEST(CudaRange, Errors) {
  void *fake = reinterpret_cast<void *>(uintptr_t{256});
  TensorView i(fake, DType::kI64, {3});
  Status s = cuda::range(0, 5, 1, i);
  EXPECT_EQ(s.message(), "range: [0, 5) by 1 has 5 elements, out has 3");
  s = cuda::range(0, 5, 0, i);
  EXPECT_NE(s.message().find("delta non-zero"), std::string::npos);
  s = cuda::range(0.5, 3, 1, i);
  EXPECT_NE(s.message().find("must be integers"), std::string::npos);
  s = cuda::range(0, 3, 1, TensorView(fake, DType::kBool, {3}));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}

TEST(CudaFill, EveryDType) {
  HETC_REQUIRE_CUDA();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double value : {-0.25, 7.9, 0.0, 3.0, -1e30, 1e30, nan}) {
    SCOPED_TRACE("value " + std::to_string(value));
    // Dtypes runtime/cpu fills: compare bytes.
    for (DType dtype : {DType::kF32, DType::kF64, DType::kI64, DType::kI32,
                        DType::kBool}) {
      HostTensor want(dtype, {37});
      HETC_EXPECT_CUDA_OK(cpu::fill(want.view(), value));
      DeviceTensor out(dtype, {37});
      HETC_EXPECT_CUDA_OK(cuda::fill(out.view(), value));
      std::vector<uint8_t> got = out.read<uint8_t>();
      if (dtype == DType::kF32 || dtype == DType::kF64) {
        // NaN payloads may differ; compare as values.
        if (std::isnan(value))
          continue;
      }
      expectSameBytes(got, want.bytes);
    }
    for (DType dtype : {DType::kBF16, DType::kF16}) {
      DeviceTensor out(dtype, {37});
      HETC_EXPECT_CUDA_OK(cuda::fill(out.view(), value));
      float want = roundTo(dtype, static_cast<float>(value));
      for (float got : out.readFloats())
        if (std::isnan(want))
          EXPECT_TRUE(std::isnan(got));
        else
          EXPECT_EQ(got, want) << dtypeName(dtype);
    }
  }
}

TEST(CudaCopy, ReshapesAndChecks) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kAllDTypes) {
    HostTensor x(dtype, {2, 3});
    DeviceCopy dx(x);
    DeviceTensor y(dtype, {3, 2});
    HETC_EXPECT_CUDA_OK(cuda::copy(dx.view(), y.view()));
    expectSameBytes(y.read<uint8_t>(), x.bytes);
    HETC_EXPECT_CUDA_OK(cuda::copy(dx.view(), dx.view())); // in place: no-op
    expectSameBytes(dx.read<uint8_t>(), x.bytes);
  }
}

TEST(CudaCopy, Errors) {
  void *fake = reinterpret_cast<void *>(uintptr_t{256});
  TensorView x(fake, DType::kF32, {2, 3});
  Status s = cuda::copy(x, TensorView(fake, DType::kF32, {5}));
  EXPECT_EQ(s.message(), "copy: element counts differ: f32[2,3] and f32[5]");
  s = cuda::copy(x, TensorView(fake, DType::kI64, {6}));
  EXPECT_EQ(s.message(), "copy: y must have x's dtype f32, got i64[6]");
}

TEST(CudaReadScalar, EveryDType) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kAllDTypes) {
    HostTensor t(dtype, {});
    double want = 0, got = 0;
    HETC_EXPECT_CUDA_OK(cpu::readScalar(t.view(), "t", &want));
    DeviceCopy dt(t);
    HETC_EXPECT_CUDA_OK(cuda::readScalar(dt.view(), "t", &got));
    if (std::isnan(want))
      EXPECT_TRUE(std::isnan(got)) << dtypeName(dtype);
    else
      EXPECT_EQ(got, want) << dtypeName(dtype);
  }
  DeviceTensor one(DType::kI64, {1, 1});
  one.write(std::vector<int64_t>{-42});
  double v = 0;
  HETC_EXPECT_CUDA_OK(cuda::readScalar(one.view(), "limit", &v));
  EXPECT_EQ(v, -42.0);
}

TEST(CudaReadScalar, Errors) {
  void *fake = reinterpret_cast<void *>(uintptr_t{256});
  double v;
  Status s = cuda::readScalar(TensorView(fake, DType::kF32, {2}), "start", &v);
  EXPECT_EQ(s.message(), "start must hold one element, got f32[2]");
}

} // namespace
} // namespace hetc::runtime::cuda::test
