//===- PatternMatchers.cpp - matchers shared by the fusion passes ---------===//

#include "passes/PatternMatchers.h"

#include "dialects/HetGraph/HetGraph.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>

using namespace mlir;
using namespace hetc::hetg;

namespace hetc {

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

std::optional<double> matchSplatConstant(Value value) {
  Attribute attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  std::optional<ConstantValues> values = readConstant(attr);
  if (!values || values->size() == 0)
    return std::nullopt;
  for (int64_t i = 1; i < values->size(); ++i)
    if (values->asDouble(i) != values->asDouble(0))
      return std::nullopt;
  return values->asDouble(0);
}

bool isApproximately(double actual, double expected, Type elementType) {
  double tolerance = 1e-6;
  // Constants were rounded to their element type; f16 and bf16 keep far
  // fewer digits than 1e-6.
  if (auto floatType = llvm::dyn_cast_if_present<FloatType>(elementType)) {
    int precision =
        llvm::APFloat::semanticsPrecision(floatType.getFloatSemantics());
    tolerance = std::max(tolerance, 2.0 * std::ldexp(1.0, 1 - precision));
  }
  return std::abs(actual - expected) <= tolerance * std::abs(expected);
}

Type elementTypeOf(Value value) {
  return llvm::cast<ShapedType>(value.getType()).getElementType();
}

bool isSplatConstant(Value value, double expected) {
  std::optional<double> actual = matchSplatConstant(value);
  return actual && isApproximately(*actual, expected, elementTypeOf(value));
}

//===----------------------------------------------------------------------===//
// Operands and uses
//===----------------------------------------------------------------------===//

SmallVector<std::pair<Value, Value>, 2> operandOrders(Operation *op) {
  if (op->getNumOperands() != 2)
    return {};
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  return {{lhs, rhs}, {rhs, lhs}};
}

bool isUsedOnlyBy(Value value, ArrayRef<Operation *> users) {
  return llvm::all_of(value.getUsers(), [&](Operation *user) {
    return llvm::is_contained(users, user);
  });
}

//===----------------------------------------------------------------------===//
// Products and powers
//===----------------------------------------------------------------------===//

static void flattenInto(Value value, bool owned, Product &product) {
  if (owned || value.hasOneUse()) {
    if (auto mul = value.getDefiningOp<MulOp>()) {
      for (Value operand : {mul.getLhs(), mul.getRhs()}) {
        if (std::optional<double> c = matchSplatConstant(operand))
          product.coefficient *= *c;
        else
          flattenInto(operand, /*owned=*/false, product);
      }
      return;
    }
    if (auto div = value.getDefiningOp<DivOp>()) {
      std::optional<double> divisor = matchSplatConstant(div.getRhs());
      if (divisor && *divisor != 0.0) {
        if (std::optional<double> c = matchSplatConstant(div.getLhs()))
          product.coefficient *= *c;
        else
          flattenInto(div.getLhs(), /*owned=*/false, product);
        product.coefficient /= *divisor;
        return;
      }
    }
  }
  product.factors.push_back(value);
}

Product flattenProduct(Value value) {
  Product product;
  flattenInto(value, /*owned=*/true, product);
  return product;
}

std::optional<int64_t> powerOf(ArrayRef<Value> factors, Value x) {
  int64_t power = 0;
  for (Value factor : factors) {
    if (factor == x) {
      ++power;
      continue;
    }
    auto pow = factor.getDefiningOp<PowOp>();
    if (!pow || pow.getLhs() != x || !factor.hasOneUse())
      return std::nullopt;
    std::optional<double> exponent = matchSplatConstant(pow.getRhs());
    if (!exponent || *exponent != std::round(*exponent) || *exponent < 1.0 ||
        *exponent > 8.0)
      return std::nullopt;
    power += static_cast<int64_t>(*exponent);
  }
  return power;
}

Value matchSquare(Value value) {
  if (auto pow = value.getDefiningOp<PowOp>())
    if (std::optional<double> exponent = matchSplatConstant(pow.getRhs());
        exponent && *exponent == 2.0)
      return pow.getLhs();
  if (auto mul = value.getDefiningOp<MulOp>())
    if (mul.getLhs() == mul.getRhs())
      return mul.getLhs();
  return {};
}

std::optional<std::pair<double, Value>> matchOnePlus(Value value) {
  auto add = value.getDefiningOp<AddOp>();
  if (!add)
    return std::nullopt;
  for (auto [constant, term] : operandOrders(add)) {
    std::optional<double> alpha = matchSplatConstant(constant);
    if (!alpha || matchSplatConstant(term))
      continue;
    Product product = term.hasOneUse() ? flattenProduct(term)
                                        : Product{1.0, {term}};
    if (product.factors.size() == 1 &&
        isApproximately(product.coefficient, *alpha, elementTypeOf(value)))
      return std::make_pair(*alpha, product.factors.front());
  }
  return std::nullopt;
}

/// `a` of `sqrt(a)` or `pow(a, 0.5)` when `value` has a single use.
static Value matchSqrt(Value value, SmallVectorImpl<Operation *> &interior) {
  if (!value.hasOneUse())
    return {};
  if (auto sqrt = value.getDefiningOp<SqrtOp>()) {
    interior.push_back(sqrt);
    return sqrt.getInput();
  }
  if (auto pow = value.getDefiningOp<PowOp>()) {
    if (isSplatConstant(pow.getRhs(), 0.5)) {
      interior.push_back(pow);
      return pow.getLhs();
    }
  }
  return {};
}

/// `a` of `1 / sqrt(a)` when `value` has a single use.
static Value matchInverseSqrt(Value value,
                              SmallVectorImpl<Operation *> &interior) {
  if (!value.hasOneUse())
    return {};
  Operation *op = value.getDefiningOp();
  if (auto reciprocal = llvm::dyn_cast_if_present<ReciprocalOp>(op)) {
    interior.push_back(op);
    return matchSqrt(reciprocal.getInput(), interior);
  }
  if (auto div = llvm::dyn_cast_if_present<DivOp>(op)) {
    if (!isSplatConstant(div.getLhs(), 1.0))
      return {};
    interior.push_back(op);
    return matchSqrt(div.getRhs(), interior);
  }
  if (auto pow = llvm::dyn_cast_if_present<PowOp>(op)) {
    if (!isSplatConstant(pow.getRhs(), -0.5))
      return {};
    interior.push_back(op);
    return pow.getLhs();
  }
  return {};
}

std::optional<QuotientBySqrt> matchQuotientBySqrt(Operation *op) {
  QuotientBySqrt match;
  if (auto div = llvm::dyn_cast<DivOp>(op)) {
    match.numerator = div.getLhs();
    match.radicand = matchSqrt(div.getRhs(), match.interior);
    if (match.radicand)
      return match;
    return std::nullopt;
  }
  if (!llvm::isa<MulOp>(op))
    return std::nullopt;
  for (auto [numerator, inverse] : operandOrders(op)) {
    match.interior.clear();
    match.numerator = numerator;
    match.radicand = matchInverseSqrt(inverse, match.interior);
    if (match.radicand)
      return match;
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Attention masks
//===----------------------------------------------------------------------===//

bool isCausalMask(const ConstantValues &mask, int64_t queries, int64_t keys) {
  if (queries != keys || queries <= 0 || !mask.isFloat)
    return false;
  ArrayRef<int64_t> shape = mask.type.getShape();
  Shape target(shape.drop_back(std::min<size_t>(2, shape.size())));
  target.append({queries, keys});
  FailureOr<Shape> broadcast = broadcastShapes(shape, target);
  if (failed(broadcast) || ArrayRef<int64_t>(*broadcast) != ArrayRef(target))
    return false;
  std::vector<int64_t> sources = broadcastSourceIndices(shape, target);
  for (size_t n = 0; n < sources.size(); ++n) {
    int64_t query = (n / keys) % queries, key = n % keys;
    double value = mask.floats[sources[n]];
    bool masked = value <= kMaskedScore;
    if (key > query ? !masked : value != 0.0)
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Building
//===----------------------------------------------------------------------===//

bool isShapeUpToLeadingOnes(ArrayRef<int64_t> shape, ArrayRef<int64_t> target,
                            int64_t maxRank) {
  auto stripped = [](ArrayRef<int64_t> dims) {
    while (!dims.empty() && dims.front() == 1)
      dims = dims.drop_front();
    return dims;
  };
  return int64_t(shape.size()) <= maxRank &&
         !llvm::is_contained(shape, kDynamic) &&
         stripped(shape) == stripped(target);
}

Value reshapeTo(PatternRewriter &rewriter, Location loc, Value value,
                ArrayRef<int64_t> shape) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return ReshapeOp::create(rewriter, loc, type.clone(shape), value);
}

} // namespace hetc
