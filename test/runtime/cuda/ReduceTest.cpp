//===- ReduceTest.cpp - CUDA Reduce against the CPU backend ---------------===//
//
// runtime/cpu reduces f32; bf16 and f16 inputs are rounded first so both
// backends see the same values. The error tests need no GPU: validation
// runs on the host before any CUDA call.
//
//===----------------------------------------------------------------------===//

#include "test/runtime/cuda/CudaTestUtil.h"

#include "runtime/cpu/Reduce.h"
#include "runtime/cuda/Reduce.h"

#include <limits>

namespace hetc::runtime::cuda::test {
namespace {

const DType kFloatDTypes[] = {DType::kF32, DType::kBF16, DType::kF16};

struct ReduceCase {
  Shape shape;
  std::vector<int64_t> axes;
};

// Each case names the kernel path it exercises.
const ReduceCase kCases[] = {
    {{7, 33, 5}, {1}},         // middle axis, narrow kept rows: lane groups
    {{4, 300}, {1}},           // innermost axis: contiguous runs
    {{3, 70000}, {-1}},        // long rows: 512 lanes and shared memory
    {{37, 3}, {1}},            // short rows: one thread per output
    {{3000, 40}, {0}},         // column sums of 16-byte rows: slices
    {{2, 700, 768}, {0, 1}},   // column sums over several slices
    {{3000, 42}, {0}},         // odd rows, wide kept rows: columns
    {{300, 3, 40}, {1}},       // many column tiles: 32 columns per block
    {{6, 5, 17, 40}, {0, 2}},  // columns with an outer kept group
    {{6, 5, 17, 3}, {0, 2}},   // two reduced groups, narrow rows
    {{2, 3, 4, 5}, {1, 3}},    // alternating groups
    {{5, 1, 7}, {1}},          // a size-1 reduced axis
    {{2, 3, 4}, {}},           // nothing reduced: a copy
    {{2, 3, 4}, {0, 1, 2}},    // everything
    {{9, 8, 1, 100}, {-4, 2}}, // negative and size-1 axes
};

Shape reducedShape(const Shape &shape, const std::vector<int64_t> &axes,
                   bool keepDims) {
  int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<bool> reduced(shape.size(), false);
  for (int64_t a : axes)
    reduced[a < 0 ? a + rank : a] = true;
  Shape out;
  for (size_t k = 0; k < shape.size(); ++k)
    if (!reduced[k])
      out.push_back(shape[k]);
    else if (keepDims)
      out.push_back(1);
  return out;
}

const char *opName(ReduceOp op) {
  return op == ReduceOp::kSum ? "sum" : op == ReduceOp::kMean ? "mean" : "max";
}

// Runs both backends on `values` and compares.
void checkReduce(ReduceOp op, DType dtype, const Shape &shape,
                 const std::vector<int64_t> &axes, bool keepDims,
                 const std::vector<float> &values) {
  Shape ys = reducedShape(shape, axes, keepDims);
  std::vector<float> x = values, want(numElements(ys));
  HETC_EXPECT_CUDA_OK(cpu::reduce(op, makeView(x.data(), shape), axes,
                                  keepDims, makeView(want.data(), ys)));
  DeviceTensor dx(dtype, shape, values), dy(dtype, ys);
  HETC_EXPECT_CUDA_OK(cuda::reduce(op, dx.view(), axes, keepDims, dy.view()));
  std::vector<float> got = dy.readFloats();
  ASSERT_EQ(got.size(), want.size());
  // NaNs (the max of a NaN, the mean of nothing) must match as NaNs.
  for (size_t i = 0; i < got.size(); ++i)
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "[" << i << "]";
      got[i] = want[i] = 0;
    }
  // Both accumulate in double: f32 results differ by an ulp at most.
  expectClose(got, want, storageTolerance(dtype, 1e-6), 1e-6, opName(op));
}

TEST(CudaReduce, MatchesCpuForEveryPathAndDType) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kFloatDTypes)
    for (const ReduceCase &c : kCases)
      for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMean, ReduceOp::kMax})
        for (bool keepDims : {false, true}) {
          SCOPED_TRACE(std::string(dtypeName(dtype)) + " " + opName(op) +
                       shapeToString(c.shape) + " axes " +
                       shapeToString(c.axes) + (keepDims ? " keep" : ""));
          std::vector<float> values =
              randomValues(numElements(c.shape), dtype, -1.0f, 1.0f, 11);
          checkReduce(op, dtype, c.shape, c.axes, keepDims, values);
        }
}

TEST(CudaReduce, MaxPropagatesNaN) {
  HETC_REQUIRE_CUDA();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (DType dtype : kFloatDTypes) {
    SCOPED_TRACE(dtypeName(dtype));
    // Lane groups: one NaN in row 0.
    checkReduce(ReduceOp::kMax, dtype, {2, 3}, {1}, false,
                {1, nan, 3, 4, 5, 6});
    // Columns: one NaN in column 5.
    std::vector<float> values = randomValues(3 * 40, dtype);
    values[40 + 5] = nan;
    checkReduce(ReduceOp::kMax, dtype, {3, 40}, {0}, false, values);
    // Long rows: the NaN sits in one lane's share of row 1.
    values = randomValues(2 * 5000, dtype);
    values[5000 + 4321] = nan;
    checkReduce(ReduceOp::kMax, dtype, {2, 5000}, {1}, false, values);
  }
}

TEST(CudaReduce, EmptyAxis) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kFloatDTypes) {
    DeviceTensor x(dtype, {2, 0}), y(dtype, {2});
    HETC_EXPECT_CUDA_OK(cuda::reduce(ReduceOp::kSum, x.view(), {1}, false,
                                     y.view()));
    EXPECT_EQ(y.readFloats(), (std::vector<float>{0, 0}));
    HETC_EXPECT_CUDA_OK(cuda::reduce(ReduceOp::kMean, x.view(), {1}, false,
                                     y.view()));
    for (float v : y.readFloats())
      EXPECT_TRUE(std::isnan(v));
    // Wide kept rows take the column kernel.
    DeviceTensor wx(dtype, {0, 40}), wy(dtype, {40});
    HETC_EXPECT_CUDA_OK(cuda::reduce(ReduceOp::kSum, wx.view(), {0}, false,
                                     wy.view()));
    EXPECT_EQ(wy.readFloats(), std::vector<float>(40, 0.0f));
    // Nothing to write.
    DeviceTensor ex(dtype, {0, 3}), ey(dtype, {0});
    HETC_EXPECT_CUDA_OK(cuda::reduce(ReduceOp::kMax, ex.view(), {1}, false,
                                     ey.view()));
  }
}

TEST(CudaReduce, Deterministic) {
  HETC_REQUIRE_CUDA();
  const ReduceCase cases[] = {{{64, 3000}, {1}}, {{3000, 40}, {0}},
                              {{6, 5, 17, 3}, {0, 2}}};
  for (const ReduceCase &c : cases) {
    std::vector<float> values =
        randomValues(numElements(c.shape), DType::kF32, -1.0f, 1.0f, 5);
    Shape ys = reducedShape(c.shape, c.axes, false);
    DeviceTensor x(DType::kF32, c.shape, values), a(DType::kF32, ys),
        b(DType::kF32, ys);
    HETC_EXPECT_CUDA_OK(cuda::reduce(ReduceOp::kSum, x.view(), c.axes, false,
                                     a.view()));
    HETC_EXPECT_CUDA_OK(cuda::reduce(ReduceOp::kSum, x.view(), c.axes, false,
                                     b.view()));
    EXPECT_EQ(a.read<uint32_t>(), b.read<uint32_t>()) << shapeToString(c.shape);
  }
}

TEST(CudaReduce, Errors) {
  void *fake = reinterpret_cast<void *>(uintptr_t{256});
  TensorView x(fake, DType::kF32, {2, 3}), y(fake, DType::kF32, {2});
  Status s = cuda::reduce(ReduceOp::kSum, x, {2}, false, y);
  EXPECT_EQ(s.message(), "reduce_sum: axis 2 is out of range for rank 2");
  s = cuda::reduce(ReduceOp::kSum, x, {1, -1}, false, y);
  EXPECT_EQ(s.message(), "reduce_sum: axis -1 is listed twice");
  s = cuda::reduce(ReduceOp::kMean, x, {1}, true, y);
  EXPECT_EQ(s.message(), "reduce_mean: y must have shape [2,1], got [2]");
  s = cuda::reduce(ReduceOp::kMax, TensorView(fake, DType::kF32, {2, 0}), {1},
                   false, y);
  EXPECT_EQ(s.message().rfind("reduce_max: cannot take the maximum over axis 1 "
                              "of size 0",
                              0),
            0u)
      << s.message();
  s = cuda::reduce(ReduceOp::kSum, TensorView(fake, DType::kI64, {2, 3}), {1},
                   false, TensorView(fake, DType::kI64, {2}));
  EXPECT_EQ(s.message(), "reduce_sum: x must be f32, bf16 or f16, got i64[2,3]");
  s = cuda::reduce(ReduceOp::kSum, x, {1}, false,
                   TensorView(fake, DType::kBF16, {2}));
  EXPECT_EQ(s.message(), "reduce_sum: y must be f32, got bf16[2]");
}

} // namespace
} // namespace hetc::runtime::cuda::test
