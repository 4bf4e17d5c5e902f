//===- TestUtil.h - helpers shared by the runtime kernel tests --*- C++ -*-===//
//
// Owned tensors, seeded random data, numpy-style index helpers for the naive
// references, central finite differences in double, and comparisons that
// report the first mismatching element.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_TEST_RUNTIME_TESTUTIL_H
#define HETC_TEST_RUNTIME_TESTUTIL_H

#include "runtime/base/Tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace hetc::runtime::test {

// A tensor owning its elements (bool as uint8_t).
template <typename T> struct Owned {
  Shape shape;
  std::vector<T> v;

  Owned() = default;
  // Zeros.
  explicit Owned(Shape s)
      : shape(std::move(s)), v(static_cast<size_t>(numElements(shape)), T(0)) {}
  static Owned full(Shape s, T value) {
    Owned t(std::move(s));
    std::fill(t.v.begin(), t.v.end(), value);
    return t;
  }
  Owned(Shape s, std::vector<T> values) : shape(std::move(s)), v(std::move(values)) {
    EXPECT_EQ(static_cast<int64_t>(v.size()), numElements(shape));
  }
  TensorView view() { return makeView(v.data(), shape); }
  int64_t numel() const { return static_cast<int64_t>(v.size()); }
  std::vector<double> asDouble() const { return std::vector<double>(v.begin(), v.end()); }
};

using F32 = Owned<float>;
using I64 = Owned<int64_t>;
using I32 = Owned<int32_t>;
using Bool = Owned<uint8_t>;

inline std::mt19937 &rng() {
  static std::mt19937 gen(1234);
  return gen;
}

inline F32 randomF32(Shape shape, float lo = -1.0f, float hi = 1.0f) {
  F32 t(std::move(shape));
  std::uniform_real_distribution<float> dist(lo, hi);
  for (float &x : t.v)
    x = dist(rng());
  return t;
}

inline I64 randomIndices(Shape shape, int64_t lo, int64_t hi) {
  I64 t(std::move(shape));
  std::uniform_int_distribution<int64_t> dist(lo, hi - 1);
  for (int64_t &x : t.v)
    x = dist(rng());
  return t;
}

inline std::vector<double> toDouble(const std::vector<float> &v) {
  return std::vector<double>(v.begin(), v.end());
}

inline std::vector<int64_t> stridesOf(const Shape &shape) {
  std::vector<int64_t> s(shape.size());
  int64_t stride = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    s[k] = stride;
    stride *= shape[k];
  }
  return s;
}

// Multi-index of flat position `flat` in `shape`.
inline std::vector<int64_t> unravel(int64_t flat, const Shape &shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    idx[k] = flat % shape[k];
    flat /= shape[k];
  }
  return idx;
}

// Flat position in `shape` (right-aligned, size-1 dims broadcast) of an index
// into a larger broadcast shape.
inline int64_t broadcastFlat(const std::vector<int64_t> &outIdx, const Shape &shape) {
  size_t lead = outIdx.size() - shape.size();
  int64_t flat = 0;
  for (size_t k = 0; k < shape.size(); ++k)
    flat = flat * shape[k] + (shape[k] == 1 ? 0 : outIdx[lead + k]);
  return flat;
}

inline Shape broadcastShape(const Shape &a, const Shape &b) {
  Shape out;
  Status s = broadcastShapes(a, b, &out);
  EXPECT_TRUE(s.ok()) << s.toString();
  return out;
}

// Central differences of f at x: d f / d x_i = (f(x + h) - f(x - h)) / 2h.
inline std::vector<double>
numericGrad(const std::function<double(const std::vector<double> &)> &f,
            std::vector<double> x, double h = 1e-6) {
  std::vector<double> g(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    double saved = x[i];
    x[i] = saved + h;
    double up = f(x);
    x[i] = saved - h;
    double down = f(x);
    x[i] = saved;
    g[i] = (up - down) / (2 * h);
  }
  return g;
}

inline double weightedSum(const std::vector<double> &y, const std::vector<double> &w) {
  double s = 0;
  for (size_t i = 0; i < y.size(); ++i)
    s += y[i] * w[i];
  return s;
}

// |got - want| <= atol + rtol * |want| everywhere (NaN must match NaN).
inline ::testing::AssertionResult allClose(const std::vector<float> &got,
                                           const std::vector<double> &want,
                                           double atol, double rtol) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure()
           << "sizes differ: " << got.size() << " vs " << want.size();
  int bad = 0;
  std::string first;
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    bool ok;
    if (std::isnan(want[i]))
      ok = std::isnan(got[i]);
    else if (std::isinf(want[i]))
      ok = got[i] == want[i];
    else {
      double err = std::fabs(got[i] - want[i]);
      ok = err <= atol + rtol * std::fabs(want[i]);
      worst = std::max(worst, err);
    }
    if (!ok && bad++ == 0)
      first = "element " + std::to_string(i) + ": got " + std::to_string(got[i]) +
              ", want " + std::to_string(want[i]);
  }
  if (bad)
    return ::testing::AssertionFailure()
           << bad << " of " << got.size() << " elements differ; first " << first
           << "; worst abs error " << worst;
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult allClose(const std::vector<float> &got,
                                           const std::vector<float> &want,
                                           double atol, double rtol) {
  return allClose(got, toDouble(want), atol, rtol);
}

// The status is an error of `code` whose message contains `fragment`.
inline ::testing::AssertionResult isError(const Status &s, StatusCode code,
                                          const std::string &fragment) {
  if (s.ok())
    return ::testing::AssertionFailure() << "expected an error, got OK";
  if (s.code() != code)
    return ::testing::AssertionFailure()
           << "expected " << statusCodeName(code) << ", got " << s.toString();
  if (s.message().find(fragment) == std::string::npos)
    return ::testing::AssertionFailure()
           << "message '" << s.message() << "' lacks '" << fragment << "'";
  return ::testing::AssertionSuccess();
}

#define HETC_ASSERT_OK(expr)                                                   \
  do {                                                                         \
    ::hetc::runtime::Status hetc_test_status_ = (expr);                        \
    ASSERT_TRUE(hetc_test_status_.ok()) << hetc_test_status_.toString();       \
  } while (false)

} // namespace hetc::runtime::test

#endif // HETC_TEST_RUNTIME_TESTUTIL_H
