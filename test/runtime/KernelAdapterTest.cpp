//===- KernelAdapterTest.cpp - adapters against direct kernel calls -------===//
//
// One-launch programs whose results are compared with the runtime/cpu calls
// the adapters stand for: the gradient ops that recompute forward
// statistics, attribute decoding, in-place elementwise updates.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Attention.h"
#include "runtime/cpu/Elementwise.h"
#include "runtime/cpu/Norms.h"
#include "runtime/exec/Executor.h"

#include "ProgramBuilder.h"
#include "TestUtil.h"

namespace hetc::runtime::test {
namespace {

using exec::RankExecutor;

// Inputs become constants, results activations; runs the program once.
struct OneLaunch {
  ProgramBuilder b{1, 1, 4};
  std::vector<int> inputs, outputs;
  exec::LoadedPackage package;
  std::unique_ptr<RankExecutor> rank;

  OneLaunch() {
    b.buffer("input_ids", pkg::I64, {1, 1}, pkg::INPUT, pkg::TOKENS);
    b.setLoss(b.f32("loss", {}));
  }
  int input(const F32 &t) {
    std::string name = "in" + std::to_string(inputs.size());
    int id = b.f32(name, t.shape, pkg::CONSTANT);
    b.constant(name, t.shape, t.v);
    inputs.push_back(id);
    return id;
  }
  int output(Shape shape) {
    int id = b.f32("out" + std::to_string(outputs.size()), std::move(shape));
    outputs.push_back(id);
    return id;
  }
  Status run() {
    package = b.package();
    HETC_RETURN_IF_ERROR(
        RankExecutor::create(package, 0, exec::cpuKernelRegistry(), &rank));
    return rank->runInstructions();
  }
  std::vector<float> result(int i) const {
    const TensorView &v = rank->buffers().view(outputs[i]);
    return std::vector<float>(v.as<float>(), v.as<float>() + v.numel());
  }
};

TEST(KernelAdapters, LayerNormGradRecomputesTheStatistics) {
  F32 x = randomF32({2, 3, 4}), dy = randomF32({2, 3, 4}), scale = randomF32({4});
  OneLaunch l;
  int xi = l.input(x), dyi = l.input(dy), si = l.input(scale);
  pkg::Instruction &inst =
      l.b.launch("layer_norm_grad", {xi, dyi, si},
                 {l.output({2, 3, 4}), l.output({4}), l.output({4})});
  setInt(inst, "axis", -1);
  setFloat(inst, "epsilon", 1e-5);
  HETC_ASSERT_OK(l.run());

  F32 y({2, 3, 4}), mean({6}), rstd({6}), dx({2, 3, 4}), ds({4}), db({4});
  TensorView meanV = mean.view(), rstdV = rstd.view(), sV = scale.view(),
             dsV = ds.view(), dbV = db.view();
  HETC_ASSERT_OK(cpu::layerNorm(x.view(), &sV, nullptr, 2, 1e-5f, y.view(),
                                &meanV, &rstdV));
  HETC_ASSERT_OK(cpu::layerNormBackward(x.view(), &sV, meanV, rstdV, dy.view(),
                                        2, dx.view(), &dsV, &dbV, false));
  EXPECT_EQ(l.result(0), dx.v);
  EXPECT_EQ(l.result(1), ds.v);
  EXPECT_EQ(l.result(2), db.v);
}

// With scale absent, the second operand is the bias: operandSegmentSizes
// says which optional operands a launch has.
TEST(KernelAdapters, LayerNormFindsItsOptionalOperandsBySegment) {
  F32 x = randomF32({2, 4}), bias = randomF32({4});
  OneLaunch l;
  int xi = l.input(x), bi = l.input(bias);
  pkg::Instruction &inst = l.b.launch("layer_norm", {xi, bi}, {l.output({2, 4})});
  setInt(inst, "axis", 1);
  setFloat(inst, "epsilon", 1e-5);
  setInts(inst, "operandSegmentSizes", {1, 0, 1});
  HETC_ASSERT_OK(l.run());
  F32 y({2, 4});
  TensorView bV = bias.view();
  HETC_ASSERT_OK(cpu::layerNorm(x.view(), nullptr, &bV, 1, 1e-5f, y.view(),
                                nullptr, nullptr));
  EXPECT_EQ(l.result(0), y.v);
}

TEST(KernelAdapters, RmsNormGradRecomputesRstd) {
  F32 x = randomF32({3, 5}), dy = randomF32({3, 5}), scale = randomF32({5});
  OneLaunch l;
  int xi = l.input(x), dyi = l.input(dy), si = l.input(scale);
  setFloat(l.b.launch("rms_norm_grad", {xi, dyi, si},
                      {l.output({3, 5}), l.output({5})}),
           "epsilon", 1e-6);
  HETC_ASSERT_OK(l.run());
  F32 y({3, 5}), rstd({3}), dx({3, 5}), ds({5});
  TensorView rstdV = rstd.view(), sV = scale.view(), dsV = ds.view();
  HETC_ASSERT_OK(cpu::rmsNorm(x.view(), &sV, 1e-6f, y.view(), &rstdV));
  HETC_ASSERT_OK(cpu::rmsNormBackward(x.view(), &sV, rstdV, dy.view(),
                                      dx.view(), &dsV, false));
  EXPECT_EQ(l.result(0), dx.v);
  EXPECT_EQ(l.result(1), ds.v);
}

TEST(KernelAdapters, AttentionGradRecomputesTheForward) {
  Shape s = {2, 2, 5, 4};
  F32 q = randomF32(s), k = randomF32(s), v = randomF32(s), dout = randomF32(s);
  OneLaunch l;
  int qi = l.input(q), ki = l.input(k), vi = l.input(v), di = l.input(dout);
  pkg::Instruction &inst = l.b.launch("attention_grad", {qi, ki, vi, di},
                                      {l.output(s), l.output(s), l.output(s)});
  setFloat(inst, "scale", 0.5);
  setBool(inst, "causal", true);
  HETC_ASSERT_OK(l.run());
  cpu::AttentionOptions options{0.5f, true};
  F32 out(s), lse({2, 2, 5}), dq(s), dk(s), dv(s);
  TensorView lseV = lse.view();
  HETC_ASSERT_OK(cpu::attention(q.view(), k.view(), v.view(), nullptr, options,
                                out.view(), &lseV));
  HETC_ASSERT_OK(cpu::attentionBackward(q.view(), k.view(), v.view(), nullptr,
                                        options, out.view(), lseV, dout.view(),
                                        dq.view(), dk.view(), dv.view()));
  EXPECT_EQ(l.result(0), dq.v);
  EXPECT_EQ(l.result(1), dk.v);
  EXPECT_EQ(l.result(2), dv.v);
}

// The forward's saved output and lse (attention with_lse) feed the backward,
// which then runs no forward: a deliberately wrong saved output shows.
TEST(KernelAdapters, AttentionGradReadsTheSavedForward) {
  Shape s = {2, 2, 5, 4}, rows = {2, 2, 5};
  F32 q = randomF32(s), k = randomF32(s), v = randomF32(s), dout = randomF32(s);
  cpu::AttentionOptions options{0.5f, true};
  F32 out(s), lse(rows);
  {
    OneLaunch l;
    int qi = l.input(q), ki = l.input(k), vi = l.input(v);
    pkg::Instruction &inst =
        l.b.launch("attention", {qi, ki, vi}, {l.output(s), l.output(rows)});
    setFloat(inst, "scale", 0.5);
    setBool(inst, "causal", true);
    setBool(inst, "with_lse", true);
    HETC_ASSERT_OK(l.run());
    TensorView lseV = lse.view();
    HETC_ASSERT_OK(cpu::attention(q.view(), k.view(), v.view(), nullptr,
                                  options, out.view(), &lseV));
    EXPECT_EQ(l.result(0), out.v);
    EXPECT_EQ(l.result(1), lse.v);
  }
  F32 saved = out;
  saved.v[3] += 1.0f;
  OneLaunch l;
  int qi = l.input(q), ki = l.input(k), vi = l.input(v), di = l.input(dout),
      oi = l.input(saved), li = l.input(lse);
  pkg::Instruction &inst =
      l.b.launch("attention_grad", {qi, ki, vi, di, oi, li},
                 {l.output(s), l.output(s), l.output(s)});
  setFloat(inst, "scale", 0.5);
  setBool(inst, "causal", true);
  setInts(inst, "operandSegmentSizes", {1, 1, 1, 1, 0, 1, 1});
  HETC_ASSERT_OK(l.run());
  F32 dq(s), dk(s), dv(s);
  HETC_ASSERT_OK(cpu::attentionBackward(
      q.view(), k.view(), v.view(), nullptr, options, saved.view(), lse.view(),
      dout.view(), dq.view(), dk.view(), dv.view()));
  EXPECT_EQ(l.result(0), dq.v);
  EXPECT_EQ(l.result(1), dk.v);
  EXPECT_EQ(l.result(2), dv.v);

  // The output without its lse is an error, not a silent recomputation.
  OneLaunch half;
  int hq = half.input(q), hd = half.input(dout), ho = half.input(saved);
  pkg::Instruction &alone =
      half.b.launch("attention_grad", {hq, hq, hq, hd, ho},
                    {half.output(s), half.output(s), half.output(s)});
  setFloat(alone, "scale", 0.5);
  setInts(alone, "operandSegmentSizes", {1, 1, 1, 1, 0, 1, 0});
  Status status = half.run();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("attention_grad: the forward's output and "
                                   "lse come together"),
            std::string::npos)
      << status.toString();
}

TEST(KernelAdapters, GeluTanhAttributeAndGlobalNormClip) {
  F32 x({3}, {-1.0f, 0.5f, 2.0f}), y({3});
  OneLaunch l;
  int xi = l.input(x);
  int gelu = l.output({3});
  setString(l.b.launch("gelu", {xi}, {gelu}), "approximate", "tanh");
  int norm = l.output({});
  l.b.launch("global_norm", {xi, gelu}, {norm});
  HETC_ASSERT_OK(l.run());
  HETC_ASSERT_OK(cpu::unary(cpu::UnaryOp::kGeluTanh, x.view(), y.view()));
  EXPECT_EQ(l.result(0), y.v);
  double sumSquares = 0;
  for (float t : x.v)
    sumSquares += double(t) * t;
  for (float t : y.v)
    sumSquares += double(t) * t;
  EXPECT_FLOAT_EQ(l.result(1)[0], static_cast<float>(std::sqrt(sumSquares)));
}

TEST(KernelAdapters, CastChecksItsTargetAttribute) {
  OneLaunch l;
  int xi = l.input(F32({2}, {1.5f, -2.5f}));
  int out = l.b.buffer("out", pkg::I64, {2}, pkg::ACTIVATION);
  setString(l.b.launch("cast", {xi}, {out}), "to", "f32");
  EXPECT_TRUE(isError(l.run(), StatusCode::kInvalidArgument,
                      "instruction 0 (cast) at loc(\"test\":1:1): cast: "
                      "attribute 'to' is f32 but the result buffer is i64[2]"));
}

// Elementwise results written over a same-shaped operand (parameter and
// state updates): a - b into a, then minimum(a, c) into a.
TEST(KernelAdapters, ElementwiseInPlace) {
  ProgramBuilder b(1, 1, 4);
  b.buffer("input_ids", pkg::I64, {1, 1}, pkg::INPUT, pkg::TOKENS);
  int a = b.f32("a", {2, 2}, pkg::PARAMETER);
  int c = b.f32("c", {2}, pkg::CONSTANT);
  b.launch("sub", {a, c}, {a});
  b.launch("minimum", {a, c}, {a});
  b.setLoss(b.f32("loss", {}));
  b.weight("a", {2, 2}, {1, 2, 3, 4});
  b.constant("c", {2}, {0.5f, 1.0f});
  exec::LoadedPackage package = b.package();
  std::unique_ptr<RankExecutor> rank;
  HETC_ASSERT_OK(RankExecutor::create(package, 0, exec::cpuKernelRegistry(), &rank));
  HETC_ASSERT_OK(rank->runInstructions());
  const float *out = rank->buffers().view(a).as<float>();
  EXPECT_EQ(std::vector<float>(out, out + 4),
            (std::vector<float>{0.5f, 1.0f, 0.5f, 1.0f}));
  HETC_ASSERT_OK(rank->runInstructions());
  EXPECT_EQ(std::vector<float>(out, out + 4),
            (std::vector<float>{0.0f, 0.0f, 0.0f, 0.0f}));
}

} // namespace
} // namespace hetc::runtime::test
