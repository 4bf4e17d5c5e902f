//===- SoftmaxTest.cpp - CUDA Softmax against the CPU backend -------------===//

#include "runtime/cpu/Softmax.h"
#include "runtime/cuda/Softmax.h"

#include "test/runtime/cuda/CudaTestUtil.h"

#include <functional>
#include <limits>

namespace hetc::runtime::cuda::test {
namespace {

const DType kFloatTypes[] = {DType::kF32, DType::kBF16, DType::kF16};

struct AxisCase {
  Shape shape;
  int64_t axis;
};

// The last axis (rows of 1, 3, 769 and 50257 elements) and strided ones:
// inner sizes below, at and above the 32 rows a block owns.
const AxisCase kCases[] = {
    {{1, 1}, -1},     {{4, 3}, -1},      {{5}, 0},
    {{4, 769}, 1},    {{2, 50257}, -1},  {{4, 5, 6}, 1},
    {{7, 40, 33}, 0}, {{2, 37, 65}, -2}, {{3, 9, 32}, 1},
};

using Forward = Status (*)(const TensorView &, int64_t, const TensorView &);
using Backward = Status (*)(const TensorView &, const TensorView &, int64_t,
                            const TensorView &);

std::string label(const AxisCase &c, DType dtype) {
  return shapeToString(c.shape) + " axis " + std::to_string(c.axis) + " " +
         dtypeName(dtype);
}

void checkForward(const AxisCase &c, DType dtype, Forward gpu, Forward cpu,
                  double atol) {
  SCOPED_TRACE(label(c, dtype));
  int64_t n = numElements(c.shape);
  std::vector<float> x = randomValues(n, dtype, -4.0f, 4.0f, 21);
  std::vector<float> want(n);
  ASSERT_TRUE(
      cpu(makeView(x.data(), c.shape), c.axis, makeView(want.data(), c.shape))
          .ok());
  DeviceTensor dX(dtype, c.shape, x), dY(dtype, c.shape);
  HETC_EXPECT_CUDA_OK(gpu(dX.view(), c.axis, dY.view()));
  expectClose(dY.readFloats(), want, storageTolerance(dtype, 2e-5), atol, "y");
}

// y is the CPU forward's output (rounded to dtype), as in training.
void checkBackward(const AxisCase &c, DType dtype, Forward cpuForward,
                   Backward gpu, Backward cpu, double atol) {
  SCOPED_TRACE(label(c, dtype));
  int64_t n = numElements(c.shape);
  std::vector<float> x = randomValues(n, DType::kF32, -4.0f, 4.0f, 22);
  std::vector<float> y(n), want(n);
  ASSERT_TRUE(cpuForward(makeView(x.data(), c.shape), c.axis,
                         makeView(y.data(), c.shape))
                  .ok());
  for (float &v : y)
    v = roundTo(dtype, v);
  std::vector<float> dy = randomValues(n, dtype, -1.0f, 1.0f, 23);
  ASSERT_TRUE(cpu(makeView(y.data(), c.shape), makeView(dy.data(), c.shape),
                  c.axis, makeView(want.data(), c.shape))
                  .ok());
  DeviceTensor dY(dtype, c.shape, y), dDy(dtype, c.shape, dy),
      dDx(dtype, c.shape);
  HETC_EXPECT_CUDA_OK(gpu(dY.view(), dDy.view(), c.axis, dDx.view()));
  expectClose(dDx.readFloats(), want, storageTolerance(dtype, 2e-5), atol,
              "dx");
}

TEST(CudaSoftmax, ForwardMatchesCpu) {
  HETC_REQUIRE_CUDA();
  for (const AxisCase &c : kCases)
    for (DType dtype : kFloatTypes)
      checkForward(c, dtype, cuda::softmax, cpu::softmax, 1e-6);
}

TEST(CudaLogSoftmax, ForwardMatchesCpu) {
  HETC_REQUIRE_CUDA();
  for (const AxisCase &c : kCases)
    for (DType dtype : kFloatTypes)
      checkForward(c, dtype, cuda::logSoftmax, cpu::logSoftmax, 1e-5);
}

TEST(CudaSoftmax, BackwardMatchesCpu) {
  HETC_REQUIRE_CUDA();
  for (const AxisCase &c : kCases)
    for (DType dtype : kFloatTypes)
      checkBackward(c, dtype, cpu::softmax, cuda::softmaxBackward,
                    cpu::softmaxBackward, 1e-6);
}

TEST(CudaLogSoftmax, BackwardMatchesCpu) {
  HETC_REQUIRE_CUDA();
  for (const AxisCase &c : kCases)
    for (DType dtype : kFloatTypes)
      checkBackward(c, dtype, cpu::logSoftmax, cuda::logSoftmaxBackward,
                    cpu::logSoftmaxBackward, 1e-5);
}

// Large logits stay exact in log space; an all -inf row is NaN, as on the
// CPU; y may be x.
TEST(CudaSoftmax, SpecialValuesAndInPlace) {
  HETC_REQUIRE_CUDA();
  const float inf = std::numeric_limits<float>::infinity();
  Shape shape{3, 4};
  std::vector<float> x = {1000.0f, 1001.0f, 999.0f, 1000.5f, //
                          -inf,    -inf,    -inf,   -inf,    //
                          0.0f,    -inf,    2.0f,   1.0f};
  for (Forward gpu : {cuda::softmax, cuda::logSoftmax}) {
    Forward cpu = gpu == cuda::softmax ? cpu::softmax : cpu::logSoftmax;
    std::vector<float> want(12);
    ASSERT_TRUE(
        cpu(makeView(x.data(), shape), -1, makeView(want.data(), shape)).ok());
    DeviceTensor t(DType::kF32, shape, x);
    HETC_EXPECT_CUDA_OK(gpu(t.view(), -1, t.view()));
    std::vector<float> got = t.readFloats();
    for (int i = 0; i < 12; ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(got[i])) << i << ": " << got[i];
      } else if (std::isinf(want[i])) {
        EXPECT_EQ(got[i], want[i]) << i;
      } else {
        EXPECT_NEAR(got[i], want[i], 1e-5 + 1e-6 * std::fabs(want[i])) << i;
      }
    }
  }
}

// The strided kernel's rows overlap nothing when y is x either.
TEST(CudaSoftmax, StridedInPlace) {
  HETC_REQUIRE_CUDA();
  Shape shape{3, 50, 40};
  std::vector<float> x = randomValues(6000, DType::kF32, -3.0f, 3.0f, 24);
  std::vector<float> want(6000);
  ASSERT_TRUE(
      cpu::softmax(makeView(x.data(), shape), 1, makeView(want.data(), shape))
          .ok());
  DeviceTensor t(DType::kF32, shape, x);
  HETC_EXPECT_CUDA_OK(softmax(t.view(), 1, t.view()));
  expectClose(t.readFloats(), want, 2e-5, 1e-6, "in place");
}

TEST(CudaSoftmax, Errors) {
  HETC_REQUIRE_CUDA();
  DeviceTensor x(DType::kF32, {2, 3}), yHalf(DType::kF16, {2, 3});
  DeviceTensor yWrong(DType::kF32, {3, 2}), xi(DType::kI64, {2, 3});
  DeviceTensor scalar(DType::kF32, {});
  Status status = softmax(x.view(), -1, yHalf.view());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("softmax"), std::string::npos);
  EXPECT_EQ(logSoftmax(x.view(), 0, yWrong.view()).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(softmax(xi.view(), 0, x.view()).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(softmax(x.view(), 2, x.view()).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(softmax(scalar.view(), 0, scalar.view()).code(),
            StatusCode::kInvalidArgument);
  status = softmaxBackward(x.view(), yHalf.view(), -1, x.view());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("softmax_backward"), std::string::npos);
  EXPECT_EQ(logSoftmaxBackward(x.view(), x.view(), -1, yWrong.view()).code(),
            StatusCode::kInvalidArgument);
}

} // namespace
} // namespace hetc::runtime::cuda::test
