//===- Attention.cpp - scaled dot-product attention and its gradient ------===//

#include "dialects/HetGraph/ConstantEval.h"
#include "dialects/HetGraph/Eval/Eval.h"

#include <cmath>
#include <limits>

namespace hetc::hetg::eval {

namespace {

/// Sizes of one attention problem and where its batches and mask live.
struct AttentionShape {
  int64_t batches, queries, keys, headSize, valueSize;
  /// For each element of the `[..., Tq, Tk]` scores, its mask element.
  std::vector<int64_t> maskIndices;
};

std::optional<AttentionShape> attentionShape(const Array &q, const Array &k,
                                             const Array &v,
                                             const Array *mask) {
  int64_t rank = q.rank();
  if (rank < 2 || k.rank() != rank || v.rank() != rank)
    return std::nullopt;
  llvm::ArrayRef<int64_t> lead = llvm::ArrayRef(q.shape).drop_back(2);
  if (llvm::ArrayRef(k.shape).drop_back(2) != lead ||
      llvm::ArrayRef(v.shape).drop_back(2) != lead ||
      q.shape.back() != k.shape.back() ||
      k.shape[rank - 2] != v.shape[rank - 2])
    return std::nullopt;
  AttentionShape s{elementCount(lead), q.shape[rank - 2], k.shape[rank - 2],
                   q.shape.back(),     v.shape.back(),    {}};
  if (mask) {
    Shape scores(lead);
    scores.append({s.queries, s.keys});
    llvm::FailureOr<Shape> shape = broadcastShapes(mask->shape, scores);
    if (mlir::failed(shape) ||
        llvm::ArrayRef<int64_t>(*shape) != llvm::ArrayRef<int64_t>(scores))
      return std::nullopt;
    s.maskIndices = broadcastSourceIndices(mask->shape, scores);
  }
  return s;
}

/// The probabilities `softmax(q k^T * scale + mask)` of batch `b`, `[Tq, Tk]`.
std::vector<double> probabilities(const AttentionShape &s, const Array &q,
                                  const Array &k, const Array *mask, int64_t b,
                                  double scale, bool causal) {
  const double *qb = &q.data[b * s.queries * s.headSize];
  const double *kb = &k.data[b * s.keys * s.headSize];
  std::vector<double> p(s.queries * s.keys);
  for (int64_t i = 0; i < s.queries; ++i) {
    double *row = &p[i * s.keys];
    double max = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < s.keys; ++j) {
      double score = 0.0;
      for (int64_t d = 0; d < s.headSize; ++d)
        score += qb[i * s.headSize + d] * kb[j * s.headSize + d];
      score *= scale;
      if (mask)
        score += mask->data[s.maskIndices[(b * s.queries + i) * s.keys + j]];
      if (causal && j > i)
        score = -std::numeric_limits<double>::infinity();
      row[j] = score;
      max = std::max(max, score);
    }
    double sum = 0.0;
    for (int64_t j = 0; j < s.keys; ++j)
      sum += row[j] = std::exp(row[j] - max);
    for (int64_t j = 0; j < s.keys; ++j)
      row[j] /= sum;
  }
  return p;
}

} // namespace

std::optional<Array> attention(const Array &q, const Array &k, const Array &v,
                               const Array *mask, double scale, bool causal) {
  std::optional<AttentionShape> s = attentionShape(q, k, v, mask);
  if (!s)
    return std::nullopt;
  Shape shape(llvm::ArrayRef(q.shape).drop_back());
  shape.push_back(s->valueSize);
  Array out(shape);
  for (int64_t b = 0; b < s->batches; ++b) {
    std::vector<double> p = probabilities(*s, q, k, mask, b, scale, causal);
    const double *vb = &v.data[b * s->keys * s->valueSize];
    double *ob = &out.data[b * s->queries * s->valueSize];
    for (int64_t i = 0; i < s->queries; ++i)
      for (int64_t j = 0; j < s->keys; ++j)
        for (int64_t e = 0; e < s->valueSize; ++e)
          ob[i * s->valueSize + e] +=
              p[i * s->keys + j] * vb[j * s->valueSize + e];
  }
  return out;
}

std::optional<AttentionGrads> attentionGrad(const Array &q, const Array &k,
                                            const Array &v, const Array *mask,
                                            const Array &dy, double scale,
                                            bool causal) {
  std::optional<AttentionShape> s = attentionShape(q, k, v, mask);
  if (!s || dy.size() != s->batches * s->queries * s->valueSize)
    return std::nullopt;
  AttentionGrads grads{Array(q.shape), Array(k.shape), Array(v.shape)};
  int64_t tq = s->queries, tk = s->keys, hd = s->headSize, vd = s->valueSize;
  std::vector<double> dS(tq * tk);
  for (int64_t b = 0; b < s->batches; ++b) {
    std::vector<double> p = probabilities(*s, q, k, mask, b, scale, causal);
    const double *qb = &q.data[b * tq * hd], *kb = &k.data[b * tk * hd];
    const double *vb = &v.data[b * tk * vd], *gb = &dy.data[b * tq * vd];
    double *dq = &grads.query.data[b * tq * hd];
    double *dk = &grads.key.data[b * tk * hd];
    double *dv = &grads.value.data[b * tk * vd];
    for (int64_t i = 0; i < tq; ++i) {
      // dP[i, j] = dO[i] . v[j]; dS = P * (dP - sum_j P dP).
      double rowDot = 0.0;
      for (int64_t j = 0; j < tk; ++j) {
        double dp = 0.0;
        for (int64_t e = 0; e < vd; ++e) {
          dp += gb[i * vd + e] * vb[j * vd + e];
          dv[j * vd + e] += p[i * tk + j] * gb[i * vd + e];
        }
        dS[i * tk + j] = dp;
        rowDot += p[i * tk + j] * dp;
      }
      for (int64_t j = 0; j < tk; ++j)
        dS[i * tk + j] = p[i * tk + j] * (dS[i * tk + j] - rowDot);
    }
    for (int64_t i = 0; i < tq; ++i) {
      for (int64_t j = 0; j < tk; ++j) {
        double ds = dS[i * tk + j] * scale;
        for (int64_t d = 0; d < hd; ++d) {
          dq[i * hd + d] += ds * kb[j * hd + d];
          dk[j * hd + d] += ds * qb[i * hd + d];
        }
      }
    }
  }
  return grads;
}

} // namespace hetc::hetg::eval
