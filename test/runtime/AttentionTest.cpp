//===- AttentionTest.cpp - scaled dot-product attention --------------------===//
//
// The reference materializes the full score matrix in double. Its analytic
// backward is checked against finite differences on small shapes; the kernel
// is checked against it on shapes that span several query and key blocks.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Attention.h"

#include "TestUtil.h"

#include <limits>

namespace hetc::runtime::test {
namespace {

struct AttnGeometry {
  int64_t heads, tq, tk, d, dv;
  double scale;
  bool causal;
  std::vector<double> mask; // [heads, tq, tk] additive, or empty
};

// Probabilities P [heads, tq, tk] (NaN rows when everything is excluded).
std::vector<double> referenceProbs(const AttnGeometry &g, const std::vector<double> &q,
                                   const std::vector<double> &k,
                                   std::vector<double> *lse = nullptr) {
  std::vector<double> p(g.heads * g.tq * g.tk);
  for (int64_t h = 0; h < g.heads; ++h)
    for (int64_t i = 0; i < g.tq; ++i) {
      double *row = &p[(h * g.tq + i) * g.tk];
      double m = -INFINITY;
      for (int64_t j = 0; j < g.tk; ++j) {
        double s = 0;
        for (int64_t t = 0; t < g.d; ++t)
          s += q[(h * g.tq + i) * g.d + t] * k[(h * g.tk + j) * g.d + t];
        s *= g.scale;
        if (!g.mask.empty())
          s += g.mask[(h * g.tq + i) * g.tk + j];
        if (g.causal && j > i)
          s = -INFINITY;
        row[j] = s;
        m = std::max(m, s);
      }
      double sum = 0;
      for (int64_t j = 0; j < g.tk; ++j)
        sum += std::exp(row[j] - m);
      for (int64_t j = 0; j < g.tk; ++j)
        row[j] = std::exp(row[j] - m) / sum;
      if (lse)
        lse->push_back(m + std::log(sum));
    }
  return p;
}

std::vector<double> referenceAttention(const AttnGeometry &g, const std::vector<double> &q,
                                       const std::vector<double> &k,
                                       const std::vector<double> &v,
                                       std::vector<double> *lse = nullptr) {
  std::vector<double> p = referenceProbs(g, q, k, lse);
  std::vector<double> out(g.heads * g.tq * g.dv, 0.0);
  for (int64_t h = 0; h < g.heads; ++h)
    for (int64_t i = 0; i < g.tq; ++i)
      for (int64_t j = 0; j < g.tk; ++j)
        for (int64_t t = 0; t < g.dv; ++t)
          out[(h * g.tq + i) * g.dv + t] +=
              p[(h * g.tq + i) * g.tk + j] * v[(h * g.tk + j) * g.dv + t];
  return out;
}

// Analytic gradients through the materialized softmax.
void referenceAttentionGrad(const AttnGeometry &g, const std::vector<double> &q,
                            const std::vector<double> &k, const std::vector<double> &v,
                            const std::vector<double> &dout, std::vector<double> *dq,
                            std::vector<double> *dk, std::vector<double> *dv) {
  std::vector<double> p = referenceProbs(g, q, k);
  dq->assign(q.size(), 0.0);
  dk->assign(k.size(), 0.0);
  dv->assign(v.size(), 0.0);
  for (int64_t h = 0; h < g.heads; ++h)
    for (int64_t i = 0; i < g.tq; ++i) {
      const double *pr = &p[(h * g.tq + i) * g.tk];
      const double *doi = &dout[(h * g.tq + i) * g.dv];
      std::vector<double> dp(g.tk, 0.0);
      double rowDot = 0;
      for (int64_t j = 0; j < g.tk; ++j) {
        for (int64_t t = 0; t < g.dv; ++t) {
          dp[j] += doi[t] * v[(h * g.tk + j) * g.dv + t];
          (*dv)[(h * g.tk + j) * g.dv + t] += pr[j] * doi[t];
        }
        rowDot += pr[j] * dp[j];
      }
      for (int64_t j = 0; j < g.tk; ++j) {
        double ds = pr[j] * (dp[j] - rowDot) * g.scale;
        for (int64_t t = 0; t < g.d; ++t) {
          (*dq)[(h * g.tq + i) * g.d + t] += ds * k[(h * g.tk + j) * g.d + t];
          (*dk)[(h * g.tk + j) * g.d + t] += ds * q[(h * g.tq + i) * g.d + t];
        }
      }
    }
}

enum class MaskKind { kNone, kAdditiveSquare, kPadding, kBool };

struct AttnCase {
  Shape lead;
  int64_t tq, tk, d, dv;
  bool causal;
  MaskKind mask;
};

void PrintTo(const AttnCase &c, std::ostream *os) {
  *os << shapeToString(c.lead) << " Tq " << c.tq << " Tk " << c.tk << " D " << c.d
      << " Dv " << c.dv << (c.causal ? " causal" : "") << " mask "
      << static_cast<int>(c.mask);
}

// Builds the kernel's mask tensors and the reference's full additive mask.
struct MaskData {
  F32 additive;
  Bool keep;
  TensorView view;
  bool present = false;
};

MaskData makeMask(const AttnCase &c, AttnGeometry *g) {
  MaskData m;
  Shape full = c.lead;
  full.push_back(c.tq);
  full.push_back(c.tk);
  Shape shape;
  switch (c.mask) {
  case MaskKind::kNone:
    return m;
  case MaskKind::kAdditiveSquare: // [Tq, Tk], shared by all heads
    shape = {c.tq, c.tk};
    m.additive = randomF32(shape, -2.0f, 2.0f);
    m.view = m.additive.view();
    break;
  case MaskKind::kPadding: { // [B, 1, 1, Tk]: the last keys of batch 1 are padding
    shape = {c.lead[0], 1, 1, c.tk};
    m.additive = F32(shape);
    for (int64_t j = c.tk - 3; j < c.tk; ++j)
      m.additive.v[1 * c.tk + j] = -std::numeric_limits<float>::infinity();
    m.view = m.additive.view();
    break;
  }
  case MaskKind::kBool: { // [1, Tq, Tk] keep-mask, every row keeps key 0
    shape = {1, c.tq, c.tk};
    m.keep = Bool(shape);
    for (int64_t i = 0; i < c.tq; ++i)
      for (int64_t j = 0; j < c.tk; ++j)
        m.keep.v[i * c.tk + j] = j == 0 || (i * 7 + j * 3) % 5 != 0;
    m.view = m.keep.view();
    break;
  }
  }
  m.present = true;
  g->mask.resize(numElements(full));
  for (int64_t e = 0; e < numElements(full); ++e) {
    int64_t src = broadcastFlat(unravel(e, full), shape);
    g->mask[e] = c.mask == MaskKind::kBool
                     ? (m.keep.v[src] ? 0.0 : -INFINITY)
                     : static_cast<double>(m.additive.v[src]);
  }
  return m;
}

class Attentions : public ::testing::TestWithParam<AttnCase> {};

TEST_P(Attentions, ForwardAndBackwardMatchReference) {
  const AttnCase &c = GetParam();
  Shape qs = c.lead, ks = c.lead, vs = c.lead, os = c.lead, ls = c.lead;
  qs.insert(qs.end(), {c.tq, c.d});
  ks.insert(ks.end(), {c.tk, c.d});
  vs.insert(vs.end(), {c.tk, c.dv});
  os.insert(os.end(), {c.tq, c.dv});
  ls.push_back(c.tq);
  F32 q = randomF32(qs), k = randomF32(ks), v = randomF32(vs);
  AttnGeometry g{numElements(c.lead), c.tq, c.tk, c.d, c.dv,
                 1.0 / std::sqrt(static_cast<double>(c.d)), c.causal, {}};
  MaskData mask = makeMask(c, &g);
  cpu::AttentionOptions opts;
  opts.scale = static_cast<float>(g.scale);
  opts.causal = c.causal;

  F32 out(os), lse(ls);
  TensorView lv = lse.view();
  HETC_ASSERT_OK(cpu::attention(q.view(), k.view(), v.view(),
                                mask.present ? &mask.view : nullptr, opts,
                                out.view(), &lv));
  std::vector<double> wantLse;
  std::vector<double> want =
      referenceAttention(g, q.asDouble(), k.asDouble(), v.asDouble(), &wantLse);
  EXPECT_TRUE(allClose(out.v, want, 1e-5, 1e-5));
  EXPECT_TRUE(allClose(lse.v, wantLse, 1e-5, 1e-5));

  F32 dout = randomF32(os), dq(qs), dk(ks), dv(vs);
  HETC_ASSERT_OK(cpu::attentionBackward(
      q.view(), k.view(), v.view(), mask.present ? &mask.view : nullptr, opts,
      out.view(), lse.view(), dout.view(), dq.view(), dk.view(), dv.view()));
  std::vector<double> wq, wk, wv;
  referenceAttentionGrad(g, q.asDouble(), k.asDouble(), v.asDouble(),
                         dout.asDouble(), &wq, &wk, &wv);
  EXPECT_TRUE(allClose(dq.v, wq, 1e-5, 1e-4));
  EXPECT_TRUE(allClose(dk.v, wk, 1e-5, 1e-4));
  EXPECT_TRUE(allClose(dv.v, wv, 1e-5, 1e-4));
}

// Tq = Tk = 70 spans three query blocks (32) and two key blocks (64).
INSTANTIATE_TEST_SUITE_P(
    Attention, Attentions,
    ::testing::Values(AttnCase{{2, 2}, 70, 70, 8, 8, false, MaskKind::kNone},
                      AttnCase{{2, 2}, 70, 70, 8, 8, true, MaskKind::kNone},
                      AttnCase{{1, 2}, 40, 70, 8, 12, true, MaskKind::kNone},
                      AttnCase{{1, 2}, 70, 40, 4, 4, true, MaskKind::kNone},
                      AttnCase{{3}, 33, 65, 8, 6, false, MaskKind::kAdditiveSquare},
                      AttnCase{{2, 3}, 20, 20, 8, 8, true, MaskKind::kAdditiveSquare},
                      AttnCase{{2, 2}, 17, 70, 8, 8, false, MaskKind::kPadding},
                      AttnCase{{2, 2}, 35, 35, 4, 4, false, MaskKind::kBool}));

// The reference's analytic gradient is itself checked by finite differences.
TEST(Attention, ReferenceGradientMatchesFiniteDifferences) {
  AttnGeometry g{2, 4, 5, 3, 2, 0.7, true, {}};
  g.mask.resize(g.heads * g.tq * g.tk);
  for (double &m : g.mask)
    m = std::uniform_real_distribution<double>(-1, 1)(rng());
  F32 q = randomF32({2, 4, 3}), k = randomF32({2, 5, 3}), v = randomF32({2, 5, 2});
  F32 w = randomF32({2, 4, 2});
  std::vector<double> wd = w.asDouble(), qd = q.asDouble(), kd = k.asDouble(),
                      vd = v.asDouble();
  std::vector<double> dq, dk, dv;
  referenceAttentionGrad(g, qd, kd, vd, wd, &dq, &dk, &dv);
  auto close = [](const std::vector<double> &a, const std::vector<double> &b) {
    for (size_t i = 0; i < a.size(); ++i)
      if (std::fabs(a[i] - b[i]) > 1e-7)
        return false;
    return true;
  };
  EXPECT_TRUE(close(dq, numericGrad([&](const std::vector<double> &x) {
    return weightedSum(referenceAttention(g, x, kd, vd), wd);
  }, qd)));
  EXPECT_TRUE(close(dk, numericGrad([&](const std::vector<double> &x) {
    return weightedSum(referenceAttention(g, qd, x, vd), wd);
  }, kd)));
  EXPECT_TRUE(close(dv, numericGrad([&](const std::vector<double> &x) {
    return weightedSum(referenceAttention(g, qd, kd, x), wd);
  }, vd)));
}

// The kernel's backward directly against finite differences on a tiny case.
TEST(Attention, KernelBackwardMatchesFiniteDifferences) {
  AttnGeometry g{2, 3, 4, 4, 3, 0.5, false, {}};
  F32 q = randomF32({2, 3, 4}), k = randomF32({2, 4, 4}), v = randomF32({2, 4, 3});
  F32 out({2, 3, 3}), lse({2, 3}), dout = randomF32({2, 3, 3});
  F32 dq({2, 3, 4}), dk({2, 4, 4}), dv({2, 4, 3});
  cpu::AttentionOptions opts{0.5f, false};
  TensorView lv = lse.view();
  HETC_ASSERT_OK(cpu::attention(q.view(), k.view(), v.view(), nullptr, opts,
                                out.view(), &lv));
  HETC_ASSERT_OK(cpu::attentionBackward(q.view(), k.view(), v.view(), nullptr, opts,
                                        out.view(), lse.view(), dout.view(),
                                        dq.view(), dk.view(), dv.view()));
  std::vector<double> w = dout.asDouble(), qd = q.asDouble(), kd = k.asDouble(),
                      vd = v.asDouble();
  EXPECT_TRUE(allClose(dq.v, numericGrad([&](const std::vector<double> &x) {
    return weightedSum(referenceAttention(g, x, kd, vd), w);
  }, qd), 1e-5, 1e-4));
  EXPECT_TRUE(allClose(dk.v, numericGrad([&](const std::vector<double> &x) {
    return weightedSum(referenceAttention(g, qd, x, vd), w);
  }, kd), 1e-5, 1e-4));
  EXPECT_TRUE(allClose(dv.v, numericGrad([&](const std::vector<double> &x) {
    return weightedSum(referenceAttention(g, qd, kd, x), w);
  }, vd), 1e-5, 1e-4));
}

TEST(Attention, HandComputedUniformKeys) {
  // Identical keys give uniform weights: out is the mean of v's rows;
  // causally, row i averages v[0..i].
  F32 q = randomF32({1, 3, 2}), k = F32::full({1, 3, 2}, 0.5f);
  F32 v({1, 3, 1}, {3, 6, 9}), out({1, 3, 1});
  HETC_ASSERT_OK(cpu::attention(q.view(), k.view(), v.view(), nullptr, {1.0f, true},
                                out.view(), nullptr));
  EXPECT_TRUE(allClose(out.v, std::vector<double>{3, 4.5, 6}, 1e-6, 1e-6));
}

TEST(Attention, FullyMaskedRowIsNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  F32 q = randomF32({1, 2, 2}), k = randomF32({1, 2, 2}), v = randomF32({1, 2, 2});
  F32 mask({2, 2}, {-inf, -inf, 0, 0}), out({1, 2, 2});
  TensorView mv = mask.view();
  HETC_ASSERT_OK(cpu::attention(q.view(), k.view(), v.view(), &mv, {1.0f, false},
                                out.view(), nullptr));
  EXPECT_TRUE(std::isnan(out.v[0]) && std::isnan(out.v[1]));
  EXPECT_FALSE(std::isnan(out.v[2]) || std::isnan(out.v[3]));
}

TEST(Attention, Errors) {
  F32 q({2, 4, 8}), k({2, 5, 8}), v({2, 5, 3}), out({2, 4, 3});
  F32 kBad({2, 5, 7}), vBad({2, 4, 3}), k3({3, 5, 8}), maskBad({4, 4});
  cpu::AttentionOptions o{0.35f, false};
  EXPECT_TRUE(isError(cpu::attention(q.view(), kBad.view(), v.view(), nullptr, o,
                                     out.view(), nullptr),
                      StatusCode::kInvalidArgument,
                      "attention: k's last dimension must match q's (8)"));
  EXPECT_TRUE(isError(cpu::attention(q.view(), k.view(), vBad.view(), nullptr, o,
                                     out.view(), nullptr),
                      StatusCode::kInvalidArgument,
                      "attention: v must have as many rows as k (5)"));
  EXPECT_TRUE(isError(cpu::attention(q.view(), k3.view(), v.view(), nullptr, o,
                                     out.view(), nullptr),
                      StatusCode::kInvalidArgument,
                      "attention: leading dimensions of q, k and v differ"));
  TensorView mv = maskBad.view();
  EXPECT_TRUE(isError(cpu::attention(q.view(), k.view(), v.view(), &mv, o,
                                     out.view(), nullptr),
                      StatusCode::kInvalidArgument,
                      "attention: mask: shape [4,4] does not broadcast to [2,4,5]"));
  F32 lseBad({2, 5});
  TensorView lv = lseBad.view();
  EXPECT_TRUE(isError(cpu::attention(q.view(), k.view(), v.view(), nullptr, o,
                                     out.view(), &lv),
                      StatusCode::kInvalidArgument,
                      "attention: lse must have shape [2,4], got [2,5]"));
}

} // namespace
} // namespace hetc::runtime::test
