//===- FuseAttention.cpp - fuse scaled dot-product attention --------------===//
//
// Matches `softmax(mask(scale(q @ k^T))) @ v` from the final matmul up. The
// ops between the scores and the softmax are walked as a chain: scalings
// (mul or div by a splat constant) multiply into the scale, and masks
// (`add` of a mask, `where` with a large negative fill) are gathered into one
// additive mask, scaled by whatever scaling follows them. A constant mask that
// is the causal triangle becomes the `causal` flag; any other goes in as the
// `mask` operand. Scalings of q or k before the matmul join the scale.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/PatternMatchers.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace hetc {
#define GEN_PASS_DEF_HETGFUSEATTENTION
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using namespace hetc::hetg;

namespace {

/// Ops between the scores and the softmax that the chain walk follows.
constexpr int kMaxChainOps = 8;

/// What the walk from the softmax input down to `q @ k^T` has gathered.
struct ScoreChain {
  MatmulOp scores;
  double scale = 1.0;
  /// Sum of the constant masks, each scaled by the scalings after it.
  std::optional<ConstantValues> constantMask;
  /// A mask computed at run time (padding, position bias), added after all
  /// scalings.
  Value dynamicMask;
};

/// `a + b` with numpy broadcasting; nullopt when the sum would be larger
/// than constants are allowed to get. Masks on the chain broadcast into the
/// scores' type, so they broadcast with each other.
std::optional<ConstantValues> addBroadcast(const ConstantValues &a,
                                           const ConstantValues &b) {
  FailureOr<Shape> shape =
      broadcastShapes(a.type.getShape(), b.type.getShape());
  if (failed(shape) ||
      staticElementCount(*shape).value_or(0) > kMaxFoldedElements)
    return std::nullopt;
  std::vector<int64_t> ai = broadcastSourceIndices(a.type.getShape(), *shape);
  std::vector<int64_t> bi = broadcastSourceIndices(b.type.getShape(), *shape);
  ConstantValues sum;
  sum.type = a.type.clone(*shape);
  sum.isFloat = true;
  for (size_t n = 0; n < ai.size(); ++n)
    sum.floats.push_back(a.floats[ai[n]] + b.floats[bi[n]]);
  return sum;
}

/// Adds `mask` to the chain's constant mask; false when that is too large.
bool addConstantMask(ScoreChain &chain, const ConstantValues &mask) {
  if (!chain.constantMask) {
    chain.constantMask = mask;
    return true;
  }
  chain.constantMask = addBroadcast(*chain.constantMask, mask);
  return chain.constantMask.has_value();
}

std::optional<ConstantValues> readFloatConstant(Value value) {
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  std::optional<ConstantValues> values = readConstant(attr);
  if (!values || !values->isFloat)
    return std::nullopt;
  return values;
}

/// `where(cond, value, fill)` (or `where(cond, fill, value)`) as the
/// additive mask `cond ? 0 : fill` (or `cond ? fill : 0`) times `outerScale`.
std::optional<ConstantValues> whereAsMask(WhereOp where, bool valueOnTrue,
                                          double outerScale) {
  Attribute condAttr;
  if (!matchPattern(where.getCondition(), m_Constant(&condAttr)))
    return std::nullopt;
  std::optional<ConstantValues> cond = readConstant(condAttr);
  Value fillValue = valueOnTrue ? where.getOnFalse() : where.getOnTrue();
  std::optional<double> fill = matchSplatConstant(fillValue);
  // Only a fill whose exponential vanishes makes the select additive.
  if (!cond || !fill || !(*fill <= kMaskedScore) || !(outerScale > 0.0))
    return std::nullopt;
  auto fillType = llvm::cast<RankedTensorType>(fillValue.getType());
  FailureOr<Shape> shape =
      broadcastShapes(cond->type.getShape(), fillType.getShape());
  if (failed(shape))
    return std::nullopt;
  std::vector<int64_t> sources =
      broadcastSourceIndices(cond->type.getShape(), *shape);
  ConstantValues mask;
  mask.type = fillType.clone(*shape);
  mask.isFloat = true;
  for (int64_t source : sources) {
    bool keep = (cond->ints[source] != 0) == valueOnTrue;
    mask.floats.push_back(keep ? 0.0 : *fill * outerScale);
  }
  return mask;
}

/// Walks from `value` down to the scores matmul. `outerScale` is the product
/// of the scalings already passed, which apply to any mask found below.
std::optional<ScoreChain> matchScoreChain(Value value, double outerScale,
                                          ScoreChain chain, int depth) {
  Operation *op = value.getDefiningOp();
  if (!op || !value.hasOneUse() || depth > kMaxChainOps)
    return std::nullopt;
  auto sameType = [&](Value operand) {
    return operand.getType() == value.getType();
  };
  if (auto matmul = llvm::dyn_cast<MatmulOp>(op)) {
    chain.scores = matmul;
    chain.scale = outerScale;
    // hetg-fuse-matmul-bias may have taken a key-padding mask of shape [Tk]
    // for a bias: it is an additive mask like any other.
    if (Value bias = matmul.getBias()) {
      if (std::optional<ConstantValues> constant = readFloatConstant(bias)) {
        for (double &v : constant->floats)
          v *= outerScale;
        if (!addConstantMask(chain, *constant))
          return std::nullopt;
      } else if (outerScale == 1.0 && !chain.dynamicMask) {
        chain.dynamicMask = bias;
      } else {
        return std::nullopt;
      }
    }
    return chain;
  }
  if (llvm::isa<MulOp>(op)) {
    for (auto [operand, constant] : operandOrders(op))
      if (std::optional<double> c = matchSplatConstant(constant);
          c && *c != 0.0 && sameType(operand))
        return matchScoreChain(operand, outerScale * *c, chain, depth + 1);
    return std::nullopt;
  }
  if (auto div = llvm::dyn_cast<DivOp>(op)) {
    std::optional<double> c = matchSplatConstant(div.getRhs());
    if (!c || *c == 0.0 || !sameType(div.getLhs()))
      return std::nullopt;
    return matchScoreChain(div.getLhs(), outerScale / *c, chain, depth + 1);
  }
  if (llvm::isa<AddOp>(op)) {
    for (auto [operand, mask] : operandOrders(op)) {
      if (!sameType(operand))
        continue;
      ScoreChain next = chain;
      if (std::optional<ConstantValues> constant = readFloatConstant(mask)) {
        for (double &v : constant->floats)
          v *= outerScale;
        if (!addConstantMask(next, *constant))
          continue;
      } else if (outerScale == 1.0 && !chain.dynamicMask) {
        next.dynamicMask = mask;
      } else {
        continue;
      }
      if (auto found = matchScoreChain(operand, outerScale, next, depth + 1))
        return found;
    }
    return std::nullopt;
  }
  if (auto where = llvm::dyn_cast<WhereOp>(op)) {
    for (bool valueOnTrue : {true, false}) {
      Value operand = valueOnTrue ? where.getOnTrue() : where.getOnFalse();
      std::optional<ConstantValues> mask =
          whereAsMask(where, valueOnTrue, outerScale);
      if (!mask || !sameType(operand))
        continue;
      ScoreChain next = chain;
      if (!addConstantMask(next, *mask))
        continue;
      if (auto found = matchScoreChain(operand, outerScale, next, depth + 1))
        return found;
    }
  }
  return std::nullopt;
}

/// Strips scalings by splat constants off `value`, multiplying `scale`.
Value peelScale(Value value, double &scale) {
  while (Operation *op = value.getDefiningOp()) {
    Value inner;
    double factor = 1.0;
    if (llvm::isa<MulOp>(op)) {
      for (auto [operand, constant] : operandOrders(op))
        if (std::optional<double> c = matchSplatConstant(constant);
            c && operand.getType() == value.getType()) {
          inner = operand;
          factor = *c;
          break;
        }
    } else if (auto div = llvm::dyn_cast<DivOp>(op)) {
      std::optional<double> c = matchSplatConstant(div.getRhs());
      if (c && *c != 0.0 && div.getLhs().getType() == value.getType()) {
        inner = div.getLhs();
        factor = 1.0 / *c;
      }
    }
    if (!inner)
      break;
    scale *= factor;
    value = inner;
  }
  return value;
}

/// A value to be permuted: `source` transposed by `permutation` (empty for
/// none). Folding the swap into an existing transpose keeps one transpose.
struct Permuted {
  Value source;
  SmallVector<int64_t> permutation;

  RankedTensorType type() const {
    auto type = llvm::cast<RankedTensorType>(source.getType());
    if (permutation.empty())
      return type;
    Shape shape;
    for (int64_t p : permutation)
      shape.push_back(type.getDimSize(p));
    return type.clone(shape);
  }

  Value build(PatternRewriter &rewriter, Location loc) const {
    if (permutation.empty())
      return source;
    return TransposeOp::create(rewriter, loc, source, permutation);
  }
};

/// `value` with its last two dimensions swapped. With `scale`, scalings by
/// splat constants on either side of an existing transpose are peeled off
/// into it (they commute with the transpose).
Permuted swapLastTwo(Value value, double *scale) {
  if (scale)
    value = peelScale(value, *scale);
  int64_t rank = llvm::cast<RankedTensorType>(value.getType()).getRank();
  SmallVector<int64_t> swap = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(swap[rank - 1], swap[rank - 2]);
  Permuted result{value, swap};
  if (auto transpose = value.getDefiningOp<TransposeOp>()) {
    result.source = transpose.getInput();
    for (auto [i, p] : llvm::enumerate(swap))
      result.permutation[i] = transpose.getPermutation()[p];
    if (scale)
      result.source = peelScale(result.source, *scale);
  }
  if (llvm::equal(result.permutation, llvm::seq<int64_t>(0, rank)))
    result.permutation.clear();
  return result;
}

struct FuseAttention : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp output,
                                PatternRewriter &rewriter) const override {
    auto softmax = output.getLhs().getDefiningOp<SoftmaxOp>();
    if (!softmax || !softmax->hasOneUse() || output.getBias() ||
        output.getTransposeLhs() ||
        int64_t(softmax.getAxis()) != softmax.getType().getRank() - 1)
      return rewriter.notifyMatchFailure(output, "not softmax(last axis) @ v");
    std::optional<ScoreChain> chain =
        matchScoreChain(softmax.getInput(), 1.0, ScoreChain(), 0);
    if (!chain)
      return rewriter.notifyMatchFailure(output, "no q @ k^T under softmax");
    MatmulOp scores = chain->scores;
    if (scores.getTransposeLhs())
      return rewriter.notifyMatchFailure(output, "scores matmul transposes q");

    double scale = chain->scale;
    Value query = peelScale(scores.getLhs(), scale);
    // Scalings of k join the scale; of v they would scale the output.
    Permuted key = scores.getTransposeRhs()
                       ? Permuted{peelScale(scores.getRhs(), scale), {}}
                       : swapLastTwo(scores.getRhs(), &scale);
    Permuted value = output.getTransposeRhs()
                         ? swapLastTwo(output.getRhs(), nullptr)
                         : Permuted{output.getRhs(), {}};

    auto q = llvm::cast<RankedTensorType>(query.getType());
    RankedTensorType k = key.type(), v = value.type();
    int64_t rank = q.getRank();
    if ((rank != 3 && rank != 4) || k.getRank() != rank ||
        v.getRank() != rank || !q.hasStaticShape() || !k.hasStaticShape() ||
        !v.hasStaticShape())
      return rewriter.notifyMatchFailure(output, "q, k, v not rank 3 or 4");
    if (q.getShape().drop_back(2) != k.getShape().drop_back(2) ||
        q.getShape().drop_back(2) != v.getShape().drop_back(2) ||
        q.getShape().back() != k.getShape().back() ||
        k.getDimSize(rank - 2) != v.getDimSize(rank - 2) ||
        scores.getType().getShape().drop_back(2) != q.getShape().drop_back(2) ||
        output.getType().getShape().drop_back() != q.getShape().drop_back() ||
        output.getType().getShape().back() != v.getShape().back())
      return rewriter.notifyMatchFailure(output, "q, k, v shapes disagree");
    int64_t queries = q.getDimSize(rank - 2), keys = k.getDimSize(rank - 2);

    Location loc = output.getLoc();
    bool causal = false;
    Value mask = chain->dynamicMask;
    if (std::optional<ConstantValues> constant = chain->constantMask) {
      bool zero = llvm::all_of(constant->floats, [](double x) { return x == 0; });
      causal = isCausalMask(*constant, queries, keys);
      if (!causal && !zero) {
        Value masks = ConstantOp::create(
            rewriter, loc,
            writeConstant(constant->type.clone(q.getElementType()), *constant));
        mask = mask ? AddOp::create(rewriter, loc, mask, masks) : masks;
      }
    }
    rewriter.replaceOpWithNewOp<AttentionOp>(
        output, output.getType(), query, key.build(rewriter, loc),
        value.build(rewriter, loc), mask, rewriter.getF32FloatAttr(scale),
        causal ? rewriter.getUnitAttr() : UnitAttr());
    return success();
  }
};

struct HetgFuseAttentionPass
    : hetc::impl::HetgFuseAttentionBase<HetgFuseAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseAttention>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
