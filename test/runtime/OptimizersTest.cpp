//===- OptimizersTest.cpp - SGD, AdamW, gradient clipping ------------------===//
//
// Expected values follow torch.optim's documented update rules, evaluated in
// double in the test; a few step-1 values are written out by hand.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Optimizers.h"

#include "TestUtil.h"

namespace hetc::runtime::test {
namespace {

using cpu::AdamWOptions;
using cpu::LrSchedule;
using cpu::SgdOptions;
using runtime::LrScheduleKind;

// torch.optim.AdamW, one element, in double.
void referenceAdamW(double &p, double &m, double &v, double g, int t,
                    const AdamWOptions &o) {
  if (o.applyWeightDecay)
    p *= 1 - o.lr * o.weightDecay;
  m = o.beta1 * m + (1 - o.beta1) * g;
  v = o.beta2 * v + (1 - o.beta2) * g * g;
  double mHat = m / (1 - std::pow(o.beta1, t));
  double vHat = v / (1 - std::pow(o.beta2, t));
  p -= o.lr * mHat / (std::sqrt(vHat) + o.eps);
}

TEST(AdamW, StepOneByHand) {
  // p = 1, g = 0.5, lr = 0.1, wd = 0.01: decay gives 0.999; m = 0.05,
  // v = 0.00025; bias-corrected m = 0.5, sqrt(v) = 0.5; the update is
  // 0.1 * 0.5 / (0.5 + 1e-8).
  F32 p({1}, {1.0f}), g({1}, {0.5f}), m({1}), v({1});
  AdamWOptions o;
  o.lr = 0.1;
  o.weightDecay = 0.01;
  HETC_ASSERT_OK(cpu::adamwStep(p.view(), g.view(), m.view(), v.view(), I64({}, {1}).view(), o));
  EXPECT_NEAR(p.v[0], 0.8990000019999999, 1e-7);
  EXPECT_NEAR(m.v[0], 0.05, 1e-9);
  EXPECT_NEAR(v.v[0], 0.00025, 3e-11); // float's spacing there is 2.7e-11
}

struct AdamCase {
  bool decay;
  double eps;
};

void PrintTo(const AdamCase &c, std::ostream *os) {
  *os << (c.decay ? "decay" : "no decay") << ", eps " << c.eps;
}

class AdamWSteps : public ::testing::TestWithParam<AdamCase> {};

// Three steps with gradients of different sizes and signs, against the
// formula in double; catches decay order, bias correction and eps placement.
TEST_P(AdamWSteps, ThreeStepsMatchTorchFormula) {
  AdamWOptions o;
  o.lr = 0.05;
  o.weightDecay = 0.1;
  o.eps = GetParam().eps;
  o.applyWeightDecay = GetParam().decay;
  std::vector<float> p0 = {1.0f, -0.5f, 0.25f, 2.0f, -3.0f};
  std::vector<std::vector<float>> grads = {{0.5f, -0.01f, 2.0f, 0.0f, 1e-3f},
                                           {-0.3f, 0.02f, 1.5f, 0.1f, -1e-3f},
                                           {0.4f, 0.015f, -2.5f, -0.2f, 5e-3f}};
  F32 p({5}, p0), m({5}), v({5});
  std::vector<double> rp(p0.begin(), p0.end()), rm(5, 0.0), rv(5, 0.0);
  for (int t = 1; t <= 3; ++t) {
    F32 g({5}, grads[t - 1]);
    HETC_ASSERT_OK(cpu::adamwStep(p.view(), g.view(), m.view(), v.view(), I64({}, {t}).view(), o));
    for (int i = 0; i < 5; ++i)
      referenceAdamW(rp[i], rm[i], rv[i], grads[t - 1][i], t, o);
    EXPECT_TRUE(allClose(p.v, rp, 1e-6, 1e-6)) << "step " << t;
    EXPECT_TRUE(allClose(m.v, rm, 1e-8, 1e-6)) << "step " << t;
    EXPECT_TRUE(allClose(v.v, rv, 1e-10, 1e-6)) << "step " << t;
  }
}

INSTANTIATE_TEST_SUITE_P(Optimizers, AdamWSteps,
                         ::testing::Values(AdamCase{true, 1e-8}, AdamCase{false, 1e-8},
                                           AdamCase{true, 1e-3}));

TEST(AdamW, NoDecayFlagLeavesZeroGradientParamsAlone) {
  F32 p({2}, {1.5f, -2.0f}), g({2}), m({2}), v({2});
  AdamWOptions o;
  o.applyWeightDecay = false;
  HETC_ASSERT_OK(cpu::adamwStep(p.view(), g.view(), m.view(), v.view(), I64({}, {1}).view(), o));
  EXPECT_EQ(p.v, (std::vector<float>{1.5f, -2.0f}));
  o.applyWeightDecay = true;
  o.lr = 0.1;
  o.weightDecay = 0.5;
  HETC_ASSERT_OK(cpu::adamwStep(p.view(), g.view(), m.view(), v.view(), I64({}, {2}).view(), o));
  EXPECT_TRUE(allClose(p.v, std::vector<double>{1.5 * 0.95, -2.0 * 0.95}, 1e-7, 1e-7));
}

TEST(AdamW, Errors) {
  F32 p({3}), g({3}), m({3}), v({2});
  AdamWOptions o;
  EXPECT_TRUE(isError(cpu::adamwStep(p.view(), g.view(), m.view(), v.view(), I64({}, {1}).view(), o),
                      StatusCode::kInvalidArgument,
                      "adamw: v f32[2] does not match param f32[3]"));
  EXPECT_TRUE(isError(cpu::adamwStep(p.view(), g.view(), m.view(), m.view(), I64({}, {0}).view(), o),
                      StatusCode::kInvalidArgument,
                      "adamw: the step count must be a whole number >= 1, got 0"));
  o.beta2 = 1.0;
  EXPECT_TRUE(isError(cpu::adamwStep(p.view(), g.view(), m.view(), m.view(), I64({}, {1}).view(), o),
                      StatusCode::kInvalidArgument, "adamw: betas must be in [0, 1)"));
}

TEST(Sgd, ThreeStepsByHand) {
  F32 p({2}, {1.0f, -2.0f});
  SgdOptions o;
  o.lr = 0.1;
  std::vector<std::vector<float>> grads = {{0.5f, 0.25f}, {-1.0f, 0.0f}, {2.0f, -4.0f}};
  // p -= 0.1 g: [0.95, -2.025], [1.05, -2.025], [0.85, -1.625]
  std::vector<std::vector<double>> want = {{0.95, -2.025}, {1.05, -2.025}, {0.85, -1.625}};
  for (int t = 0; t < 3; ++t) {
    F32 g({2}, grads[t]);
    HETC_ASSERT_OK(cpu::sgdStep(p.view(), g.view(), o));
    EXPECT_TRUE(allClose(p.v, want[t], 1e-6, 1e-6)) << "step " << t + 1;
  }
}

TEST(Sgd, CoupledWeightDecay) {
  // g' = g + wd * p = 0.5 + 0.2 * 1 = 0.7; p = 1 - 0.1 * 0.7 = 0.93.
  F32 p({1}, {1.0f}), g({1}, {0.5f});
  SgdOptions o{0.1, 0.2};
  HETC_ASSERT_OK(cpu::sgdStep(p.view(), g.view(), o));
  EXPECT_NEAR(p.v[0], 0.93, 1e-7);
  F32 wrong({2});
  EXPECT_TRUE(isError(cpu::sgdStep(p.view(), wrong.view(), o),
                      StatusCode::kInvalidArgument, "sgd: grad f32[2] does not match"));
}

// A learning-rate factor multiplies lr exactly as a smaller lr would: the
// same bits, for SGD and for AdamW (whose decay uses the scheduled lr too).
TEST(LrFactor, EqualsTheScaledRate) {
  Owned<double> factor({}, {0.25});
  TensorView factorView = factor.view();
  std::vector<float> init = {1.0f, -2.0f, 0.5f}, grad = {0.5f, 0.25f, -3.0f};
  SgdOptions sgd{0.4, 0.1}, sgdScaled{0.1, 0.1};
  F32 p1({3}, init), p2({3}, init), g({3}, grad);
  HETC_ASSERT_OK(cpu::sgdStep(p1.view(), g.view(), sgd, &factorView));
  HETC_ASSERT_OK(cpu::sgdStep(p2.view(), g.view(), sgdScaled));
  EXPECT_EQ(p1.v, p2.v);

  AdamWOptions adam, adamScaled;
  adam.lr = 0.4;
  adamScaled.lr = 0.1;
  adam.weightDecay = adamScaled.weightDecay = 0.5;
  F32 q1({3}, init), q2({3}, init), m1({3}), m2({3}), v1({3}), v2({3});
  for (int64_t t = 1; t <= 3; ++t) {
    HETC_ASSERT_OK(cpu::adamwStep(q1.view(), g.view(), m1.view(), v1.view(),
                                  I64({}, {t}).view(), adam, &factorView));
    HETC_ASSERT_OK(cpu::adamwStep(q2.view(), g.view(), m2.view(), v2.view(),
                                  I64({}, {t}).view(), adamScaled));
  }
  EXPECT_EQ(q1.v, q2.v);
  EXPECT_EQ(m1.v, m2.v);
}

// nanoGPT's get_lr / lr, written out: warmup (i + 1) / (W + 1), then the
// decay to min_factor at D, min_factor after.
TEST(LrSchedule, NanoGptValues) {
  LrSchedule cosine{LrScheduleKind::kCosine, 2, 6, 0.1};
  LrSchedule linear{LrScheduleKind::kLinear, 2, 6, 0.1};
  LrSchedule constant{LrScheduleKind::kConstant, 3, 0, 0.0};
  struct Case {
    const LrSchedule *schedule;
    int64_t step;
    double want;
  } cases[] = {{&cosine, 0, 1.0 / 3},  {&cosine, 1, 2.0 / 3},
               {&cosine, 2, 1.0},      {&cosine, 4, 0.1 + 0.5 * 0.9},
               {&cosine, 6, 0.1},      {&cosine, 7, 0.1},
               {&linear, 3, 0.1 + 0.75 * 0.9}, {&linear, 5, 0.1 + 0.25 * 0.9},
               {&constant, 2, 0.75},   {&constant, 3, 1.0},
               {&constant, 1000, 1.0}};
  for (const Case &c : cases) {
    Owned<double> factor(Shape{});
    HETC_ASSERT_OK(cpu::lrSchedule(I64({}, {c.step}).view(), *c.schedule,
                                   factor.view()));
    EXPECT_NEAR(factor.v[0], c.want, 1e-15) << "step " << c.step;
  }
  Owned<double> factor(Shape{});
  EXPECT_TRUE(isError(cpu::lrSchedule(F32({}, {1.0f}).view(), cosine, factor.view()),
                      StatusCode::kInvalidArgument, "lr_schedule: step must be one i64 or i32"));
  LrSchedule backwards{LrScheduleKind::kLinear, 5, 5, 0.0};
  EXPECT_TRUE(isError(cpu::lrSchedule(I64({}, {0}).view(), backwards, factor.view()),
                      StatusCode::kInvalidArgument, "decay_steps > warmup_steps"));
}

TEST(ClipGradNorm, ScalesOnlyAboveMaxNorm) {
  // Norm of {3, 4} and {12} is 13.
  F32 a({2}, {3, 4}), b({1}, {12});
  double sumSquares = 0;
  HETC_ASSERT_OK(cpu::sumOfSquares({a.view(), b.view()}, &sumSquares));
  EXPECT_DOUBLE_EQ(sumSquares, 169.0);
  EXPECT_DOUBLE_EQ(cpu::clipCoefficient(13.0, 100.0), 1.0);
  EXPECT_DOUBLE_EQ(cpu::clipCoefficient(13.0, 1.0), 1.0 / (13.0 + 1e-6));

  double norm = 0;
  HETC_ASSERT_OK(cpu::clipGradNorm({a.view(), b.view()}, 100.0, &norm));
  EXPECT_DOUBLE_EQ(norm, 13.0);
  EXPECT_EQ(a.v, (std::vector<float>{3, 4}));
  EXPECT_EQ(b.v, (std::vector<float>{12}));

  HETC_ASSERT_OK(cpu::clipGradNorm({a.view(), b.view()}, 1.0, &norm));
  double c = 1.0 / (13.0 + 1e-6);
  EXPECT_TRUE(allClose(a.v, std::vector<double>{3 * c, 4 * c}, 1e-7, 1e-6));
  EXPECT_TRUE(allClose(b.v, std::vector<double>{12 * c}, 1e-7, 1e-6));
  double after = 0;
  HETC_ASSERT_OK(cpu::sumOfSquares({a.view(), b.view()}, &after));
  EXPECT_NEAR(std::sqrt(after), 1.0, 1e-6);
}

TEST(ClipGradNorm, ManyBlocksMatchDoubleReference) {
  F32 a = randomF32({20000}), b = randomF32({3, 7});
  double want = 0;
  for (float x : a.v)
    want += static_cast<double>(x) * x;
  for (float x : b.v)
    want += static_cast<double>(x) * x;
  double got = 0;
  HETC_ASSERT_OK(cpu::sumOfSquares({a.view(), b.view()}, &got));
  EXPECT_NEAR(got, want, 1e-9 * want);
}

TEST(GlobalNorm, L2NormOfAllTensors) {
  F32 a({2}, {3.0f, 0.0f}), b({1, 1}, {4.0f}), out(Shape{});
  HETC_ASSERT_OK(cpu::globalNorm({a.view(), b.view()}, out.view()));
  EXPECT_EQ(out.v[0], 5.0f);
  Owned<double> wide(Shape{});
  HETC_ASSERT_OK(cpu::globalNorm({b.view()}, makeView(wide.v.data(), {})));
  EXPECT_EQ(wide.v[0], 4.0);
  F32 notScalar({1});
  EXPECT_TRUE(isError(cpu::globalNorm({a.view()}, notScalar.view()),
                      StatusCode::kInvalidArgument,
                      "global_norm: out must be a 0-D f32 or f64 tensor, got "
                      "f32[1]"));
}

TEST(ClipGradNorm, Errors) {
  F32 a({2});
  I64 b({2});
  EXPECT_TRUE(isError(cpu::clipGradNorm({a.view()}, 0.0, nullptr),
                      StatusCode::kInvalidArgument,
                      "clip_grad_norm: max_norm must be positive, got 0"));
  EXPECT_TRUE(isError(cpu::clipGradNorm({a.view(), b.view()}, 1.0, nullptr),
                      StatusCode::kInvalidArgument,
                      "clip_grad_norm: sum_of_squares: tensor 1: gradient must be "
                      "f32, got i64[2]"));
}

} // namespace
} // namespace hetc::runtime::test
