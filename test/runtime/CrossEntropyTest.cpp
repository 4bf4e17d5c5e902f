//===- CrossEntropyTest.cpp - softmax cross-entropy ------------------------===//

#include "runtime/cpu/CrossEntropy.h"

#include "TestUtil.h"

namespace hetc::runtime::test {
namespace {

using cpu::CrossEntropyOptions;
using cpu::LossReduction;

// Per-row losses (0 for ignored) of logits [N, C, inner] in double, then
// reduced.
std::vector<double> referenceLoss(const std::vector<double> &x, const Shape &shape,
                                  const std::vector<int64_t> &labels,
                                  const CrossEntropyOptions &o) {
  int64_t n = shape[0], c = shape[1], inner = static_cast<int64_t>(x.size()) / (n * c);
  std::vector<double> rows(labels.size(), 0.0);
  int64_t counted = 0;
  for (int64_t s = 0; s < n; ++s)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t row = s * inner + i;
      if (labels[row] == o.ignoreIndex)
        continue;
      ++counted;
      double m = -INFINITY, sum = 0;
      for (int64_t k = 0; k < c; ++k)
        m = std::max(m, x[(s * c + k) * inner + i]);
      for (int64_t k = 0; k < c; ++k)
        sum += std::exp(x[(s * c + k) * inner + i] - m);
      rows[row] = m + std::log(sum) - x[(s * c + labels[row]) * inner + i];
    }
  if (o.reduction == LossReduction::kNone)
    return rows;
  double total = 0;
  for (double r : rows)
    total += r;
  if (o.reduction == LossReduction::kMean)
    total /= static_cast<double>(counted);
  return {total};
}

struct CeCase {
  Shape logits;
  LossReduction reduction;
};

void PrintTo(const CeCase &c, std::ostream *os) {
  *os << shapeToString(c.logits) << " reduction " << static_cast<int>(c.reduction);
}

class CrossEntropies : public ::testing::TestWithParam<CeCase> {};

TEST_P(CrossEntropies, ForwardAndBackwardMatchReference) {
  const CeCase &p = GetParam();
  F32 logits = randomF32(p.logits, -3.0f, 3.0f);
  Shape ls = p.logits;
  ls.erase(ls.begin() + 1);
  I64 labels = randomIndices(ls, 0, p.logits[1]);
  labels.v[1] = -100; // ignored
  labels.v[labels.v.size() - 1] = -100;
  CrossEntropyOptions o;
  o.reduction = p.reduction;
  Shape lossShape = p.reduction == LossReduction::kNone ? ls : Shape{};
  F32 loss(lossShape), lse(ls);
  TensorView lv = lse.view();
  HETC_ASSERT_OK(cpu::crossEntropy(logits.view(), labels.view(), o, loss.view(), &lv));
  std::vector<double> want = referenceLoss(logits.asDouble(), p.logits, labels.v, o);
  EXPECT_TRUE(allClose(loss.v, want, 1e-5, 1e-5));
  EXPECT_EQ(loss.v[p.reduction == LossReduction::kNone ? 1 : 0] == 0.0f,
            p.reduction == LossReduction::kNone);

  F32 dloss = randomF32(lossShape, 0.5f, 2.0f), dlogits(p.logits), dlogits2(p.logits);
  HETC_ASSERT_OK(cpu::crossEntropyBackward(logits.view(), labels.view(), o,
                                           dloss.view(), &lv, dlogits.view()));
  HETC_ASSERT_OK(cpu::crossEntropyBackward(logits.view(), labels.view(), o,
                                           dloss.view(), nullptr, dlogits2.view()));
  EXPECT_TRUE(allClose(dlogits2.v, dlogits.v, 1e-7, 1e-6));
  std::vector<double> w = dloss.asDouble();
  std::vector<double> wantGrad = numericGrad(
      [&](const std::vector<double> &xv) {
        return weightedSum(referenceLoss(xv, p.logits, labels.v, o), w);
      },
      logits.asDouble());
  EXPECT_TRUE(allClose(dlogits.v, wantGrad, 1e-5, 1e-4));
}

INSTANTIATE_TEST_SUITE_P(
    CrossEntropy, CrossEntropies,
    ::testing::Values(CeCase{{6, 11}, LossReduction::kMean},
                      CeCase{{6, 11}, LossReduction::kSum},
                      CeCase{{6, 11}, LossReduction::kNone},
                      CeCase{{2, 5, 3}, LossReduction::kMean},
                      CeCase{{2, 4, 3, 2}, LossReduction::kNone}));

TEST(CrossEntropy, HandComputed) {
  // Two equal logits: log 2. Logits [0, ln 3]: label 1 gives ln(4/3).
  F32 logits({2, 2}, {0.0f, 0.0f, 0.0f, std::log(3.0f)});
  I64 labels({2}, {0, 1});
  F32 loss({2});
  CrossEntropyOptions o;
  o.reduction = LossReduction::kNone;
  HETC_ASSERT_OK(cpu::crossEntropy(logits.view(), labels.view(), o, loss.view(), nullptr));
  EXPECT_TRUE(allClose(loss.v, std::vector<double>{0.6931471805599453,
                                                   0.28768207245178085},
                       1e-6, 1e-6));
  // Mean over the non-ignored row only; its gradient is softmax - onehot.
  I64 partial({2}, {-100, 1});
  F32 mean(Shape{});
  o.reduction = LossReduction::kMean;
  HETC_ASSERT_OK(cpu::crossEntropy(logits.view(), partial.view(), o, mean.view(), nullptr));
  EXPECT_NEAR(mean.v[0], 0.28768207245178085, 1e-6);
  F32 one({}, {1.0f}), grad({2, 2});
  HETC_ASSERT_OK(cpu::crossEntropyBackward(logits.view(), partial.view(), o,
                                           one.view(), nullptr, grad.view()));
  EXPECT_TRUE(allClose(grad.v, std::vector<double>{0, 0, 0.25, -0.25}, 1e-6, 1e-6));
}

TEST(CrossEntropy, LargeLogitsKeepPrecision) {
  // -log_softmax([1000, 1001, 1002])[2] = log(1 + e^-1 + e^-2).
  F32 logits({1, 3}, {1000, 1001, 1002}), loss({1});
  I64 labels({1}, {2});
  CrossEntropyOptions o;
  o.reduction = LossReduction::kNone;
  HETC_ASSERT_OK(cpu::crossEntropy(logits.view(), labels.view(), o, loss.view(), nullptr));
  EXPECT_NEAR(loss.v[0], 0.40760596444438, 1e-6);
  F32 one({1}, {1.0f}), grad({1, 3});
  HETC_ASSERT_OK(cpu::crossEntropyBackward(logits.view(), labels.view(), o, one.view(),
                                           nullptr, grad.view()));
  EXPECT_TRUE(allClose(grad.v, std::vector<double>{0.09003057317038046,
                                                   0.24472847105479767,
                                                   0.6652409557748219 - 1},
                       1e-6, 1e-5));
}

TEST(CrossEntropy, Int32LabelsAndCustomIgnoreIndex) {
  F32 logits = randomF32({4, 5});
  I32 labels({4}, {0, 4, 7, 2});
  I64 labels64({4}, {0, 4, 7, 2});
  CrossEntropyOptions o;
  o.ignoreIndex = 7;
  o.reduction = LossReduction::kSum;
  F32 a({1}), b({1});
  HETC_ASSERT_OK(cpu::crossEntropy(logits.view(), labels.view(), o, a.view(), nullptr));
  HETC_ASSERT_OK(cpu::crossEntropy(logits.view(), labels64.view(), o, b.view(), nullptr));
  EXPECT_EQ(a.v, b.v);
  EXPECT_TRUE(allClose(a.v, referenceLoss(logits.asDouble(), {4, 5}, labels64.v, o),
                       1e-5, 1e-5));
}

TEST(CrossEntropy, AllIgnoredMeanIsNaN) {
  F32 logits = randomF32({2, 3}), loss(Shape{});
  I64 labels({2}, {-100, -100});
  HETC_ASSERT_OK(cpu::crossEntropy(logits.view(), labels.view(), {}, loss.view(), nullptr));
  EXPECT_TRUE(std::isnan(loss.v[0]));
}

TEST(CrossEntropy, Errors) {
  F32 logits({3, 4}), loss(Shape{}), dl({3, 4});
  I64 labels({3}, {0, 4, 1});
  EXPECT_TRUE(isError(cpu::crossEntropy(logits.view(), labels.view(), {}, loss.view(),
                                        nullptr),
                      StatusCode::kOutOfRange,
                      "cross_entropy: label 4 at position 1 is out of range for 4 "
                      "classes"));
  I64 neg({3}, {0, -1, 1});
  EXPECT_TRUE(isError(cpu::crossEntropyBackward(logits.view(), neg.view(), {},
                                                loss.view(), nullptr, dl.view()),
                      StatusCode::kOutOfRange, "label -1 at position 1"));
  I64 wrong({4});
  EXPECT_TRUE(isError(cpu::crossEntropy(logits.view(), wrong.view(), {}, loss.view(),
                                        nullptr),
                      StatusCode::kInvalidArgument,
                      "cross_entropy: labels must have shape [3], got [4]"));
  I64 good({3}, {0, 1, 2});
  F32 lossNone({2});
  CrossEntropyOptions none;
  none.reduction = LossReduction::kNone;
  EXPECT_TRUE(isError(cpu::crossEntropy(logits.view(), good.view(), none,
                                        lossNone.view(), nullptr),
                      StatusCode::kInvalidArgument,
                      "cross_entropy: loss must have shape [3], got [2]"));
  F32 lossVec({3});
  EXPECT_TRUE(isError(cpu::crossEntropy(logits.view(), good.view(), {}, lossVec.view(),
                                        nullptr),
                      StatusCode::kInvalidArgument,
                      "loss must have one element for a reduced loss"));
  F32 flat({4});
  I64 scalar({}, {0});
  EXPECT_TRUE(isError(cpu::crossEntropy(flat.view(), scalar.view(), {}, loss.view(),
                                        nullptr),
                      StatusCode::kInvalidArgument,
                      "cross_entropy: logits must be [N, C, d...], got f32[4]"));
  F32 floatLabels({3});
  EXPECT_TRUE(isError(cpu::crossEntropy(logits.view(), floatLabels.view(), {},
                                        loss.view(), nullptr),
                      StatusCode::kInvalidArgument,
                      "cross_entropy: labels must be i64 or i32, got f32[3]"));
}

} // namespace
} // namespace hetc::runtime::test
