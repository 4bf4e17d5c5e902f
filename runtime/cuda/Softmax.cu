//===- Softmax.cu - softmax and log-softmax along an axis -----------------===//
//
// The tensor is viewed as [outer, n, inner] around the axis. For the last
// axis (inner == 1) each row is contiguous: one block per row walks it in
// 16-byte packs (forEachPack), a pass for the max (or the dot product), one
// for the sum, one for the output. For other axes a block of 32 x 8 threads
// owns 32 neighbouring rows: threadIdx.x picks the row (consecutive threads
// read consecutive addresses), threadIdx.y splits the row's n elements, and
// the 8 partial results are combined in order through shared memory.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/Softmax.h"

#include "runtime/base/SoftmaxShape.h"
#include "runtime/cuda/internal/DeviceFloat.cuh"
#include "runtime/cuda/internal/RowReduce.cuh"

namespace hetc::runtime::cuda {
namespace {

using namespace internal;

constexpr int kLanes = 32; // strided rows per block
constexpr int kSplit = 8;  // threads per strided row
constexpr unsigned kMaxGridY = 65535;

struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};
struct MaxOp {
  __device__ float operator()(float a, float b) const { return maxOrNaN(a, b); }
};

// ---- the last axis: one block per contiguous row

// y = exp(x - max) / sum, or (x - max) - log(sum) for kLog.
template <typename T, bool kLog, int N>
__global__ void __launch_bounds__(kMaxRowThreads)
    softmaxRowsKernel(const T *x, T *y, int64_t rows, int64_t n) {
  __shared__ float scratch[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T *xr = x + r * n;
    T *yr = y + r * n;
    float m = -INFINITY;
    forEachPack<N>(xr, n, [&](int64_t c, auto w) {
      constexpr int W = decltype(w)::value;
      float v[W];
      loadPack<W>(xr + c, v);
#pragma unroll
      for (int i = 0; i < W; ++i)
        m = maxOrNaN(m, v[i]);
    });
    m = blockMax(m, scratch);
    float sum = 0.0f;
    forEachPack<N>(xr, n, [&](int64_t c, auto w) {
      constexpr int W = decltype(w)::value;
      float v[W];
      loadPack<W>(xr + c, v);
#pragma unroll
      for (int i = 0; i < W; ++i)
        sum += expf(v[i] - m);
    });
    sum = blockSum(sum, scratch);
    // (x - max) - log(sum): subtracting max first keeps large logits exact.
    const float logSum = logf(sum), inv = 1.0f / sum;
    forEachPack<N>(xr, n, [&](int64_t c, auto w) {
      constexpr int W = decltype(w)::value;
      float v[W];
      loadPack<W>(xr + c, v);
#pragma unroll
      for (int i = 0; i < W; ++i)
        v[i] = kLog ? (v[i] - m) - logSum : expf(v[i] - m) * inv;
      storePack<W>(yr + c, v);
    });
  }
}

// From the forward output y: dx = y * (dy - sum(dy * y)), or for kLog
// dx = dy - exp(y) * sum(dy).
template <typename T, bool kLog, int N>
__global__ void __launch_bounds__(kMaxRowThreads)
    softmaxBackwardRowsKernel(const T *y, const T *dy, T *dx, int64_t rows,
                              int64_t n) {
  __shared__ float scratch[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T *yr = y + r * n;
    const T *dyr = dy + r * n;
    T *dxr = dx + r * n;
    float acc = 0.0f;
    forEachPack<N>(yr, n, [&](int64_t c, auto w) {
      constexpr int W = decltype(w)::value;
      float yv[W], g[W];
      loadPack<W>(yr + c, yv);
      loadPack<W>(dyr + c, g);
#pragma unroll
      for (int i = 0; i < W; ++i)
        acc += kLog ? g[i] : g[i] * yv[i];
    });
    acc = blockSum(acc, scratch);
    forEachPack<N>(yr, n, [&](int64_t c, auto w) {
      constexpr int W = decltype(w)::value;
      float yv[W], g[W];
      loadPack<W>(yr + c, yv);
      loadPack<W>(dyr + c, g);
#pragma unroll
      for (int i = 0; i < W; ++i)
        g[i] = kLog ? g[i] - expf(yv[i]) * acc : yv[i] * (g[i] - acc);
      storePack<W>(dxr + c, g);
    });
  }
}

// ---- other axes: 32 strided rows per block

// Combines the kSplit partial values of each row; every thread of the row
// gets the same result. The leading barrier lets `shared` be reused.
template <typename Op>
__device__ __forceinline__ float splitReduce(float v, float (*shared)[kLanes],
                                             Op op) {
  __syncthreads();
  shared[threadIdx.y][threadIdx.x] = v;
  __syncthreads();
  float r = shared[0][threadIdx.x];
#pragma unroll
  for (int k = 1; k < kSplit; ++k)
    r = op(r, shared[k][threadIdx.x]);
  return r;
}

template <typename T, bool kLog>
__global__ void softmaxStridedKernel(const T *x, T *y, int64_t outer, int64_t n,
                                     int64_t inner) {
  __shared__ float shared[kSplit][kLanes];
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kLanes + threadIdx.x;
  const bool active = i < inner; // idle lanes still join the barriers
  for (int64_t o = blockIdx.y; o < outer; o += gridDim.y) {
    const int64_t base = o * n * inner + i;
    float m = -INFINITY;
    if (active)
      for (int64_t j = threadIdx.y; j < n; j += kSplit)
        m = maxOrNaN(m, load(x[base + j * inner]));
    m = splitReduce(m, shared, MaxOp{});
    float sum = 0.0f;
    if (active)
      for (int64_t j = threadIdx.y; j < n; j += kSplit)
        sum += expf(load(x[base + j * inner]) - m);
    sum = splitReduce(sum, shared, SumOp{});
    const float logSum = logf(sum), inv = 1.0f / sum;
    if (active)
      for (int64_t j = threadIdx.y; j < n; j += kSplit) {
        float v = load(x[base + j * inner]);
        y[base + j * inner] =
            store<T>(kLog ? (v - m) - logSum : expf(v - m) * inv);
      }
  }
}

template <typename T, bool kLog>
__global__ void softmaxBackwardStridedKernel(const T *y, const T *dy, T *dx,
                                             int64_t outer, int64_t n,
                                             int64_t inner) {
  __shared__ float shared[kSplit][kLanes];
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kLanes + threadIdx.x;
  const bool active = i < inner;
  for (int64_t o = blockIdx.y; o < outer; o += gridDim.y) {
    const int64_t base = o * n * inner + i;
    float acc = 0.0f;
    if (active)
      for (int64_t j = threadIdx.y; j < n; j += kSplit) {
        float g = load(dy[base + j * inner]);
        acc += kLog ? g : g * load(y[base + j * inner]);
      }
    acc = splitReduce(acc, shared, SumOp{});
    if (active)
      for (int64_t j = threadIdx.y; j < n; j += kSplit) {
        int64_t k = base + j * inner;
        float g = load(dy[k]), yv = load(y[k]);
        dx[k] = store<T>(kLog ? g - expf(yv) * acc : yv * (g - acc));
      }
  }
}

// ---- host side

Status prepare(const char *name, const TensorView &in, const char *inName,
               const TensorView *other, const char *otherName,
               const TensorView &out, const char *outName, int64_t axis,
               SoftmaxAxis *view) {
  HETC_RETURN_IF_ERROR(checkDeviceFloat(in, inName), name);
  return planSoftmaxAxis(name, in, inName, other, otherName, out, outName,
                         axis, view);
}

dim3 stridedGrid(const SoftmaxAxis &v) {
  return dim3(static_cast<unsigned>((v.inner + kLanes - 1) / kLanes),
              static_cast<unsigned>(std::min<int64_t>(v.outer, kMaxGridY)));
}

template <bool kLog>
Status launchForward(const char *name, const TensorView &x, int64_t axis,
                     const TensorView &y) {
  SoftmaxAxis v;
  HETC_RETURN_IF_ERROR(prepare(name, x, "x", nullptr, "", y, "y", axis, &v));
  if (x.numel() == 0)
    return okStatus();
  cudaStream_t stream = currentStream();
  bool packed = sameAlignment({x.data, y.data});
  dispatchFloat(x.dtype, [&](auto t) {
    using T = decltype(t);
    if (v.inner > 1) {
      softmaxStridedKernel<T, kLog>
          <<<stridedGrid(v), dim3(kLanes, kSplit), 0, stream>>>(
              x.as<T>(), y.as<T>(), v.outer, v.n, v.inner);
      return;
    }
    unsigned blocks = rowBlocks(v.outer), threads = rowThreads(v.n);
    if (packed)
      softmaxRowsKernel<T, kLog, kPackWidth<T>>
          <<<blocks, threads, 0, stream>>>(x.as<T>(), y.as<T>(), v.outer, v.n);
    else
      softmaxRowsKernel<T, kLog, 1>
          <<<blocks, threads, 0, stream>>>(x.as<T>(), y.as<T>(), v.outer, v.n);
  });
  return launchStatus(name);
}

template <bool kLog>
Status launchBackward(const char *name, const TensorView &y,
                      const TensorView &dy, int64_t axis,
                      const TensorView &dx) {
  SoftmaxAxis v;
  HETC_RETURN_IF_ERROR(prepare(name, y, "y", &dy, "dy", dx, "dx", axis, &v));
  if (y.numel() == 0)
    return okStatus();
  cudaStream_t stream = currentStream();
  bool packed = sameAlignment({y.data, dy.data, dx.data});
  dispatchFloat(y.dtype, [&](auto t) {
    using T = decltype(t);
    if (v.inner > 1) {
      softmaxBackwardStridedKernel<T, kLog>
          <<<stridedGrid(v), dim3(kLanes, kSplit), 0, stream>>>(
              y.as<T>(), dy.as<T>(), dx.as<T>(), v.outer, v.n, v.inner);
      return;
    }
    unsigned blocks = rowBlocks(v.outer), threads = rowThreads(v.n);
    if (packed)
      softmaxBackwardRowsKernel<T, kLog, kPackWidth<T>>
          <<<blocks, threads, 0, stream>>>(y.as<T>(), dy.as<T>(), dx.as<T>(),
                                           v.outer, v.n);
    else
      softmaxBackwardRowsKernel<T, kLog, 1><<<blocks, threads, 0, stream>>>(
          y.as<T>(), dy.as<T>(), dx.as<T>(), v.outer, v.n);
  });
  return launchStatus(name);
}

} // namespace

Status softmax(const TensorView &x, int64_t axis, const TensorView &y) {
  return launchForward</*kLog=*/false>("softmax", x, axis, y);
}

Status logSoftmax(const TensorView &x, int64_t axis, const TensorView &y) {
  return launchForward</*kLog=*/true>("log_softmax", x, axis, y);
}

Status softmaxBackward(const TensorView &y, const TensorView &dy, int64_t axis,
                       const TensorView &dx) {
  return launchBackward</*kLog=*/false>("softmax_backward", y, dy, axis, dx);
}

Status logSoftmaxBackward(const TensorView &y, const TensorView &dy,
                          int64_t axis, const TensorView &dx) {
  return launchBackward</*kLog=*/true>("log_softmax_backward", y, dy, axis, dx);
}

} // namespace hetc::runtime::cuda
