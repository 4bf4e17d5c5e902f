//===- SoftmaxTest.cpp - softmax and log-softmax ---------------------------===//

#include "runtime/cpu/Softmax.h"

#include "TestUtil.h"

#include <limits>

namespace hetc::runtime::test {
namespace {

// softmax or log_softmax of x (shape) along axis, in double.
std::vector<double> referenceSoftmax(const std::vector<double> &x,
                                     const Shape &shape, int64_t axis,
                                     bool log) {
  int64_t outer = 1, inner = 1, n = shape[axis];
  for (int64_t k = 0; k < axis; ++k)
    outer *= shape[k];
  for (size_t k = axis + 1; k < shape.size(); ++k)
    inner *= shape[k];
  std::vector<double> y(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return (o * n + j) * inner + i; };
      double m = -INFINITY, s = 0;
      for (int64_t j = 0; j < n; ++j)
        m = std::max(m, x[at(j)]);
      for (int64_t j = 0; j < n; ++j)
        s += std::exp(x[at(j)] - m);
      for (int64_t j = 0; j < n; ++j)
        y[at(j)] = log ? x[at(j)] - m - std::log(s) : std::exp(x[at(j)] - m) / s;
    }
  return y;
}

struct SoftmaxCase {
  Shape shape;
  int64_t axis;
  bool log;
};

void PrintTo(const SoftmaxCase &c, std::ostream *os) {
  *os << (c.log ? "log_softmax " : "softmax ") << shapeToString(c.shape) << " axis "
      << c.axis;
}

class Softmaxes : public ::testing::TestWithParam<SoftmaxCase> {};

TEST_P(Softmaxes, ForwardMatchesReference) {
  const SoftmaxCase &p = GetParam();
  F32 x = randomF32(p.shape, -4.0f, 4.0f), y(p.shape);
  int64_t axis = p.axis < 0 ? p.axis + static_cast<int64_t>(p.shape.size()) : p.axis;
  if (p.log)
    HETC_ASSERT_OK(cpu::logSoftmax(x.view(), p.axis, y.view()));
  else
    HETC_ASSERT_OK(cpu::softmax(x.view(), p.axis, y.view()));
  EXPECT_TRUE(allClose(y.v, referenceSoftmax(x.asDouble(), p.shape, axis, p.log),
                       1e-6, 1e-5));
}

TEST_P(Softmaxes, BackwardMatchesFiniteDifferences) {
  const SoftmaxCase &p = GetParam();
  F32 x = randomF32(p.shape, -2.0f, 2.0f), y(p.shape);
  int64_t axis = p.axis < 0 ? p.axis + static_cast<int64_t>(p.shape.size()) : p.axis;
  F32 dy = randomF32(p.shape), dx(p.shape);
  if (p.log) {
    HETC_ASSERT_OK(cpu::logSoftmax(x.view(), p.axis, y.view()));
    HETC_ASSERT_OK(cpu::logSoftmaxBackward(y.view(), dy.view(), p.axis, dx.view()));
  } else {
    HETC_ASSERT_OK(cpu::softmax(x.view(), p.axis, y.view()));
    HETC_ASSERT_OK(cpu::softmaxBackward(y.view(), dy.view(), p.axis, dx.view()));
  }
  std::vector<double> w = dy.asDouble();
  std::vector<double> want = numericGrad(
      [&](const std::vector<double> &xv) {
        return weightedSum(referenceSoftmax(xv, p.shape, axis, p.log), w);
      },
      x.asDouble());
  EXPECT_TRUE(allClose(dx.v, want, 1e-5, 1e-4));
}

INSTANTIATE_TEST_SUITE_P(
    Softmax, Softmaxes,
    ::testing::Values(SoftmaxCase{{3, 7}, -1, false}, SoftmaxCase{{3, 7}, 1, true},
                      SoftmaxCase{{2, 3, 5}, 0, false}, SoftmaxCase{{2, 3, 5}, 1, false},
                      SoftmaxCase{{2, 3, 5}, 1, true}, SoftmaxCase{{2, 3, 5}, 0, true},
                      SoftmaxCase{{2, 2, 2, 9}, 3, false}));

TEST(Softmax, HandComputedAndStable) {
  F32 x({2, 3}, {1, 2, 3, 1000, 1001, 1002}), y({2, 3});
  HETC_ASSERT_OK(cpu::softmax(x.view(), 1, y.view()));
  std::vector<double> want = {0.09003057317038046, 0.24472847105479767,
                              0.6652409557748219};
  want.insert(want.end(), want.begin(), want.end());
  EXPECT_TRUE(allClose(y.v, want, 1e-7, 1e-6));
  HETC_ASSERT_OK(cpu::logSoftmax(x.view(), 1, y.view()));
  EXPECT_NEAR(y.v[5], -0.40760596444438, 1e-6);
}

TEST(Softmax, AllMinusInfinityRowIsNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  F32 x({2, 2}, {-inf, -inf, 0, 0}), y({2, 2});
  HETC_ASSERT_OK(cpu::softmax(x.view(), -1, y.view()));
  EXPECT_TRUE(std::isnan(y.v[0]) && std::isnan(y.v[1]));
  EXPECT_EQ(y.v[2], 0.5f);
}

TEST(Softmax, Errors) {
  F32 x({2, 3}), y({2, 3}), bad({3, 2});
  EXPECT_TRUE(isError(cpu::softmax(x.view(), 2, y.view()),
                      StatusCode::kInvalidArgument,
                      "softmax: axis 2 is out of range for rank 2"));
  EXPECT_TRUE(isError(cpu::logSoftmax(x.view(), 1, bad.view()),
                      StatusCode::kInvalidArgument,
                      "log_softmax: y must have shape [2,3], got [3,2]"));
  EXPECT_TRUE(isError(cpu::softmaxBackward(x.view(), bad.view(), 1, y.view()),
                      StatusCode::kInvalidArgument,
                      "softmax_backward: dy must have shape [2,3]"));
}

} // namespace
} // namespace hetc::runtime::test
