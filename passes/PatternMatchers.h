//===- PatternMatchers.h - matchers shared by the fusion passes -----------===//
//
// The fusion passes match algebra, not one exporter's op order: products are
// flattened into a constant coefficient times factors, constants compare
// with a tolerance that follows their element type, and `1 / sqrt(a)` has
// one matcher for all the ways exporters write it.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PASSES_PATTERNMATCHERS_H
#define HETC_PASSES_PATTERNMATCHERS_H

#include "dialects/HetGraph/ConstantEval.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <utility>

namespace hetc {

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

/// The value of a constant whose elements are all equal (a splat, or a
/// single-element tensor, of any shape), as a double.
std::optional<double> matchSplatConstant(mlir::Value value);

/// True when `actual` is within a relative tolerance of `expected`: 1e-6,
/// or two ulps of `elementType` where that is coarser (f16, bf16).
bool isApproximately(double actual, double expected, mlir::Type elementType);

/// True when `value` is a splat constant approximately equal to `expected`.
bool isSplatConstant(mlir::Value value, double expected);

/// The element type of a shaped value.
mlir::Type elementTypeOf(mlir::Value value);

//===----------------------------------------------------------------------===//
// Operands and uses
//===----------------------------------------------------------------------===//

/// The operands of a two-operand op in both orders, `{lhs, rhs}` first: for
/// trying a commutative match both ways.
llvm::SmallVector<std::pair<mlir::Value, mlir::Value>, 2>
operandOrders(mlir::Operation *op);

/// True when every use of `value` is by an op in `users`. Fused ops must
/// not swallow values that something else still reads.
bool isUsedOnlyBy(mlir::Value value, llvm::ArrayRef<mlir::Operation *> users);

//===----------------------------------------------------------------------===//
// Products and powers
//===----------------------------------------------------------------------===//

/// `value` written as `coefficient * factors[0] * factors[1] * ...`.
struct Product {
  double coefficient = 1.0;
  llvm::SmallVector<mlir::Value, 4> factors;
};

/// Flattens a tree of `hetg.mul` (and of division by a splat constant) into
/// a product. The op defining `value` is always expanded (the caller owns
/// it); ops below it only when they have a single use, so every expanded op
/// belongs to the match.
Product flattenProduct(mlir::Value value);

/// The power of `x` that `factors` multiply to, where `x` counts 1 and a
/// single-use `pow(x, n)` with an integral splat `n` counts `n`; nullopt
/// when a factor is anything else.
std::optional<int64_t> powerOf(llvm::ArrayRef<mlir::Value> factors,
                               mlir::Value x);

/// `x` of `pow(x, 2)` or `mul(x, x)`; null otherwise.
mlir::Value matchSquare(mlir::Value value);

/// `alpha` and `f` of `alpha + alpha * f` (so `alpha * (1 + f)`), written
/// as an add of a splat constant and a product whose only factor is `f`,
/// in either operand order. The product's ops must have a single use.
std::optional<std::pair<double, mlir::Value>> matchOnePlus(mlir::Value value);

/// `n` and `a` of `n / sqrt(a)` rooted at `op`: `div(n, sqrt(a))` or
/// `mul(n, 1 / sqrt(a))` in either order, where `1 / sqrt(a)` is
/// `reciprocal(sqrt(a))`, `div(1, sqrt(a))` or `pow(a, -0.5)`. `interior`
/// lists the matched ops below `op`, each of which has a single use.
struct QuotientBySqrt {
  mlir::Value numerator;
  mlir::Value radicand;
  llvm::SmallVector<mlir::Operation *, 3> interior;
};
std::optional<QuotientBySqrt> matchQuotientBySqrt(mlir::Operation *op);

//===----------------------------------------------------------------------===//
// Attention masks
//===----------------------------------------------------------------------===//

/// Additive mask value at or below which a score counts as masked out (its
/// exponential underflows); -inf included.
constexpr double kMaskedScore = -1.0e4;

/// True when the additive `mask`, broadcast to `[..., queries, keys]`, masks
/// out exactly the keys after the query (key index > query index) in every
/// leading slice: those entries <= kMaskedScore, all others 0. Only square
/// score matrices (`queries == keys`) count as causal.
bool isCausalMask(const hetg::ConstantValues &mask, int64_t queries,
                  int64_t keys);

//===----------------------------------------------------------------------===//
// Building
//===----------------------------------------------------------------------===//

/// True when `shape` without its leading 1s is `target` (and `shape` has no
/// more dimensions than `maxRank`): a parameter that broadcasts like one of
/// shape `target`.
bool isShapeUpToLeadingOnes(llvm::ArrayRef<int64_t> shape,
                            llvm::ArrayRef<int64_t> target, int64_t maxRank);

/// `value` reshaped to `shape` (same elements), or `value` itself when it
/// already has that shape.
mlir::Value reshapeTo(mlir::PatternRewriter &rewriter, mlir::Location loc,
                      mlir::Value value, llvm::ArrayRef<int64_t> shape);

} // namespace hetc

#endif // HETC_PASSES_PATTERNMATCHERS_H
