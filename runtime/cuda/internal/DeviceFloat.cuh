//===- DeviceFloat.cuh - f32, bf16 and f16 in device code -------*- CUDA -*-===//
//
// Kernels are templates over the storage type of their float tensors and
// compute in f32: load() widens, store() rounds to nearest even once.
// dispatchFloat() maps a runtime DType to the storage type on the host.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CUDA_INTERNAL_DEVICEFLOAT_CUH
#define HETC_RUNTIME_CUDA_INTERNAL_DEVICEFLOAT_CUH

#include "runtime/base/Tensor.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace hetc::runtime::cuda::internal {

__device__ __forceinline__ float load(float x) { return x; }
__device__ __forceinline__ float load(__nv_bfloat16 x) {
  return __bfloat162float(x);
}
__device__ __forceinline__ float load(__half x) { return __half2float(x); }

template <typename T> __device__ __forceinline__ T store(float x);
template <> __device__ __forceinline__ float store<float>(float x) {
  return x;
}
template <> __device__ __forceinline__ __nv_bfloat16 store<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}
template <> __device__ __forceinline__ __half store<__half>(float x) {
  return __float2half_rn(x);
}

/// Calls `body(T{})` with T the storage type of `dtype` (float,
/// __nv_bfloat16 or __half); returns false for other dtypes.
template <typename Body> bool dispatchFloat(DType dtype, Body &&body) {
  switch (dtype) {
  case DType::kF32:
    body(float{});
    return true;
  case DType::kBF16:
    body(__nv_bfloat16{});
    return true;
  case DType::kF16:
    body(__half{});
    return true;
  default:
    return false;
  }
}

/// Blocks of `threads` covering `n` items, at least one.
inline unsigned blocksFor(int64_t n, int threads) {
  int64_t blocks = (n + threads - 1) / threads;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

} // namespace hetc::runtime::cuda::internal

#endif // HETC_RUNTIME_CUDA_INTERNAL_DEVICEFLOAT_CUH
