//===- ReduceTest.cpp - sum, mean, max over axes ---------------------------===//

#include "runtime/cpu/Reduce.h"

#include "TestUtil.h"

#include <limits>
#include <set>

namespace hetc::runtime::test {
namespace {

using cpu::ReduceOp;

// The reduced values (output elements in row-major order of kept dims).
std::vector<double> referenceReduce(ReduceOp op, const F32 &x,
                                    const std::set<int64_t> &axes,
                                    Shape *keptShape) {
  Shape kept;
  for (int64_t k = 0; k < static_cast<int64_t>(x.shape.size()); ++k)
    kept.push_back(axes.count(k) ? 1 : x.shape[k]);
  *keptShape = kept;
  std::vector<double> acc(numElements(kept),
                          op == ReduceOp::kMax ? -INFINITY : 0.0);
  std::vector<int64_t> count(acc.size(), 0);
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t o = broadcastFlat(unravel(i, x.shape), kept);
    if (op == ReduceOp::kMax)
      acc[o] = std::max<double>(acc[o], x.v[i]);
    else
      acc[o] += x.v[i];
    ++count[o];
  }
  if (op == ReduceOp::kMean)
    for (size_t o = 0; o < acc.size(); ++o)
      acc[o] /= count[o];
  return acc;
}

struct ReduceCase {
  ReduceOp op;
  Shape shape;
  std::vector<int64_t> axes;
};

void PrintTo(const ReduceCase &c, std::ostream *os) {
  *os << static_cast<int>(c.op) << " " << shapeToString(c.shape) << " axes "
      << shapeToString(c.axes);
}

class Reductions : public ::testing::TestWithParam<ReduceCase> {};

TEST_P(Reductions, MatchReferenceWithAndWithoutKeepDims) {
  const ReduceCase &p = GetParam();
  F32 x = randomF32(p.shape);
  std::set<int64_t> axes;
  for (int64_t a : p.axes)
    axes.insert(a < 0 ? a + static_cast<int64_t>(p.shape.size()) : a);
  Shape kept;
  std::vector<double> want = referenceReduce(p.op, x, axes, &kept);
  F32 yKeep(kept);
  HETC_ASSERT_OK(cpu::reduce(p.op, x.view(), p.axes, true, yKeep.view()));
  EXPECT_TRUE(allClose(yKeep.v, want, 1e-6, 1e-6));
  Shape dropped;
  for (size_t k = 0; k < p.shape.size(); ++k)
    if (!axes.count(k))
      dropped.push_back(p.shape[k]);
  F32 yDrop(dropped);
  HETC_ASSERT_OK(cpu::reduce(p.op, x.view(), p.axes, false, yDrop.view()));
  EXPECT_EQ(yDrop.v, yKeep.v);
}

INSTANTIATE_TEST_SUITE_P(
    Reduce, Reductions,
    ::testing::Values(ReduceCase{ReduceOp::kSum, {2, 3, 4, 5}, {1}},
                      ReduceCase{ReduceOp::kSum, {2, 3, 4, 5}, {0, 2}},
                      ReduceCase{ReduceOp::kSum, {2, 3, 4, 5}, {-1}},
                      ReduceCase{ReduceOp::kSum, {2, 3, 4, 5}, {0, 1, 2, 3}},
                      ReduceCase{ReduceOp::kSum, {3, 1, 150}, {0}},
                      ReduceCase{ReduceOp::kMean, {2, 3, 4, 5}, {1, 3}},
                      ReduceCase{ReduceOp::kMean, {2, 3, 4, 5}, {3}},
                      ReduceCase{ReduceOp::kMean, {6, 7}, {0}},
                      ReduceCase{ReduceOp::kMax, {2, 3, 4, 5}, {2}},
                      ReduceCase{ReduceOp::kMax, {2, 3, 4, 5}, {0, 3}},
                      ReduceCase{ReduceOp::kMax, {2, 3, 4, 5}, {0, 1, 2, 3}},
                      ReduceCase{ReduceOp::kMax, {4, 130}, {0}}));

TEST(Reduce, HandComputed) {
  F32 x({2, 2}, {1, 2, 3, 4});
  F32 cols({2}), rows({2, 1}), all(Shape{});
  HETC_ASSERT_OK(cpu::reduce(ReduceOp::kSum, x.view(), {0}, false, cols.view()));
  EXPECT_EQ(cols.v, (std::vector<float>{4, 6}));
  HETC_ASSERT_OK(cpu::reduce(ReduceOp::kMean, x.view(), {1}, true, rows.view()));
  EXPECT_EQ(rows.v, (std::vector<float>{1.5f, 3.5f}));
  HETC_ASSERT_OK(cpu::reduce(ReduceOp::kMax, x.view(), {0, 1}, false, all.view()));
  EXPECT_EQ(all.v, (std::vector<float>{4}));
}

TEST(Reduce, EmptyAxesCopy) {
  F32 x = randomF32({2, 3}), y({2, 3});
  HETC_ASSERT_OK(cpu::reduce(ReduceOp::kSum, x.view(), {}, true, y.view()));
  EXPECT_EQ(y.v, x.v);
}

TEST(Reduce, MaxPropagatesNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  F32 x({2, 3}, {1, nan, 3, 4, 5, 6}), y({2});
  HETC_ASSERT_OK(cpu::reduce(ReduceOp::kMax, x.view(), {1}, false, y.view()));
  EXPECT_TRUE(std::isnan(y.v[0]));
  EXPECT_EQ(y.v[1], 6.0f);
}

TEST(Reduce, EmptyAxis) {
  F32 x({2, 0}), y({2});
  HETC_ASSERT_OK(cpu::reduce(ReduceOp::kSum, x.view(), {1}, false, y.view()));
  EXPECT_EQ(y.v, (std::vector<float>{0, 0}));
  HETC_ASSERT_OK(cpu::reduce(ReduceOp::kMean, x.view(), {1}, false, y.view()));
  EXPECT_TRUE(std::isnan(y.v[0]));
  EXPECT_TRUE(isError(cpu::reduce(ReduceOp::kMax, x.view(), {1}, false, y.view()),
                      StatusCode::kInvalidArgument,
                      "reduce_max: cannot take the maximum over axis 1 of size 0"));
}

TEST(Reduce, Errors) {
  F32 x({2, 3}), y({2});
  EXPECT_TRUE(isError(cpu::reduce(ReduceOp::kSum, x.view(), {2}, false, y.view()),
                      StatusCode::kInvalidArgument,
                      "reduce_sum: axis 2 is out of range for rank 2"));
  EXPECT_TRUE(isError(cpu::reduce(ReduceOp::kSum, x.view(), {1, -1}, false, y.view()),
                      StatusCode::kInvalidArgument,
                      "reduce_sum: axis -1 is listed twice"));
  EXPECT_TRUE(isError(cpu::reduce(ReduceOp::kMean, x.view(), {1}, true, y.view()),
                      StatusCode::kInvalidArgument,
                      "reduce_mean: y must have shape [2,1], got [2]"));
}

} // namespace
} // namespace hetc::runtime::test
