//===- DataMovementTest.cpp - transpose, slice, concat, broadcast, ... -----===//

#include "runtime/cpu/DataMovement.h"

#include "TestUtil.h"

#include <limits>

namespace hetc::runtime::test {
namespace {

using cpu::SliceParams;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// 0, 1, 2, ... so every output element names its source.
F32 iota(Shape shape) {
  F32 t(std::move(shape));
  for (size_t i = 0; i < t.v.size(); ++i)
    t.v[i] = static_cast<float>(i);
  return t;
}

TEST(Transpose, MatchesReferenceForEveryPermutation) {
  F32 x = iota({2, 3, 4});
  std::vector<int64_t> perm = {0, 1, 2};
  do {
    Shape ys = {x.shape[perm[0]], x.shape[perm[1]], x.shape[perm[2]]};
    F32 y(ys);
    HETC_ASSERT_OK(cpu::transpose(x.view(), perm, y.view()));
    std::vector<int64_t> xs = stridesOf(x.shape);
    for (int64_t i = 0; i < y.numel(); ++i) {
      std::vector<int64_t> idx = unravel(i, ys);
      int64_t src = 0;
      for (int k = 0; k < 3; ++k)
        src += idx[k] * xs[perm[k]];
      ASSERT_EQ(y.v[i], x.v[src]) << "perm " << perm[0] << perm[1] << perm[2];
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(Transpose, HandComputedAndErrors) {
  I64 x({2, 3}, {1, 2, 3, 4, 5, 6}), y({3, 2});
  HETC_ASSERT_OK(cpu::transpose(x.view(), {1, 0}, y.view()));
  EXPECT_EQ(y.v, (std::vector<int64_t>{1, 4, 2, 5, 3, 6}));
  EXPECT_TRUE(isError(cpu::transpose(x.view(), {1, 1}, y.view()),
                      StatusCode::kInvalidArgument,
                      "transpose: [1,1] is not a permutation of rank 2"));
  EXPECT_TRUE(isError(cpu::transpose(x.view(), {0, 1}, y.view()),
                      StatusCode::kInvalidArgument,
                      "transpose: y must have shape [2,3], got [3,2]"));
}

struct SliceCase {
  Shape shape;
  SliceParams params;
  Shape expected;
  // Reference: the selected index list of every dimension.
  std::vector<std::vector<int64_t>> picks;
};

void PrintTo(const SliceCase &c, std::ostream *os) {
  *os << shapeToString(c.shape) << " starts " << shapeToString(c.params.starts)
      << " ends " << shapeToString(c.params.ends) << " axes "
      << shapeToString(c.params.axes) << " steps " << shapeToString(c.params.steps);
}

class Slices : public ::testing::TestWithParam<SliceCase> {};

TEST_P(Slices, ForwardAndBackwardMatchReference) {
  const SliceCase &p = GetParam();
  Shape shape;
  HETC_ASSERT_OK(cpu::sliceShape(p.shape, p.params, &shape));
  ASSERT_EQ(shape, p.expected);
  F32 x = iota(p.shape), y(shape);
  HETC_ASSERT_OK(cpu::slice(x.view(), p.params, y.view()));
  std::vector<int64_t> xs = stridesOf(p.shape);
  std::vector<double> want;
  std::vector<int64_t> src(y.numel());
  for (int64_t i = 0; i < y.numel(); ++i) {
    std::vector<int64_t> idx = unravel(i, shape);
    int64_t s = 0;
    for (size_t k = 0; k < idx.size(); ++k)
      s += p.picks[k][idx[k]] * xs[k];
    src[i] = s;
    want.push_back(x.v[s]);
  }
  EXPECT_TRUE(allClose(y.v, want, 0, 0));

  F32 dy = randomF32(shape), dx = F32::full(p.shape, 5.0f);
  HETC_ASSERT_OK(cpu::sliceBackward(dy.view(), p.params, dx.view(), false));
  std::vector<double> wantDx(x.numel(), 0.0);
  for (int64_t i = 0; i < y.numel(); ++i)
    wantDx[src[i]] = dy.v[i];
  EXPECT_TRUE(allClose(dx.v, wantDx, 0, 0));
  HETC_ASSERT_OK(cpu::sliceBackward(dy.view(), p.params, dx.view(), true));
  for (double &v : wantDx)
    v *= 2;
  EXPECT_TRUE(allClose(dx.v, wantDx, 0, 0));
}

INSTANTIATE_TEST_SUITE_P(
    DataMovement, Slices,
    ::testing::Values(
        // plain, every dimension
        SliceCase{{4, 5}, {{1, 0}, {3, 5}, {}, {}}, {2, 5},
                  {{1, 2}, {0, 1, 2, 3, 4}}},
        // negative bounds and a subset of axes
        SliceCase{{4, 5}, {{-2}, {kMax}, {1}, {}}, {4, 2},
                  {{0, 1, 2, 3}, {3, 4}}},
        // steps, clamped end
        SliceCase{{3, 8}, {{1}, {100}, {-1}, {3}}, {3, 3},
                  {{0, 1, 2}, {1, 4, 7}}},
        // negative step: reverse with INT64_MIN end
        SliceCase{{2, 5}, {{-1}, {kMin}, {1}, {-1}}, {2, 5},
                  {{0, 1}, {4, 3, 2, 1, 0}}},
        // negative step of 2 with clamped start
        SliceCase{{2, 6}, {{9, 10}, {-7, 1}, {0, 1}, {-1, -2}}, {2, 2},
                  {{1, 0}, {5, 3}}},
        // steps too large to add to anything
        SliceCase{{3, 4}, {{1, 3}, {kMax, kMin}, {0, 1}, {kMax, kMin}}, {1, 1},
                  {{1}, {3}}},
        // empty result
        SliceCase{{3, 4}, {{2}, {1}, {0}, {}}, {0, 4}, {{}, {0, 1, 2, 3}}},
        // middle axis of rank 3
        SliceCase{{2, 6, 3}, {{1}, {5}, {1}, {2}}, {2, 2, 3},
                  {{0, 1}, {1, 3}, {0, 1, 2}}}));

TEST(Slice, Errors) {
  F32 x({3, 4}), y({3, 4});
  SliceParams zeroStep{{0}, {2}, {0}, {0}};
  EXPECT_TRUE(isError(cpu::slice(x.view(), zeroStep, y.view()),
                      StatusCode::kInvalidArgument, "slice: slice step of axis 0 is 0"));
  SliceParams twice{{0, 0}, {1, 1}, {1, -1}, {}};
  EXPECT_TRUE(isError(cpu::slice(x.view(), twice, y.view()),
                      StatusCode::kInvalidArgument, "slice: axis 1 is sliced twice"));
  SliceParams ragged{{0, 0}, {1}, {}, {}};
  EXPECT_TRUE(isError(cpu::slice(x.view(), ragged, y.view()),
                      StatusCode::kInvalidArgument,
                      "slice: starts, ends, axes and steps must have one entry"));
  SliceParams ok{{1}, {2}, {0}, {}};
  EXPECT_TRUE(isError(cpu::slice(x.view(), ok, y.view()),
                      StatusCode::kInvalidArgument,
                      "slice: y must have shape [1,4], got [3,4]"));
}

TEST(Concat, JoinsAlongEachAxis) {
  for (int64_t axis : {0, 1, 2, -1}) {
    int64_t a = axis < 0 ? axis + 3 : axis;
    Shape s0 = {2, 3, 4}, s1 = s0, s2 = s0;
    s1[a] = 1;
    s2[a] = 2;
    F32 x0 = randomF32(s0), x1 = randomF32(s1), x2 = randomF32(s2);
    Shape os = s0;
    os[a] = s0[a] + 1 + 2;
    F32 out(os);
    HETC_ASSERT_OK(cpu::concat({x0.view(), x1.view(), x2.view()}, axis, out.view()));
    for (int64_t i = 0; i < out.numel(); ++i) {
      std::vector<int64_t> idx = unravel(i, os);
      int64_t at = idx[a];
      const F32 *src = &x0;
      if (at >= s0[a]) {
        at -= s0[a];
        src = &x1;
        if (at >= 1) {
          at -= 1;
          src = &x2;
        }
      }
      idx[a] = at;
      int64_t flat = 0;
      for (size_t k = 0; k < 3; ++k)
        flat = flat * src->shape[k] + idx[k];
      ASSERT_EQ(out.v[i], src->v[flat]) << "axis " << axis;
    }
  }
}

TEST(Concat, HandComputedAndErrors) {
  I64 a({2, 1}, {1, 2}), b({2, 2}, {3, 4, 5, 6}), out({2, 3});
  HETC_ASSERT_OK(cpu::concat({a.view(), b.view()}, 1, out.view()));
  EXPECT_EQ(out.v, (std::vector<int64_t>{1, 3, 4, 2, 5, 6}));
  I64 c({3, 1});
  EXPECT_TRUE(isError(cpu::concat({a.view(), c.view()}, 1, out.view()),
                      StatusCode::kInvalidArgument,
                      "concat: input 1 i64[3,1] does not fit i64[2,3] along axis 1"));
  EXPECT_TRUE(isError(cpu::concat({a.view(), a.view()}, 1, out.view()),
                      StatusCode::kInvalidArgument,
                      "concat: inputs add up to 2 along axis 1, out has 3"));
  F32 f({2, 2});
  EXPECT_TRUE(isError(cpu::concat({a.view(), f.view()}, 1, out.view()),
                      StatusCode::kInvalidArgument, "concat: input 1 f32[2,2]"));
}

TEST(BroadcastTo, MatchesReference) {
  F32 x = randomF32({3, 1, 5}), out({2, 3, 4, 5});
  HETC_ASSERT_OK(cpu::broadcastTo(x.view(), out.view()));
  for (int64_t i = 0; i < out.numel(); ++i)
    ASSERT_EQ(out.v[i], x.v[broadcastFlat(unravel(i, out.shape), x.shape)]);
  F32 scalar({}, {2.5f}), filled({2, 2});
  HETC_ASSERT_OK(cpu::broadcastTo(scalar.view(), filled.view()));
  EXPECT_EQ(filled.v, std::vector<float>(4, 2.5f));
  F32 bad({2, 3});
  EXPECT_TRUE(isError(cpu::broadcastTo(x.view(), bad.view()),
                      StatusCode::kInvalidArgument,
                      "broadcast: shape [3,1,5] does not broadcast to [2,3]"));
}

TEST(Trilu, UpperAndLowerWithOffsets) {
  F32 x = iota({2, 3, 4});
  for (bool upper : {false, true})
    for (int64_t k : {-1, 0, 2}) {
      F32 y({2, 3, 4});
      HETC_ASSERT_OK(cpu::trilu(x.view(), k, upper, y.view()));
      for (int64_t i = 0; i < y.numel(); ++i) {
        int64_t row = (i / 4) % 3, col = i % 4;
        bool keep = upper ? col - row >= k : col - row <= k;
        ASSERT_EQ(y.v[i], keep ? x.v[i] : 0.0f) << upper << " " << k;
      }
    }
  Bool ones = Bool::full({3, 3}, 1), tri({3, 3});
  HETC_ASSERT_OK(cpu::trilu(ones.view(), 0, false, tri.view()));
  EXPECT_EQ(tri.v, (std::vector<uint8_t>{1, 0, 0, 1, 1, 0, 1, 1, 1}));
  F32 vec({3});
  EXPECT_TRUE(isError(cpu::trilu(vec.view(), 0, true, vec.view()),
                      StatusCode::kInvalidArgument,
                      "trilu: x must have rank >= 2, got f32[3]"));
}

TEST(Range, FloatAndInteger) {
  F32 f({4});
  HETC_ASSERT_OK(cpu::range(1.0, 2.9, 0.5, f.view()));
  EXPECT_EQ(f.v, (std::vector<float>{1.0f, 1.5f, 2.0f, 2.5f}));
  I64 i({3});
  HETC_ASSERT_OK(cpu::range(10, 4, -2, i.view()));
  EXPECT_EQ(i.v, (std::vector<int64_t>{10, 8, 6}));
  I64 empty({0});
  HETC_ASSERT_OK(cpu::range(5, 1, 1, empty.view()));
  EXPECT_TRUE(isError(cpu::range(0, 5, 1, i.view()), StatusCode::kInvalidArgument,
                      "range: [0, 5) by 1 has 5 elements, out has 3"));
  EXPECT_TRUE(isError(cpu::range(0, 5, 0, i.view()), StatusCode::kInvalidArgument,
                      "delta non-zero"));
  EXPECT_TRUE(isError(cpu::range(0.5, 3, 1, i.view()), StatusCode::kInvalidArgument,
                      "must be integers"));
}

TEST(Fill, EveryDtype) {
  F32 f({3});
  HETC_ASSERT_OK(cpu::fill(f.view(), -0.25));
  EXPECT_EQ(f.v, std::vector<float>(3, -0.25f));
  I32 i({2});
  HETC_ASSERT_OK(cpu::fill(i.view(), 7.9));
  EXPECT_EQ(i.v, std::vector<int32_t>(2, 7));
  Bool b({2});
  HETC_ASSERT_OK(cpu::fill(b.view(), 3.0));
  EXPECT_EQ(b.v, std::vector<uint8_t>(2, 1));
}

TEST(Copy, ReshapesAndChecks) {
  F32 x = randomF32({2, 3}), y({3, 2}), z({5});
  HETC_ASSERT_OK(cpu::copy(x.view(), y.view()));
  EXPECT_EQ(y.v, x.v);
  EXPECT_TRUE(isError(cpu::copy(x.view(), z.view()), StatusCode::kInvalidArgument,
                      "copy: element counts differ: f32[2,3] and f32[5]"));
  I64 w({6});
  EXPECT_TRUE(isError(cpu::copy(x.view(), w.view()), StatusCode::kInvalidArgument,
                      "copy: y must have x's dtype f32, got i64[6]"));
}

} // namespace
} // namespace hetc::runtime::test
