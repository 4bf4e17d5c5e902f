//===- Attention.cpp ------------------------------------------------------===//
//
// Attention in blocks of kBlockQ queries, each against all the keys it may
// see, as OpenBLAS products: scores S = scale Q K^T (plus the mask), an
// exact softmax per row (its log-sum-exp saved), then O = P V. Only one
// [kBlockQ, keys] tile of scores exists per thread. Backward recomputes P
// from the saved log-sum-exp, block by block in query order within a head:
// dV += P^T dO, dS = P (dO V^T - delta) scale, dQ = dS K, dK += dS^T Q. A
// head is one task, so every output element has one writer and a fixed
// order of sums, whatever the thread count.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Attention.h"

#include "runtime/cpu/internal/Blas.h"
#include "runtime/cpu/internal/Broadcast.h"
#include "runtime/cpu/internal/Parallel.h"
#include "runtime/cpu/internal/VectorMath.h"

#include <cmath>
#include <limits>

namespace hetc::runtime::cpu {
namespace {

using internal::parallelFor;

constexpr int64_t kBlockQ = 32;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

struct Geometry {
  Shape lead;
  int64_t heads = 1; // product of the leading dimensions
  int64_t tq = 0, tk = 0, d = 0, dv = 0;
};

// Reads the (broadcast) mask of one head.
struct MaskReader {
  const float *additive = nullptr;
  const uint8_t *keep = nullptr;
  std::vector<int64_t> leadStrides;
  Shape lead;
  int64_t strideQ = 0, strideK = 0;

  bool present() const { return additive || keep; }
  int64_t headBase(int64_t head) const {
    int64_t off = 0;
    for (size_t k = lead.size(); k-- > 0;) {
      off += (head % lead[k]) * leadStrides[k];
      head /= lead[k];
    }
    return off;
  }
  float at(int64_t base, int64_t i, int64_t j) const {
    int64_t off = base + i * strideQ + j * strideK;
    if (additive)
      return additive[off];
    return keep[off] ? 0.0f : kNegInf;
  }
};

Status checkF32(const TensorView &t, const char *what) {
  HETC_RETURN_IF_ERROR(checkDType(t, DType::kF32, what));
  return checkData(t, what);
}

Status prepare(const TensorView &q, const TensorView &k, const TensorView &v,
               const TensorView *mask, Geometry *g, MaskReader *reader) {
  HETC_RETURN_IF_ERROR(checkF32(q, "q"));
  HETC_RETURN_IF_ERROR(checkF32(k, "k"));
  HETC_RETURN_IF_ERROR(checkF32(v, "v"));
  if (q.rank() < 2 || k.rank() != q.rank() || v.rank() != q.rank())
    return invalidArgument("q, k and v must have one rank >= 2, got q ",
                           q.describe(), ", k ", k.describe(), ", v ",
                           v.describe());
  int64_t r = q.rank();
  g->lead = Shape(q.shape.begin(), q.shape.end() - 2);
  if (Shape(k.shape.begin(), k.shape.end() - 2) != g->lead ||
      Shape(v.shape.begin(), v.shape.end() - 2) != g->lead)
    return invalidArgument("leading dimensions of q, k and v differ: q ",
                           q.describe(), ", k ", k.describe(), ", v ",
                           v.describe());
  g->heads = numElements(g->lead);
  g->tq = q.shape[r - 2];
  g->d = q.shape[r - 1];
  g->tk = k.shape[r - 2];
  g->dv = v.shape[r - 1];
  if (k.shape[r - 1] != g->d)
    return invalidArgument("k's last dimension must match q's (", g->d,
                           "), got k ", k.describe());
  if (v.shape[r - 2] != g->tk)
    return invalidArgument("v must have as many rows as k (", g->tk,
                           "), got v ", v.describe());
  if (mask) {
    HETC_RETURN_IF_ERROR(checkData(*mask, "mask"));
    if (mask->dtype == DType::kF32)
      reader->additive = mask->as<float>();
    else if (mask->dtype == DType::kBool)
      reader->keep = mask->as<uint8_t>();
    else
      return invalidArgument("mask must be f32 (additive) or bool, got ",
                             mask->describe());
    Shape scores = g->lead;
    scores.push_back(g->tq);
    scores.push_back(g->tk);
    std::vector<int64_t> strides;
    HETC_RETURN_IF_ERROR(
        internal::broadcastStrides(mask->shape, scores, &strides), "mask");
    reader->lead = g->lead;
    reader->leadStrides.assign(strides.begin(), strides.end() - 2);
    reader->strideQ = strides[strides.size() - 2];
    reader->strideK = strides.back();
  }
  return okStatus();
}

Shape withLast(const Geometry &g, int64_t rows, int64_t cols) {
  Shape s = g.lead;
  s.push_back(rows);
  if (cols >= 0)
    s.push_back(cols);
  return s;
}

// The keys query i may see: all, or [0, i] when causal.
int64_t visibleKeys(const Geometry &g, bool causal, int64_t lastQuery) {
  return causal ? std::min(g.tk, lastQuery + 1) : g.tk;
}

// S = scale * Q[i0, i0 + nr) K[0, nc)^T + mask, -inf where causal excludes
// the key; S is [nr, nc], row stride nc.
void scoreBlock(const Geometry &g, const float *qh, const float *kh,
                int64_t i0, int64_t nr, int64_t nc, float scale, bool causal,
                const MaskReader &mask, int64_t maskBase, float *s) {
  internal::sgemm(false, true, nr, nc, g.d, scale, qh + i0 * g.d, g.d, kh,
                  g.d, 0.0f, s, nc);
  for (int64_t r = 0; r < nr; ++r) {
    int64_t i = i0 + r;
    float *sr = s + r * nc;
    if (mask.present())
      for (int64_t j = 0; j < nc; ++j)
        sr[j] += mask.at(maskBase, i, j);
    if (causal)
      for (int64_t j = i + 1; j < nc; ++j)
        sr[j] = kNegInf;
  }
}

} // namespace

Status attention(const TensorView &q, const TensorView &k, const TensorView &v,
                 const TensorView *mask, const AttentionOptions &options,
                 const TensorView &out, const TensorView *lse) {
  Geometry g;
  MaskReader reader;
  HETC_RETURN_IF_ERROR(prepare(q, k, v, mask, &g, &reader), "attention");
  HETC_RETURN_IF_ERROR(checkF32(out, "out"), "attention");
  HETC_RETURN_IF_ERROR(checkShape(out, withLast(g, g.tq, g.dv), "out"),
                       "attention");
  if (lse) {
    HETC_RETURN_IF_ERROR(checkF32(*lse, "lse"), "attention");
    HETC_RETURN_IF_ERROR(checkShape(*lse, withLast(g, g.tq, -1), "lse"),
                         "attention");
  }
  const float *qp = q.as<float>(), *kp = k.as<float>(), *vp = v.as<float>();
  float *op = out.as<float>();
  float *lp = lse ? lse->as<float>() : nullptr;
  int64_t qBlocks = (g.tq + kBlockQ - 1) / kBlockQ;
  parallelFor(g.heads * qBlocks, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> s(kBlockQ * g.tk);
    for (int64_t task = begin; task < end; ++task) {
      int64_t h = task / qBlocks;
      int64_t i0 = (task % qBlocks) * kBlockQ;
      int64_t nr = std::min(kBlockQ, g.tq - i0);
      int64_t nc = visibleKeys(g, options.causal, i0 + nr - 1);
      int64_t maskBase = reader.present() ? reader.headBase(h) : 0;
      float *oh = op + (h * g.tq + i0) * g.dv;
      scoreBlock(g, qp + h * g.tq * g.d, kp + h * g.tk * g.d, i0, nr, nc,
                 options.scale, options.causal, reader, maskBase, s.data());
      float inverse[kBlockQ];
      for (int64_t r = 0; r < nr; ++r) {
        float *sr = s.data() + r * nc;
        float m = internal::rowMax(sr, nc, 1);
        // Every key excluded: no distribution; the row's output is NaN.
        float shift = m == kNegInf ? 0.0f : m;
        for (int64_t j = 0; j < nc; ++j)
          sr[j] = internal::fastExp(sr[j] - shift);
        double l = internal::laneSum(
            nc, [&](int64_t j) { return static_cast<double>(sr[j]); });
        inverse[r] = l == 0.0 ? std::numeric_limits<float>::quiet_NaN()
                              : static_cast<float>(1.0 / l);
        if (lp)
          lp[h * g.tq + i0 + r] = m + static_cast<float>(std::log(l));
      }
      internal::sgemm(false, false, nr, g.dv, nc, 1.0f, s.data(), nc,
                      vp + h * g.tk * g.dv, g.dv, 0.0f, oh, g.dv);
      for (int64_t r = 0; r < nr; ++r)
        for (int64_t t = 0; t < g.dv; ++t)
          oh[r * g.dv + t] *= inverse[r];
    }
  });
  return okStatus();
}

Status attentionBackward(const TensorView &q, const TensorView &k,
                         const TensorView &v, const TensorView *mask,
                         const AttentionOptions &options,
                         const TensorView &out, const TensorView &lse,
                         const TensorView &dout, const TensorView &dq,
                         const TensorView &dk, const TensorView &dv) {
  const char *name = "attention_backward";
  Geometry g;
  MaskReader reader;
  HETC_RETURN_IF_ERROR(prepare(q, k, v, mask, &g, &reader), name);
  Shape outShape = withLast(g, g.tq, g.dv);
  HETC_RETURN_IF_ERROR(checkF32(out, "out"), name);
  HETC_RETURN_IF_ERROR(checkShape(out, outShape, "out"), name);
  HETC_RETURN_IF_ERROR(checkF32(dout, "dout"), name);
  HETC_RETURN_IF_ERROR(checkShape(dout, outShape, "dout"), name);
  HETC_RETURN_IF_ERROR(checkF32(lse, "lse"), name);
  HETC_RETURN_IF_ERROR(checkShape(lse, withLast(g, g.tq, -1), "lse"), name);
  HETC_RETURN_IF_ERROR(checkF32(dq, "dq"), name);
  HETC_RETURN_IF_ERROR(checkShape(dq, q.shape, "dq"), name);
  HETC_RETURN_IF_ERROR(checkF32(dk, "dk"), name);
  HETC_RETURN_IF_ERROR(checkShape(dk, k.shape, "dk"), name);
  HETC_RETURN_IF_ERROR(checkF32(dv, "dv"), name);
  HETC_RETURN_IF_ERROR(checkShape(dv, v.shape, "dv"), name);

  const float *qp = q.as<float>(), *kp = k.as<float>(), *vp = v.as<float>();
  const float *op = out.as<float>(), *lp = lse.as<float>();
  const float *dop = dout.as<float>();
  float *dqp = dq.as<float>(), *dkp = dk.as<float>(), *dvp = dv.as<float>();
  float scale = options.scale;

  // delta_i = dout_i . out_i, the row term of the softmax gradient.
  std::vector<float> delta(g.heads * g.tq);
  parallelFor(g.heads * g.tq, 256, [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const float *d = dop + row * g.dv, *o = op + row * g.dv;
      delta[row] = static_cast<float>(internal::laneSum(g.dv, [&](int64_t t) {
        return static_cast<double>(d[t]) * o[t];
      }));
    }
  });

  // One task per head: its query blocks in order, so the sums into dk and
  // dv run in one fixed order.
  parallelFor(g.heads, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> p(kBlockQ * g.tk), dp(kBlockQ * g.tk);
    for (int64_t h = begin; h < end; ++h) {
      const float *qh = qp + h * g.tq * g.d;
      const float *kh = kp + h * g.tk * g.d;
      const float *vh = vp + h * g.tk * g.dv;
      float *dkh = dkp + h * g.tk * g.d;
      float *dvh = dvp + h * g.tk * g.dv;
      std::fill(dkh, dkh + g.tk * g.d, 0.0f);
      std::fill(dvh, dvh + g.tk * g.dv, 0.0f);
      int64_t maskBase = reader.present() ? reader.headBase(h) : 0;
      for (int64_t i0 = 0; i0 < g.tq; i0 += kBlockQ) {
        int64_t nr = std::min(kBlockQ, g.tq - i0);
        int64_t nc = visibleKeys(g, options.causal, i0 + nr - 1);
        const float *doh = dop + (h * g.tq + i0) * g.dv;
        scoreBlock(g, qh, kh, i0, nr, nc, scale, options.causal, reader,
                   maskBase, p.data());
        for (int64_t r = 0; r < nr; ++r) {
          float li = lp[h * g.tq + i0 + r];
          float *pr = p.data() + r * nc;
          for (int64_t j = 0; j < nc; ++j)
            pr[j] = internal::fastExp(pr[j] - li);
        }
        // dV[0, nc) += P^T dO; dP = dO V[0, nc)^T.
        internal::sgemm(true, false, nc, g.dv, nr, 1.0f, p.data(), nc, doh,
                        g.dv, 1.0f, dvh, g.dv);
        internal::sgemm(false, true, nr, nc, g.dv, 1.0f, doh, g.dv, vh, g.dv,
                        0.0f, dp.data(), nc);
        for (int64_t r = 0; r < nr; ++r) {
          float di = delta[h * g.tq + i0 + r];
          const float *pr = p.data() + r * nc;
          float *dsr = dp.data() + r * nc;
          for (int64_t j = 0; j < nc; ++j)
            dsr[j] = pr[j] * (dsr[j] - di) * scale;
        }
        // dQ = dS K[0, nc); dK[0, nc) += dS^T Q.
        internal::sgemm(false, false, nr, g.d, nc, 1.0f, dp.data(), nc, kh,
                        g.d, 0.0f, dqp + (h * g.tq + i0) * g.d, g.d);
        internal::sgemm(true, false, nc, g.d, nr, 1.0f, dp.data(), nc,
                        qh + i0 * g.d, g.d, 1.0f, dkh, g.d);
      }
    }
  });
  return okStatus();
}

} // namespace hetc::runtime::cpu
