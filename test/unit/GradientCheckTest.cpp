//===- GradientCheckTest.cpp - autodiff against finite differences --------===//
//
// For every differentiable op (and every attribute that changes its math) a
// tiny f64 function `loss = sum(op(params...) * R)` with a fixed random R is
// differentiated by hetg-autodiff; its gradients, evaluated by folding, must
// match central finite differences of the folded forward function.
//
//===----------------------------------------------------------------------===//

#include "GraphEvaluator.h"

#include "dialects/HetGraph/HetGraph.h"
#include "passes/Passes.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

using namespace mlir;
using namespace hetc;
using namespace hetc::testing;

namespace {

/// A trainable input of a case: a global `@name` of `shape` (f64) with
/// random values in [lo, hi).
struct Param {
  std::string name;
  std::vector<int64_t> shape;
  double lo = -1.0, hi = 1.0;
};

/// One gradient check: `body` computes `%out` of type `result` from the
/// loaded parameters (`%<name>`) and ends with the return.
struct GradCase {
  std::string name;
  std::vector<Param> params;
  std::string result;
  std::string body;
  /// Finite-difference step; values are rounded to multiples of it when
  /// `quantize` (for f32 round trips that must stay exact).
  double epsilon = 1e-6;
  bool quantize = false;
};

// Names the case in gtest messages instead of dumping its bytes.
void PrintTo(const GradCase &c, std::ostream *os) { *os << c.name; }

std::string tensorType(const std::vector<int64_t> &shape) {
  std::string text = "tensor<";
  for (int64_t d : shape)
    text += std::to_string(d) + "x";
  return text + "f64>";
}

int64_t elementCount(const std::vector<int64_t> &shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

std::string moduleText(const GradCase &c) {
  std::string text;
  for (const Param &p : c.params)
    text += llvm::formatv("ml_program.global private @{0}(dense<0.0> : {1}) "
                          ": {1}\n",
                          p.name, tensorType(p.shape));
  text += "func.func @step() -> " + c.result + " {\n";
  for (const Param &p : c.params)
    text += llvm::formatv("  %{0} = ml_program.global_load_const @{0} : {1}\n",
                          p.name, tensorType(p.shape));
  return text + c.body + "\n}\n";
}

class GradientChecker : public ::testing::Test {
protected:
  GraphEvaluator evaluator;
  std::mt19937_64 random{20240611};

  std::vector<double> uniform(int64_t count, double lo, double hi) {
    std::uniform_real_distribution<double> dist(lo, hi);
    std::vector<double> values(count);
    for (double &v : values)
      v = dist(random);
    return values;
  }

  /// Replaces the result `%out` by `sum(%out * R)`.
  void appendLoss(ModuleOp module) {
    auto func = *module.getOps<func::FuncOp>().begin();
    Operation *terminator = func.getBody().front().getTerminator();
    Value out = terminator->getOperand(0);
    auto type = llvm::cast<RankedTensorType>(out.getType());
    OpBuilder builder(terminator);
    Location loc = terminator->getLoc();
    std::vector<double> weights = uniform(type.getNumElements(), -1.0, 1.0);
    Value r = hetg::ConstantOp::create(
        builder, loc, DenseElementsAttr::get(type, ArrayRef<double>(weights)));
    Value product = hetg::MulOp::create(builder, loc, out, r);
    SmallVector<int64_t> axes(type.getRank());
    std::iota(axes.begin(), axes.end(), 0);
    Value loss = hetg::ReduceSumOp::create(builder, loc, product, axes,
                                           /*keep_dims=*/false);
    terminator->setOperands(loss);
    func.setType(builder.getFunctionType({}, {loss.getType()}));
  }

  /// Checks the case, with the analytic gradients multiplied by `distortion`;
  /// returns the mismatches, described in `report`.
  int check(const GradCase &c, std::string &report, double distortion = 1.0) {
    OwningOpRef<ModuleOp> forward = evaluator.parse(moduleText(c));
    if (!forward)
      return -1;
    appendLoss(*forward);
    OwningOpRef<ModuleOp> backward = forward->clone();
    if (!evaluator.run(*backward,
                       [](PassManager &pm) { pm.addPass(createHetgAutodiff()); },
                       &report))
      return -1;
    GlobalValues values;
    for (const Param &p : c.params) {
      std::vector<double> v = uniform(elementCount(p.shape), p.lo, p.hi);
      if (c.quantize)
        for (double &x : v)
          x = std::round(x / (4 * c.epsilon)) * (4 * c.epsilon);
      values[p.name] = v;
    }
    std::optional<Evaluation> analytic = evaluator.evaluate(*backward, values);
    if (!analytic || analytic->results.size() != c.params.size() + 1)
      return -1;
    int mismatches = 0;
    for (auto [index, p] : llvm::enumerate(c.params)) {
      const std::vector<double> &grad = analytic->results[index + 1];
      if (int64_t(grad.size()) != elementCount(p.shape))
        return -1;
      for (size_t i = 0; i < grad.size(); ++i) {
        GlobalValues shifted = values;
        shifted[p.name][i] = values[p.name][i] + c.epsilon;
        std::optional<Evaluation> plus = evaluator.evaluate(*forward, shifted);
        shifted[p.name][i] = values[p.name][i] - c.epsilon;
        std::optional<Evaluation> minus = evaluator.evaluate(*forward, shifted);
        if (!plus || !minus)
          return -1;
        double numeric =
            (plus->results[0][0] - minus->results[0][0]) / (2 * c.epsilon);
        double derived = grad[i] * distortion;
        if (std::abs(derived - numeric) >
            kTolerance * std::max(1.0, std::abs(numeric))) {
          ++mismatches;
          report += llvm::formatv("d loss / d {0}[{1}]: autodiff {2}, finite "
                                  "differences {3}\n",
                                  p.name, i, derived, numeric);
        }
      }
    }
    return mismatches;
  }

  static constexpr double kTolerance = 1e-6;
};

class GradientCheck : public GradientChecker,
                      public ::testing::WithParamInterface<GradCase> {};

TEST_P(GradientCheck, MatchesFiniteDifferences) {
  std::string report;
  EXPECT_EQ(check(GetParam(), report), 0) << report;
}

// clang-format off
const GradCase kCases[] = {
    // Elementwise unary.
    {"neg", {{"x", {2, 3}}}, "tensor<2x3xf64>",
     "%out = hetg.neg %x : tensor<2x3xf64>\nreturn %out : tensor<2x3xf64>"},
    {"sqrt", {{"x", {2, 3}, 0.5, 2.0}}, "tensor<2x3xf64>",
     "%out = hetg.sqrt %x : tensor<2x3xf64>\nreturn %out : tensor<2x3xf64>"},
    {"reciprocal", {{"x", {2, 3}, 0.5, 2.0}}, "tensor<2x3xf64>",
     "%out = hetg.reciprocal %x : tensor<2x3xf64>\nreturn %out : tensor<2x3xf64>"},
    {"exp", {{"x", {2, 3}}}, "tensor<2x3xf64>",
     "%out = hetg.exp %x : tensor<2x3xf64>\nreturn %out : tensor<2x3xf64>"},
    {"log", {{"x", {2, 3}, 0.5, 2.0}}, "tensor<2x3xf64>",
     "%out = hetg.log %x : tensor<2x3xf64>\nreturn %out : tensor<2x3xf64>"},
    {"tanh", {{"x", {2, 3}, -2.0, 2.0}}, "tensor<2x3xf64>",
     "%out = hetg.tanh %x : tensor<2x3xf64>\nreturn %out : tensor<2x3xf64>"},
    {"cos", {{"x", {2, 3}, -3.0, 3.0}}, "tensor<2x3xf64>",
     "%out = hetg.cos %x : tensor<2x3xf64>\nreturn %out : tensor<2x3xf64>"},
    {"sin", {{"x", {2, 3}, -3.0, 3.0}}, "tensor<2x3xf64>",
     "%out = hetg.sin %x : tensor<2x3xf64>\nreturn %out : tensor<2x3xf64>"},
    {"erf", {{"x", {2, 3}, -2.0, 2.0}}, "tensor<2x3xf64>",
     "%out = hetg.erf %x : tensor<2x3xf64>\nreturn %out : tensor<2x3xf64>"},
    {"sigmoid", {{"x", {2, 3}, -3.0, 3.0}}, "tensor<2x3xf64>",
     "%out = hetg.sigmoid %x : tensor<2x3xf64>\nreturn %out : tensor<2x3xf64>"},
    {"relu", {{"x", {2, 3}}}, "tensor<2x3xf64>",
     "%out = hetg.relu %x : tensor<2x3xf64>\nreturn %out : tensor<2x3xf64>"},
    {"silu", {{"x", {2, 3}, -3.0, 3.0}}, "tensor<2x3xf64>",
     "%out = hetg.silu %x : tensor<2x3xf64>\nreturn %out : tensor<2x3xf64>"},
    {"gelu_erf", {{"x", {2, 3}, -3.0, 3.0}}, "tensor<2x3xf64>",
     "%out = hetg.gelu %x : tensor<2x3xf64>\nreturn %out : tensor<2x3xf64>"},
    {"gelu_tanh", {{"x", {2, 3}, -3.0, 3.0}}, "tensor<2x3xf64>",
     "%out = hetg.gelu %x <{approximate = #hetg<gelu_approximation tanh>}> : tensor<2x3xf64>\n"
     "return %out : tensor<2x3xf64>"},
    {"trilu", {{"x", {3, 4}}}, "tensor<3x4xf64>",
     "%out = hetg.trilu %x <{k = 1 : i64, upper = false}> : tensor<3x4xf64>\n"
     "return %out : tensor<3x4xf64>"},
    {"trilu_upper", {{"x", {2, 3, 4}}}, "tensor<2x3x4xf64>",
     "%out = hetg.trilu %x <{k = -1 : i64, upper = true}> : tensor<2x3x4xf64>\n"
     "return %out : tensor<2x3x4xf64>"},
    {"cast_f32_round_trip", {{"x", {2, 3}}}, "tensor<2x3xf64>",
     "%n = hetg.cast %x to f32 : tensor<2x3xf64>\n"
     "%w = hetg.cast %n to f64 : tensor<2x3xf32>\n"
     "%out = hetg.mul %w, %x : tensor<2x3xf64>, tensor<2x3xf64>\n"
     "return %out : tensor<2x3xf64>",
     /*epsilon=*/1.0 / 1024, /*quantize=*/true},

    // Elementwise binary, both operands stretched and rank-extended.
    {"add", {{"a", {2, 1, 3}}, {"b", {4, 1}}}, "tensor<2x4x3xf64>",
     "%out = hetg.add %a, %b : tensor<2x1x3xf64>, tensor<4x1xf64>\nreturn %out : tensor<2x4x3xf64>"},
    {"sub", {{"a", {2, 1, 3}}, {"b", {4, 1}}}, "tensor<2x4x3xf64>",
     "%out = hetg.sub %a, %b : tensor<2x1x3xf64>, tensor<4x1xf64>\nreturn %out : tensor<2x4x3xf64>"},
    {"mul", {{"a", {2, 1, 3}}, {"b", {4, 1}}}, "tensor<2x4x3xf64>",
     "%out = hetg.mul %a, %b : tensor<2x1x3xf64>, tensor<4x1xf64>\nreturn %out : tensor<2x4x3xf64>"},
    {"div", {{"a", {2, 1, 3}}, {"b", {4, 1}, 0.5, 2.0}}, "tensor<2x4x3xf64>",
     "%out = hetg.div %a, %b : tensor<2x1x3xf64>, tensor<4x1xf64>\nreturn %out : tensor<2x4x3xf64>"},
    {"pow", {{"a", {2, 1, 3}, 0.5, 2.0}, {"b", {4, 1}, -1.0, 2.0}}, "tensor<2x4x3xf64>",
     "%out = hetg.pow %a, %b : tensor<2x1x3xf64>, tensor<4x1xf64>\nreturn %out : tensor<2x4x3xf64>"},
    {"minimum", {{"a", {2, 1, 3}}, {"b", {4, 1}}}, "tensor<2x4x3xf64>",
     "%out = hetg.minimum %a, %b : tensor<2x1x3xf64>, tensor<4x1xf64>\nreturn %out : tensor<2x4x3xf64>"},
    {"maximum", {{"a", {2, 1, 3}}, {"b", {4, 1}}}, "tensor<2x4x3xf64>",
     "%out = hetg.maximum %a, %b : tensor<2x1x3xf64>, tensor<4x1xf64>\nreturn %out : tensor<2x4x3xf64>"},
    {"pow_constant_exponent", {{"a", {2, 3}}}, "tensor<2x3xf64>",
     "%two = hetg.constant dense<2.0> : tensor<f64>\n"
     "%out = hetg.pow %a, %two : tensor<2x3xf64>, tensor<f64>\nreturn %out : tensor<2x3xf64>"},
    {"where_broadcast_condition", {{"t", {3}}, {"f", {}}}, "tensor<2x3xf64>",
     "%c = hetg.constant dense<[[true, false, true], [false, false, true]]> : tensor<2x3xi1>\n"
     "%out = hetg.where %c, %t, %f : tensor<2x3xi1>, tensor<3xf64>, tensor<f64>\n"
     "return %out : tensor<2x3xf64>"},
    {"where", {{"t", {2, 3}}, {"f", {3}}}, "tensor<2x3xf64>",
     "%c = hetg.constant dense<[[true, false, true], [false, false, true]]> : tensor<2x3xi1>\n"
     "%out = hetg.where %c, %t, %f : tensor<2x3xi1>, tensor<2x3xf64>, tensor<3xf64>\n"
     "return %out : tensor<2x3xf64>"},

    // Matmul: every transpose combination, bias, batch broadcasting.
    {"matmul", {{"a", {3, 4}}, {"b", {4, 2}}}, "tensor<3x2xf64>",
     "%out = hetg.matmul %a, %b : tensor<3x4xf64>, tensor<4x2xf64>\nreturn %out : tensor<3x2xf64>"},
    {"matmul_transpose_lhs", {{"a", {4, 3}}, {"b", {4, 2}}}, "tensor<3x2xf64>",
     "%out = hetg.matmul %a, %b <{transpose_lhs}> : tensor<4x3xf64>, tensor<4x2xf64>\n"
     "return %out : tensor<3x2xf64>"},
    {"matmul_transpose_rhs", {{"a", {3, 4}}, {"b", {2, 4}}}, "tensor<3x2xf64>",
     "%out = hetg.matmul %a, %b <{transpose_rhs}> : tensor<3x4xf64>, tensor<2x4xf64>\n"
     "return %out : tensor<3x2xf64>"},
    {"matmul_transpose_both", {{"a", {4, 3}}, {"b", {2, 4}}}, "tensor<3x2xf64>",
     "%out = hetg.matmul %a, %b <{transpose_lhs, transpose_rhs}> : tensor<4x3xf64>, tensor<2x4xf64>\n"
     "return %out : tensor<3x2xf64>"},
    {"matmul_bias", {{"a", {3, 4}}, {"b", {4, 2}}, {"c", {2}}}, "tensor<3x2xf64>",
     "%out = hetg.matmul %a, %b bias %c : tensor<2xf64> : tensor<3x4xf64>, tensor<4x2xf64>\n"
     "return %out : tensor<3x2xf64>"},
    {"matmul_batch_shared_weight", {{"a", {2, 3, 4}}, {"b", {4, 2}}, {"c", {2}}}, "tensor<2x3x2xf64>",
     "%out = hetg.matmul %a, %b bias %c : tensor<2xf64> : tensor<2x3x4xf64>, tensor<4x2xf64>\n"
     "return %out : tensor<2x3x2xf64>"},
    {"matmul_batch_shared_weight_transposed", {{"a", {2, 3, 4}}, {"b", {2, 4}}}, "tensor<2x3x2xf64>",
     "%out = hetg.matmul %a, %b <{transpose_rhs}> : tensor<2x3x4xf64>, tensor<2x4xf64>\n"
     "return %out : tensor<2x3x2xf64>"},
    {"matmul_batch_transpose_lhs", {{"a", {2, 4, 3}}, {"b", {4, 2}}}, "tensor<2x3x2xf64>",
     "%out = hetg.matmul %a, %b <{transpose_lhs}> : tensor<2x4x3xf64>, tensor<4x2xf64>\n"
     "return %out : tensor<2x3x2xf64>"},
    {"matmul_batch_rhs", {{"a", {3, 4}}, {"b", {2, 4, 2}}}, "tensor<2x3x2xf64>",
     "%out = hetg.matmul %a, %b : tensor<3x4xf64>, tensor<2x4x2xf64>\nreturn %out : tensor<2x3x2xf64>"},
    {"matmul_batch_broadcast", {{"a", {2, 1, 3, 4}}, {"b", {3, 2, 4}}}, "tensor<2x3x3x2xf64>",
     "%out = hetg.matmul %a, %b <{transpose_rhs}> : tensor<2x1x3x4xf64>, tensor<3x2x4xf64>\n"
     "return %out : tensor<2x3x3x2xf64>"},

    // Data movement.
    {"transpose", {{"x", {2, 3, 4}}}, "tensor<4x2x3xf64>",
     "%out = hetg.transpose %x [2, 0, 1] : tensor<2x3x4xf64>\nreturn %out : tensor<4x2x3xf64>"},
    {"reshape", {{"x", {2, 3, 4}}}, "tensor<6x4xf64>",
     "%e = hetg.exp %x : tensor<2x3x4xf64>\n"
     "%out = hetg.reshape %e : tensor<2x3x4xf64> -> tensor<6x4xf64>\nreturn %out : tensor<6x4xf64>"},
    {"broadcast", {{"x", {3, 1}}}, "tensor<2x3x4xf64>",
     "%out = hetg.broadcast %x : tensor<3x1xf64> -> tensor<2x3x4xf64>\nreturn %out : tensor<2x3x4xf64>"},
    {"slice_strided", {{"x", {4, 6}}}, "tensor<2x3xf64>",
     "%out = hetg.slice %x <{starts = array<i64: 1, -5>, ends = array<i64: 9223372036854775807, 6>, "
     "steps = array<i64: 2, 2>}> : tensor<4x6xf64>\nreturn %out : tensor<2x3xf64>"},
    {"concat", {{"a", {2, 1}}, {"b", {2, 3}}, {"c", {2, 2}}}, "tensor<2x6xf64>",
     "%out = hetg.concat %a, %b, %c <{axis = -1 : i64}> : tensor<2x1xf64>, tensor<2x3xf64>, tensor<2x2xf64>\n"
     "return %out : tensor<2x6xf64>"},
    {"gather_embedding", {{"table", {5, 3}}}, "tensor<2x2x3xf64>",
     "%ids = hetg.constant dense<[[0, 4], [4, -1]]> : tensor<2x2xi64>\n"
     "%out = hetg.gather %table[%ids] <{axis = 0 : i64}> : tensor<5x3xf64>, tensor<2x2xi64>\n"
     "return %out : tensor<2x2x3xf64>"},
    {"gather_axis1", {{"x", {2, 4, 3}}}, "tensor<2x3x3xf64>",
     "%ids = hetg.constant dense<[3, 0, 3]> : tensor<3xi32>\n"
     "%out = hetg.gather %x[%ids] <{axis = 1 : i64}> : tensor<2x4x3xf64>, tensor<3xi32>\n"
     "return %out : tensor<2x3x3xf64>"},

    // Reductions.
    {"reduce_sum_keep", {{"x", {2, 3, 4}}}, "tensor<2x1x4xf64>",
     "%out = hetg.reduce_sum %x <{axes = array<i64: 1>}> : tensor<2x3x4xf64>\nreturn %out : tensor<2x1x4xf64>"},
    {"reduce_sum_drop", {{"x", {2, 3, 4}}}, "tensor<3xf64>",
     "%out = hetg.reduce_sum %x <{axes = array<i64: 0, 2>, keep_dims = false}> : tensor<2x3x4xf64>\n"
     "return %out : tensor<3xf64>"},
    {"reduce_mean_keep", {{"x", {2, 3, 4}}}, "tensor<1x3x1xf64>",
     "%out = hetg.reduce_mean %x <{axes = array<i64: 0, 2>}> : tensor<2x3x4xf64>\nreturn %out : tensor<1x3x1xf64>"},
    {"reduce_mean_drop", {{"x", {2, 3, 4}}}, "tensor<2x4xf64>",
     "%out = hetg.reduce_mean %x <{axes = array<i64: 1>, keep_dims = false}> : tensor<2x3x4xf64>\n"
     "return %out : tensor<2x4xf64>"},
    {"reduce_max_keep", {{"x", {2, 3, 4}}}, "tensor<2x1x4xf64>",
     "%out = hetg.reduce_max %x <{axes = array<i64: 1>}> : tensor<2x3x4xf64>\nreturn %out : tensor<2x1x4xf64>"},
    {"reduce_max_drop", {{"x", {2, 3, 4}}}, "tensor<3xf64>",
     "%out = hetg.reduce_max %x <{axes = array<i64: 0, 2>, keep_dims = false}> : tensor<2x3x4xf64>\n"
     "return %out : tensor<3xf64>"},

    // Softmax and normalization.
    {"softmax_last", {{"x", {2, 3, 4}, -2.0, 2.0}}, "tensor<2x3x4xf64>",
     "%out = hetg.softmax %x <{axis = 2 : i64}> : tensor<2x3x4xf64>\nreturn %out : tensor<2x3x4xf64>"},
    {"softmax_inner", {{"x", {2, 3, 4}, -2.0, 2.0}}, "tensor<2x3x4xf64>",
     "%out = hetg.softmax %x <{axis = 1 : i64}> : tensor<2x3x4xf64>\nreturn %out : tensor<2x3x4xf64>"},
    {"log_softmax_last", {{"x", {2, 3, 4}, -2.0, 2.0}}, "tensor<2x3x4xf64>",
     "%out = hetg.log_softmax %x <{axis = 2 : i64}> : tensor<2x3x4xf64>\nreturn %out : tensor<2x3x4xf64>"},
    {"log_softmax_outer", {{"x", {2, 3, 4}, -2.0, 2.0}}, "tensor<2x3x4xf64>",
     "%out = hetg.log_softmax %x <{axis = 0 : i64}> : tensor<2x3x4xf64>\nreturn %out : tensor<2x3x4xf64>"},
    {"layer_norm_scale_bias", {{"x", {2, 3, 4}}, {"w", {4}}, {"b", {4}}}, "tensor<2x3x4xf64>",
     "%out = hetg.layer_norm %x scale %w : tensor<4xf64> bias %b : tensor<4xf64> "
     "<{axis = 2 : i64, epsilon = 1.0e-05 : f32}> : tensor<2x3x4xf64>\nreturn %out : tensor<2x3x4xf64>"},
    {"layer_norm_scale", {{"x", {2, 3, 4}}, {"w", {4}}}, "tensor<2x3x4xf64>",
     "%out = hetg.layer_norm %x scale %w : tensor<4xf64> <{axis = 2 : i64, epsilon = 1.0e-05 : f32}> "
     ": tensor<2x3x4xf64>\nreturn %out : tensor<2x3x4xf64>"},
    {"layer_norm_bias", {{"x", {2, 3, 4}}, {"b", {4}}}, "tensor<2x3x4xf64>",
     "%out = hetg.layer_norm %x bias %b : tensor<4xf64> <{axis = 2 : i64, epsilon = 1.0e-05 : f32}> "
     ": tensor<2x3x4xf64>\nreturn %out : tensor<2x3x4xf64>"},
    {"layer_norm_plain", {{"x", {2, 3, 4}}}, "tensor<2x3x4xf64>",
     "%out = hetg.layer_norm %x <{axis = 2 : i64, epsilon = 1.0e-05 : f32}> : tensor<2x3x4xf64>\n"
     "return %out : tensor<2x3x4xf64>"},
    {"layer_norm_two_axes", {{"x", {2, 3, 4}}, {"w", {3, 4}}, {"b", {3, 4}}}, "tensor<2x3x4xf64>",
     "%out = hetg.layer_norm %x scale %w : tensor<3x4xf64> bias %b : tensor<3x4xf64> "
     "<{axis = 1 : i64, epsilon = 1.0e-05 : f32}> : tensor<2x3x4xf64>\nreturn %out : tensor<2x3x4xf64>"},
    {"rms_norm_scale", {{"x", {2, 3, 4}}, {"w", {4}}}, "tensor<2x3x4xf64>",
     "%out = hetg.rms_norm %x scale %w : tensor<4xf64> <{epsilon = 1.0e-06 : f32}> : tensor<2x3x4xf64>\n"
     "return %out : tensor<2x3x4xf64>"},
    {"rms_norm_plain", {{"x", {2, 3, 4}}}, "tensor<2x3x4xf64>",
     "%out = hetg.rms_norm %x <{epsilon = 1.0e-06 : f32}> : tensor<2x3x4xf64>\nreturn %out : tensor<2x3x4xf64>"},

    // Attention: cross attention (Tq != Tk, Dv != D), causal, masks.
    {"attention_cross", {{"q", {2, 3, 4}}, {"k", {2, 5, 4}}, {"v", {2, 5, 2}}}, "tensor<2x3x2xf64>",
     "%out = hetg.attention %q, %k, %v <{scale = 5.000000e-01 : f32}> "
     ": tensor<2x3x4xf64>, tensor<2x5x4xf64>, tensor<2x5x2xf64>\nreturn %out : tensor<2x3x2xf64>"},
    {"attention_causal", {{"q", {1, 2, 4, 3}}, {"k", {1, 2, 4, 3}}, {"v", {1, 2, 4, 3}}}, "tensor<1x2x4x3xf64>",
     "%out = hetg.attention %q, %k, %v <{causal, scale = 0.57735026 : f32}> "
     ": tensor<1x2x4x3xf64>, tensor<1x2x4x3xf64>, tensor<1x2x4x3xf64>\nreturn %out : tensor<1x2x4x3xf64>"},
    {"attention_causal_cross", {{"q", {2, 2, 3}}, {"k", {2, 4, 3}}, {"v", {2, 4, 3}}}, "tensor<2x2x3xf64>",
     "%out = hetg.attention %q, %k, %v <{causal, scale = 5.000000e-01 : f32}> "
     ": tensor<2x2x3xf64>, tensor<2x4x3xf64>, tensor<2x4x3xf64>\nreturn %out : tensor<2x2x3xf64>"},
    {"attention_mask", {{"q", {2, 3, 4}}, {"k", {2, 3, 4}}, {"v", {2, 3, 4}}}, "tensor<2x3x4xf64>",
     "%m = hetg.constant dense<[[0.0, -1.0, 0.5], [-1.0e9, 0.0, 0.25], [0.0, 0.0, -2.0]]> : tensor<3x3xf64>\n"
     "%out = hetg.attention %q, %k, %v mask %m : tensor<3x3xf64> <{scale = 5.000000e-01 : f32}> "
     ": tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>\nreturn %out : tensor<2x3x4xf64>"},
    {"attention_causal_mask", {{"q", {2, 3, 4}}, {"k", {2, 3, 4}}, {"v", {2, 3, 4}}}, "tensor<2x3x4xf64>",
     "%m = hetg.constant dense<[[[0.0, 0.0, 0.0]], [[0.0, -1.0e9, 0.0]]]> : tensor<2x1x3xf64>\n"
     "%out = hetg.attention %q, %k, %v mask %m : tensor<2x1x3xf64> <{causal, scale = 5.000000e-01 : f32}> "
     ": tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>\nreturn %out : tensor<2x3x4xf64>"},
    {"attention_trainable_mask", {{"q", {2, 3, 4}}, {"k", {2, 3, 4}}, {"v", {2, 3, 4}}, {"m", {3, 3}}},
     "tensor<2x3x4xf64>",
     "%out = hetg.attention %q, %k, %v mask %m : tensor<3x3xf64> <{causal, scale = 5.000000e-01 : f32}> "
     ": tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>\nreturn %out : tensor<2x3x4xf64>"},

    // Loss: every reduction, ignored labels, trailing dimensions.
    {"cross_entropy_mean", {{"z", {4, 5}, -2.0, 2.0}}, "tensor<f64>",
     "%l = hetg.constant dense<[1, 0, 4, 2]> : tensor<4xi64>\n"
     "%out = hetg.cross_entropy %z, %l <{reduction = #hetg<loss_reduction mean>}> : tensor<4x5xf64>, tensor<4xi64>\n"
     "return %out : tensor<f64>"},
    {"cross_entropy_sum", {{"z", {4, 5}, -2.0, 2.0}}, "tensor<f64>",
     "%l = hetg.constant dense<[1, 0, 4, 2]> : tensor<4xi64>\n"
     "%out = hetg.cross_entropy %z, %l <{reduction = #hetg<loss_reduction sum>}> : tensor<4x5xf64>, tensor<4xi64>\n"
     "return %out : tensor<f64>"},
    {"cross_entropy_none", {{"z", {4, 5}, -2.0, 2.0}}, "tensor<4xf64>",
     "%l = hetg.constant dense<[1, 0, 4, 2]> : tensor<4xi64>\n"
     "%out = hetg.cross_entropy %z, %l <{reduction = #hetg<loss_reduction none>}> : tensor<4x5xf64>, tensor<4xi64>\n"
     "return %out : tensor<4xf64>"},
    {"cross_entropy_ignore_index", {{"z", {4, 5}, -2.0, 2.0}}, "tensor<f64>",
     "%l = hetg.constant dense<[1, -100, 4, -100]> : tensor<4xi64>\n"
     "%out = hetg.cross_entropy %z, %l <{ignore_index = -100 : i64, reduction = #hetg<loss_reduction mean>}> "
     ": tensor<4x5xf64>, tensor<4xi64>\nreturn %out : tensor<f64>"},
    {"cross_entropy_spatial", {{"z", {2, 5, 3}, -2.0, 2.0}}, "tensor<f64>",
     "%l = hetg.constant dense<[[1, 0, 4], [2, 3, 3]]> : tensor<2x3xi32>\n"
     "%out = hetg.cross_entropy %z, %l <{reduction = #hetg<loss_reduction mean>}> : tensor<2x5x3xf64>, tensor<2x3xi32>\n"
     "return %out : tensor<f64>"},
};
// clang-format on

INSTANTIATE_TEST_SUITE_P(Ops, GradientCheck, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<GradCase> &info) {
                           return info.param.name;
                         });

// Every op that builds its own gradient is checked above: a new
// differentiable op fails here until it has a case.
TEST_F(GradientChecker, CoversEveryDifferentiableOp) {
  std::string allBodies;
  for (const GradCase &c : kCases)
    allBodies += c.body + "\n";
  MLIRContext &context = evaluator.context();
  context.getOrLoadDialect<hetg::HetGraphDialect>();
  for (RegisteredOperationName op : context.getRegisteredOperations()) {
    if (op.getDialectNamespace() != "hetg" ||
        !op.hasInterface<hetg::DifferentiableOpInterface>())
      continue;
    std::string use = op.getStringRef().str() + " ";
    EXPECT_NE(allBodies.find(use), std::string::npos)
        << op.getStringRef().str() << " has no finite-difference case";
  }
}

// The check is sharp: a gradient off by 0.1% fails it.
TEST_F(GradientChecker, RejectsASlightlyWrongGradient) {
  std::string report;
  GradCase c{"exp", {{"x", {2, 3}}}, "tensor<2x3xf64>",
             "%out = hetg.exp %x : tensor<2x3xf64>\nreturn %out : "
             "tensor<2x3xf64>"};
  EXPECT_EQ(check(c, report, /*distortion=*/1.001), 6) << report;
}

// A small decoder block end to end: embedding and position tables, layer
// norm, fused QKV projection with bias, head split, causal attention, output
// projection, residuals, RMS norm, tanh GELU, and an LM head tied to the
// embedding table through a second load of the same global.
TEST_F(GradientChecker, DecoderBlock) {
  GradCase c{
      "decoder_block",
      {{"wte", {7, 4}}, {"wpe", {3, 4}}, {"ln_w", {4}, 0.5, 1.5},
       {"ln_b", {4}}, {"w_qkv", {12, 4}}, {"b_qkv", {12}}, {"w_o", {4, 4}},
       {"rms_w", {4}, 0.5, 1.5}},
      "tensor<f64>",
      R"mlir(
  %ids = hetg.constant dense<[[1, 6, 2], [0, 3, 3]]> : tensor<2x3xi64>
  %labels = hetg.constant dense<[6, 2, 5, 3, 3, 1]> : tensor<6xi64>
  %pos = hetg.constant dense<[0, 1, 2]> : tensor<3xi64>
  %e = hetg.gather %wte[%ids] <{axis = 0 : i64}> : tensor<7x4xf64>, tensor<2x3xi64>
  %p = hetg.gather %wpe[%pos] <{axis = 0 : i64}> : tensor<3x4xf64>, tensor<3xi64>
  %h = hetg.add %e, %p : tensor<2x3x4xf64>, tensor<3x4xf64>
  %n = hetg.layer_norm %h scale %ln_w : tensor<4xf64> bias %ln_b : tensor<4xf64> <{axis = 2 : i64, epsilon = 1.0e-05 : f32}> : tensor<2x3x4xf64>
  %qkv = hetg.matmul %n, %w_qkv bias %b_qkv : tensor<12xf64> <{transpose_rhs}> : tensor<2x3x4xf64>, tensor<12x4xf64>
  %q0 = hetg.slice %qkv <{starts = array<i64: 0, 0, 0>, ends = array<i64: 2, 3, 4>, steps = array<i64: 1, 1, 1>}> : tensor<2x3x12xf64>
  %k0 = hetg.slice %qkv <{starts = array<i64: 0, 0, 4>, ends = array<i64: 2, 3, 8>, steps = array<i64: 1, 1, 1>}> : tensor<2x3x12xf64>
  %v0 = hetg.slice %qkv <{starts = array<i64: 0, 0, 8>, ends = array<i64: 2, 3, 12>, steps = array<i64: 1, 1, 1>}> : tensor<2x3x12xf64>
  %q1 = hetg.reshape %q0 : tensor<2x3x4xf64> -> tensor<2x3x2x2xf64>
  %k1 = hetg.reshape %k0 : tensor<2x3x4xf64> -> tensor<2x3x2x2xf64>
  %v1 = hetg.reshape %v0 : tensor<2x3x4xf64> -> tensor<2x3x2x2xf64>
  %q = hetg.transpose %q1 [0, 2, 1, 3] : tensor<2x3x2x2xf64>
  %k = hetg.transpose %k1 [0, 2, 1, 3] : tensor<2x3x2x2xf64>
  %v = hetg.transpose %v1 [0, 2, 1, 3] : tensor<2x3x2x2xf64>
  %a = hetg.attention %q, %k, %v <{causal, scale = 0.707106769 : f32}> : tensor<2x2x3x2xf64>, tensor<2x2x3x2xf64>, tensor<2x2x3x2xf64>
  %a1 = hetg.transpose %a [0, 2, 1, 3] : tensor<2x2x3x2xf64>
  %a2 = hetg.reshape %a1 : tensor<2x3x2x2xf64> -> tensor<2x3x4xf64>
  %o = hetg.matmul %a2, %w_o : tensor<2x3x4xf64>, tensor<4x4xf64>
  %r = hetg.add %h, %o : tensor<2x3x4xf64>, tensor<2x3x4xf64>
  %m = hetg.rms_norm %r scale %rms_w : tensor<4xf64> <{epsilon = 1.0e-06 : f32}> : tensor<2x3x4xf64>
  %f = hetg.gelu %m <{approximate = #hetg<gelu_approximation tanh>}> : tensor<2x3x4xf64>
  %r2 = hetg.add %r, %f : tensor<2x3x4xf64>, tensor<2x3x4xf64>
  %head = ml_program.global_load_const @wte : tensor<7x4xf64>
  %logits = hetg.matmul %r2, %head <{transpose_rhs}> : tensor<2x3x4xf64>, tensor<7x4xf64>
  %flat = hetg.reshape %logits : tensor<2x3x7xf64> -> tensor<6x7xf64>
  %out = hetg.cross_entropy %flat, %labels <{reduction = #hetg<loss_reduction mean>}> : tensor<6x7xf64>, tensor<6xi64>
  return %out : tensor<f64>)mlir"};
  std::string report;
  EXPECT_EQ(check(c, report), 0) << report;
}

} // namespace
