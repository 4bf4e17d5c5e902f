//===- Attention.cpp ------------------------------------------------------===//
//
// Row-blocked attention. Forward: per (head, block of queries), walk the key
// blocks with an online softmax (running max and sum per row), so only a
// [kBlockQ, kBlockK] tile of scores exists at a time; save the row's
// log-sum-exp. Backward recomputes score tiles from lse and runs twice: in
// parallel over key blocks for dk and dv (each key block visits the queries
// in order) and over query blocks for dq. Every output element has one
// writer and a fixed summation order, whatever the thread count.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Attention.h"

#include "runtime/cpu/internal/Broadcast.h"
#include "runtime/cpu/internal/Parallel.h"

#include <cmath>
#include <limits>

namespace hetc::runtime::cpu {
namespace {

using internal::parallelFor;

constexpr int64_t kBlockQ = 32;
constexpr int64_t kBlockK = 64;
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

// t[w * kBlockK + c] = m[(j0 + c) * width + w]: a tile of keys (or values)
// with the feature dimension outermost, so the products below run along
// keys, contiguous and vectorizable, in a fixed order.
void transposeTile(const float *m, int64_t width, int64_t j0, int64_t nc,
                   float *t) {
  for (int64_t c = 0; c < nc; ++c)
    for (int64_t w = 0; w < width; ++w)
      t[w * kBlockK + c] = m[(j0 + c) * width + w];
}

// out[c] = x . row c of the transposed tile, for c < nc.
void rowDots(const float *x, const float *tile, int64_t width, int64_t nc,
             float *out) {
  for (int64_t c = 0; c < nc; ++c)
    out[c] = 0.0f;
  for (int64_t w = 0; w < width; ++w) {
    float xv = x[w];
    const float *tw = tile + w * kBlockK;
    for (int64_t c = 0; c < nc; ++c)
      out[c] += xv * tw[c];
  }
}

// S[r * kBlockK + c] = scale * q_{i0+r} . k_{j0+c} + mask, -inf where causal
// excludes the key; kT is the transposed key tile.
void scoreTile(const float *q, const float *kT, int64_t d, int64_t i0,
               int64_t nr, int64_t j0, int64_t nc, float scale, bool causal,
               const MaskReader &mask, int64_t maskBase, float *s) {
  for (int64_t r = 0; r < nr; ++r) {
    int64_t i = i0 + r;
    float *sr = s + r * kBlockK;
    rowDots(q + i * d, kT, d, nc, sr);
    for (int64_t c = 0; c < nc; ++c) {
      int64_t j = j0 + c;
      float v = sr[c] * scale;
      if (mask.present())
        v += mask.at(maskBase, i, j);
      sr[c] = causal && j > i ? kNegInf : v;
    }
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
    std::vector<float> s(kBlockQ * kBlockK), acc(kBlockQ * g.dv);
    std::vector<float> kT(g.d * kBlockK);
    float m[kBlockQ];
    double l[kBlockQ];
    for (int64_t task = begin; task < end; ++task) {
      int64_t h = task / qBlocks;
      int64_t i0 = (task % qBlocks) * kBlockQ;
      int64_t nr = std::min(kBlockQ, g.tq - i0);
      const float *qh = qp + h * g.tq * g.d;
      const float *kh = kp + h * g.tk * g.d;
      const float *vh = vp + h * g.tk * g.dv;
      int64_t maskBase = reader.present() ? reader.headBase(h) : 0;
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int64_t r = 0; r < nr; ++r) {
        m[r] = kNegInf;
        l[r] = 0.0;
      }
      int64_t kEnd = options.causal ? std::min(g.tk, i0 + nr) : g.tk;
      for (int64_t j0 = 0; j0 < kEnd; j0 += kBlockK) {
        int64_t nc = std::min(kBlockK, kEnd - j0);
        transposeTile(kh, g.d, j0, nc, kT.data());
        scoreTile(qh, kT.data(), g.d, i0, nr, j0, nc, options.scale,
                  options.causal, reader, maskBase, s.data());
        for (int64_t r = 0; r < nr; ++r) {
          const float *sr = s.data() + r * kBlockK;
          float tileMax = kNegInf;
          for (int64_t c = 0; c < nc; ++c)
            if (sr[c] > tileMax || std::isnan(sr[c]))
              tileMax = sr[c];
          float mNew = std::isnan(tileMax) ? tileMax : std::max(m[r], tileMax);
          if (mNew == kNegInf)
            continue; // every key so far is excluded
          float *ar = acc.data() + r * g.dv;
          if (m[r] != mNew) {
            float alpha = std::exp(m[r] - mNew);
            l[r] *= alpha;
            for (int64_t t = 0; t < g.dv; ++t)
              ar[t] *= alpha;
            m[r] = mNew;
          }
          for (int64_t c = 0; c < nc; ++c) {
            float p = std::exp(sr[c] - mNew);
            if (p == 0.0f)
              continue;
            l[r] += p;
            const float *vj = vh + (j0 + c) * g.dv;
            for (int64_t t = 0; t < g.dv; ++t)
              ar[t] += p * vj[t];
          }
        }
      }
      for (int64_t r = 0; r < nr; ++r) {
        int64_t i = i0 + r;
        float *orow = op + (h * g.tq + i) * g.dv;
        float inv = static_cast<float>(1.0 / l[r]);
        const float *ar = acc.data() + r * g.dv;
        for (int64_t t = 0; t < g.dv; ++t)
          orow[t] = l[r] == 0.0 ? std::numeric_limits<float>::quiet_NaN()
                                : ar[t] * inv;
        if (lp)
          lp[h * g.tq + i] = m[r] + static_cast<float>(std::log(l[r]));
      }
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
      double s = 0.0;
      for (int64_t t = 0; t < g.dv; ++t)
        s += static_cast<double>(dop[row * g.dv + t]) * op[row * g.dv + t];
      delta[row] = static_cast<float>(s);
    }
  });

  // dk and dv: one task per (head, key block), queries visited in order.
  int64_t kBlocks = (g.tk + kBlockK - 1) / kBlockK;
  parallelFor(g.heads * kBlocks, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> s(kBlockQ * kBlockK), dp(kBlockK);
    std::vector<float> kT(g.d * kBlockK), vT(g.dv * kBlockK);
    for (int64_t task = begin; task < end; ++task) {
      int64_t h = task / kBlocks;
      int64_t j0 = (task % kBlocks) * kBlockK;
      int64_t nc = std::min(kBlockK, g.tk - j0);
      const float *qh = qp + h * g.tq * g.d;
      const float *kh = kp + h * g.tk * g.d;
      const float *vh = vp + h * g.tk * g.dv;
      const float *doh = dop + h * g.tq * g.dv;
      float *dkj = dkp + (h * g.tk + j0) * g.d;
      float *dvj = dvp + (h * g.tk + j0) * g.dv;
      std::fill(dkj, dkj + nc * g.d, 0.0f);
      std::fill(dvj, dvj + nc * g.dv, 0.0f);
      int64_t maskBase = reader.present() ? reader.headBase(h) : 0;
      transposeTile(kh, g.d, j0, nc, kT.data());
      transposeTile(vh, g.dv, j0, nc, vT.data());
      int64_t iFirst = options.causal ? (j0 / kBlockQ) * kBlockQ : 0;
      for (int64_t i0 = iFirst; i0 < g.tq; i0 += kBlockQ) {
        int64_t nr = std::min(kBlockQ, g.tq - i0);
        scoreTile(qh, kT.data(), g.d, i0, nr, j0, nc, scale, options.causal,
                  reader, maskBase, s.data());
        for (int64_t r = 0; r < nr; ++r) {
          int64_t i = i0 + r;
          float li = lp[h * g.tq + i], di = delta[h * g.tq + i];
          const float *doi = doh + i * g.dv;
          const float *qi = qh + i * g.d;
          rowDots(doi, vT.data(), g.dv, nc, dp.data());
          for (int64_t c = 0; c < nc; ++c) {
            float p = std::exp(s[r * kBlockK + c] - li);
            if (p == 0.0f)
              continue;
            float *dvRow = dvj + c * g.dv;
            for (int64_t t = 0; t < g.dv; ++t)
              dvRow[t] += p * doi[t];
            float ds = p * (dp[c] - di) * scale;
            float *dkRow = dkj + c * g.d;
            for (int64_t t = 0; t < g.d; ++t)
              dkRow[t] += ds * qi[t];
          }
        }
      }
    }
  });

  // dq: one task per (head, query block), keys visited in order.
  int64_t qBlocks = (g.tq + kBlockQ - 1) / kBlockQ;
  parallelFor(g.heads * qBlocks, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> s(kBlockQ * kBlockK), dp(kBlockK);
    std::vector<float> kT(g.d * kBlockK), vT(g.dv * kBlockK);
    for (int64_t task = begin; task < end; ++task) {
      int64_t h = task / qBlocks;
      int64_t i0 = (task % qBlocks) * kBlockQ;
      int64_t nr = std::min(kBlockQ, g.tq - i0);
      const float *qh = qp + h * g.tq * g.d;
      const float *kh = kp + h * g.tk * g.d;
      const float *vh = vp + h * g.tk * g.dv;
      const float *doh = dop + h * g.tq * g.dv;
      float *dqi0 = dqp + (h * g.tq + i0) * g.d;
      std::fill(dqi0, dqi0 + nr * g.d, 0.0f);
      int64_t maskBase = reader.present() ? reader.headBase(h) : 0;
      int64_t kEnd = options.causal ? std::min(g.tk, i0 + nr) : g.tk;
      for (int64_t j0 = 0; j0 < kEnd; j0 += kBlockK) {
        int64_t nc = std::min(kBlockK, kEnd - j0);
        transposeTile(kh, g.d, j0, nc, kT.data());
        transposeTile(vh, g.dv, j0, nc, vT.data());
        scoreTile(qh, kT.data(), g.d, i0, nr, j0, nc, scale, options.causal,
                  reader, maskBase, s.data());
        for (int64_t r = 0; r < nr; ++r) {
          int64_t i = i0 + r;
          float li = lp[h * g.tq + i], di = delta[h * g.tq + i];
          const float *doi = doh + i * g.dv;
          float *dqRow = dqi0 + r * g.d;
          rowDots(doi, vT.data(), g.dv, nc, dp.data());
          for (int64_t c = 0; c < nc; ++c) {
            float p = std::exp(s[r * kBlockK + c] - li);
            if (p == 0.0f)
              continue;
            float ds = p * (dp[c] - di) * scale;
            const float *kj = kh + (j0 + c) * g.d;
            for (int64_t t = 0; t < g.d; ++t)
              dqRow[t] += ds * kj[t];
          }
        }
      }
    }
  });
  return okStatus();
}

} // namespace hetc::runtime::cpu
