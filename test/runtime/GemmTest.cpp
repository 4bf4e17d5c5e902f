//===- GemmTest.cpp - batched matmul and bias gradient ---------------------===//

#include "runtime/cpu/Gemm.h"

#include "TestUtil.h"

namespace hetc::runtime::test {
namespace {

using cpu::GemmOptions;

// C = alpha * op(A) @ op(B) + bias, numpy-broadcast batches, in double.
std::vector<double> referenceGemm(const Shape &as, const std::vector<double> &a,
                                  const Shape &bs, const std::vector<double> &b,
                                  const std::vector<double> *bias, bool ta,
                                  bool tb, double alpha, Shape *cShape) {
  size_t ar = as.size(), br = bs.size();
  int64_t m = ta ? as[ar - 1] : as[ar - 2], k = ta ? as[ar - 2] : as[ar - 1];
  int64_t n = tb ? bs[br - 2] : bs[br - 1];
  Shape batchA(as.begin(), as.end() - 2), batchB(bs.begin(), bs.end() - 2);
  Shape batch = broadcastShape(batchA, batchB);
  *cShape = batch;
  cShape->push_back(m);
  cShape->push_back(n);
  std::vector<double> c(numElements(*cShape));
  int64_t rowsA = as[ar - 2], colsA = as[ar - 1];
  int64_t rowsB = bs[br - 2], colsB = bs[br - 1];
  for (int64_t bi = 0; bi < numElements(batch); ++bi) {
    std::vector<int64_t> idx = unravel(bi, batch);
    int64_t offA = broadcastFlat(idx, batchA) * rowsA * colsA;
    int64_t offB = broadcastFlat(idx, batchB) * rowsB * colsB;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t t = 0; t < k; ++t) {
          double av = ta ? a[offA + t * colsA + i] : a[offA + i * colsA + t];
          double bv = tb ? b[offB + j * colsB + t] : b[offB + t * colsB + j];
          s += av * bv;
        }
        c[(bi * m + i) * n + j] = alpha * s + (bias ? (*bias)[j] : 0.0);
      }
  }
  return c;
}

struct GemmCase {
  Shape a, b;
  bool ta, tb, bias;
};

void PrintTo(const GemmCase &c, std::ostream *os) {
  *os << shapeToString(c.a) << (c.ta ? "^T" : "") << " @ " << shapeToString(c.b)
      << (c.tb ? "^T" : "") << (c.bias ? " + bias" : "");
}

class GemmShapes : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GemmShapes, MatchesNaiveReference) {
  const GemmCase &p = GetParam();
  F32 a = randomF32(p.a), b = randomF32(p.b);
  int64_t n = p.tb ? p.b[p.b.size() - 2] : p.b.back();
  F32 bias = randomF32({n});
  std::vector<double> biasD = bias.asDouble();
  Shape cShape;
  std::vector<double> want =
      referenceGemm(p.a, a.asDouble(), p.b, b.asDouble(),
                    p.bias ? &biasD : nullptr, p.ta, p.tb, 1.0, &cShape);
  F32 c(cShape);
  TensorView bv = bias.view();
  GemmOptions opts;
  opts.transA = p.ta;
  opts.transB = p.tb;
  HETC_ASSERT_OK(cpu::gemm(a.view(), b.view(), p.bias ? &bv : nullptr,
                           c.view(), opts));
  EXPECT_TRUE(allClose(c.v, want, 1e-5, 1e-5));
}

INSTANTIATE_TEST_SUITE_P(
    Gemm, GemmShapes,
    ::testing::Values(GemmCase{{3, 4}, {4, 5}, false, false, false},
                      GemmCase{{4, 3}, {4, 5}, true, false, false},
                      GemmCase{{3, 4}, {5, 4}, false, true, true},
                      GemmCase{{4, 3}, {5, 4}, true, true, false},
                      // batch folded into M: [B, T, K] @ [K, N]
                      GemmCase{{2, 3, 6, 4}, {4, 5}, false, false, true},
                      GemmCase{{2, 3, 6, 4}, {5, 4}, false, true, true},
                      // a transposed batched A cannot fold
                      GemmCase{{2, 3, 4, 6}, {4, 5}, true, false, true},
                      // broadcast batches both ways
                      GemmCase{{3, 1, 2, 4}, {2, 4, 5}, false, false, false},
                      GemmCase{{2, 4}, {3, 4, 5}, false, false, true},
                      GemmCase{{2, 1, 4, 3}, {1, 3, 5, 4}, true, true, true}));

TEST(Gemm, HandComputedProduct) {
  F32 a({2, 2}, {1, 2, 3, 4});
  F32 b({2, 2}, {5, 6, 7, 8});
  F32 bias({2}, {10, 20});
  F32 c({2, 2});
  TensorView bv = bias.view();
  HETC_ASSERT_OK(cpu::gemm(a.view(), b.view(), &bv, c.view(), {}));
  EXPECT_EQ(c.v, (std::vector<float>{29, 42, 53, 70}));
}

TEST(Gemm, AccumulateAddsToC) {
  F32 a = randomF32({2, 3, 4}), b = randomF32({4, 5}), bias = randomF32({5});
  F32 c = randomF32({2, 3, 5});
  std::vector<double> before = c.asDouble(), biasD = bias.asDouble();
  Shape cs;
  std::vector<double> prod = referenceGemm(a.shape, a.asDouble(), b.shape,
                                           b.asDouble(), &biasD, false, false,
                                           0.5, &cs);
  for (size_t i = 0; i < prod.size(); ++i)
    prod[i] += before[i];
  GemmOptions opts;
  opts.accumulate = true;
  opts.alpha = 0.5f;
  TensorView bv = bias.view();
  HETC_ASSERT_OK(cpu::gemm(a.view(), b.view(), &bv, c.view(), opts));
  EXPECT_TRUE(allClose(c.v, prod, 1e-5, 1e-5));
}

TEST(Gemm, EmptyInnerDimensionGivesBias) {
  F32 a({2, 0}), b({0, 3}), bias({3}, {1, 2, 3});
  F32 c = F32::full({2, 3}, 7.0f);
  TensorView bv = bias.view();
  HETC_ASSERT_OK(cpu::gemm(a.view(), b.view(), &bv, c.view(), {}));
  EXPECT_EQ(c.v, (std::vector<float>{1, 2, 3, 1, 2, 3}));
  HETC_ASSERT_OK(cpu::gemm(a.view(), b.view(), nullptr, c.view(), {}));
  EXPECT_EQ(c.v, std::vector<float>(6, 0.0f));
}

// The backward of C = A @ B is two transposed products; checks the flags
// against finite differences of the reference.
TEST(Gemm, TransposedProductsGiveGradients) {
  F32 a = randomF32({3, 4}), b = randomF32({4, 5}), w = randomF32({3, 5});
  std::vector<double> wd = w.asDouble();
  auto loss = [&](const std::vector<double> &av, const std::vector<double> &bv) {
    Shape cs;
    return weightedSum(referenceGemm(a.shape, av, b.shape, bv, nullptr, false,
                                     false, 1.0, &cs),
                       wd);
  };
  std::vector<double> wantA = numericGrad(
      [&](const std::vector<double> &x) { return loss(x, b.asDouble()); },
      a.asDouble());
  std::vector<double> wantB = numericGrad(
      [&](const std::vector<double> &x) { return loss(a.asDouble(), x); },
      b.asDouble());
  F32 da({3, 4}), db({4, 5});
  GemmOptions dA, dB;
  dA.transB = true;
  dB.transA = true;
  HETC_ASSERT_OK(cpu::gemm(w.view(), b.view(), nullptr, da.view(), dA));
  HETC_ASSERT_OK(cpu::gemm(a.view(), w.view(), nullptr, db.view(), dB));
  EXPECT_TRUE(allClose(da.v, wantA, 1e-6, 1e-5));
  EXPECT_TRUE(allClose(db.v, wantB, 1e-6, 1e-5));
}

TEST(Gemm, ShapeErrors) {
  F32 a({2, 3}), b({4, 5}), c({2, 5}), v({3});
  EXPECT_TRUE(isError(cpu::gemm(a.view(), b.view(), nullptr, c.view(), {}),
                      StatusCode::kInvalidArgument,
                      "gemm: inner dimensions differ: op(A) is [2,3] and "
                      "op(B) is [4,5]"));
  F32 b2({3, 5}), cWrong({5, 2});
  EXPECT_TRUE(isError(
      cpu::gemm(a.view(), b2.view(), nullptr, cWrong.view(), {}),
      StatusCode::kInvalidArgument, "gemm: C must have shape [2,5], got [5,2]"));
  F32 bias({4});
  TensorView bv = bias.view();
  EXPECT_TRUE(isError(cpu::gemm(a.view(), b2.view(), &bv, c.view(), {}),
                      StatusCode::kInvalidArgument,
                      "gemm: bias must have shape [5]"));
  EXPECT_TRUE(isError(cpu::gemm(v.view(), b2.view(), nullptr, c.view(), {}),
                      StatusCode::kInvalidArgument,
                      "gemm: A must have rank >= 2, got f32[3]"));
  F32 a3({2, 2, 3}), b3({3, 3, 5}), c3({3, 2, 5});
  EXPECT_TRUE(isError(cpu::gemm(a3.view(), b3.view(), nullptr, c3.view(), {}),
                      StatusCode::kInvalidArgument,
                      "gemm: batch dimensions: shapes [2] and [3] do not "
                      "broadcast"));
  I64 ai({2, 3});
  EXPECT_TRUE(isError(cpu::gemm(ai.view(), b2.view(), nullptr, c.view(), {}),
                      StatusCode::kInvalidArgument,
                      "gemm: A must be f32, got i64[2,3]"));
}

TEST(BiasGrad, SumsAllButLastDimension) {
  F32 dy = randomF32({2, 3, 70});
  std::vector<double> want(70, 0.0);
  for (int64_t i = 0; i < dy.numel(); ++i)
    want[i % 70] += dy.v[i];
  F32 db({70});
  HETC_ASSERT_OK(cpu::biasGrad(dy.view(), db.view(), false));
  EXPECT_TRUE(allClose(db.v, want, 1e-6, 1e-6));
  HETC_ASSERT_OK(cpu::biasGrad(dy.view(), db.view(), true));
  for (double &x : want)
    x *= 2;
  EXPECT_TRUE(allClose(db.v, want, 1e-6, 1e-6));
}

TEST(BiasGrad, ShapeError) {
  F32 dy({4, 5}), db({4});
  EXPECT_TRUE(isError(cpu::biasGrad(dy.view(), db.view(), false),
                      StatusCode::kInvalidArgument,
                      "bias_grad: dbias must have shape [5], got [4]"));
}

} // namespace
} // namespace hetc::runtime::test
