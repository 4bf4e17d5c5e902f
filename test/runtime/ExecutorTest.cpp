//===- ExecutorTest.cpp - running hand-built programs ---------------------===//
//
// A tiny language model step (embedding gather -> matmul -> cross-entropy,
// its gradients, SGD) run for three steps against the same arithmetic done
// here in double; in-place updates; inputs of each micro-batch from the data
// order; parameters loaded through the views of a flat vector.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Optimizers.h"
#include "runtime/exec/Executor.h"

#include "ProgramBuilder.h"
#include "TestUtil.h"

#include <cmath>

namespace hetc::runtime::test {
namespace {

using exec::RankExecutor;

constexpr int64_t kB = 2, kT = 3, kV = 4, kE = 2;

std::vector<uint16_t> tokenStream(int n) { return test::tokenStream(n, kV); }

// The program: logits = gather(We, ids) @ W^T, loss = mean cross-entropy,
// then the gradients of both tables and an SGD update written over them.
ProgramBuilder tinyLanguageModel(double lr) {
  ProgramBuilder b(kB, kT, kV);
  int we = b.f32("wte", {kV, kE}, pkg::PARAMETER);
  int w = b.f32("proj", {kV, kE}, pkg::PARAMETER);
  int ids = b.buffer("input_ids", pkg::I64, {kB, kT}, pkg::INPUT, pkg::TOKENS);
  int labels = b.buffer("labels", pkg::I64, {kB, kT}, pkg::INPUT, pkg::LABELS);
  int one = b.f32("constant.0", {}, pkg::CONSTANT);
  int emb = b.f32("gather.0", {kB, kT, kE});
  int x = b.alias(emb, {kB * kT, kE});
  int flatLabels = b.alias(labels, {kB * kT});
  int logits = b.f32("matmul.1", {kB * kT, kV});
  int loss = b.f32("cross_entropy.2", {});
  int dlogits = b.f32("cross_entropy_grad.3", {kB * kT, kV});
  int dw = b.f32("matmul.4", {kV, kE});
  int dx = b.f32("matmul.5", {kB * kT, kE});
  int dx3 = b.alias(dx, {kB, kT, kE});
  int dwe = b.f32("gather_grad.6", {kV, kE});
  setInt(b.launch("gather", {we, ids}, {emb}), "axis", 0);
  setBool(b.launch("matmul", {x, w}, {logits}), "transpose_rhs", true);
  setString(b.launch("cross_entropy", {logits, flatLabels}, {loss}),
            "reduction", "mean");
  setString(b.launch("cross_entropy_grad", {logits, flatLabels, one},
                     {dlogits}),
            "reduction", "mean");
  setBool(b.launch("matmul", {dlogits, x}, {dw}), "transpose_lhs", true);
  b.launch("matmul", {dlogits, w}, {dx});
  setInt(b.launch("gather_grad", {dx3, ids}, {dwe}), "axis", 0);
  pkg::Instruction &sgd0 = b.launch("sgd", {we, dwe}, {we});
  setFloat(sgd0, "lr", lr);
  setFloat(sgd0, "weight_decay", 0.0);
  pkg::Instruction &sgd1 = b.launch("sgd", {w, dw}, {w});
  setFloat(sgd1, "lr", lr);
  setFloat(sgd1, "weight_decay", 0.0);
  b.setLoss(loss);
  b.weight("wte", {kV, kE}, {0.1f, -0.2f, 0.3f, 0.4f, -0.5f, 0.6f, 0.7f, -0.8f});
  b.weight("proj", {kV, kE}, {1.0f, 0.5f, -0.5f, 1.0f, 0.25f, -1.0f, 0.0f, 0.75f});
  b.constant("constant.0", {}, {1.0f});
  return b;
}

// The same step in double: returns the loss and updates we, w.
double referenceStep(std::vector<double> &we, std::vector<double> &w,
                     const std::vector<uint16_t> &data, int64_t step,
                     double lr) {
  int64_t n = static_cast<int64_t>(data.size());
  std::vector<double> dwe(we.size(), 0.0), dw(w.size(), 0.0);
  double loss = 0.0;
  int64_t tokens = kB * kT;
  for (int64_t j = 0; j < kB; ++j) {
    int64_t start = ((step * kB + j) * kT) % (n - kT - 1);
    for (int64_t p = 0; p < kT; ++p) {
      int64_t id = data[start + p], label = data[start + p + 1];
      std::vector<double> z(kV);
      double mx = -1e300;
      for (int64_t v = 0; v < kV; ++v) {
        z[v] = 0;
        for (int64_t e = 0; e < kE; ++e)
          z[v] += we[id * kE + e] * w[v * kE + e];
        mx = std::max(mx, z[v]);
      }
      double sum = 0;
      for (double zv : z)
        sum += std::exp(zv - mx);
      loss += (std::log(sum) + mx - z[label]) / tokens;
      for (int64_t v = 0; v < kV; ++v) {
        double g = (std::exp(z[v] - mx) / sum - (v == label)) / tokens;
        for (int64_t e = 0; e < kE; ++e) {
          dw[v * kE + e] += g * we[id * kE + e];
          dwe[id * kE + e] += g * w[v * kE + e];
        }
      }
    }
  }
  for (size_t i = 0; i < we.size(); ++i) {
    we[i] -= lr * dwe[i];
    w[i] -= lr * dw[i];
  }
  return loss;
}

std::vector<float> valuesOf(const TensorView &view) {
  const float *p = view.as<float>();
  return std::vector<float>(p, p + view.numel());
}

TEST(Executor, TinyLanguageModelTrainsLikeTheReference) {
  const double lr = 0.5;
  ProgramBuilder b = tinyLanguageModel(lr);
  exec::LoadedPackage package = b.package();
  std::unique_ptr<RankExecutor> rank;
  HETC_ASSERT_OK(RankExecutor::create(package, 0, exec::cpuKernelRegistry(), &rank));

  std::vector<uint16_t> data = tokenStream(20);
  TokenFile file(data);
  TokenLoader loader;
  HETC_ASSERT_OK(loader.open(file.path(), TokenDType::kUInt16));

  std::vector<double> we = {0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, -0.8};
  std::vector<double> w = {1.0, 0.5, -0.5, 1.0, 0.25, -1.0, 0.0, 0.75};
  // Reference weights are the float values the package holds.
  for (double &x : we)
    x = static_cast<float>(x);
  for (double &x : w)
    x = static_cast<float>(x);
  std::vector<double> losses;
  for (int64_t step = 0; step < 3; ++step) {
    float loss = 0;
    HETC_ASSERT_OK(rank->runStep(step, loader, &loss));
    double want = referenceStep(we, w, data, step, lr);
    EXPECT_NEAR(loss, want, 1e-5) << "step " << step;
    losses.push_back(loss);
  }
  EXPECT_LT(losses[2], losses[0]);
  EXPECT_TRUE(allClose(valuesOf(rank->buffers().view(0)), we, 1e-5, 1e-5));
  EXPECT_TRUE(allClose(valuesOf(rank->buffers().view(1)), w, 1e-5, 1e-5));

  // The inputs of the last step are sample j's tokens from the data order.
  const int64_t *ids = rank->buffers().view(2).as<int64_t>();
  for (int64_t j = 0; j < kB; ++j) {
    int64_t start = ((2 * kB + j) * kT) % (20 - kT - 1);
    for (int64_t p = 0; p < kT; ++p)
      EXPECT_EQ(ids[j * kT + p], data[start + p]);
  }

  // Checkpoint snapshots hold the updated parameters by name.
  std::vector<package::NamedTensor> params;
  HETC_ASSERT_OK(rank->snapshot(pkg::PARAMETER, &params));
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params[0].name, "wte");
  EXPECT_EQ(params[1].name, "proj");
  EXPECT_EQ(params[1].shape, (std::vector<int64_t>{kV, kE}));
}

TEST(Executor, TokenIdOutsideTheVocabularyNamesStepSampleAndPosition) {
  ProgramBuilder b = tinyLanguageModel(0.1);
  exec::LoadedPackage package = b.package();
  std::unique_ptr<RankExecutor> rank;
  HETC_ASSERT_OK(RankExecutor::create(package, 0, exec::cpuKernelRegistry(), &rank));
  std::vector<uint16_t> data = tokenStream(20);
  // Step 1, sample 1 starts at ((1*2 + 1) * 3) mod 16 = 9; its position 2.
  data[11] = 7;
  TokenFile file(data);
  TokenLoader loader;
  HETC_ASSERT_OK(loader.open(file.path(), TokenDType::kUInt16));
  float loss;
  HETC_ASSERT_OK(rank->runStep(0, loader, &loss));
  EXPECT_TRUE(isError(rank->runStep(1, loader, &loss), StatusCode::kOutOfRange,
                      "step 1, sample 1, position 2: token id 7 "
                      "(token 11 of data file"));
}

// Two micro-batches of a rank owning samples [1, 4): TOKENS of sample 1
// (i32) and TOKENS and LABELS of samples [2, 4), each filled from its own
// first sample.
TEST(Executor, FillsEachMicroBatchFromItsFirstSample) {
  ProgramBuilder b(4, kT, kV);
  b.setSamples(1, 3);
  int ids0 = b.tokens("input_ids.0", pkg::TOKENS, 1, 1, pkg::I32);
  int ids1 = b.tokens("input_ids.1", pkg::TOKENS, 2, 2);
  int labels1 = b.tokens("labels.1", pkg::LABELS, 2, 2);
  b.setLoss(-1);
  exec::LoadedPackage package = b.package();
  std::unique_ptr<RankExecutor> rank;
  HETC_ASSERT_OK(
      RankExecutor::create(package, 0, exec::cpuKernelRegistry(), &rank));
  std::vector<uint16_t> data = tokenStream(40);
  TokenFile file(data);
  TokenLoader loader;
  HETC_ASSERT_OK(loader.open(file.path(), TokenDType::kUInt16));
  const int64_t step = 2;
  HETC_ASSERT_OK(rank->fillInputs(step, loader));

  auto start = [&](int64_t sample) {
    return ((step * 4 + sample) * kT) % (40 - kT - 1);
  };
  const int32_t *in0 = rank->buffers().view(ids0).as<int32_t>();
  const int64_t *in1 = rank->buffers().view(ids1).as<int64_t>();
  const int64_t *out1 = rank->buffers().view(labels1).as<int64_t>();
  for (int64_t p = 0; p < kT; ++p) {
    EXPECT_EQ(in0[p], data[start(1) + p]);
    for (int64_t j = 0; j < 2; ++j) {
      EXPECT_EQ(in1[j * kT + p], data[start(2 + j) + p]);
      EXPECT_EQ(out1[j * kT + p], data[start(2 + j) + p + 1]);
    }
  }
}

// One flat parameter vector whose views are the parameters by name: the
// vector is loaded through them, and checkpoints name them, not it.
TEST(Executor, LoadsAFlatParameterVectorThroughItsViews) {
  ProgramBuilder b(1, 2, 4);
  int flat = b.f32("stage0.parameters", {5}, pkg::PARAMETER);
  b.view(flat, 0, {2}, "a");
  b.view(flat, 2, {1, 3}, "b");
  int loss = b.f32("reduce_sum.0", {});
  pkg::Instruction &sum = b.launch("reduce_sum", {flat}, {loss});
  setInts(sum, "axes", {0});
  setBool(sum, "keep_dims", false);
  b.setLoss(loss);
  b.weight("a", {2}, {1, 2});
  b.weight("b", {1, 3}, {3, 4, 5});
  exec::LoadedPackage package = b.package();
  std::unique_ptr<RankExecutor> rank;
  HETC_ASSERT_OK(
      RankExecutor::create(package, 0, exec::cpuKernelRegistry(), &rank));
  EXPECT_EQ(valuesOf(rank->buffers().view(flat)),
            (std::vector<float>{1, 2, 3, 4, 5}));
  std::vector<package::NamedTensor> params;
  HETC_ASSERT_OK(rank->snapshot(pkg::PARAMETER, &params));
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params[0].name, "a");
  EXPECT_EQ(params[1].name, "b");
  EXPECT_EQ(params[1].shape, (std::vector<int64_t>{1, 3}));

  package.weights.pop_back();
  package.weights.pop_back();
  EXPECT_TRUE(isError(
      RankExecutor::create(package, 0, exec::cpuKernelRegistry(), &rank),
      StatusCode::kNotFound,
      "weights.safetensors has no tensor 'stage0.parameters' for parameter "
      "buffer 0 'stage0.parameters'"));
}

TEST(Executor, DataShorterThanASequenceFailsTheStep) {
  ProgramBuilder b = tinyLanguageModel(0.1);
  exec::LoadedPackage package = b.package();
  std::unique_ptr<RankExecutor> rank;
  HETC_ASSERT_OK(RankExecutor::create(package, 0, exec::cpuKernelRegistry(), &rank));
  TokenFile file(tokenStream(4));
  TokenLoader loader;
  HETC_ASSERT_OK(loader.open(file.path(), TokenDType::kUInt16));
  float loss;
  EXPECT_TRUE(isError(rank->runStep(0, loader, &loss),
                      StatusCode::kFailedPrecondition,
                      "data shorter than one sequence"));
}

// AdamW written over its operands (param, exp_avg, exp_avg_sq), its step
// count incremented in place by an elementwise add, against the same
// updates through fresh result buffers copied back.
ProgramBuilder adamwProgram(bool inPlace) {
  ProgramBuilder b(1, 2, 4);
  int p = b.f32("p", {3}, pkg::PARAMETER);
  int m = b.f32("p.adam_m", {3}, pkg::OPTIMIZER_STATE);
  int v = b.f32("p.adam_v", {3}, pkg::OPTIMIZER_STATE);
  int step = b.f32("optimizer.step", {}, pkg::OPTIMIZER_STATE);
  b.buffer("input_ids", pkg::I64, {1, 2}, pkg::INPUT, pkg::TOKENS);
  int g = b.f32("constant.0", {3}, pkg::CONSTANT);
  int one = b.f32("constant.1", {}, pkg::CONSTANT);
  b.launch("add", {step, one}, {step});
  std::vector<int> results = {p, m, v};
  if (!inPlace)
    results = {b.f32("adamw.p", {3}), b.f32("adamw.m", {3}),
               b.f32("adamw.v", {3})};
  pkg::Instruction &adamw = b.launch("adamw", {p, g, m, v, step}, results);
  setFloat(adamw, "lr", 0.1);
  setFloat(adamw, "beta1", 0.9);
  setFloat(adamw, "beta2", 0.999);
  setFloat(adamw, "eps", 1e-8);
  setFloat(adamw, "weight_decay", 0.01);
  if (!inPlace) {
    b.launch("copy", {results[0]}, {p});
    b.launch("copy", {results[1]}, {m});
    b.launch("copy", {results[2]}, {v});
  }
  b.setLoss(step);
  b.weight("p", {3}, {1.0f, -2.0f, 0.5f});
  b.constant("constant.0", {3}, {0.3f, -0.1f, 2.0f});
  b.constant("constant.1", {}, {1.0f});
  return b;
}

TEST(Executor, AdamWInPlaceMatchesOutOfPlaceAndTheKernel) {
  TokenFile file(tokenStream(16));
  TokenLoader loader;
  HETC_ASSERT_OK(loader.open(file.path(), TokenDType::kUInt16));
  std::vector<std::vector<float>> params;
  for (bool inPlace : {true, false}) {
    ProgramBuilder b = adamwProgram(inPlace);
    exec::LoadedPackage package = b.package();
    std::unique_ptr<RankExecutor> rank;
    HETC_ASSERT_OK(
        RankExecutor::create(package, 0, exec::cpuKernelRegistry(), &rank));
    for (int64_t s = 0; s < 3; ++s) {
      float stepCount;
      HETC_ASSERT_OK(rank->runStep(s, loader, &stepCount));
      EXPECT_EQ(stepCount, static_cast<float>(s + 1));
    }
    params.push_back(valuesOf(rank->buffers().view(0)));
  }
  EXPECT_EQ(params[0], params[1]);

  F32 p({3}, {1.0f, -2.0f, 0.5f}), g({3}, {0.3f, -0.1f, 2.0f}), m({3}), v({3});
  cpu::AdamWOptions options;
  options.lr = 0.1;
  options.weightDecay = 0.01;
  for (int64_t t = 1; t <= 3; ++t)
    HETC_ASSERT_OK(cpu::adamwStep(p.view(), g.view(), m.view(), v.view(), I64({}, {t}).view(), options));
  EXPECT_EQ(params[0], p.v);
}

} // namespace
} // namespace hetc::runtime::test
