//===- OptimizerStepTest.cpp - training steps against torch.optim formulas ===//
//
// Runs hetg-autodiff and hetg-optimizer on a small model, executes three
// training steps by folding (globals in, stored globals out), and compares
// parameters and optimizer state with torch.optim's update rules written out
// here from their documentation.
//
//===----------------------------------------------------------------------===//

#include "GraphEvaluator.h"

#include "passes/Passes.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mlir;
using namespace hetc;
using namespace hetc::testing;

namespace {

// loss = sum(w * w * c) + sum(b * b * d) + sum(w) * sum(b): the gradients
// are 2 c w + sum(b) and 2 d b + sum(w), so they change every step.
constexpr const char *kModel = R"mlir(
ml_program.global private @w(dense<[[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]> : tensor<2x3xf64>) : tensor<2x3xf64>
ml_program.global private @b(dense<[0.1, -0.2, 0.3]> : tensor<3xf64>) : tensor<3xf64>
func.func @step() -> tensor<f64> {
  %w = ml_program.global_load_const @w : tensor<2x3xf64>
  %b = ml_program.global_load_const @b : tensor<3xf64>
  %c = hetg.constant dense<[[1.0, 2.0, 0.5], [0.25, 3.0, 1.0]]> : tensor<2x3xf64>
  %d = hetg.constant dense<[2.0, 0.5, 1.0]> : tensor<3xf64>
  %ww = hetg.mul %w, %w : tensor<2x3xf64>, tensor<2x3xf64>
  %wc = hetg.mul %ww, %c : tensor<2x3xf64>, tensor<2x3xf64>
  %bb = hetg.mul %b, %b : tensor<3xf64>, tensor<3xf64>
  %bd = hetg.mul %bb, %d : tensor<3xf64>, tensor<3xf64>
  %sw = hetg.reduce_sum %wc <{axes = array<i64: 0, 1>, keep_dims = false}> : tensor<2x3xf64>
  %sb = hetg.reduce_sum %bd <{axes = array<i64: 0>, keep_dims = false}> : tensor<3xf64>
  %tw = hetg.reduce_sum %w <{axes = array<i64: 0, 1>, keep_dims = false}> : tensor<2x3xf64>
  %tb = hetg.reduce_sum %b <{axes = array<i64: 0>, keep_dims = false}> : tensor<3xf64>
  %cross = hetg.mul %tw, %tb : tensor<f64>, tensor<f64>
  %s = hetg.add %sw, %sb : tensor<f64>, tensor<f64>
  %loss = hetg.add %s, %cross : tensor<f64>, tensor<f64>
  return %loss : tensor<f64>
}
)mlir";

const std::vector<double> kC = {1.0, 2.0, 0.5, 0.25, 3.0, 1.0};
const std::vector<double> kD = {2.0, 0.5, 1.0};

double sum(const std::vector<double> &v) {
  double total = 0.0;
  for (double x : v)
    total += x;
  return total;
}

/// The gradients of kModel's loss, by hand.
void gradients(const std::vector<double> &w, const std::vector<double> &b,
               std::vector<double> &gw, std::vector<double> &gb) {
  gw.resize(w.size());
  gb.resize(b.size());
  for (size_t i = 0; i < w.size(); ++i)
    gw[i] = 2 * kC[i] * w[i] + sum(b);
  for (size_t i = 0; i < b.size(); ++i)
    gb[i] = 2 * kD[i] * b[i] + sum(w);
}

/// torch.nn.utils.clip_grad_norm_: scale by min(1, max / (norm + 1e-6)).
void clip(std::vector<double> &gw, std::vector<double> &gb, double maxNorm) {
  double squares = 0.0;
  for (double g : gw)
    squares += g * g;
  for (double g : gb)
    squares += g * g;
  double coefficient = std::min(1.0, maxNorm / (std::sqrt(squares) + 1e-6));
  for (double &g : gw)
    g *= coefficient;
  for (double &g : gb)
    g *= coefficient;
}

struct AdamState {
  std::vector<double> m, v;
};

/// torch.optim.AdamW, one step t >= 1 (decoupled decay, bias correction).
void adamwStep(std::vector<double> &p, const std::vector<double> &g,
               AdamState &s, int t, double lr, double beta1, double beta2,
               double eps, double decay) {
  s.m.resize(p.size(), 0.0);
  s.v.resize(p.size(), 0.0);
  for (size_t i = 0; i < p.size(); ++i) {
    p[i] *= 1 - lr * decay;
    s.m[i] = beta1 * s.m[i] + (1 - beta1) * g[i];
    s.v[i] = beta2 * s.v[i] + (1 - beta2) * g[i] * g[i];
    double mHat = s.m[i] / (1 - std::pow(beta1, t));
    double vHat = s.v[i] / (1 - std::pow(beta2, t));
    // torch divides sqrt(v) by sqrt(1 - beta2^t) before adding eps.
    p[i] -= lr * mHat / (std::sqrt(vHat) + eps);
  }
}

void expectClose(const std::vector<double> &actual,
                 const std::vector<double> &expected, const char *what,
                 int step) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i],
                1e-12 * std::max(1.0, std::abs(expected[i])))
        << what << "[" << i << "] after step " << step;
}

class OptimizerStep : public ::testing::Test {
protected:
  GraphEvaluator evaluator;

  /// kModel after autodiff and the optimizer with `options`.
  OwningOpRef<ModuleOp> trainingStep(const HetgOptimizerOptions &options) {
    OwningOpRef<ModuleOp> module = evaluator.parse(kModel);
    std::string errors;
    EXPECT_TRUE(evaluator.run(*module,
                              [&](PassManager &pm) {
                                pm.addPass(createHetgAutodiff());
                                pm.addPass(createHetgOptimizer(options));
                              },
                              &errors))
        << errors;
    return module;
  }

  /// Runs one step: loads read `state`, stores update it; returns the loss.
  double run(ModuleOp module, GlobalValues &state) {
    std::optional<Evaluation> step = evaluator.evaluate(module, state);
    EXPECT_TRUE(step);
    if (!step)
      return NAN;
    for (auto &[name, values] : step->stores)
      state[name] = values;
    return step->results.at(0).at(0);
  }
};

TEST_F(OptimizerStep, AdamWMatchesTorchForThreeSteps) {
  HetgOptimizerOptions options;
  options.optimizer = "adamw";
  options.lr = 0.05;
  options.weightDecay = 0.1;
  options.beta1 = 0.8;
  options.beta2 = 0.95;
  options.eps = 1e-3;
  OwningOpRef<ModuleOp> module = trainingStep(options);
  ASSERT_TRUE(module);
  GlobalValues state;
  for (const char *name : {"w", "b", "w.adam_m", "w.adam_v", "b.adam_m",
                           "b.adam_v", "optimizer.step"})
    state[name] = initialValue(*module, name);
  ASSERT_EQ(state["optimizer.step"], std::vector<double>{0.0});

  std::vector<double> w = state["w"], b = state["b"], gw, gb;
  AdamState sw, sb;
  for (int t = 1; t <= 3; ++t) {
    run(*module, state);
    gradients(w, b, gw, gb);
    adamwStep(w, gw, sw, t, 0.05, 0.8, 0.95, 1e-3, /*decay=*/0.1);
    // b has rank 1: no weight decay.
    adamwStep(b, gb, sb, t, 0.05, 0.8, 0.95, 1e-3, /*decay=*/0.0);
    expectClose(state["w"], w, "w", t);
    expectClose(state["b"], b, "b", t);
    expectClose(state["w.adam_m"], sw.m, "w.adam_m", t);
    expectClose(state["w.adam_v"], sw.v, "w.adam_v", t);
    expectClose(state["b.adam_m"], sb.m, "b.adam_m", t);
    expectClose(state["b.adam_v"], sb.v, "b.adam_v", t);
    EXPECT_EQ(state["optimizer.step"], std::vector<double>{double(t)});
  }
}

TEST_F(OptimizerStep, SgdWithClippingMatchesTorchForThreeSteps) {
  HetgOptimizerOptions options;
  options.optimizer = "sgd";
  options.lr = 0.1;
  options.clipNorm = 1.5;
  OwningOpRef<ModuleOp> module = trainingStep(options);
  ASSERT_TRUE(module);
  GlobalValues state{{"w", initialValue(*module, "w")},
                     {"b", initialValue(*module, "b")}};
  std::vector<double> w = state["w"], b = state["b"], gw, gb;
  for (int t = 1; t <= 3; ++t) {
    double loss = run(*module, state);
    double expectedLoss = sum(w) * sum(b);
    for (size_t i = 0; i < w.size(); ++i)
      expectedLoss += w[i] * w[i] * kC[i];
    for (size_t i = 0; i < b.size(); ++i)
      expectedLoss += b[i] * b[i] * kD[i];
    EXPECT_NEAR(loss, expectedLoss, 1e-12) << "loss of step " << t;
    gradients(w, b, gw, gb);
    clip(gw, gb, 1.5);
    for (size_t i = 0; i < w.size(); ++i)
      w[i] -= 0.1 * gw[i];
    for (size_t i = 0; i < b.size(); ++i)
      b[i] -= 0.1 * gb[i];
    expectClose(state["w"], w, "w", t);
    expectClose(state["b"], b, "b", t);
  }
}

TEST_F(OptimizerStep, SgdWeightDecayIsCoupledAndSkipsVectors) {
  HetgOptimizerOptions options;
  options.optimizer = "sgd";
  options.lr = 0.1;
  options.weightDecay = 0.5;
  OwningOpRef<ModuleOp> module = trainingStep(options);
  ASSERT_TRUE(module);
  GlobalValues state{{"w", initialValue(*module, "w")},
                     {"b", initialValue(*module, "b")}};
  std::vector<double> w = state["w"], b = state["b"], gw, gb;
  run(*module, state);
  gradients(w, b, gw, gb);
  // torch.optim.SGD: g += weight_decay * p, only for w (rank 2).
  for (size_t i = 0; i < w.size(); ++i)
    w[i] -= 0.1 * (gw[i] + 0.5 * w[i]);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] -= 0.1 * gb[i];
  expectClose(state["w"], w, "w", 1);
  expectClose(state["b"], b, "b", 1);
}

} // namespace
