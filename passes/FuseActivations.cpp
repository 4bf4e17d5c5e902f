//===- FuseActivations.cpp - fuse GELU and SiLU ---------------------------===//
//
// GELU is `x * Phi(x)`: exporters write the product `0.5 * x * (1 + f(x))`
// in any association, with `f` either `erf(x / sqrt(2))` or the tanh
// approximation. Products are flattened into a coefficient and factors
// (PatternMatchers.h), so the association and the placement of the
// constants do not matter.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/PatternMatchers.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace hetc {
#define GEN_PASS_DEF_HETGFUSEACTIVATIONS
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using namespace hetc::hetg;

namespace {

constexpr double kTanhGeluCubic = 0.044715;

/// The argument `t` of `x * alpha * (1 + alpha' * Fn(t))` with
/// `alpha * alpha' == 0.5`, trying both factors as `x`; `x` is returned too.
template <typename FnOp>
std::optional<std::pair<Value, Value>> matchHalfXTimesOnePlus(Operation *root) {
  Value result = root->getResult(0);
  Type element = elementTypeOf(result);
  Product product = flattenProduct(result);
  if (product.factors.size() != 2)
    return std::nullopt;
  for (int first = 0; first < 2; ++first) {
    Value x = product.factors[first], sum = product.factors[1 - first];
    if (!sum.hasOneUse())
      continue;
    std::optional<std::pair<double, Value>> onePlus = matchOnePlus(sum);
    if (!onePlus || !onePlus->second.hasOneUse() ||
        !isApproximately(product.coefficient * onePlus->first, 0.5, element))
      continue;
    auto fn = onePlus->second.getDefiningOp<FnOp>();
    if (!fn || !fn.getInput().hasOneUse())
      continue;
    return std::make_pair(x, fn.getInput());
  }
  return std::nullopt;
}

/// `0.5 * x * (1 + erf(x / sqrt(2)))`, the division also as `* (1/sqrt(2))`.
/// The root is the outermost mul, or a div when the 0.5 is a division by 2.
template <typename RootOp>
struct FuseErfGelu : OpRewritePattern<RootOp> {
  using OpRewritePattern<RootOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(RootOp root,
                                PatternRewriter &rewriter) const override {
    auto match = matchHalfXTimesOnePlus<ErfOp>(root);
    if (!match)
      return rewriter.notifyMatchFailure(root, "not 0.5 * x * (1 + erf(.))");
    auto [x, argument] = *match;
    Product scaled = flattenProduct(argument);
    if (scaled.factors.size() != 1 || scaled.factors.front() != x ||
        !isApproximately(scaled.coefficient, M_SQRT1_2, elementTypeOf(root)))
      return rewriter.notifyMatchFailure(root, "erf argument is not x/sqrt(2)");
    if (root.getType() != x.getType())
      return rewriter.notifyMatchFailure(root, "constants broadcast x");
    rewriter.replaceOpWithNewOp<GeluOp>(root, x, GeluApproximation::none);
    return success();
  }
};

/// `c * x^n` as (c, n): a splat constant (n = 0) or a product of x's.
std::optional<std::pair<double, int64_t>> matchMonomial(Value term, Value x) {
  if (std::optional<double> c = matchSplatConstant(term))
    return std::make_pair(*c, int64_t(0));
  if (term == x)
    return std::make_pair(1.0, int64_t(1));
  if (!term.hasOneUse())
    return std::nullopt;
  Product product = flattenProduct(term);
  std::optional<int64_t> power = powerOf(product.factors, x);
  if (!power)
    return std::nullopt;
  return std::make_pair(product.coefficient, *power);
}

/// True when `argument` is `sqrt(2/pi) * (x + 0.044715 * x^3)`, in any
/// distribution of the constants: a product of x^p (p = 0 or 1) and one sum
/// of two monomials whose powers, plus p, are 1 and 3.
bool isTanhGeluArgument(Value argument, Value x, Type element) {
  Product product = flattenProduct(argument);
  SmallVector<Value> xFactors, others;
  for (Value factor : product.factors)
    (factor == x ? xFactors : others).push_back(factor);
  std::optional<int64_t> outerPower = powerOf(xFactors, x);
  if (others.size() != 1 || !outerPower || *outerPower > 1)
    return false;
  auto sum = others.front().getDefiningOp<AddOp>();
  if (!sum || !others.front().hasOneUse())
    return false;
  std::optional<std::pair<double, int64_t>> lhs = matchMonomial(sum.getLhs(), x);
  std::optional<std::pair<double, int64_t>> rhs = matchMonomial(sum.getRhs(), x);
  if (!lhs || !rhs)
    return false;
  if (lhs->second > rhs->second)
    std::swap(lhs, rhs);
  if (lhs->second + *outerPower != 1 || rhs->second + *outerPower != 3)
    return false;
  double linear = product.coefficient * lhs->first;
  return isApproximately(linear, std::sqrt(2.0 / M_PI), element) &&
         isApproximately(rhs->first / lhs->first, kTanhGeluCubic, element);
}

/// `0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))`.
template <typename RootOp>
struct FuseTanhGelu : OpRewritePattern<RootOp> {
  using OpRewritePattern<RootOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(RootOp root,
                                PatternRewriter &rewriter) const override {
    auto match = matchHalfXTimesOnePlus<TanhOp>(root);
    if (!match)
      return rewriter.notifyMatchFailure(root, "not 0.5 * x * (1 + tanh(.))");
    auto [x, argument] = *match;
    if (!isTanhGeluArgument(argument, x, elementTypeOf(root)))
      return rewriter.notifyMatchFailure(root, "not the tanh GELU argument");
    if (root.getType() != x.getType())
      return rewriter.notifyMatchFailure(root, "constants broadcast x");
    rewriter.replaceOpWithNewOp<GeluOp>(root, x, GeluApproximation::tanh);
    return success();
  }
};

/// `x * sigmoid(x)`.
struct FuseSilu : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp root,
                                PatternRewriter &rewriter) const override {
    for (auto [x, gate] : operandOrders(root)) {
      auto sigmoid = gate.getDefiningOp<SigmoidOp>();
      if (!sigmoid || sigmoid.getInput() != x || !gate.hasOneUse() ||
          root.getType() != x.getType())
        continue;
      rewriter.replaceOpWithNewOp<SiluOp>(root, x);
      return success();
    }
    return rewriter.notifyMatchFailure(root, "not x * sigmoid(x)");
  }
};

struct HetgFuseActivationsPass
    : hetc::impl::HetgFuseActivationsBase<HetgFuseActivationsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseErfGelu<MulOp>, FuseErfGelu<DivOp>, FuseTanhGelu<MulOp>,
                 FuseTanhGelu<DivOp>, FuseSilu>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
