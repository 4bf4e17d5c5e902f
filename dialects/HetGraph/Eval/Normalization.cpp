//===- Normalization.cpp - softmax, layer and RMS normalization -----------===//

#include "dialects/HetGraph/Eval/Eval.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hetc::hetg::eval {

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

namespace {

/// Calls `fn(base, stride, extent)` for every line of `shape` along `axis`.
template <typename Fn>
void forEachLine(llvm::ArrayRef<int64_t> shape, int64_t axis, Fn fn) {
  AxisView view = viewAround(shape, axis);
  for (int64_t o = 0; o < view.outer; ++o)
    for (int64_t i = 0; i < view.inner; ++i)
      fn(o * view.extent * view.inner + i, view.inner, view.extent);
}

/// Softmax (or log-softmax) of every line along `axis`.
Array softmaxImpl(const Array &x, int64_t axis, bool log) {
  Array out(x.shape);
  forEachLine(x.shape, axis, [&](int64_t base, int64_t stride, int64_t n) {
    double max = -std::numeric_limits<double>::infinity();
    for (int64_t e = 0; e < n; ++e)
      max = std::max(max, x.data[base + e * stride]);
    double sum = 0.0;
    for (int64_t e = 0; e < n; ++e)
      sum += std::exp(x.data[base + e * stride] - max);
    for (int64_t e = 0; e < n; ++e) {
      double shifted = x.data[base + e * stride] - max;
      out.data[base + e * stride] =
          log ? shifted - std::log(sum) : std::exp(shifted) / sum;
    }
  });
  return out;
}

} // namespace

Array softmax(const Array &x, int64_t axis) {
  return softmaxImpl(x, axis, /*log=*/false);
}

Array logSoftmax(const Array &x, int64_t axis) {
  return softmaxImpl(x, axis, /*log=*/true);
}

Array softmaxGrad(const Array &y, const Array &dy, int64_t axis) {
  Array out(y.shape);
  forEachLine(y.shape, axis, [&](int64_t base, int64_t stride, int64_t n) {
    double dot = 0.0;
    for (int64_t e = 0; e < n; ++e)
      dot += y.data[base + e * stride] * dy.data[base + e * stride];
    for (int64_t e = 0; e < n; ++e) {
      int64_t at = base + e * stride;
      out.data[at] = y.data[at] * (dy.data[at] - dot);
    }
  });
  return out;
}

Array logSoftmaxGrad(const Array &y, const Array &dy, int64_t axis) {
  Array out(y.shape);
  forEachLine(y.shape, axis, [&](int64_t base, int64_t stride, int64_t n) {
    double sum = 0.0;
    for (int64_t e = 0; e < n; ++e)
      sum += dy.data[base + e * stride];
    for (int64_t e = 0; e < n; ++e) {
      int64_t at = base + e * stride;
      out.data[at] = dy.data[at] - std::exp(y.data[at]) * sum;
    }
  });
  return out;
}

//===----------------------------------------------------------------------===//
// Layer normalization
//===----------------------------------------------------------------------===//

namespace {

struct Moments {
  double mean, rstd;
};

/// Mean and 1 / sqrt(biased variance + epsilon) of `x[0, n)`.
Moments moments(const double *x, int64_t n, double epsilon) {
  double mean = 0.0;
  for (int64_t j = 0; j < n; ++j)
    mean += x[j];
  mean /= double(n);
  double var = 0.0;
  for (int64_t j = 0; j < n; ++j)
    var += (x[j] - mean) * (x[j] - mean);
  var /= double(n);
  return {mean, 1.0 / std::sqrt(var + epsilon)};
}

} // namespace

Array layerNorm(const Array &x, const Array *scale, const Array *bias,
                int64_t axis, double epsilon) {
  Array out(x.shape);
  int64_t n = elementCount(llvm::ArrayRef(x.shape).drop_front(axis));
  int64_t groups = n ? x.size() / n : 0;
  for (int64_t g = 0; g < groups; ++g) {
    const double *in = &x.data[g * n];
    Moments m = moments(in, n, epsilon);
    for (int64_t j = 0; j < n; ++j) {
      double v = (in[j] - m.mean) * m.rstd;
      if (scale)
        v *= scale->data[j];
      if (bias)
        v += bias->data[j];
      out.data[g * n + j] = v;
    }
  }
  return out;
}

LayerNormGrads layerNormGrad(const Array &x, const Array *scale,
                             const Array &dy, int64_t axis, double epsilon) {
  llvm::ArrayRef<int64_t> normalized = llvm::ArrayRef(x.shape).drop_front(axis);
  LayerNormGrads grads{Array(x.shape), Array(normalized), Array(normalized)};
  int64_t n = elementCount(normalized);
  int64_t groups = n ? x.size() / n : 0;
  std::vector<double> xhat(n), g(n);
  for (int64_t group = 0; group < groups; ++group) {
    const double *in = &x.data[group * n];
    const double *d = &dy.data[group * n];
    Moments m = moments(in, n, epsilon);
    double meanG = 0.0, meanGX = 0.0;
    for (int64_t j = 0; j < n; ++j) {
      xhat[j] = (in[j] - m.mean) * m.rstd;
      g[j] = scale ? d[j] * scale->data[j] : d[j];
      meanG += g[j];
      meanGX += g[j] * xhat[j];
      grads.scale.data[j] += d[j] * xhat[j];
      grads.bias.data[j] += d[j];
    }
    meanG /= double(n);
    meanGX /= double(n);
    for (int64_t j = 0; j < n; ++j)
      grads.input.data[group * n + j] =
          m.rstd * (g[j] - meanG - xhat[j] * meanGX);
  }
  return grads;
}

//===----------------------------------------------------------------------===//
// RMS normalization
//===----------------------------------------------------------------------===//

namespace {

/// sqrt(mean(x^2) + epsilon) of `x[0, n)`.
double rootMeanSquare(const double *x, int64_t n, double epsilon) {
  double sum = 0.0;
  for (int64_t j = 0; j < n; ++j)
    sum += x[j] * x[j];
  return std::sqrt(sum / double(n) + epsilon);
}

} // namespace

Array rmsNorm(const Array &x, const Array *scale, double epsilon) {
  Array out(x.shape);
  int64_t n = x.shape.back();
  int64_t rows = n ? x.size() / n : 0;
  for (int64_t r = 0; r < rows; ++r) {
    const double *in = &x.data[r * n];
    double rms = rootMeanSquare(in, n, epsilon);
    for (int64_t j = 0; j < n; ++j)
      out.data[r * n + j] = in[j] / rms * (scale ? scale->data[j] : 1.0);
  }
  return out;
}

RmsNormGrads rmsNormGrad(const Array &x, const Array *scale, const Array &dy,
                         double epsilon) {
  int64_t n = x.shape.back();
  RmsNormGrads grads{Array(x.shape), Array(Shape{n})};
  int64_t rows = n ? x.size() / n : 0;
  for (int64_t r = 0; r < rows; ++r) {
    const double *in = &x.data[r * n];
    const double *d = &dy.data[r * n];
    double rms = rootMeanSquare(in, n, epsilon);
    double meanGX = 0.0;
    for (int64_t j = 0; j < n; ++j) {
      double g = scale ? d[j] * scale->data[j] : d[j];
      meanGX += g * in[j];
      grads.scale.data[j] += d[j] * in[j] / rms;
    }
    meanGX /= double(n);
    for (int64_t j = 0; j < n; ++j) {
      double g = scale ? d[j] * scale->data[j] : d[j];
      grads.input.data[r * n + j] =
          g / rms - in[j] * meanGX / (rms * rms * rms);
    }
  }
  return grads;
}

} // namespace hetc::hetg::eval
