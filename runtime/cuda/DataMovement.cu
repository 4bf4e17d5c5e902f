//===- DataMovement.cu ----------------------------------------------------===//
//
// transpose, slice and broadcast are one strided gather (StridedIndex.cuh):
// thread i writes output element i, read from the source through a view,
// moving up to 16 bytes per thread when the innermost dimension is
// contiguous. A view whose last output dimension is strided in the source
// but whose second-to-last is contiguous (a transpose of the last two
// dimensions, with any batch dimensions in front) goes through 32x32
// shared-memory tiles so that reads and writes are both coalesced.
// slice_backward scatters through the same view; concat copies pitched rows.
// range, fill and readScalar are in DataMovementFill.cu.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/DataMovement.h"

#include "runtime/base/DataMovementChecks.h"
#include "runtime/base/SliceParams.h"
#include "runtime/cuda/internal/DeviceFloat.cuh"
#include "runtime/cuda/internal/StridedIndex.cuh"

#include <algorithm>
#include <limits>
#include <string>

namespace hetc::runtime::cuda {
namespace {

using internal::StridedIndex;
using internal::StridedLayout;

constexpr int kThreads = 256;
constexpr int kTile = 32;    // transpose tiles are kTile x kTile elements
constexpr int kTileRows = 8; // blockDim.y of the tile kernel

// Element kernels loop `for (i = firstIndex(); i < n; i += gridStride())`
// so that a capped grid (internal::gridFor) covers any n.
__device__ __forceinline__ int64_t firstIndex() {
  return int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t gridStride() {
  return int64_t(gridDim.x) * blockDim.x;
}

template <typename T, typename I>
__global__ void stridedGatherKernel(const T *src, T *dst, StridedIndex<I> view,
                                    int64_t n) {
  for (int64_t i = firstIndex(); i < n; i += gridStride())
    dst[i] = src[view.offset(static_cast<I>(i))];
}

/// Output [batch..., P, Q] (contiguous) where element (b, p, q) is read from
/// src[batch.offset(b) + p + q * qStride]. blockDim = (kTile, kTileRows);
/// each block moves one kTile x kTile tile at a time: it reads with lanes
/// along p (contiguous in src) and writes with lanes along q (contiguous in
/// dst).
template <typename T>
__global__ void transposeTilesKernel(const T *src, T *dst,
                                     StridedIndex<int64_t> batch, int64_t P,
                                     int64_t Q, int64_t qStride,
                                     int64_t tilesP, int64_t tilesQ,
                                     int64_t numTiles) {
  __shared__ T tile[kTile][kTile + 1]; // +1: no bank conflicts on columns
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (int64_t t = blockIdx.x; t < numTiles; t += gridDim.x) {
    int64_t b = t / (tilesP * tilesQ);
    int64_t rest = t - b * tilesP * tilesQ;
    int64_t p0 = (rest / tilesQ) * kTile, q0 = (rest % tilesQ) * kTile;
    const T *in = src + batch.offset(b);
    T *out = dst + b * P * Q;
    for (int j = ty; j < kTile; j += kTileRows) {
      int64_t p = p0 + tx, q = q0 + j;
      if (p < P && q < Q)
        tile[j][tx] = in[p + q * qStride];
    }
    __syncthreads();
    for (int j = ty; j < kTile; j += kTileRows) {
      int64_t p = p0 + j, q = q0 + tx;
      if (p < P && q < Q)
        out[p * Q + q] = tile[tx][j];
    }
    __syncthreads(); // the next tile overwrites `tile`
  }
}

/// dx[view.offset(i)] (+)= dy[i]. Distinct i reach distinct offsets (slice
/// steps are non-zero), so no two threads touch one element.
template <typename T, typename I>
__global__ void sliceScatterKernel(const T *dy, T *dx, StridedIndex<I> view,
                                   int64_t n, bool accumulate) {
  for (int64_t i = firstIndex(); i < n; i += gridStride()) {
    I off = view.offset(static_cast<I>(i));
    float v = internal::load(dy[i]);
    if (accumulate)
      v += internal::load(dx[off]);
    dx[off] = internal::store<T>(v);
  }
}

/// `rows` rows of `width` elements from src (row pitch srcPitch) to dst
/// (row pitch dstPitch).
template <typename T, typename I>
__global__ void copyRowsKernel(const T *src, T *dst, I width, I srcPitch,
                               I dstPitch, int64_t n) {
  for (int64_t i = firstIndex(); i < n; i += gridStride()) {
    I r = static_cast<I>(i) / width;
    I c = static_cast<I>(i) - r * width;
    dst[r * dstPitch + c] = src[r * srcPitch + c];
  }
}

template <typename T>
__global__ void triluKernel(const T *x, T *y, int64_t n, int64_t rows,
                            int64_t cols, int64_t k, bool upper) {
  for (int64_t i = firstIndex(); i < n; i += gridStride()) {
    int64_t row = i / cols;
    int64_t j = i - row * cols;
    row %= rows;
    bool keep = upper ? j - row >= k : j - row <= k;
    y[i] = keep ? x[i] : T{}; // all-zero bits are 0 in every dtype
  }
}

Status tooManyDims(const char *name) {
  return unimplemented(name, ": more than ", internal::kMaxStridedDims,
                       " dimensions remain after merging contiguous ones");
}

// dst (contiguous over view.dims) = src read through `view`, elements of
// `elemBytes` bytes.
Status stridedGather(const void *src, StridedLayout view, size_t elemBytes,
                     void *dst, const char *name) {
  if (numElements(view.dims) == 0)
    return okStatus();
  internal::collapse(&view);
  cudaStream_t stream = currentStream();
  size_t r = view.dims.size();
  if (r >= 2 && elemBytes <= 8 && view.strides[r - 2] == 1 &&
      view.strides[r - 1] != 1 && view.dims[r - 2] >= 8 &&
      view.dims[r - 1] >= 8) {
    StridedLayout batch;
    batch.dims.assign(view.dims.begin(), view.dims.end() - 2);
    batch.strides.assign(view.strides.begin(), view.strides.end() - 2);
    batch.base = view.base;
    StridedIndex<int64_t> index;
    if (!internal::makeIndex(batch, &index))
      return tooManyDims(name);
    int64_t P = view.dims[r - 2], Q = view.dims[r - 1];
    int64_t tilesP = (P + kTile - 1) / kTile, tilesQ = (Q + kTile - 1) / kTile;
    int64_t numTiles = numElements(batch.dims) * tilesP * tilesQ;
    internal::dispatchWidth(elemBytes, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (sizeof(T) <= 8)
        transposeTilesKernel<T>
            <<<internal::gridFor(numTiles, 1), dim3(kTile, kTileRows), 0,
               stream>>>(static_cast<const T *>(src), static_cast<T *>(dst),
                         index, P, Q, view.strides[r - 1], tilesP, tilesQ,
                         numTiles);
    });
    return launchStatus(name);
  }
  if (r > static_cast<size_t>(internal::kMaxStridedDims))
    return tooManyDims(name);
  size_t width = internal::widen(&view, elemBytes, src, dst);
  int64_t n = numElements(view.dims);
  bool small = internal::fitsInt32(view);
  StridedIndex<int32_t> index32;
  StridedIndex<int64_t> index64;
  internal::makeIndex(view, &index32);
  internal::makeIndex(view, &index64);
  unsigned blocks = internal::gridFor(n, kThreads);
  internal::dispatchWidth(width, [&](auto tag) {
    using T = decltype(tag);
    const T *s = static_cast<const T *>(src);
    T *d = static_cast<T *>(dst);
    if (small)
      stridedGatherKernel<<<blocks, kThreads, 0, stream>>>(s, d, index32, n);
    else
      stridedGatherKernel<<<blocks, kThreads, 0, stream>>>(s, d, index64, n);
  });
  return launchStatus(name);
}

Status checkFloat(const TensorView &t, const char *what) {
  if (t.dtype != DType::kF32 && t.dtype != DType::kBF16 &&
      t.dtype != DType::kF16)
    return invalidArgument(what, " must be f32, bf16 or f16, got ",
                           t.describe());
  return okStatus();
}

// `rows` rows of `widthBytes` bytes from src to dst, with row pitches in
// bytes.
Status copyRows(const char *src, char *dst, int64_t rows, int64_t widthBytes,
                int64_t srcPitch, int64_t dstPitch, const char *name) {
  cudaStream_t stream = currentStream();
  if (rows == 0 || widthBytes == 0)
    return okStatus();
  if (rows == 1 || (srcPitch == widthBytes && dstPitch == widthBytes)) {
    HETC_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst, src, rows * widthBytes,
                                              cudaMemcpyDeviceToDevice,
                                              stream));
    return okStatus();
  }
  // The widest element (at most 16 bytes) that divides every size and
  // address.
  uint64_t all = static_cast<uint64_t>(widthBytes | srcPitch | dstPitch) |
                 reinterpret_cast<uintptr_t>(src) |
                 reinterpret_cast<uintptr_t>(dst);
  int64_t w = 16;
  while (all % w != 0)
    w /= 2;
  int64_t width = widthBytes / w, sp = srcPitch / w, dp = dstPitch / w;
  int64_t n = rows * width;
  bool small = rows * std::max(sp, dp) <= std::numeric_limits<int32_t>::max();
  internal::dispatchWidth(static_cast<size_t>(w), [&](auto tag) {
    using T = decltype(tag);
    const T *s = reinterpret_cast<const T *>(src);
    T *d = reinterpret_cast<T *>(dst);
    unsigned blocks = internal::gridFor(n, kThreads);
    if (small)
      copyRowsKernel<T, int32_t><<<blocks, kThreads, 0, stream>>>(
          s, d, static_cast<int32_t>(width), static_cast<int32_t>(sp),
          static_cast<int32_t>(dp), n);
    else
      copyRowsKernel<T, int64_t>
          <<<blocks, kThreads, 0, stream>>>(s, d, width, sp, dp, n);
  });
  return launchStatus(name);
}

} // namespace

Status transpose(const TensorView &x, const std::vector<int64_t> &perm,
                 const TensorView &y) {
  StridedLayout view;
  HETC_RETURN_IF_ERROR(planTranspose(x, perm, y, &view));
  return stridedGather(x.data, view, dtypeSize(x.dtype), y.data, "transpose");
}

Status slice(const TensorView &x, const SliceParams &params,
             const TensorView &y) {
  StridedLayout view;
  HETC_RETURN_IF_ERROR(planSlice(x, params, y, &view));
  return stridedGather(x.data, view, dtypeSize(x.dtype), y.data, "slice");
}

Status sliceBackward(const TensorView &dy, const SliceParams &params,
                     const TensorView &dx, bool accumulate) {
  const char *name = "slice_backward";
  HETC_RETURN_IF_ERROR(checkFloat(dy, "dy"), name);
  HETC_RETURN_IF_ERROR(checkDType(dx, dy.dtype, "dx"), name);
  HETC_RETURN_IF_ERROR(checkData(dy, "dy"), name);
  HETC_RETURN_IF_ERROR(checkData(dx, "dx"), name);
  ResolvedSlice s;
  HETC_RETURN_IF_ERROR(resolveSlice(dx.shape, params, &s), name);
  HETC_RETURN_IF_ERROR(checkShape(dy, s.count, "dy"), name);
  cudaStream_t stream = currentStream();
  if (!accumulate && dx.numel() > 0)
    HETC_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(dx.data, 0, dx.byteSize(), stream));
  int64_t n = dy.numel();
  if (n == 0)
    return okStatus();
  StridedLayout view = sliceLayout(dx.shape, s);
  internal::collapse(&view);
  bool small = internal::fitsInt32(view);
  StridedIndex<int32_t> index32;
  StridedIndex<int64_t> index64;
  if (!internal::makeIndex(view, &index32) ||
      !internal::makeIndex(view, &index64))
    return tooManyDims(name);
  unsigned blocks = internal::gridFor(n, kThreads);
  internal::dispatchFloat(dy.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *g = dy.as<T>();
    T *d = dx.as<T>();
    if (small)
      sliceScatterKernel<<<blocks, kThreads, 0, stream>>>(g, d, index32, n,
                                                          accumulate);
    else
      sliceScatterKernel<<<blocks, kThreads, 0, stream>>>(g, d, index64, n,
                                                          accumulate);
  });
  return launchStatus(name);
}

Status concat(const std::vector<TensorView> &inputs, int64_t axis,
              const TensorView &out) {
  int64_t a;
  HETC_RETURN_IF_ERROR(checkConcat(inputs, axis, out, &a));
  int64_t outer = numElements(Shape(out.shape.begin(), out.shape.begin() + a));
  int64_t inner = numElements(Shape(out.shape.begin() + a + 1, out.shape.end()));
  int64_t elem = static_cast<int64_t>(dtypeSize(out.dtype));
  int64_t outRow = out.shape[a] * inner * elem;
  int64_t offset = 0;
  // Each input is `outer` rows of its own width placed at its offset in
  // every row of out.
  for (const TensorView &in : inputs) {
    int64_t bytes = in.shape[a] * inner * elem;
    HETC_RETURN_IF_ERROR(copyRows(static_cast<const char *>(in.data),
                                  static_cast<char *>(out.data) + offset,
                                  outer, bytes, bytes, outRow, "concat"));
    offset += bytes;
  }
  return okStatus();
}

Status broadcastTo(const TensorView &x, const TensorView &out) {
  StridedLayout view;
  HETC_RETURN_IF_ERROR(planBroadcastTo(x, out, &view));
  return stridedGather(x.data, view, dtypeSize(x.dtype), out.data,
                       "broadcast");
}

Status trilu(const TensorView &x, int64_t k, bool upper, const TensorView &y) {
  HETC_RETURN_IF_ERROR(checkTrilu(x, y));
  int64_t n = x.numel();
  if (n == 0)
    return okStatus();
  int64_t rows = x.shape[x.rank() - 2], cols = x.shape.back();
  cudaStream_t stream = currentStream();
  internal::dispatchWidth(dtypeSize(x.dtype), [&](auto tag) {
    using T = decltype(tag);
    triluKernel<<<internal::gridFor(n, kThreads), kThreads, 0, stream>>>(
        x.as<const T>(), y.as<T>(), n, rows, cols, k, upper);
  });
  return launchStatus("trilu");
}

Status copy(const TensorView &x, const TensorView &y) {
  HETC_RETURN_IF_ERROR(checkCopy(x, y));
  if (x.numel() > 0 && x.data != y.data)
    HETC_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(y.data, x.data, x.byteSize(),
                                              cudaMemcpyDeviceToDevice,
                                              currentStream()));
  return okStatus();
}

} // namespace hetc::runtime::cuda
