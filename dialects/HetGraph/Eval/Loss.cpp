//===- Loss.cpp - softmax cross-entropy and its gradient ------------------===//

#include "dialects/HetGraph/Eval/Eval.h"

#include <cmath>
#include <limits>

namespace hetc::hetg::eval {

namespace {

/// Tokens of a `[N, C, d...]` logits tensor: token `t = n * inner + i` reads
/// classes at `n * C * inner + c * inner + i`.
struct TokenView {
  int64_t tokens, classes, inner;
  int64_t at(int64_t token, int64_t c) const {
    return (token / inner) * classes * inner + c * inner + token % inner;
  }
};

/// The view, or nullopt when a label that counts is not a class.
std::optional<TokenView> tokenView(const Array &logits,
                                   llvm::ArrayRef<int64_t> labels,
                                   std::optional<int64_t> ignoreIndex) {
  if (logits.rank() < 2)
    return std::nullopt;
  AxisView view = viewAround(logits.shape, 1);
  TokenView tokens{view.outer * view.inner, view.extent, view.inner};
  if (int64_t(labels.size()) != tokens.tokens)
    return std::nullopt;
  for (int64_t label : labels)
    if (label != ignoreIndex && (label < 0 || label >= tokens.classes))
      return std::nullopt;
  return tokens;
}

/// log(sum(exp(logits))) over the classes of one token.
double logSumExp(const Array &logits, const TokenView &view, int64_t token) {
  double max = -std::numeric_limits<double>::infinity();
  for (int64_t c = 0; c < view.classes; ++c)
    max = std::max(max, logits.data[view.at(token, c)]);
  double sum = 0.0;
  for (int64_t c = 0; c < view.classes; ++c)
    sum += std::exp(logits.data[view.at(token, c)] - max);
  return max + std::log(sum);
}

Shape labelShape(const Array &logits) {
  Shape shape{logits.shape[0]};
  shape.append(logits.shape.begin() + 2, logits.shape.end());
  return shape;
}

} // namespace

std::optional<Array> crossEntropy(const Array &logits,
                                  llvm::ArrayRef<int64_t> labels,
                                  LossReduction reduction,
                                  std::optional<int64_t> ignoreIndex) {
  std::optional<TokenView> view = tokenView(logits, labels, ignoreIndex);
  if (!view)
    return std::nullopt;
  Array perToken(labelShape(logits));
  double sum = 0.0;
  int64_t counted = 0;
  for (int64_t t = 0; t < view->tokens; ++t) {
    if (labels[t] == ignoreIndex)
      continue;
    perToken.data[t] =
        logSumExp(logits, *view, t) - logits.data[view->at(t, labels[t])];
    sum += perToken.data[t];
    ++counted;
  }
  switch (reduction) {
  case LossReduction::None:
    return perToken;
  case LossReduction::Sum:
    return Array(Shape{}, std::vector<double>{sum});
  case LossReduction::Mean:
    // Like torch, a batch whose every label is ignored has a NaN mean.
    return Array(Shape{}, std::vector<double>{sum / double(counted)});
  }
  return std::nullopt;
}

std::optional<Array> crossEntropyGrad(const Array &logits,
                                      llvm::ArrayRef<int64_t> labels,
                                      const Array &lossGrad,
                                      LossReduction reduction,
                                      std::optional<int64_t> ignoreIndex) {
  std::optional<TokenView> view = tokenView(logits, labels, ignoreIndex);
  if (!view)
    return std::nullopt;
  int64_t counted = 0;
  for (int64_t label : labels)
    counted += label != ignoreIndex;
  Array out(logits.shape);
  for (int64_t t = 0; t < view->tokens; ++t) {
    if (labels[t] == ignoreIndex)
      continue;
    double weight = reduction == LossReduction::None ? lossGrad.data[t]
                    : reduction == LossReduction::Sum
                        ? lossGrad.data[0]
                        : lossGrad.data[0] / double(counted);
    double lse = logSumExp(logits, *view, t);
    for (int64_t c = 0; c < view->classes; ++c) {
      int64_t at = view->at(t, c);
      double p = std::exp(logits.data[at] - lse);
      out.data[at] = (p - (c == labels[t] ? 1.0 : 0.0)) * weight;
    }
  }
  return out;
}

} // namespace hetc::hetg::eval
