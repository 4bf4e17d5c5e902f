//===- Norms.cpp ----------------------------------------------------------===//
//
// Rows are independent in the forward pass and for dx; the parameter
// gradients sum over rows: the backward adds them up in fixed blocks of rows
// as it computes dx (one pass over x and dy), then adds the blocks' sums in
// block order (deterministic for any thread count).
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Norms.h"

#include "runtime/base/NormShape.h"
#include "runtime/cpu/internal/Parallel.h"
#include "runtime/cpu/internal/VectorMath.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace hetc::runtime::cpu {
namespace {

using internal::laneSum;
using internal::parallelFor;

constexpr int64_t kColChunk = 64;
constexpr int64_t kGradRowBlock = 32;

Status checkF32(const TensorView &t, const char *what) {
  HETC_RETURN_IF_ERROR(checkDType(t, DType::kF32, what));
  return checkData(t, what);
}

Status checkOptional(const TensorView *t, const Shape &shape,
                     const char *what) {
  if (!t)
    return okStatus();
  HETC_RETURN_IF_ERROR(checkF32(*t, what));
  return checkShape(*t, shape, what);
}

// x as [rows, cols] split at `axis` (NormShape.h).
Status splitRows(const TensorView &x, int64_t axis, int64_t *rows,
                 int64_t *cols, Shape *paramShape) {
  HETC_RETURN_IF_ERROR(checkF32(x, "x"));
  return splitNormRows(x, axis, rows, cols, paramShape);
}

int64_t rowGrain(int64_t cols) {
  return std::max<int64_t>(1, 4096 / std::max<int64_t>(cols, 1));
}

// Partial sums of the parameter gradients, one pair of rows of `cols`
// doubles per block of rows; reused by the calling thread.
std::vector<double> &partialSums(size_t size) {
  thread_local std::vector<double> partials;
  if (partials.size() < size)
    partials.resize(size);
  return partials;
}

// The backward of a norm in one pass over x and dy: blocks of kGradRowBlock
// rows run in parallel, and `row(r, scale, bias)` computes row r's dx and
// adds its terms of dscale[c] = sum_r dy[r,c] * xhat[r,c] and dbias[c] =
// sum_r dy[r,c] into its block's partial sums (bias null without dbias;
// both null without parameter gradients). The blocks' partials are then
// added in block order: the same sums for any thread count.
template <typename Row>
void normBackwardRows(int64_t rows, int64_t cols, float *dscale, float *dbias,
                      bool accumulate, const Row &row) {
  int64_t blocks = (rows + kGradRowBlock - 1) / kGradRowBlock;
  bool params = dscale || dbias;
  double *partials =
      params ? partialSums(static_cast<size_t>(blocks * 2 * cols)).data()
             : nullptr;
  parallelFor(blocks, 1, [&](int64_t b, int64_t e) {
    for (int64_t block = b; block < e; ++block) {
      double *scaleSums = params ? partials + block * 2 * cols : nullptr;
      double *biasSums = dbias ? scaleSums + cols : nullptr;
      if (params)
        std::fill(scaleSums, scaleSums + 2 * cols, 0.0);
      int64_t end = std::min(rows, (block + 1) * kGradRowBlock);
      for (int64_t r = block * kGradRowBlock; r < end; ++r)
        row(r, scaleSums, biasSums);
    }
  });
  if (!params)
    return;
  int64_t chunks = (cols + kColChunk - 1) / kColChunk;
  parallelFor(chunks, 1, [&](int64_t b, int64_t e) {
    double scaleSum[kColChunk], biasSum[kColChunk];
    for (int64_t ch = b; ch < e; ++ch) {
      int64_t c0 = ch * kColChunk, cn = std::min(kColChunk, cols - c0);
      for (int64_t c = 0; c < cn; ++c)
        scaleSum[c] = biasSum[c] = 0.0;
      for (int64_t block = 0; block < blocks; ++block) {
        const double *sums = partials + block * 2 * cols + c0;
        for (int64_t c = 0; c < cn; ++c) {
          scaleSum[c] += sums[c];
          biasSum[c] += sums[cols + c];
        }
      }
      for (int64_t c = 0; c < cn; ++c) {
        if (dscale)
          dscale[c0 + c] = static_cast<float>(
              (accumulate ? dscale[c0 + c] : 0.0) + scaleSum[c]);
        if (dbias)
          dbias[c0 + c] = static_cast<float>(
              (accumulate ? dbias[c0 + c] : 0.0) + biasSum[c]);
      }
    }
  });
}

} // namespace

Status layerNorm(const TensorView &x, const TensorView *scale,
                 const TensorView *bias, int64_t axis, float epsilon,
                 const TensorView &y, const TensorView *mean,
                 const TensorView *rstd) {
  int64_t rows, cols;
  Shape paramShape;
  HETC_RETURN_IF_ERROR(splitRows(x, axis, &rows, &cols, &paramShape),
                       "layer_norm");
  HETC_RETURN_IF_ERROR(checkOptional(scale, paramShape, "scale"), "layer_norm");
  HETC_RETURN_IF_ERROR(checkOptional(bias, paramShape, "bias"), "layer_norm");
  HETC_RETURN_IF_ERROR(checkF32(y, "y"), "layer_norm");
  HETC_RETURN_IF_ERROR(checkShape(y, x.shape, "y"), "layer_norm");
  HETC_RETURN_IF_ERROR(checkRowStat(mean, rows, "mean"), "layer_norm");
  HETC_RETURN_IF_ERROR(checkRowStat(rstd, rows, "rstd"), "layer_norm");
  const float *xp = x.as<float>();
  const float *sp = scale ? scale->as<float>() : nullptr;
  const float *bp = bias ? bias->as<float>() : nullptr;
  float *yp = y.as<float>();
  float *meanp = mean ? mean->as<float>() : nullptr;
  float *rstdp = rstd ? rstd->as<float>() : nullptr;
  parallelFor(rows, rowGrain(cols), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const float *xr = xp + r * cols;
      float *yr = yp + r * cols;
      double sum = laneSum(
          cols, [&](int64_t c) { return static_cast<double>(xr[c]); });
      double mu = sum / static_cast<double>(cols);
      double sq = laneSum(cols, [&](int64_t c) {
        double d = xr[c] - mu;
        return d * d;
      });
      double var = sq / static_cast<double>(cols);
      float m = static_cast<float>(mu);
      float rs = static_cast<float>(1.0 / std::sqrt(var + epsilon));
      for (int64_t c = 0; c < cols; ++c) {
        float v = (xr[c] - m) * rs;
        if (sp)
          v *= sp[c];
        if (bp)
          v += bp[c];
        yr[c] = v;
      }
      if (meanp)
        meanp[r] = m;
      if (rstdp)
        rstdp[r] = rs;
    }
  });
  return okStatus();
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
  HETC_RETURN_IF_ERROR(checkOptional(scale, paramShape, "scale"), name);
  HETC_RETURN_IF_ERROR(checkRowStat(&mean, rows, "mean"), name);
  HETC_RETURN_IF_ERROR(checkRowStat(&rstd, rows, "rstd"), name);
  HETC_RETURN_IF_ERROR(checkF32(dy, "dy"), name);
  HETC_RETURN_IF_ERROR(checkShape(dy, x.shape, "dy"), name);
  HETC_RETURN_IF_ERROR(checkF32(dx, "dx"), name);
  HETC_RETURN_IF_ERROR(checkShape(dx, x.shape, "dx"), name);
  HETC_RETURN_IF_ERROR(checkOptional(dscale, paramShape, "dscale"), name);
  HETC_RETURN_IF_ERROR(checkOptional(dbias, paramShape, "dbias"), name);
  const float *xp = x.as<float>();
  const float *sp = scale ? scale->as<float>() : nullptr;
  const float *mp = mean.as<float>();
  const float *rp = rstd.as<float>();
  const float *dyp = dy.as<float>();
  float *dxp = dx.as<float>();
  normBackwardRows(
      rows, cols, dscale ? dscale->as<float>() : nullptr,
      dbias ? dbias->as<float>() : nullptr, accumulateParamGrads,
      [&](int64_t r, double *scaleSums, double *biasSums) {
        const float *xr = xp + r * cols;
        const float *dyr = dyp + r * cols;
        float *dxr = dxp + r * cols;
        float mu = mp[r], rs = rp[r];
        double sumG = laneSum(cols, [&](int64_t c) {
          return static_cast<double>(sp ? dyr[c] * sp[c] : dyr[c]);
        });
        double sumGX = laneSum(cols, [&](int64_t c) {
          float g = sp ? dyr[c] * sp[c] : dyr[c];
          return static_cast<double>(g) * ((xr[c] - mu) * rs);
        });
        float meanG = static_cast<float>(sumG / static_cast<double>(cols));
        float meanGX = static_cast<float>(sumGX / static_cast<double>(cols));
        for (int64_t c = 0; c < cols; ++c) {
          float g = sp ? dyr[c] * sp[c] : dyr[c];
          float xhat = (xr[c] - mu) * rs;
          dxr[c] = rs * (g - meanG - xhat * meanGX);
        }
        if (scaleSums)
          for (int64_t c = 0; c < cols; ++c)
            scaleSums[c] += static_cast<double>(dyr[c]) * ((xr[c] - mu) * rs);
        if (biasSums)
          for (int64_t c = 0; c < cols; ++c)
            biasSums[c] += dyr[c];
      });
  return okStatus();
}

Status rmsNorm(const TensorView &x, const TensorView *scale, float epsilon,
               const TensorView &y, const TensorView *rstd) {
  int64_t rows, cols;
  Shape paramShape;
  HETC_RETURN_IF_ERROR(splitRows(x, -1, &rows, &cols, &paramShape),
                       "rms_norm");
  HETC_RETURN_IF_ERROR(checkOptional(scale, paramShape, "scale"), "rms_norm");
  HETC_RETURN_IF_ERROR(checkF32(y, "y"), "rms_norm");
  HETC_RETURN_IF_ERROR(checkShape(y, x.shape, "y"), "rms_norm");
  HETC_RETURN_IF_ERROR(checkRowStat(rstd, rows, "rstd"), "rms_norm");
  const float *xp = x.as<float>();
  const float *sp = scale ? scale->as<float>() : nullptr;
  float *yp = y.as<float>();
  float *rstdp = rstd ? rstd->as<float>() : nullptr;
  parallelFor(rows, rowGrain(cols), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const float *xr = xp + r * cols;
      float *yr = yp + r * cols;
      double sq = laneSum(cols, [&](int64_t c) {
        return static_cast<double>(xr[c]) * xr[c];
      });
      float rs = static_cast<float>(
          1.0 / std::sqrt(sq / static_cast<double>(cols) + epsilon));
      for (int64_t c = 0; c < cols; ++c)
        yr[c] = sp ? xr[c] * rs * sp[c] : xr[c] * rs;
      if (rstdp)
        rstdp[r] = rs;
    }
  });
  return okStatus();
}

Status rmsNormBackward(const TensorView &x, const TensorView *scale,
                       const TensorView &rstd, const TensorView &dy,
                       const TensorView &dx, const TensorView *dscale,
                       bool accumulateParamGrads) {
  const char *name = "rms_norm_backward";
  int64_t rows, cols;
  Shape paramShape;
  HETC_RETURN_IF_ERROR(splitRows(x, -1, &rows, &cols, &paramShape), name);
  HETC_RETURN_IF_ERROR(checkOptional(scale, paramShape, "scale"), name);
  HETC_RETURN_IF_ERROR(checkRowStat(&rstd, rows, "rstd"), name);
  HETC_RETURN_IF_ERROR(checkF32(dy, "dy"), name);
  HETC_RETURN_IF_ERROR(checkShape(dy, x.shape, "dy"), name);
  HETC_RETURN_IF_ERROR(checkF32(dx, "dx"), name);
  HETC_RETURN_IF_ERROR(checkShape(dx, x.shape, "dx"), name);
  HETC_RETURN_IF_ERROR(checkOptional(dscale, paramShape, "dscale"), name);
  const float *xp = x.as<float>();
  const float *sp = scale ? scale->as<float>() : nullptr;
  const float *rp = rstd.as<float>();
  const float *dyp = dy.as<float>();
  float *dxp = dx.as<float>();
  normBackwardRows(
      rows, cols, dscale ? dscale->as<float>() : nullptr, nullptr,
      accumulateParamGrads, [&](int64_t r, double *scaleSums, double *) {
        const float *xr = xp + r * cols;
        const float *dyr = dyp + r * cols;
        float *dxr = dxp + r * cols;
        float rs = rp[r];
        double sumGX = laneSum(cols, [&](int64_t c) {
          float g = sp ? dyr[c] * sp[c] : dyr[c];
          return static_cast<double>(g) * (xr[c] * rs);
        });
        float meanGX = static_cast<float>(sumGX / static_cast<double>(cols));
        for (int64_t c = 0; c < cols; ++c) {
          float g = sp ? dyr[c] * sp[c] : dyr[c];
          dxr[c] = rs * (g - xr[c] * rs * meanGX);
        }
        if (scaleSums)
          for (int64_t c = 0; c < cols; ++c)
            scaleSums[c] += static_cast<double>(dyr[c]) * (xr[c] * rs);
      });
  return okStatus();
}

} // namespace hetc::runtime::cpu
