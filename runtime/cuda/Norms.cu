//===- Norms.cu - layer norm and RMS norm ---------------------------------===//
//
// One block per row (rowThreads(cols) threads) walks the row in 16-byte
// packs (forEachPack) once per pass; GPT-2 rows are a few KB, so the later
// passes hit L1. Statistics are f32 block sums in a fixed order.
//
// The parameter gradients sum over rows: a kernel over 32-column tiles and
// chunks of rows writes one partial sum per (chunk, column) into the
// thread's scratch (RowScratch.h), then a second kernel adds the chunks in
// order. The chunking depends on the shape alone: no atomics, and the same
// bits on every run.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/Norms.h"

#include "runtime/base/NormShape.h"
#include "runtime/cuda/internal/DeviceFloat.cuh"
#include "runtime/cuda/internal/RowReduce.cuh"
#include "runtime/cuda/internal/RowScratch.h"

namespace hetc::runtime::cuda {
namespace {

using namespace internal;

// Parameter gradients: 32 columns x 8 row lanes per block, chunks of at
// least 128 rows, at most 1024 chunks.
constexpr int kGradCols = 32;
constexpr int kGradLanes = 8;
constexpr int64_t kGradMinRowsPerChunk = 128;
constexpr int64_t kGradMaxChunks = 1024;

// y = (x - mean) * rstd * scale + bias, one row per block iteration. With
// `centered` false it is RMS norm: mean 0 (and the caller passes no bias).
template <typename T, typename P, int N>
__global__ void __launch_bounds__(kMaxRowThreads)
    normForwardKernel(const T *x, const P *scale, const P *bias, T *y,
                      float *meanOut, float *rstdOut, int64_t rows,
                      int64_t cols, float epsilon, bool centered) {
  __shared__ float scratch[32];
  const float n = static_cast<float>(cols);
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T *xr = x + r * cols;
    T *yr = y + r * cols;
    float mu = 0.0f;
    if (centered) { // uniform over the block
      float sum = 0.0f;
      forEachPack<N>(xr, cols, [&](int64_t c, auto w) {
        constexpr int W = decltype(w)::value;
        float v[W];
        loadPack<W>(xr + c, v);
#pragma unroll
        for (int i = 0; i < W; ++i)
          sum += v[i];
      });
      mu = blockSum(sum, scratch) / n;
    }
    // The variance around the mean (a second pass, not E[x^2] - mean^2,
    // which cancels badly for rows far from zero).
    float sq = 0.0f;
    forEachPack<N>(xr, cols, [&](int64_t c, auto w) {
      constexpr int W = decltype(w)::value;
      float v[W];
      loadPack<W>(xr + c, v);
#pragma unroll
      for (int i = 0; i < W; ++i) {
        float d = v[i] - mu;
        sq += d * d;
      }
    });
    float rs = 1.0f / sqrtf(blockSum(sq, scratch) / n + epsilon);
    forEachPack<N>(xr, cols, [&](int64_t c, auto w) {
      constexpr int W = decltype(w)::value;
      float v[W];
      loadPack<W>(xr + c, v);
#pragma unroll
      for (int i = 0; i < W; ++i) {
        float o = (v[i] - mu) * rs;
        if (scale)
          o *= load(scale[c + i]);
        if (bias)
          o += load(bias[c + i]);
        v[i] = o;
      }
      storePack<W>(yr + c, v);
    });
    if (threadIdx.x == 0) {
      if (meanOut)
        meanOut[r] = mu;
      if (rstdOut)
        rstdOut[r] = rs;
    }
  }
}

// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) with g = dy * scale and
// xhat = (x - mean) * rstd. A null `mean` is RMS norm: mean 0 and no mean(g)
// term.
template <typename T, typename P, int N>
__global__ void __launch_bounds__(kMaxRowThreads)
    normBackwardKernel(const T *x, const P *scale, const float *mean,
                       const float *rstd, const T *dy, T *dx, int64_t rows,
                       int64_t cols) {
  __shared__ float scratch[32];
  const float n = static_cast<float>(cols);
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T *xr = x + r * cols;
    const T *dyr = dy + r * cols;
    T *dxr = dx + r * cols;
    const float mu = mean ? mean[r] : 0.0f, rs = rstd[r];
    float sumG = 0.0f, sumGX = 0.0f;
    forEachPack<N>(xr, cols, [&](int64_t c, auto w) {
      constexpr int W = decltype(w)::value;
      float xv[W], g[W];
      loadPack<W>(xr + c, xv);
      loadPack<W>(dyr + c, g);
#pragma unroll
      for (int i = 0; i < W; ++i) {
        if (scale)
          g[i] *= load(scale[c + i]);
        sumG += g[i];
        sumGX += g[i] * ((xv[i] - mu) * rs);
      }
    });
    float meanG = mean ? blockSum(sumG, scratch) / n : 0.0f; // uniform
    float meanGX = blockSum(sumGX, scratch) / n;
    forEachPack<N>(xr, cols, [&](int64_t c, auto w) {
      constexpr int W = decltype(w)::value;
      float xv[W], g[W];
      loadPack<W>(xr + c, xv);
      loadPack<W>(dyr + c, g);
#pragma unroll
      for (int i = 0; i < W; ++i) {
        if (scale)
          g[i] *= load(scale[c + i]);
        float xhat = (xv[i] - mu) * rs;
        g[i] = rs * (g[i] - meanG - xhat * meanGX);
      }
      storePack<W>(dxr + c, g);
    });
  }
}

// partScale[chunk][c] = sum over the chunk's rows of dy * xhat and
// partBias[chunk][c] = sum of dy. Block (32, 8): threadIdx.x picks the
// column, threadIdx.y a row lane; lanes are added in order at the end.
template <typename T>
__global__ void paramGradPartialKernel(const T *x, const T *dy,
                                       const float *mean, const float *rstd,
                                       int64_t rows, int64_t cols,
                                       int64_t rowsPerChunk, float *partScale,
                                       float *partBias) {
  __shared__ float sScale[kGradLanes][kGradCols];
  __shared__ float sBias[kGradLanes][kGradCols];
  const int64_t c = static_cast<int64_t>(blockIdx.x) * kGradCols + threadIdx.x;
  const int64_t chunk = blockIdx.y;
  const int64_t r0 = chunk * rowsPerChunk;
  const int64_t r1 = r0 + rowsPerChunk < rows ? r0 + rowsPerChunk : rows;
  float accScale = 0.0f, accBias = 0.0f;
  if (c < cols) {
    for (int64_t r = r0 + threadIdx.y; r < r1; r += kGradLanes) {
      float g = load(dy[r * cols + c]);
      float mu = mean ? mean[r] : 0.0f;
      accScale += g * ((load(x[r * cols + c]) - mu) * rstd[r]);
      accBias += g;
    }
  }
  sScale[threadIdx.y][threadIdx.x] = accScale;
  sBias[threadIdx.y][threadIdx.x] = accBias;
  __syncthreads();
  if (threadIdx.y == 0 && c < cols) {
    float s = 0.0f, b = 0.0f;
#pragma unroll
    for (int k = 0; k < kGradLanes; ++k) {
      s += sScale[k][threadIdx.x];
      b += sBias[k][threadIdx.x];
    }
    partScale[chunk * cols + c] = s;
    partBias[chunk * cols + c] = b;
  }
}

// dscale[c] (+)= sum over chunks of partScale[chunk][c] (in double, as the
// CPU kernel sums), and likewise dbias. One warp per column: its lanes
// stride over the chunks and meet in a fixed shuffle tree, so the order is
// fixed for given shapes. blockDim = (32, columns per block).
template <typename P>
__global__ void paramGradFinalKernel(const float *partScale,
                                     const float *partBias, int64_t chunks,
                                     int64_t cols, P *dscale, P *dbias,
                                     bool accumulate) {
  int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  if (c >= cols)
    return; // the whole warp
  double s = 0.0, b = 0.0;
  for (int64_t k = threadIdx.x; k < chunks; k += 32) {
    s += partScale[k * cols + c];
    b += partBias[k * cols + c];
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    s += __shfl_xor_sync(0xffffffffu, s, offset);
    b += __shfl_xor_sync(0xffffffffu, b, offset);
  }
  if (threadIdx.x != 0)
    return;
  if (dscale)
    dscale[c] = store<P>(static_cast<float>(
        (accumulate ? static_cast<double>(load(dscale[c])) : 0.0) + s));
  if (dbias)
    dbias[c] = store<P>(static_cast<float>(
        (accumulate ? static_cast<double>(load(dbias[c])) : 0.0) + b));
}

// ---- host side

// x as [rows, cols] split at `axis` (NormShape.h).
Status splitRows(const TensorView &x, int64_t axis, int64_t *rows,
                 int64_t *cols, Shape *paramShape) {
  HETC_RETURN_IF_ERROR(checkDeviceFloat(x, "x"));
  return splitNormRows(x, axis, rows, cols, paramShape);
}

// x, y, dy, dx: x's dtype and shape.
Status checkLike(const TensorView &t, const TensorView &x, const char *what) {
  HETC_RETURN_IF_ERROR(checkDType(t, x.dtype, what));
  HETC_RETURN_IF_ERROR(checkData(t, what));
  return checkShape(t, x.shape, what);
}

// The parameters (scale, bias and their gradients) share one float dtype,
// *paramType, taken from the first one present (x's when none is).
Status checkParam(const TensorView *t, const Shape &shape, bool *seen,
                  DType *paramType, const char *what) {
  if (!t)
    return okStatus();
  HETC_RETURN_IF_ERROR(checkDeviceFloat(*t, what));
  if (*seen)
    HETC_RETURN_IF_ERROR(checkDType(*t, *paramType, what));
  *seen = true;
  *paramType = t->dtype;
  return checkShape(*t, shape, what);
}

template <typename T> const T *ptr(const TensorView *t) {
  return t ? t->as<T>() : nullptr;
}
template <typename T> T *mutablePtr(const TensorView *t) {
  return t ? t->as<T>() : nullptr;
}

// Calls body(T{}, P{}) for the storage types of two float dtypes.
template <typename Body> void dispatchFloat2(DType a, DType b, Body &&body) {
  dispatchFloat(a,
                [&](auto t) { dispatchFloat(b, [&](auto p) { body(t, p); }); });
}

Status launchForward(const char *name, const TensorView &x,
                     const TensorView *scale, const TensorView *bias,
                     DType paramType, float epsilon, const TensorView &y,
                     const TensorView *mean, const TensorView *rstd,
                     int64_t rows, int64_t cols, bool centered) {
  if (rows == 0)
    return okStatus();
  cudaStream_t stream = currentStream();
  unsigned blocks = rowBlocks(rows), threads = rowThreads(cols);
  bool packed = sameAlignment({x.data, y.data});
  dispatchFloat2(x.dtype, paramType, [&](auto t, auto p) {
    using T = decltype(t);
    using P = decltype(p);
    auto args = [&](auto kernel) {
      kernel<<<blocks, threads, 0, stream>>>(
          x.as<T>(), ptr<P>(scale), ptr<P>(bias), y.as<T>(),
          mutablePtr<float>(mean), mutablePtr<float>(rstd), rows, cols, epsilon,
          centered);
    };
    if (packed)
      args(normForwardKernel<T, P, kPackWidth<T>>);
    else
      args(normForwardKernel<T, P, 1>);
  });
  return launchStatus(name);
}

Status launchBackward(const char *name, const TensorView &x,
                      const TensorView *scale, DType paramType,
                      const TensorView *mean, const TensorView &rstd,
                      const TensorView &dy, const TensorView &dx, int64_t rows,
                      int64_t cols) {
  if (rows == 0)
    return okStatus();
  cudaStream_t stream = currentStream();
  unsigned blocks = rowBlocks(rows), threads = rowThreads(cols);
  bool packed = sameAlignment({x.data, dy.data, dx.data});
  dispatchFloat2(x.dtype, paramType, [&](auto t, auto p) {
    using T = decltype(t);
    using P = decltype(p);
    auto args = [&](auto kernel) {
      kernel<<<blocks, threads, 0, stream>>>(
          x.as<T>(), ptr<P>(scale), ptr<float>(mean), rstd.as<float>(),
          dy.as<T>(), dx.as<T>(), rows, cols);
    };
    if (packed)
      args(normBackwardKernel<T, P, kPackWidth<T>>);
    else
      args(normBackwardKernel<T, P, 1>);
  });
  return launchStatus(name);
}

// dscale (+)= sum over rows of dy * xhat, dbias (+)= sum of dy (either may
// be null; mean null for RMS norm).
Status launchParamGrads(const char *name, const TensorView &x,
                        const TensorView &dy, const TensorView *mean,
                        const TensorView &rstd, int64_t rows, int64_t cols,
                        const TensorView *dscale, const TensorView *dbias,
                        DType paramType, bool accumulate) {
  int64_t rowsPerChunk = std::max<int64_t>(
      kGradMinRowsPerChunk, (rows + kGradMaxChunks - 1) / kGradMaxChunks);
  int64_t chunks =
      std::max<int64_t>(1, (rows + rowsPerChunk - 1) / rowsPerChunk);
  size_t partBytes = static_cast<size_t>(chunks * cols) * sizeof(float);
  ScratchLayout layout;
  size_t scaleAt = layout.add(partBytes), biasAt = layout.add(partBytes);
  void *scratch = nullptr;
  HETC_RETURN_IF_ERROR(rowScratch(layout.bytes(), &scratch), name);
  float *partScale = scratchAt<float>(scratch, scaleAt);
  float *partBias = scratchAt<float>(scratch, biasAt);

  cudaStream_t stream = currentStream();
  dim3 grid(static_cast<unsigned>((cols + kGradCols - 1) / kGradCols),
            static_cast<unsigned>(chunks));
  dim3 block(kGradCols, kGradLanes);
  dispatchFloat(x.dtype, [&](auto t) {
    using T = decltype(t);
    paramGradPartialKernel<T><<<grid, block, 0, stream>>>(
        x.as<T>(), dy.as<T>(), ptr<float>(mean), rstd.as<float>(), rows, cols,
        rowsPerChunk, partScale, partBias);
  });
  HETC_RETURN_IF_ERROR(launchStatus(name));
  dispatchFloat(paramType, [&](auto p) {
    using P = decltype(p);
    paramGradFinalKernel<P><<<blocksFor(cols, 8), dim3(32, 8), 0, stream>>>(
        partScale, partBias, chunks, cols, mutablePtr<P>(dscale),
        mutablePtr<P>(dbias), accumulate);
  });
  return launchStatus(name);
}

} // namespace

Status layerNorm(const TensorView &x, const TensorView *scale,
                 const TensorView *bias, int64_t axis, float epsilon,
                 const TensorView &y, const TensorView *mean,
                 const TensorView *rstd) {
  const char *name = "layer_norm";
  int64_t rows, cols;
  Shape paramShape;
  HETC_RETURN_IF_ERROR(splitRows(x, axis, &rows, &cols, &paramShape), name);
  bool seen = false;
  DType paramType = x.dtype;
  HETC_RETURN_IF_ERROR(
      checkParam(scale, paramShape, &seen, &paramType, "scale"), name);
  HETC_RETURN_IF_ERROR(checkParam(bias, paramShape, &seen, &paramType, "bias"),
                       name);
  HETC_RETURN_IF_ERROR(checkLike(y, x, "y"), name);
  HETC_RETURN_IF_ERROR(checkRowStat(mean, rows, "mean"), name);
  HETC_RETURN_IF_ERROR(checkRowStat(rstd, rows, "rstd"), name);
  return launchForward(name, x, scale, bias, paramType, epsilon, y, mean, rstd,
                       rows, cols, /*centered=*/true);
}

Status layerNormBackward(const TensorView &x, const TensorView *scale,
                         const TensorView &mean, const TensorView &rstd,
                         const TensorView &dy, int64_t axis,
                         const TensorView &dx, const TensorView *dscale,
                         const TensorView *dbias, bool accumulateParamGrads) {
  const char *name = "layer_norm_backward";
  int64_t rows, cols;
  Shape paramShape;
  HETC_RETURN_IF_ERROR(splitRows(x, axis, &rows, &cols, &paramShape), name);
  bool seen = false;
  DType paramType = x.dtype;
  HETC_RETURN_IF_ERROR(
      checkParam(scale, paramShape, &seen, &paramType, "scale"), name);
  HETC_RETURN_IF_ERROR(checkRowStat(&mean, rows, "mean"), name);
  HETC_RETURN_IF_ERROR(checkRowStat(&rstd, rows, "rstd"), name);
  HETC_RETURN_IF_ERROR(checkLike(dy, x, "dy"), name);
  HETC_RETURN_IF_ERROR(checkLike(dx, x, "dx"), name);
  HETC_RETURN_IF_ERROR(
      checkParam(dscale, paramShape, &seen, &paramType, "dscale"), name);
  HETC_RETURN_IF_ERROR(
      checkParam(dbias, paramShape, &seen, &paramType, "dbias"), name);
  HETC_RETURN_IF_ERROR(launchBackward(name, x, scale, paramType, &mean, rstd,
                                      dy, dx, rows, cols));
  if (!dscale && !dbias)
    return okStatus();
  return launchParamGrads(name, x, dy, &mean, rstd, rows, cols, dscale, dbias,
                          paramType, accumulateParamGrads);
}

Status rmsNorm(const TensorView &x, const TensorView *scale, float epsilon,
               const TensorView &y, const TensorView *rstd) {
  const char *name = "rms_norm";
  int64_t rows, cols;
  Shape paramShape;
  HETC_RETURN_IF_ERROR(splitRows(x, -1, &rows, &cols, &paramShape), name);
  bool seen = false;
  DType paramType = x.dtype;
  HETC_RETURN_IF_ERROR(
      checkParam(scale, paramShape, &seen, &paramType, "scale"), name);
  HETC_RETURN_IF_ERROR(checkLike(y, x, "y"), name);
  HETC_RETURN_IF_ERROR(checkRowStat(rstd, rows, "rstd"), name);
  return launchForward(name, x, scale, nullptr, paramType, epsilon, y, nullptr,
                       rstd, rows, cols, /*centered=*/false);
}

Status rmsNormBackward(const TensorView &x, const TensorView *scale,
                       const TensorView &rstd, const TensorView &dy,
                       const TensorView &dx, const TensorView *dscale,
                       bool accumulateParamGrads) {
  const char *name = "rms_norm_backward";
  int64_t rows, cols;
  Shape paramShape;
  HETC_RETURN_IF_ERROR(splitRows(x, -1, &rows, &cols, &paramShape), name);
  bool seen = false;
  DType paramType = x.dtype;
  HETC_RETURN_IF_ERROR(
      checkParam(scale, paramShape, &seen, &paramType, "scale"), name);
  HETC_RETURN_IF_ERROR(checkRowStat(&rstd, rows, "rstd"), name);
  HETC_RETURN_IF_ERROR(checkLike(dy, x, "dy"), name);
  HETC_RETURN_IF_ERROR(checkLike(dx, x, "dx"), name);
  HETC_RETURN_IF_ERROR(
      checkParam(dscale, paramShape, &seen, &paramType, "dscale"), name);
  HETC_RETURN_IF_ERROR(launchBackward(name, x, scale, paramType, nullptr, rstd,
                                      dy, dx, rows, cols));
  if (!dscale)
    return okStatus();
  return launchParamGrads(name, x, dy, nullptr, rstd, rows, cols, dscale,
                          nullptr, paramType, accumulateParamGrads);
}

} // namespace hetc::runtime::cuda
