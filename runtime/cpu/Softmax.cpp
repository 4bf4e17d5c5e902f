//===- Softmax.cpp --------------------------------------------------------===//
//
// The tensor is viewed as [outer, n, inner] around the axis; each of the
// outer * inner rows (stride `inner`) is independent.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Softmax.h"

#include "runtime/base/SoftmaxShape.h"
#include "runtime/cpu/internal/Parallel.h"
#include "runtime/cpu/internal/VectorMath.h"

#include <cmath>
#include <limits>

namespace hetc::runtime::cpu {
namespace {

Status prepare(const char *name, const TensorView &in, const char *inName,
               const TensorView *other, const char *otherName,
               const TensorView &out, const char *outName, int64_t axis,
               SoftmaxAxis *view) {
  HETC_RETURN_IF_ERROR(checkDType(in, DType::kF32, inName), name);
  HETC_RETURN_IF_ERROR(checkData(in, inName), name);
  return planSoftmaxAxis(name, in, inName, other, otherName, out, outName,
                         axis, view);
}

// Runs body(base, stride) for every row in parallel.
template <typename Body> void forEachRow(const SoftmaxAxis &v, const Body &body) {
  int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(v.n, 1));
  internal::parallelFor(v.outer * v.inner, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      int64_t o = r / v.inner, i = r % v.inner;
      body(o * v.n * v.inner + i, v.inner);
    }
  });
}

Status softmaxImpl(const TensorView &x, int64_t axis, const TensorView &y,
                   bool log) {
  const char *name = log ? "log_softmax" : "softmax";
  SoftmaxAxis v;
  HETC_RETURN_IF_ERROR(prepare(name, x, "x", nullptr, "", y, "y", axis, &v));
  const float *xp = x.as<float>();
  float *yp = y.as<float>();
  int64_t n = v.n;
  forEachRow(v, [&](int64_t base, int64_t s) {
    const float *xr = xp + base;
    float *yr = yp + base;
    float m = internal::rowMax(xr, n, s);
    if (log) {
      double sum = internal::laneSum(n, [&](int64_t j) {
        return static_cast<double>(internal::fastExp(xr[j * s] - m));
      });
      // (x - max) - log(sum): subtracting max first keeps the result exact
      // for large logits.
      float logSum = static_cast<float>(std::log(sum));
      for (int64_t j = 0; j < n; ++j)
        yr[j * s] = (xr[j * s] - m) - logSum;
    } else {
      for (int64_t j = 0; j < n; ++j)
        yr[j * s] = internal::fastExp(xr[j * s] - m);
      double sum = internal::laneSum(
          n, [&](int64_t j) { return static_cast<double>(yr[j * s]); });
      float inv = static_cast<float>(1.0 / sum);
      for (int64_t j = 0; j < n; ++j)
        yr[j * s] *= inv;
    }
  });
  return okStatus();
}

} // namespace

Status softmax(const TensorView &x, int64_t axis, const TensorView &y) {
  return softmaxImpl(x, axis, y, /*log=*/false);
}

Status logSoftmax(const TensorView &x, int64_t axis, const TensorView &y) {
  return softmaxImpl(x, axis, y, /*log=*/true);
}

Status softmaxBackward(const TensorView &y, const TensorView &dy, int64_t axis,
                       const TensorView &dx) {
  SoftmaxAxis v;
  HETC_RETURN_IF_ERROR(
      prepare("softmax_backward", y, "y", &dy, "dy", dx, "dx", axis, &v));
  const float *yp = y.as<float>();
  const float *dyp = dy.as<float>();
  float *dxp = dx.as<float>();
  int64_t n = v.n;
  forEachRow(v, [&](int64_t base, int64_t s) {
    float d = static_cast<float>(internal::laneSum(n, [&](int64_t j) {
      return static_cast<double>(dyp[base + j * s]) * yp[base + j * s];
    }));
    for (int64_t j = 0; j < n; ++j) {
      int64_t k = base + j * s;
      dxp[k] = yp[k] * (dyp[k] - d);
    }
  });
  return okStatus();
}

Status logSoftmaxBackward(const TensorView &y, const TensorView &dy,
                          int64_t axis, const TensorView &dx) {
  SoftmaxAxis v;
  HETC_RETURN_IF_ERROR(
      prepare("log_softmax_backward", y, "y", &dy, "dy", dx, "dx", axis, &v));
  const float *yp = y.as<float>();
  const float *dyp = dy.as<float>();
  float *dxp = dx.as<float>();
  int64_t n = v.n;
  forEachRow(v, [&](int64_t base, int64_t s) {
    float total = static_cast<float>(internal::laneSum(
        n, [&](int64_t j) { return static_cast<double>(dyp[base + j * s]); }));
    for (int64_t j = 0; j < n; ++j) {
      int64_t k = base + j * s;
      dxp[k] = dyp[k] - internal::fastExp(yp[k]) * total;
    }
  });
  return okStatus();
}

} // namespace hetc::runtime::cpu
