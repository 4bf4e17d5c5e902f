//===- DataMovementFill.cu ------------------------------------------------===//
//
// range and fill of DataMovement.h (values made from host scalars, one
// thread per element) and readScalar, the one kernel that reads device
// memory on the host.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/DataMovement.h"

#include "runtime/base/Convert.h"
#include "runtime/base/DataMovementChecks.h"
#include "runtime/base/Half.h"
#include "runtime/cuda/internal/DeviceFloat.cuh"
#include "runtime/cuda/internal/StridedIndex.cuh"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace hetc::runtime::cuda {
namespace {

constexpr int kThreads = 256;

// Element kernels loop `for (i = firstIndex(); i < n; i += gridStride())`
// so that a capped grid (internal::gridFor) covers any n.
__device__ __forceinline__ int64_t firstIndex() {
  return int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t gridStride() {
  return int64_t(gridDim.x) * blockDim.x;
}

template <typename T> __device__ T fromDouble(double v);
template <> __device__ float fromDouble<float>(double v) {
  return static_cast<float>(v);
}
template <> __device__ double fromDouble<double>(double v) { return v; }
template <> __device__ __nv_bfloat16 fromDouble<__nv_bfloat16>(double v) {
  return __double2bfloat16(v);
}
template <> __device__ __half fromDouble<__half>(double v) {
  return __double2half(v);
}

template <typename T>
__global__ void rangeFloatKernel(T *out, int64_t n, double start,
                                 double delta) {
  for (int64_t i = firstIndex(); i < n; i += gridStride())
    out[i] = fromDouble<T>(start + static_cast<double>(i) * delta);
}

template <typename T>
__global__ void rangeIntKernel(T *out, int64_t n, int64_t start,
                               int64_t delta) {
  for (int64_t i = firstIndex(); i < n; i += gridStride())
    out[i] = static_cast<T>(start + i * delta);
}

template <typename T>
__global__ void fillKernel(T *out, int64_t n, T value) {
  for (int64_t i = firstIndex(); i < n; i += gridStride())
    out[i] = value;
}

} // namespace

Status range(double start, double limit, double delta, const TensorView &out) {
  HETC_RETURN_IF_ERROR(checkRange(start, limit, delta, out,
                                  "f32, f64, i64, i32, bf16 or f16"));
  int64_t count = out.shape[0];
  if (count == 0)
    return okStatus();
  cudaStream_t stream = currentStream();
  unsigned blocks = internal::gridFor(count, kThreads);
  int64_t s = static_cast<int64_t>(start), d = static_cast<int64_t>(delta);
  switch (out.dtype) {
  case DType::kI64:
    rangeIntKernel<<<blocks, kThreads, 0, stream>>>(out.as<int64_t>(), count,
                                                    s, d);
    break;
  case DType::kI32:
    rangeIntKernel<<<blocks, kThreads, 0, stream>>>(out.as<int32_t>(), count,
                                                    s, d);
    break;
  case DType::kF64:
    rangeFloatKernel<<<blocks, kThreads, 0, stream>>>(out.as<double>(), count,
                                                      start, delta);
    break;
  default:
    internal::dispatchFloat(out.dtype, [&](auto tag) {
      using T = decltype(tag);
      rangeFloatKernel<<<blocks, kThreads, 0, stream>>>(out.as<T>(), count,
                                                        start, delta);
    });
    break;
  }
  return launchStatus("range");
}

Status fill(const TensorView &out, double value) {
  HETC_RETURN_IF_ERROR(checkData(out, "out"), "fill");
  int64_t n = out.numel();
  if (n == 0)
    return okStatus();
  // The element's bit pattern, built on the host.
  unsigned char bits[16] = {};
  size_t size = dtypeSize(out.dtype);
  switch (out.dtype) {
  case DType::kF32: {
    float v = static_cast<float>(value);
    std::memcpy(bits, &v, size);
    break;
  }
  case DType::kF64:
    std::memcpy(bits, &value, size);
    break;
  case DType::kI64: {
    int64_t v = convertValue<int64_t>(value);
    std::memcpy(bits, &v, size);
    break;
  }
  case DType::kI32: {
    int32_t v = convertValue<int32_t>(value);
    std::memcpy(bits, &v, size);
    break;
  }
  case DType::kBool:
    bits[0] = convertValue<uint8_t>(value);
    break;
  case DType::kBF16: {
    __nv_bfloat16 v = __double2bfloat16(value);
    std::memcpy(bits, &v, size);
    break;
  }
  case DType::kF16: {
    __half v = __double2half(value);
    std::memcpy(bits, &v, size);
    break;
  }
  }
  cudaStream_t stream = currentStream();
  bool zero = std::all_of(bits, bits + size, [](unsigned char b) { return b == 0; });
  if (zero || size == 1) {
    HETC_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(out.data, bits[0], out.byteSize(), stream));
    return okStatus();
  }
  internal::dispatchWidth(size, [&](auto tag) {
    using T = decltype(tag);
    T v;
    std::memcpy(&v, bits, sizeof(T));
    fillKernel<<<internal::gridFor(n, kThreads), kThreads, 0, stream>>>(
        out.as<T>(), n, v);
  });
  return launchStatus("fill");
}

// Waits for the current stream: the host needs the value now (see the
// header).
Status readScalar(const TensorView &t, const char *what, double *value) {
  if (t.numel() != 1)
    return invalidArgument(what, " must hold one element, got ", t.describe());
  HETC_RETURN_IF_ERROR(checkData(t, what));
  unsigned char bytes[8] = {};
  cudaStream_t stream = currentStream();
  HETC_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(bytes, t.data, dtypeSize(t.dtype),
                                            cudaMemcpyDeviceToHost, stream));
  HETC_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  switch (t.dtype) {
  case DType::kF32: {
    float v;
    std::memcpy(&v, bytes, sizeof v);
    *value = v;
    break;
  }
  case DType::kF64:
    std::memcpy(value, bytes, sizeof(double));
    break;
  case DType::kI64: {
    int64_t v;
    std::memcpy(&v, bytes, sizeof v);
    *value = static_cast<double>(v);
    break;
  }
  case DType::kI32: {
    int32_t v;
    std::memcpy(&v, bytes, sizeof v);
    *value = v;
    break;
  }
  case DType::kBool:
    *value = bytes[0] ? 1.0 : 0.0;
    break;
  case DType::kBF16:
  case DType::kF16: {
    uint16_t v;
    std::memcpy(&v, bytes, sizeof v);
    *value = t.dtype == DType::kBF16 ? bf16ToFloat(v) : f16ToFloat(v);
    break;
  }
  }
  return okStatus();
}

} // namespace hetc::runtime::cuda
