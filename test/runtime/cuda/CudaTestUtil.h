//===- CudaTestUtil.h - CUDA kernels against the CPU backend ----*- C++ -*-===//
//
// Every CUDA kernel test runs the kernel on device copies of random inputs
// and compares with runtime/cpu on the same inputs (rounded to the tested
// dtype first, so that both see identical values). Tests skip, with a
// reason, where no GPU is present.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_TEST_RUNTIME_CUDA_CUDATESTUTIL_H
#define HETC_TEST_RUNTIME_CUDA_CUDATESTUTIL_H

#include "runtime/base/Half.h"
#include "runtime/base/Tensor.h"
#include "runtime/cuda/Stream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace hetc::runtime::cuda::test {

#define HETC_REQUIRE_CUDA()                                                    \
  do {                                                                         \
    if (!::hetc::runtime::cuda::cudaDeviceAvailable())                         \
      GTEST_SKIP() << "no CUDA device";                                        \
  } while (false)

#define HETC_EXPECT_CUDA_OK(expr)                                              \
  do {                                                                         \
    ::hetc::runtime::Status hetc_status_ = (expr);                             \
    ASSERT_TRUE(hetc_status_.ok()) << hetc_status_.toString();                 \
  } while (false)

/// `value` as the tested float dtype would store it (f32 unchanged).
inline float roundTo(DType dtype, float value) {
  switch (dtype) {
  case DType::kBF16:
    return bf16ToFloat(floatToBf16(value));
  case DType::kF16:
    return f16ToFloat(floatToF16(value));
  default:
    return value;
  }
}

/// Uniform values in [lo, hi), already representable in `dtype`.
inline std::vector<float> randomValues(int64_t count, DType dtype,
                                       float lo = -1.0f, float hi = 1.0f,
                                       unsigned seed = 1234) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> values(static_cast<size_t>(count));
  for (float &v : values)
    v = roundTo(dtype, dist(gen));
  return values;
}

/// A device tensor, freed at scope exit. Float dtypes (f32, bf16, f16) are
/// written and read as f32 values; i64, i32 and bool as their own type.
class DeviceTensor {
public:
  DeviceTensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
    size_t bytes = std::max<size_t>(1, numElements(shape_) * dtypeSize(dtype_));
    EXPECT_EQ(cudaMalloc(&data_, bytes), cudaSuccess);
    EXPECT_EQ(cudaMemset(data_, 0, bytes), cudaSuccess);
  }
  /// A float tensor holding `values` (rounded to `dtype`).
  DeviceTensor(DType dtype, Shape shape, const std::vector<float> &values)
      : DeviceTensor(dtype, std::move(shape)) {
    writeFloats(values);
  }
  ~DeviceTensor() { cudaFree(data_); }
  DeviceTensor(const DeviceTensor &) = delete;
  DeviceTensor &operator=(const DeviceTensor &) = delete;

  TensorView view() const { return TensorView(data_, dtype_, shape_); }
  int64_t numel() const { return numElements(shape_); }

  void writeFloats(const std::vector<float> &values) {
    ASSERT_EQ(static_cast<int64_t>(values.size()), numel());
    std::vector<uint8_t> bytes(values.size() * dtypeSize(dtype_));
    for (size_t i = 0; i < values.size(); ++i) {
      if (dtype_ == DType::kF32) {
        std::memcpy(&bytes[i * 4], &values[i], 4);
      } else {
        uint16_t bits = dtype_ == DType::kBF16 ? floatToBf16(values[i])
                                                : floatToF16(values[i]);
        std::memcpy(&bytes[i * 2], &bits, 2);
      }
    }
    writeBytes(bytes.data(), bytes.size());
  }
  template <typename T> void write(const std::vector<T> &values) {
    ASSERT_EQ(values.size() * sizeof(T), numel() * dtypeSize(dtype_));
    writeBytes(values.data(), values.size() * sizeof(T));
  }

  std::vector<float> readFloats() const {
    std::vector<uint8_t> bytes = readBytes();
    std::vector<float> values(static_cast<size_t>(numel()));
    for (size_t i = 0; i < values.size(); ++i) {
      if (dtype_ == DType::kF32) {
        std::memcpy(&values[i], &bytes[i * 4], 4);
      } else {
        uint16_t bits;
        std::memcpy(&bits, &bytes[i * 2], 2);
        values[i] = dtype_ == DType::kBF16 ? bf16ToFloat(bits) : f16ToFloat(bits);
      }
    }
    return values;
  }
  template <typename T> std::vector<T> read() const {
    std::vector<uint8_t> bytes = readBytes();
    std::vector<T> values(bytes.size() / sizeof(T));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
    return values;
  }

private:
  void writeBytes(const void *src, size_t bytes) {
    EXPECT_EQ(cudaMemcpy(data_, src, bytes, cudaMemcpyHostToDevice), cudaSuccess);
  }
  std::vector<uint8_t> readBytes() const {
    // Kernels run on the current stream: wait for them first.
    EXPECT_EQ(cudaStreamSynchronize(currentStream()), cudaSuccess);
    std::vector<uint8_t> bytes(numel() * dtypeSize(dtype_));
    EXPECT_EQ(cudaMemcpy(bytes.data(), data_, bytes.size(), cudaMemcpyDeviceToHost),
              cudaSuccess);
    return bytes;
  }

  DType dtype_;
  Shape shape_;
  void *data_ = nullptr;
};

/// Every |got - want| <= atol + rtol * |want|; reports the first few misses.
inline void expectClose(const std::vector<float> &got,
                        const std::vector<float> &want, double rtol,
                        double atol, const char *what = "") {
  ASSERT_EQ(got.size(), want.size()) << what;
  int misses = 0;
  for (size_t i = 0; i < got.size() && misses < 5; ++i) {
    double tol = atol + rtol * std::fabs(want[i]);
    if (!(std::fabs(double(got[i]) - double(want[i])) <= tol)) {
      ADD_FAILURE() << what << "[" << i << "]: got " << got[i] << ", want "
                    << want[i] << " (tolerance " << tol << ")";
      ++misses;
    }
  }
}

/// The relative tolerance of a value computed in f32 and stored in `dtype`
/// (one rounding: half an ulp), plus `slack` for f32 reduction order.
inline double storageTolerance(DType dtype, double slack = 1e-5) {
  switch (dtype) {
  case DType::kBF16:
    return 1.0 / 256 + slack;
  case DType::kF16:
    return 1.0 / 2048 + slack;
  default:
    return slack;
  }
}

} // namespace hetc::runtime::cuda::test

#endif // HETC_TEST_RUNTIME_CUDA_CUDATESTUTIL_H
