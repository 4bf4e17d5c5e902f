//===- HetGraphFolds.cpp - hetg folders and canonicalizations -------------===//
//
// Constant folding is what removes shape arithmetic once `hetg-specialize`
// makes shapes static; the dynamic_* ops turn into their static forms here.
//
//===----------------------------------------------------------------------===//

#include "dialects/HetGraph/ConstantEval.h"
#include "dialects/HetGraph/HetGraph.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace hetc::hetg;

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// Integer folds compute in uint64 and wrap, as the runtime's kernels do:
/// signed overflow would be undefined behavior.
static int64_t wrapping(uint64_t value) { return static_cast<int64_t>(value); }

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  std::optional<ConstantValues> input = readConstant(adaptor.getInput());
  if (!input)
    return {};
  for (double &v : input->floats)
    v = -v;
  for (int64_t &v : input->ints)
    v = wrapping(0 - uint64_t(v));
  return writeConstant(input->type, *input);
}

#define HETG_FOLD_FLOAT_UNARY(OP, EXPR)                                        \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                 \
    return foldFloatUnary(adaptor.getInput(), [](double x) { return EXPR; });  \
  }
HETG_FOLD_FLOAT_UNARY(SqrtOp, std::sqrt(x))
HETG_FOLD_FLOAT_UNARY(ReciprocalOp, 1.0 / x)
HETG_FOLD_FLOAT_UNARY(ExpOp, std::exp(x))
HETG_FOLD_FLOAT_UNARY(LogOp, std::log(x))
HETG_FOLD_FLOAT_UNARY(TanhOp, std::tanh(x))
HETG_FOLD_FLOAT_UNARY(CosOp, std::cos(x))
HETG_FOLD_FLOAT_UNARY(SinOp, std::sin(x))
HETG_FOLD_FLOAT_UNARY(ErfOp, std::erf(x))
HETG_FOLD_FLOAT_UNARY(SigmoidOp, eval::sigmoid(x))
HETG_FOLD_FLOAT_UNARY(ReluOp, x > 0.0 ? x : 0.0)
HETG_FOLD_FLOAT_UNARY(SiluOp, eval::silu(x))
#undef HETG_FOLD_FLOAT_UNARY

OpFoldResult GeluOp::fold(FoldAdaptor adaptor) {
  bool tanh = getApproximate() == GeluApproximation::tanh;
  return foldFloatUnary(adaptor.getInput(),
                        [tanh](double x) { return eval::gelu(x, tanh); });
}

static Type elementTypeOf(Value value) {
  return llvm::cast<ShapedType>(value.getType()).getElementType();
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  return foldBroadcastBinary(
      adaptor.getLhs(), adaptor.getRhs(), elementTypeOf(getResult()),
      [](double a, double b) { return a + b; },
      [](int64_t a, int64_t b) { return wrapping(uint64_t(a) + uint64_t(b)); });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  return foldBroadcastBinary(
      adaptor.getLhs(), adaptor.getRhs(), elementTypeOf(getResult()),
      [](double a, double b) { return a - b; },
      [](int64_t a, int64_t b) { return wrapping(uint64_t(a) - uint64_t(b)); });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  return foldBroadcastBinary(
      adaptor.getLhs(), adaptor.getRhs(), elementTypeOf(getResult()),
      [](double a, double b) { return a * b; },
      [](int64_t a, int64_t b) { return wrapping(uint64_t(a) * uint64_t(b)); });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  // Integer division by zero is left to the runtime to report;
  // INT64_MIN / -1 wraps like the other integer folds.
  std::optional<ConstantValues> rhs = readConstant(adaptor.getRhs());
  if (!rhs || (!rhs->isFloat && llvm::is_contained(rhs->ints, 0)))
    return {};
  return foldBroadcastBinary(
      adaptor.getLhs(), adaptor.getRhs(), elementTypeOf(getResult()),
      [](double a, double b) { return a / b; },
      [](int64_t a, int64_t b) {
        return b == -1 ? wrapping(0 - uint64_t(a)) : a / b;
      });
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  return foldBroadcastBinary(
      adaptor.getLhs(), adaptor.getRhs(), elementTypeOf(getResult()),
      [](double a, double b) { return std::pow(a, b); },
      [](int64_t a, int64_t b) {
        return static_cast<int64_t>(std::pow(double(a), double(b)));
      });
}

/// The remainder of x / y with the sign of y (`floor`) or of x; an integer
/// remainder by 0 (or of INT64_MIN by -1) is 0, as the runtime computes it.
static double floatRemainder(double x, double y, bool floor) {
  double r = std::fmod(x, y);
  return floor && r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
}
static int64_t intRemainder(int64_t x, int64_t y, bool floor) {
  if (y == 0 || y == -1)
    return 0;
  int64_t r = x % y;
  return floor && r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
}

OpFoldResult ModOp::fold(FoldAdaptor adaptor) {
  return foldBroadcastBinary(
      adaptor.getLhs(), adaptor.getRhs(), elementTypeOf(getResult()),
      [](double a, double b) { return floatRemainder(a, b, true); },
      [](int64_t a, int64_t b) { return intRemainder(a, b, true); });
}

OpFoldResult FmodOp::fold(FoldAdaptor adaptor) {
  return foldBroadcastBinary(
      adaptor.getLhs(), adaptor.getRhs(), elementTypeOf(getResult()),
      [](double a, double b) { return floatRemainder(a, b, false); },
      [](int64_t a, int64_t b) { return intRemainder(a, b, false); });
}

/// NaN-propagating minimum or maximum, as torch.minimum and torch.maximum.
static double pickFloat(double a, double b, bool minimum) {
  if (std::isnan(a) || std::isnan(b))
    return std::nan("");
  return minimum ? std::min(a, b) : std::max(a, b);
}

OpFoldResult MinimumOp::fold(FoldAdaptor adaptor) {
  return foldBroadcastBinary(
      adaptor.getLhs(), adaptor.getRhs(), elementTypeOf(getResult()),
      [](double a, double b) { return pickFloat(a, b, /*minimum=*/true); },
      [](int64_t a, int64_t b) { return std::min(a, b); });
}

OpFoldResult MaximumOp::fold(FoldAdaptor adaptor) {
  return foldBroadcastBinary(
      adaptor.getLhs(), adaptor.getRhs(), elementTypeOf(getResult()),
      [](double a, double b) { return pickFloat(a, b, /*minimum=*/false); },
      [](int64_t a, int64_t b) { return std::max(a, b); });
}

OpFoldResult EqualOp::fold(FoldAdaptor adaptor) {
  return foldBroadcastBinary(
      adaptor.getLhs(), adaptor.getRhs(), elementTypeOf(getResult()),
      [](double a, double b) { return double(a == b); },
      [](int64_t a, int64_t b) { return int64_t(a == b); });
}

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  // select(c, x, y) = c * x + (1 - c) * y would lose NaN/inf, so evaluate
  // directly over the broadcast of all three.
  std::optional<ConstantValues> cond = readConstant(adaptor.getCondition());
  std::optional<ConstantValues> onTrue = readConstant(adaptor.getOnTrue());
  std::optional<ConstantValues> onFalse = readConstant(adaptor.getOnFalse());
  if (!cond || !onTrue || !onFalse)
    return {};
  FailureOr<Shape> shape =
      broadcastShapes(cond->type.getShape(), onTrue->type.getShape());
  if (succeeded(shape))
    shape = broadcastShapes(*shape, onFalse->type.getShape());
  if (failed(shape) ||
      staticElementCount(*shape).value_or(0) > kMaxFoldedElements)
    return {};
  std::vector<int64_t> ci = broadcastSourceIndices(cond->type.getShape(), *shape);
  std::vector<int64_t> ti = broadcastSourceIndices(onTrue->type.getShape(), *shape);
  std::vector<int64_t> fi = broadcastSourceIndices(onFalse->type.getShape(), *shape);
  ConstantValues result;
  result.isFloat = onTrue->isFloat;
  for (size_t n = 0; n < ci.size(); ++n) {
    const ConstantValues &pick = cond->ints[ci[n]] ? *onTrue : *onFalse;
    int64_t index = cond->ints[ci[n]] ? ti[n] : fi[n];
    if (result.isFloat)
      result.floats.push_back(pick.floats[index]);
    else
      result.ints.push_back(pick.ints[index]);
  }
  return writeConstant(
      RankedTensorType::get(*shape, onTrue->type.getElementType()), result);
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  std::optional<ConstantValues> input = readConstant(adaptor.getInput());
  if (!input)
    return {};
  ConstantValues result = *input;
  if (input->isFloat && !llvm::isa<FloatType>(getTo())) {
    // Float to integer truncates toward zero.
    result.isFloat = false;
    result.ints.clear();
    for (double v : input->floats)
      result.ints.push_back(getTo().isInteger(1) ? v != 0.0
                                                 : static_cast<int64_t>(v));
  } else if (!input->isFloat && llvm::isa<FloatType>(getTo())) {
    result.isFloat = true;
    for (int64_t v : input->ints)
      result.floats.push_back(static_cast<double>(v));
  }
  return writeConstant(input->type.clone(getTo()), result);
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// Builds a constant of `shape` whose element `n` is `source[indexOf(n)]`.
static Attribute gatherElements(const ConstantValues &source,
                                ArrayRef<int64_t> shape,
                                ArrayRef<int64_t> sourceIndices) {
  ConstantValues result;
  result.isFloat = source.isFloat;
  for (int64_t index : sourceIndices) {
    if (source.isFloat)
      result.floats.push_back(source.floats[index]);
    else
      result.ints.push_back(source.ints[index]);
  }
  return writeConstant(source.type.clone(shape), result);
}

/// Calls `visit(resultIndex, multiIndex)` for every element of `shape`.
static void forEachIndex(ArrayRef<int64_t> shape,
                         llvm::function_ref<void(ArrayRef<int64_t>)> visit) {
  int64_t count = staticElementCount(shape).value_or(0);
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    visit(index);
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getInput();
  // transpose(transpose(x, inner), perm) is one transpose of x.
  if (auto inner = getInput().getDefiningOp<TransposeOp>()) {
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(inner.getPermutation()[p]);
    getInputMutable().assign(inner.getInput());
    setPermutation(composed);
    return getResult();
  }
  std::optional<ConstantValues> input = readConstant(adaptor.getInput());
  if (!input)
    return {};
  ArrayRef<int64_t> inShape = input->type.getShape();
  std::vector<int64_t> inStrides = rowMajorStrides(inShape);
  Shape shape;
  for (int64_t p : perm)
    shape.push_back(inShape[p]);
  std::vector<int64_t> sources;
  forEachIndex(shape, [&](ArrayRef<int64_t> index) {
    int64_t offset = 0;
    for (size_t d = 0; d < perm.size(); ++d)
      offset += index[d] * inStrides[perm[d]];
    sources.push_back(offset);
  });
  return gatherElements(*input, shape, sources);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto dense = llvm::dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    return dense.reshape(getType());
  // reshape(reshape(x)) is one reshape.
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  std::optional<ConstantValues> input = readConstant(adaptor.getInput());
  if (!input || getType().getNumElements() > kMaxFoldedElements)
    return {};
  return gatherElements(
      *input, getType().getShape(),
      broadcastSourceIndices(input->type.getShape(), getType().getShape()));
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  RankedTensorType inputType = getInput().getType();
  if (inputType.hasStaticShape() && getType() == inputType &&
      llvm::all_of(getSteps(), [](int64_t s) { return s == 1; }))
    return getInput();
  std::optional<ConstantValues> input = readConstant(adaptor.getInput());
  if (!input)
    return {};
  ArrayRef<int64_t> inShape = input->type.getShape();
  std::vector<int64_t> inStrides = rowMajorStrides(inShape);
  Shape shape, begins;
  for (size_t d = 0; d < inShape.size(); ++d) {
    begins.push_back(
        clampSliceBounds(inShape[d], getStarts()[d], getEnds()[d]).first);
    shape.push_back(
        slicedSize(inShape[d], getStarts()[d], getEnds()[d], getSteps()[d]));
  }
  std::vector<int64_t> sources;
  forEachIndex(shape, [&](ArrayRef<int64_t> index) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d)
      offset += (begins[d] + index[d] * getSteps()[d]) * inStrides[d];
    sources.push_back(offset);
  });
  return gatherElements(*input, shape, sources);
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  SmallVector<ConstantValues> inputs;
  for (Attribute attr : adaptor.getInputs()) {
    std::optional<ConstantValues> values = readConstant(attr);
    if (!values)
      return {};
    inputs.push_back(std::move(*values));
  }
  int64_t axis = *normalizeAxis(getAxis(), inputs.front().type.getRank());
  // Row-major concat: each input contributes blocks of `inner` elements
  // for every combination of the dimensions before the axis.
  ArrayRef<int64_t> firstShape = inputs.front().type.getShape();
  int64_t outer = staticElementCount(firstShape.take_front(axis)).value_or(0);
  Shape shape(firstShape);
  shape[axis] = 0;
  for (const ConstantValues &in : inputs)
    shape[axis] += in.type.getDimSize(axis);
  ConstantValues result;
  result.isFloat = inputs.front().isFloat;
  for (int64_t o = 0; o < outer; ++o) {
    for (const ConstantValues &in : inputs) {
      int64_t block = in.size() / std::max<int64_t>(outer, 1);
      for (int64_t i = o * block; i < (o + 1) * block; ++i) {
        if (result.isFloat)
          result.floats.push_back(in.floats[i]);
        else
          result.ints.push_back(in.ints[i]);
      }
    }
  }
  return writeConstant(inputs.front().type.clone(shape), result);
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  std::optional<ConstantValues> data = readConstant(adaptor.getData());
  std::optional<ConstantValues> indices = readConstant(adaptor.getIndices());
  if (!data || !indices)
    return {};
  ArrayRef<int64_t> dataShape = data->type.getShape();
  int64_t axis = *normalizeAxis(getAxis(), dataShape.size());
  int64_t outer = staticElementCount(dataShape.take_front(axis)).value_or(0);
  int64_t inner = staticElementCount(dataShape.drop_front(axis + 1)).value_or(0);
  int64_t extent = dataShape[axis];
  std::vector<int64_t> sources;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t raw : indices->ints) {
      int64_t index = raw < 0 ? raw + extent : raw;
      if (index < 0 || index >= extent)
        return {}; // Out of range: leave it for the runtime to report.
      for (int64_t i = 0; i < inner; ++i)
        sources.push_back((o * extent + index) * inner + i);
    }
  }
  Shape shape(dataShape.take_front(axis));
  llvm::append_range(shape, indices->type.getShape());
  llvm::append_range(shape, dataShape.drop_front(axis + 1));
  return gatherElements(*data, shape, sources);
}

/// `target` combined with `update` as `reduction` says.
template <typename T>
static T scatterCombine(ScatterReduction reduction, T target, T update) {
  switch (reduction) {
  case ScatterReduction::none: return update;
  case ScatterReduction::add: return target + update;
  case ScatterReduction::mul: return target * update;
  case ScatterReduction::max: return std::max(target, update);
  case ScatterReduction::min: return std::min(target, update);
  }
  return update;
}

OpFoldResult ScatterNDOp::fold(FoldAdaptor adaptor) {
  std::optional<ConstantValues> data = readConstant(adaptor.getData());
  std::optional<ConstantValues> indices = readConstant(adaptor.getIndices());
  std::optional<ConstantValues> updates = readConstant(adaptor.getUpdates());
  if (!data || !indices || !updates)
    return {};
  ArrayRef<int64_t> shape = data->type.getShape();
  int64_t depth = indices->type.getShape().back();
  int64_t slice = staticElementCount(shape.drop_front(depth)).value_or(0);
  int64_t tuples =
      staticElementCount(indices->type.getShape().drop_back()).value_or(0);
  ConstantValues result = *data;
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = 0;
    for (int64_t j = 0; j < depth; ++j) {
      int64_t index = indices->ints[t * depth + j];
      index += index < 0 ? shape[j] : 0;
      if (index < 0 || index >= shape[j])
        return {}; // Out of range: leave it for the runtime to report.
      offset = offset * shape[j] + index;
    }
    for (int64_t e = 0; e < slice; ++e) {
      int64_t to = offset * slice + e, from = t * slice + e;
      if (result.isFloat)
        result.floats[to] = scatterCombine(getReduction(), result.floats[to],
                                           updates->floats[from]);
      else
        result.ints[to] = scatterCombine(getReduction(), result.ints[to],
                                         updates->ints[from]);
    }
  }
  return writeConstant(result.type, result);
}

//===----------------------------------------------------------------------===//
// Shape computation
//===----------------------------------------------------------------------===//

OpFoldResult ShapeOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> dims =
      getInput().getType().getShape().slice(getStart(), getEnd() - getStart());
  if (llvm::is_contained(dims, kDynamic))
    return {};
  return DenseIntElementsAttr::get(
      RankedTensorType::get({int64_t(dims.size())},
                            IntegerType::get(getContext(), 64)),
      dims);
}

OpFoldResult RangeOp::fold(FoldAdaptor adaptor) {
  std::optional<ConstantValues> start = readConstant(adaptor.getStart());
  std::optional<ConstantValues> limit = readConstant(adaptor.getLimit());
  std::optional<ConstantValues> delta = readConstant(adaptor.getDelta());
  if (!start || !limit || !delta || delta->asDouble(0) == 0.0)
    return {};
  double s = start->asDouble(0), l = limit->asDouble(0), d = delta->asDouble(0);
  int64_t count = std::max<int64_t>(0, int64_t(std::ceil((l - s) / d)));
  if (count > kMaxFoldedElements)
    return {};
  ConstantValues result;
  result.isFloat = start->isFloat;
  for (int64_t i = 0; i < count; ++i) {
    if (result.isFloat)
      result.floats.push_back(s + i * d);
    else
      result.ints.push_back(start->ints[0] + i * delta->ints[0]);
  }
  return writeConstant(
      RankedTensorType::get({count}, start->type.getElementType()), result);
}

OpFoldResult ConstantOfShapeOp::fold(FoldAdaptor adaptor) {
  std::optional<ConstantValues> shape = readConstant(adaptor.getShape());
  auto value = llvm::dyn_cast<DenseElementsAttr>(getValue());
  if (!shape || !value || llvm::any_of(shape->ints, [](int64_t d) {
        return d < 0;
      }))
    return {};
  auto type = RankedTensorType::get(shape->ints,
                                    value.getType().getElementType());
  return DenseElementsAttr::get(type, value.getSplatValue<Attribute>());
}

OpFoldResult TriluOp::fold(FoldAdaptor adaptor) {
  std::optional<ConstantValues> input = readConstant(adaptor.getInput());
  if (!input)
    return {};
  ArrayRef<int64_t> shape = input->type.getShape();
  int64_t rows = shape[shape.size() - 2], cols = shape.back();
  int64_t k = getK();
  bool upper = getUpper();
  for (int64_t n = 0; n < input->size(); ++n) {
    int64_t row = (n / cols) % rows, col = n % cols;
    bool keep = upper ? col - row >= k : col - row <= k;
    if (keep)
      continue;
    if (input->isFloat)
      input->floats[n] = 0.0;
    else
      input->ints[n] = 0;
  }
  return writeConstant(input->type, *input);
}

//===----------------------------------------------------------------------===//
// Dynamic forms become static once their shape operands are constants
//===----------------------------------------------------------------------===//

namespace {

std::optional<SmallVector<int64_t>> matchConstantInts(Value value) {
  DenseIntElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  return llvm::to_vector(
      llvm::map_range(attr.getValues<APInt>(),
                      [](const APInt &v) { return v.getSExtValue(); }));
}

/// Replaces `op` by `input` itself when the static result has its type, or by
/// a new static op of `StaticOp`.
template <typename StaticOp>
LogicalResult replaceWithStatic(Operation *op, Value input,
                                RankedTensorType resultType,
                                PatternRewriter &rewriter) {
  if (input.getType() == resultType) {
    rewriter.replaceOp(op, input);
    return success();
  }
  rewriter.replaceOpWithNewOp<StaticOp>(op, resultType, input);
  return success();
}

/// True when `perm` swaps the last two dimensions and keeps the others.
bool swapsLastTwo(ArrayRef<int64_t> perm) {
  int64_t rank = perm.size();
  if (rank < 2 || perm[rank - 2] != rank - 1 || perm[rank - 1] != rank - 2)
    return false;
  return llvm::equal(perm.drop_back(2), llvm::seq<int64_t>(0, rank - 2));
}

/// matmul(transpose(a), b) reads `a` with the transpose flag instead: GEMM
/// libraries take transposed operands for free.
struct AbsorbMatmulTransposes : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto lhs = op.getLhs().getDefiningOp<TransposeOp>();
    auto rhs = op.getRhs().getDefiningOp<TransposeOp>();
    bool absorbLhs = lhs && swapsLastTwo(lhs.getPermutation());
    bool absorbRhs = rhs && swapsLastTwo(rhs.getPermutation());
    if (!absorbLhs && !absorbRhs)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      if (absorbLhs) {
        op.getLhsMutable().assign(lhs.getInput());
        op.setTransposeLhs(!op.getTransposeLhs());
      }
      if (absorbRhs) {
        op.getRhsMutable().assign(rhs.getInput());
        op.setTransposeRhs(!op.getTransposeRhs());
      }
    });
    return success();
  }
};

struct StaticDynamicReshape : OpRewritePattern<DynamicReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DynamicReshapeOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType input = op.getInput().getType();
    std::optional<SmallVector<int64_t>> target = matchConstantInts(op.getShape());
    if (!input.hasStaticShape() || !target)
      return failure();
    FailureOr<Shape> shape = resolveReshape(input.getShape(), *target,
                                            nullptr, op.getAllowzero());
    if (failed(shape))
      return failure();
    return replaceWithStatic<ReshapeOp>(op, op.getInput(), input.clone(*shape),
                                        rewriter);
  }
};

struct StaticDynamicBroadcast : OpRewritePattern<DynamicBroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DynamicBroadcastOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType input = op.getInput().getType();
    std::optional<SmallVector<int64_t>> target = matchConstantInts(op.getShape());
    if (!input.hasStaticShape() || !target)
      return failure();
    FailureOr<Shape> shape = broadcastShapes(input.getShape(), *target);
    if (failed(shape))
      return failure();
    return replaceWithStatic<BroadcastOp>(op, op.getInput(),
                                          input.clone(*shape), rewriter);
  }
};

struct StaticDynamicSlice : OpRewritePattern<DynamicSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DynamicSliceOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<SmallVector<int64_t>> starts = matchConstantInts(op.getStarts());
    std::optional<SmallVector<int64_t>> ends = matchConstantInts(op.getEnds());
    if (!starts || !ends)
      return failure();
    int64_t rank = op.getInput().getType().getRank();
    SmallVector<int64_t> allStarts(rank, 0), allSteps(rank, 1);
    SmallVector<int64_t> allEnds(rank, std::numeric_limits<int64_t>::max());
    for (auto [i, axis] : llvm::enumerate(op.getAxes())) {
      int64_t dim = *normalizeAxis(axis, rank);
      allStarts[dim] = (*starts)[i];
      allEnds[dim] = (*ends)[i];
      allSteps[dim] = op.getSteps()[i];
    }
    rewriter.replaceOpWithNewOp<SliceOp>(op, op.getInput(), allStarts, allEnds,
                                         allSteps);
    return success();
  }
};

} // namespace

void MatmulOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                           MLIRContext *context) {
  patterns.add<AbsorbMatmulTransposes>(context);
}

void DynamicReshapeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                                   MLIRContext *context) {
  patterns.add<StaticDynamicReshape>(context);
}

void DynamicBroadcastOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                                     MLIRContext *context) {
  patterns.add<StaticDynamicBroadcast>(context);
}

void DynamicSliceOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                                 MLIRContext *context) {
  patterns.add<StaticDynamicSlice>(context);
}
