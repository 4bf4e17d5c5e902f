//===- RowReduce.cuh - row walks and fixed-order reductions ----*- CUDA -*-===//
//
// Shared by the row kernels (norms, softmax, cross-entropy, gather): a walk
// over a contiguous row in 16-byte packs with a scalar head and tail (rows of
// any length and offset load vectorized), and warp and block reductions
// whose order depends on the launch shape only, so that results are bitwise
// reproducible and every thread of a block gets the same value.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CUDA_INTERNAL_ROWREDUCE_CUH
#define HETC_RUNTIME_CUDA_INTERNAL_ROWREDUCE_CUH

#include "runtime/cuda/internal/DeviceFloat.cuh"

#include <algorithm>
#include <cstdint>
#include <initializer_list>

namespace hetc::runtime::cuda::internal {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kMaxRowThreads = 1024;

/// Elements of T in a 16-byte pack.
template <typename T>
constexpr int kPackWidth = 16 / static_cast<int>(sizeof(T));

/// The width of a step of a row walk, as a type (generic lambdas read it
/// with decltype(w)::value).
template <int W> struct Width { static constexpr int value = W; };

/// Loads p[0, W) widened to f32. For W > 1, p is 16-byte aligned and W is
/// kPackWidth<T>: one 128-bit load.
template <int W, typename T>
__device__ __forceinline__ void loadPack(const T *p, float (&out)[W]) {
  if constexpr (W == 1) {
    out[0] = load(*p);
  } else {
    static_assert(W * sizeof(T) == 16, "a pack is 16 bytes");
    uint4 raw = *reinterpret_cast<const uint4 *>(p);
    const T *v = reinterpret_cast<const T *>(&raw);
#pragma unroll
    for (int i = 0; i < W; ++i)
      out[i] = load(v[i]);
  }
}

/// Rounds in[0, W) to T and stores them at p (alignment as loadPack).
template <int W, typename T>
__device__ __forceinline__ void storePack(T *p, const float (&in)[W]) {
  if constexpr (W == 1) {
    *p = store<T>(in[0]);
  } else {
    static_assert(W * sizeof(T) == 16, "a pack is 16 bytes");
    uint4 raw;
    T *v = reinterpret_cast<T *>(&raw);
#pragma unroll
    for (int i = 0; i < W; ++i)
      v[i] = store<T>(in[i]);
    *reinterpret_cast<uint4 *>(p) = raw;
  }
}

/// Calls f(c, Width<W>{}) for the elements [c, c + W) of the n-element row
/// at `row`, split among the threads of the block: a scalar head up to the
/// first 16-byte boundary, packs of N (kPackWidth<T>, or 1 for a purely
/// scalar walk), a scalar tail. Which thread gets which elements depends only
/// on n, N and row's address, so every walk over a row (and over any array
/// whose address agrees with row's modulo 16 bytes) hands each element to
/// the same thread: an output may alias the input it is computed from.
template <int N, typename T, typename F>
__device__ __forceinline__ void forEachPack(const T *row, int64_t n, F &&f) {
  const int64_t tid = threadIdx.x, threads = blockDim.x;
  int64_t head = 0;
  if constexpr (N > 1) {
    int64_t misaligned = static_cast<int64_t>(
        (reinterpret_cast<uintptr_t>(row) / sizeof(T)) % N);
    head = misaligned == 0 ? 0 : (n < N - misaligned ? n : N - misaligned);
  }
  for (int64_t c = tid; c < head; c += threads)
    f(c, Width<1>{});
  int64_t packs = (n - head) / N;
  for (int64_t p = tid; p < packs; p += threads)
    f(head + p * N, Width<N>{});
  for (int64_t c = head + packs * N + tid; c < n; c += threads)
    f(c, Width<1>{});
}

/// max that propagates NaN, like the CPU kernels' `x > m || isnan(x)`.
__device__ __forceinline__ float maxOrNaN(float a, float b) {
  return (a > b || a != a) ? a : b;
}

// Butterfly reductions: lanes i and i^k combine the same two values in
// swapped order, which + does not see, so all 32 lanes end with identical
// bits (maxOrNaN sees the order only in the sign of a zero or a NaN's
// payload, which change no result). All 32 lanes must take part.
template <typename V> __device__ __forceinline__ V warpSum(V v) {
#pragma unroll
  for (int k = 16; k > 0; k >>= 1)
    v += __shfl_xor_sync(kFullMask, v, k);
  return v;
}

__device__ __forceinline__ float warpMax(float v) {
#pragma unroll
  for (int k = 16; k > 0; k >>= 1)
    v = maxOrNaN(v, __shfl_xor_sync(kFullMask, v, k));
  return v;
}

// Block reductions over a 1-D block whose size is a multiple of 32, called
// by every thread; `scratch` is 32 values of shared memory that the next
// call may reuse (the leading barrier waits for this call's readers). Each
// warp reduces the per-warp partials itself, so no second broadcast is
// needed.
template <typename V> __device__ __forceinline__ V blockSum(V v, V *scratch) {
  v = warpSum(v);
  __syncthreads();
  if ((threadIdx.x & 31) == 0)
    scratch[threadIdx.x >> 5] = v;
  __syncthreads();
  unsigned lane = threadIdx.x & 31;
  v = lane < (blockDim.x >> 5) ? scratch[lane] : V(0);
  return warpSum(v);
}

__device__ __forceinline__ float blockMax(float v, float *scratch) {
  v = warpMax(v);
  __syncthreads();
  if ((threadIdx.x & 31) == 0)
    scratch[threadIdx.x >> 5] = v;
  __syncthreads();
  unsigned lane = threadIdx.x & 31;
  v = lane < (blockDim.x >> 5) ? scratch[lane] : -INFINITY;
  return warpMax(v);
}

// An online log-sum-exp: (max m, sum s of exp(x - m)) over the values seen.
// -inf values are skipped (they add exp(-inf) = 0 once the max is finite);
// a NaN makes s NaN. The caller turns a max of +-inf into a NaN log-sum, as
// the two-pass CPU kernel gets from exp(inf - inf) or exp(-inf + inf).
__device__ __forceinline__ void maxSumAdd(float &m, float &s, float x) {
  if (x > m) {
    s = s * expf(m - x) + 1.0f; // m = -inf gives s * 0 = 0 (s is 0 then)
    m = x;
  } else if (x != -INFINITY) {
    s += expf(x - m);
  }
}

__device__ __forceinline__ void maxSumMerge(float &m, float &s, float m2,
                                            float s2) {
  float mn = maxOrNaN(m, m2);
  if (mn == -INFINITY) { // neither side saw a value above -inf
    s = 0.0f;
  } else {
    s = s * expf(m - mn) + s2 * expf(m2 - mn);
  }
  m = mn;
}

__device__ __forceinline__ void warpMaxSum(float &m, float &s) {
#pragma unroll
  for (int k = 16; k > 0; k >>= 1) {
    float m2 = __shfl_xor_sync(kFullMask, m, k);
    float s2 = __shfl_xor_sync(kFullMask, s, k);
    maxSumMerge(m, s, m2, s2);
  }
}

/// The online log-sum-exp state of the whole block, in every thread;
/// `scratch` is 64 floats of shared memory (rules as blockSum).
__device__ __forceinline__ void blockMaxSum(float &m, float &s,
                                            float *scratch) {
  warpMaxSum(m, s);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) {
    scratch[threadIdx.x >> 5] = m;
    scratch[32 + (threadIdx.x >> 5)] = s;
  }
  __syncthreads();
  unsigned lane = threadIdx.x & 31;
  bool live = lane < (blockDim.x >> 5);
  m = live ? scratch[lane] : -INFINITY;
  s = live ? scratch[32 + lane] : 0.0f;
  warpMaxSum(m, s);
}

/// log(sum of exp(x - max)) from the online state, NaN where the CPU's
/// two-pass form gets NaN (a max of +-inf: an all -inf row or a +inf).
__device__ __forceinline__ float logSumFrom(float m, float s) {
  return isinf(m) ? NAN : logf(s);
}

// Host side.

/// Threads for a block that owns one row of n elements: about 16 elements
/// (two 16-byte packs of bf16) per thread, 64 to kMaxRowThreads threads.
/// Row kernels declare __launch_bounds__(kMaxRowThreads).
inline unsigned rowThreads(int64_t n) {
  int64_t threads = (n / 16 + 31) / 32 * 32;
  return static_cast<unsigned>(
      std::clamp<int64_t>(threads, 64, kMaxRowThreads));
}

/// Blocks for a grid-stride loop over `items` rows, at least one.
inline unsigned rowBlocks(int64_t items) {
  constexpr int64_t kMaxBlocks = int64_t(1) << 20;
  return static_cast<unsigned>(std::clamp<int64_t>(items, 1, kMaxBlocks));
}

/// OK for an f32, bf16 or f16 tensor with data; the CPU kernels' f32 check,
/// widened.
inline Status checkDeviceFloat(const TensorView &t, const char *what) {
  if (t.dtype != DType::kF32 && t.dtype != DType::kBF16 &&
      t.dtype != DType::kF16)
    return invalidArgument(what, " must be f32, bf16 or f16, got ",
                           t.describe());
  return checkData(t, what);
}

/// Whether the arrays (null ones skipped) agree modulo 16 bytes, so one
/// forEachPack walk can load and store all of them in packs.
inline bool sameAlignment(std::initializer_list<const void *> pointers) {
  uintptr_t first = 0;
  bool seen = false;
  for (const void *p : pointers) {
    if (!p)
      continue;
    uintptr_t a = reinterpret_cast<uintptr_t>(p) % 16;
    if (seen && a != first)
      return false;
    first = a;
    seen = true;
  }
  return true;
}

} // namespace hetc::runtime::cuda::internal

#endif // HETC_RUNTIME_CUDA_INTERNAL_ROWREDUCE_CUH
