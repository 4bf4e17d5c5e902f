//===- CostModelTest.cpp - CostOpInterface numbers on small ops -----------===//
//
// Each expected number is worked out by hand from the conventions in
// HetGraphInterfaces.td, so a change of convention shows up here.
//
//===----------------------------------------------------------------------===//

#include "dialects/HetGraph/HetGraph.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace hetc::hetg;

namespace {

class CostModelTest : public ::testing::Test {
protected:
  CostModelTest() {
    context.loadDialect<HetGraphDialect, func::FuncDialect,
                        ml_program::MLProgramDialect>();
  }

  /// The cost of the first op in `body`, a function body over `args`.
  std::optional<OpCost> costOf(StringRef args, StringRef body) {
    std::string source =
        ("func.func @f(" + args + ") {\n" + body + "\n  return\n}\n").str();
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << source;
    if (!module)
      return std::nullopt;
    auto func = *module->getOps<func::FuncOp>().begin();
    return getOpCost(&func.getBody().front().front());
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(CostModelTest, EveryHetgOpHasACost) {
  int ops = 0;
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "hetg")
      continue;
    ++ops;
    EXPECT_TRUE(name.hasInterface<CostOpInterface>())
        << name.getStringRef().str();
  }
  EXPECT_GT(ops, 50);
}

TEST_F(CostModelTest, MatmulWithBias) {
  // K = 64, 2 x 16 x 256 outputs: 2 * 64 * 8192 + 8192 for the bias.
  auto cost = costOf(
      "%x: tensor<2x16x64xf32>, %w: tensor<256x64xf32>, %b: tensor<256xf32>",
      "%y = hetg.matmul %x, %w bias %b : tensor<256xf32> <{transpose_rhs}> "
      ": tensor<2x16x64xf32>, tensor<256x64xf32>");
  ASSERT_TRUE(cost);
  EXPECT_EQ(cost->flops, 2 * 64 * 8192 + 8192);
  EXPECT_EQ(cost->bytesMoved, (2048 + 16384 + 256 + 8192) * 4);
}

TEST_F(CostModelTest, MatmulTransposedLhsContractsItsRows) {
  // op(lhs) is [3, 4, 8]: K = 8, 3 x 4 x 5 outputs.
  auto cost = costOf("%a: tensor<3x8x4xf32>, %b: tensor<3x8x5xf32>",
                     "%y = hetg.matmul %a, %b <{transpose_lhs}> "
                     ": tensor<3x8x4xf32>, tensor<3x8x5xf32>");
  ASSERT_TRUE(cost);
  EXPECT_EQ(cost->flops, 2 * 8 * 60);
}

TEST_F(CostModelTest, AttentionCountsBothProductsAndTheSoftmax) {
  // 2 x 4 heads, Tq = Tk = 16, D = Dv = 8: 2048 scores, each 2D (QK^T) +
  // 1 (scale) + 8 (softmax) + 2Dv (PV) = 41 FLOPs; causal counts dense.
  auto cost = costOf("%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, "
                     "%v: tensor<2x4x16x8xf32>",
                     "%o = hetg.attention %q, %k, %v <{causal, scale = "
                     "0.25 : f32}> : tensor<2x4x16x8xf32>, "
                     "tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>");
  ASSERT_TRUE(cost);
  EXPECT_EQ(cost->flops, 2048 * 41);
  EXPECT_EQ(cost->bytesMoved, 4 * 1024 * 4);
}

TEST_F(CostModelTest, AttentionWithMaskAndDifferentValueWidth) {
  // Tq = 4, Tk = 6, D = 8, Dv = 2, one head: 24 scores of 16 + 1 + 1 + 8 + 4.
  auto cost = costOf("%q: tensor<1x4x8xf32>, %k: tensor<1x6x8xf32>, "
                     "%v: tensor<1x6x2xf32>, %m: tensor<4x6xf32>",
                     "%o = hetg.attention %q, %k, %v mask %m : tensor<4x6xf32> "
                     "<{scale = 0.25 : f32}> : tensor<1x4x8xf32>, "
                     "tensor<1x6x8xf32>, tensor<1x6x2xf32>");
  ASSERT_TRUE(cost);
  EXPECT_EQ(cost->flops, 24 * 30);
}

TEST_F(CostModelTest, AttentionGradRecomputesTheProbabilities) {
  // Per score: recompute 2D + 1 + 8, dP 2Dv, dS 4, dQ 2D, dK 2D, dV 2Dv
  // = 93 with D = Dv = 8; then dQ and dK are scaled (1024 each).
  auto cost = costOf(
      "%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, "
      "%v: tensor<2x4x16x8xf32>, %do: tensor<2x4x16x8xf32>",
      "%dq, %dk, %dv = hetg.attention_grad %q, %k, %v, %do <{causal, scale = "
      "0.25 : f32}> : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, "
      "tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>");
  ASSERT_TRUE(cost);
  EXPECT_EQ(cost->flops, 2048 * 93 + 2 * 1024);
}

TEST_F(CostModelTest, ElementwiseCountsResultElements) {
  auto add = costOf("%a: tensor<2x3xf32>, %b: tensor<3xf32>",
                    "%c = hetg.add %a, %b : tensor<2x3xf32>, tensor<3xf32>");
  ASSERT_TRUE(add);
  EXPECT_EQ(add->flops, 6);
  EXPECT_EQ(add->bytesMoved, (6 + 3 + 6) * 4);
  auto exp =
      costOf("%a: tensor<2x3xf32>", "%c = hetg.exp %a : tensor<2x3xf32>");
  ASSERT_TRUE(exp);
  EXPECT_EQ(exp->flops, 6 * kTranscendentalFlops);
  auto gelu =
      costOf("%a: tensor<4x8xf32>", "%c = hetg.gelu %a : tensor<4x8xf32>");
  ASSERT_TRUE(gelu);
  EXPECT_EQ(gelu->flops, 32 * 8);
  auto tanhGelu = costOf("%a: tensor<4x8xf32>",
                         "%c = hetg.gelu %a <{approximate = "
                         "#hetg<gelu_approximation tanh>}> : tensor<4x8xf32>");
  ASSERT_TRUE(tanhGelu);
  EXPECT_EQ(tanhGelu->flops, 32 * 12);
  auto equal = costOf("%a: tensor<4xi64>, %b: tensor<i64>",
                      "%c = hetg.equal %a, %b : tensor<4xi64>, tensor<i64>");
  ASSERT_TRUE(equal);
  EXPECT_EQ(equal->flops, 4);
  EXPECT_EQ(equal->bytesMoved, 4 * 8 + 8 + 4); // i1 results are one byte
}

TEST_F(CostModelTest, NormsSoftmaxAndLoss) {
  auto norm = costOf("%x: tensor<2x16x64xf32>, %w: tensor<64xf32>, "
                     "%b: tensor<64xf32>",
                     "%y = hetg.layer_norm %x scale %w : tensor<64xf32> bias "
                     "%b : tensor<64xf32> <{axis = 2 : i64, epsilon = 1.0e-05 "
                     ": f32}> : tensor<2x16x64xf32>");
  ASSERT_TRUE(norm);
  EXPECT_EQ(norm->flops, 2048 * 7);
  auto softmax = costOf("%x: tensor<2x4x16x16xf32>",
                        "%y = hetg.softmax %x <{axis = 3 : i64}> : "
                        "tensor<2x4x16x16xf32>");
  ASSERT_TRUE(softmax);
  EXPECT_EQ(softmax->flops, 2048 * 8);
  auto loss = costOf("%z: tensor<32x256xf32>, %l: tensor<32xi64>",
                     "%y = hetg.cross_entropy %z, %l <{reduction = "
                     "#hetg<loss_reduction mean>}> : tensor<32x256xf32>, "
                     "tensor<32xi64>");
  ASSERT_TRUE(loss);
  EXPECT_EQ(loss->flops, 32 * 256 * 7 + 32 * 2);
  auto lossGrad = costOf("%z: tensor<32x256xf32>, %l: tensor<32xi64>, "
                         "%g: tensor<f32>",
                         "%y = hetg.cross_entropy_grad %z, %l, %g <{reduction "
                         "= #hetg<loss_reduction mean>}> : tensor<32x256xf32>, "
                         "tensor<32xi64>, tensor<f32>");
  ASSERT_TRUE(lossGrad);
  EXPECT_EQ(lossGrad->flops, 32 * 256 * 9);
}

TEST_F(CostModelTest, DataMovementHasNoFlops) {
  auto reshape = costOf("%x: tensor<2x16x64xf32>",
                        "%y = hetg.reshape %x : tensor<2x16x64xf32> -> "
                        "tensor<32x64xf32>");
  ASSERT_TRUE(reshape);
  EXPECT_EQ(reshape->flops, 0);
  EXPECT_EQ(reshape->bytesMoved, 0); // a view
  auto transpose =
      costOf("%x: tensor<2x16x4xf32>", "%y = hetg.transpose %x [0, 2, 1] : "
                                       "tensor<2x16x4xf32>");
  ASSERT_TRUE(transpose);
  EXPECT_EQ(transpose->flops, 0);
  EXPECT_EQ(transpose->bytesMoved, 2 * 128 * 4);
  // A gather reads the indices and the rows it selects, not the table.
  auto gather = costOf("%t: tensor<256x64xf32>, %i: tensor<2x16xi64>",
                       "%e = hetg.gather %t[%i] <{axis = 0 : i64}> : "
                       "tensor<256x64xf32>, tensor<2x16xi64>");
  ASSERT_TRUE(gather);
  EXPECT_EQ(gather->flops, 0);
  EXPECT_EQ(gather->bytesMoved, 32 * 8 + 2 * 2048 * 4);
  auto slice = costOf("%x: tensor<2x16xf32>",
                      "%y = hetg.slice %x <{starts = array<i64: 0, 0>, ends = "
                      "array<i64: 2, 8>, steps = array<i64: 1, 1>}> : "
                      "tensor<2x16xf32>");
  ASSERT_TRUE(slice);
  EXPECT_EQ(slice->bytesMoved, 2 * 16 * 4);
}

TEST_F(CostModelTest, OptimizerOps) {
  auto adamw = costOf("%p: tensor<64x64xf32>, %g: tensor<64x64xf32>, "
                      "%m: tensor<64x64xf32>, %v: tensor<64x64xf32>, "
                      "%t: tensor<i64>",
                      "%p1, %m1, %v1 = hetg.adamw %p, %g, %m, %v, %t <{lr = "
                      "1.0e-03 : f64, weight_decay = 1.0e-01 : f64}> : "
                      "tensor<64x64xf32>, tensor<i64>");
  ASSERT_TRUE(adamw);
  EXPECT_EQ(adamw->flops, 4096 * 15);
  EXPECT_EQ(adamw->bytesMoved, 7 * 4096 * 4 + 8);
  auto sgd = costOf("%p: tensor<64xf32>, %g: tensor<64xf32>",
                    "%p1 = hetg.sgd %p, %g <{lr = 1.0e-01 : f64}> : "
                    "tensor<64xf32>");
  ASSERT_TRUE(sgd);
  EXPECT_EQ(sgd->flops, 64 * 2);
}

TEST_F(CostModelTest, NoCostForDynamicShapesOrOtherOps) {
  EXPECT_FALSE(
      costOf("%x: tensor<?x4xf32>", "%y = hetg.exp %x : tensor<?x4xf32>"));
  EXPECT_FALSE(
      costOf("%x: tensor<4xf32>", "func.call @f(%x) : (tensor<4xf32>) -> ()"));
}

} // namespace

namespace {

TEST_F(CostModelTest, ModelFlopsLeaveOutRecomputation) {
  // Two relus of 8 elements (1 FLOP each); the second is a recomputed
  // clone, which model FLOPs do not count.
  costOf("%x: tensor<8xf32>",
         "%a = hetg.relu %x : tensor<8xf32>\n"
         "  %b = hetg.relu %x {hetg.recomputed = 0 : i64} : tensor<8xf32>");
  ASSERT_TRUE(module);
  EXPECT_EQ(modelFlops(module->getOperation()), 8);
}

} // namespace
