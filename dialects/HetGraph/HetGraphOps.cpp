//===- HetGraphOps.cpp - hetg type inference and verifiers ----------------===//

#include "dialects/HetGraph/HetGraph.h"
#include "dialects/HetGraph/VerifyUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace hetc::hetg;

namespace {

/// The constant elements of `value` as int64, when it is a constant.
std::optional<SmallVector<int64_t>> constantInts(Value value) {
  DenseIntElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  SmallVector<int64_t> out;
  for (const APInt &v : attr.getValues<APInt>())
    out.push_back(v.getSExtValue());
  return out;
}

LogicalResult inferBroadcast(std::optional<Location> loc, StringRef opName,
                             ArrayRef<Value> operands, Type resultElement,
                             SmallVectorImpl<Type> &types) {
  Shape shape;
  for (Value operand : operands) {
    std::string error;
    FailureOr<Shape> next =
        broadcastShapes(shape, rankedType(operand).getShape(), &error);
    if (failed(next))
      return emitOptionalError(loc, "'hetg.", opName, "' operand shapes ",
                               llvm::join(llvm::map_range(
                                              operands,
                                              [](Value v) {
                                                return formatShape(
                                                    rankedType(v).getShape());
                                              }),
                                          ", "),
                               " do not broadcast: ", error);
    shape = *next;
  }
  types.push_back(RankedTensorType::get(shape, resultElement));
  return success();
}

LogicalResult inferBinary(std::optional<Location> loc, StringRef opName,
                          Value lhs, Value rhs, Type resultElement,
                          SmallVectorImpl<Type> &types) {
  Type lhsElement = rankedType(lhs).getElementType();
  if (lhsElement != rankedType(rhs).getElementType())
    return emitOptionalError(loc, "'hetg.", opName,
                             "' operands have different element types ",
                             lhsElement, " and ",
                             rankedType(rhs).getElementType());
  return inferBroadcast(loc, opName, {lhs, rhs},
                        resultElement ? resultElement : lhsElement, types);
}

LogicalResult inferSameType(Value input, SmallVectorImpl<Type> &types) {
  types.push_back(input.getType());
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Constants and elementwise ops
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  types.push_back(adaptor.getValue().getType());
  return success();
}

#define HETG_INFER_BINARY(OP, NAME, RESULT_ELEMENT)                            \
  LogicalResult OP::inferReturnTypes(MLIRContext *context,                     \
                                     std::optional<Location> loc,              \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    (void)context;                                                             \
    return inferBinary(loc, NAME, adaptor.getLhs(), adaptor.getRhs(),          \
                       RESULT_ELEMENT, types);                                 \
  }
HETG_INFER_BINARY(AddOp, "add", Type())
HETG_INFER_BINARY(SubOp, "sub", Type())
HETG_INFER_BINARY(MulOp, "mul", Type())
HETG_INFER_BINARY(DivOp, "div", Type())
HETG_INFER_BINARY(PowOp, "pow", Type())
HETG_INFER_BINARY(MinimumOp, "minimum", Type())
HETG_INFER_BINARY(MaximumOp, "maximum", Type())
HETG_INFER_BINARY(ModOp, "mod", Type())
HETG_INFER_BINARY(FmodOp, "fmod", Type())
HETG_INFER_BINARY(EqualOp, "equal", IntegerType::get(context, 1))
#undef HETG_INFER_BINARY

LogicalResult WhereOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  Type element = rankedType(adaptor.getOnTrue()).getElementType();
  if (element != rankedType(adaptor.getOnFalse()).getElementType())
    return emitOptionalError(loc, "'hetg.where' branches have different "
                                  "element types");
  return inferBroadcast(
      loc, "where",
      {adaptor.getCondition(), adaptor.getOnTrue(), adaptor.getOnFalse()},
      element, types);
}

LogicalResult CastOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  types.push_back(rankedType(adaptor.getInput()).clone(adaptor.getTo()));
  return success();
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  RankedTensorType lhs = rankedType(adaptor.getLhs());
  RankedTensorType rhs = rankedType(adaptor.getRhs());
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return emitOptionalError(loc, "'hetg.matmul' operands must have rank >= 2");
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(loc, "'hetg.matmul' operands have different "
                                  "element types");
  auto matrix = [](ArrayRef<int64_t> shape, bool transposed) {
    int64_t rows = shape[shape.size() - 2], cols = shape.back();
    return transposed ? std::make_pair(cols, rows) : std::make_pair(rows, cols);
  };
  auto [m, k] = matrix(lhs.getShape(), adaptor.getTransposeLhs());
  auto [k2, n] = matrix(rhs.getShape(), adaptor.getTransposeRhs());
  if (k != kDynamic && k2 != kDynamic && k != k2)
    return emitOptionalError(loc, "'hetg.matmul' contraction sizes differ: ",
                             k, " vs ", k2);
  std::string error;
  FailureOr<Shape> batch = broadcastShapes(lhs.getShape().drop_back(2),
                                           rhs.getShape().drop_back(2), &error);
  if (failed(batch))
    return emitOptionalError(loc, "'hetg.matmul' batch dimensions do not "
                                  "broadcast: ",
                             error);
  if (Value bias = adaptor.getBias()) {
    RankedTensorType biasType = rankedType(bias);
    if (biasType.getRank() != 1 ||
        (n != kDynamic && biasType.getDimSize(0) != kDynamic &&
         biasType.getDimSize(0) != n))
      return emitOptionalError(loc, "'hetg.matmul' bias must be 1-D with ", n,
                               " elements, got ",
                               formatShape(biasType.getShape()));
  }
  Shape shape(*batch);
  shape.append({m, n});
  types.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  RankedTensorType input = rankedType(adaptor.getInput());
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  llvm::SmallSet<int64_t, 8> seen;
  bool valid = int64_t(perm.size()) == input.getRank();
  for (int64_t p : perm)
    valid = valid && p >= 0 && p < input.getRank() && seen.insert(p).second;
  if (!valid)
    return emitOptionalError(loc, "'hetg.transpose' permutation ",
                             formatShape(perm), " is not a permutation of ",
                             input.getRank(), " dimensions");
  Shape shape;
  for (int64_t p : perm)
    shape.push_back(input.getDimSize(p));
  types.push_back(input.clone(shape));
  return success();
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType input = getInput().getType(), result = getType();
  if (!input.hasStaticShape() || !result.hasStaticShape())
    return emitOpError("needs static shapes; use hetg.dynamic_reshape for ")
           << "dynamic ones";
  if (input.getElementType() != result.getElementType())
    return emitOpError("cannot change the element type");
  if (input.getNumElements() != result.getNumElements())
    return emitOpError("cannot reshape ")
           << input.getNumElements() << " elements into "
           << result.getNumElements();
  return success();
}

LogicalResult DynamicReshapeOp::inferReturnTypes(MLIRContext *,
                                                 std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  RankedTensorType input = rankedType(adaptor.getInput());
  int64_t rank = rankedType(adaptor.getShape()).getDimSize(0);
  if (rank == kDynamic)
    return emitOptionalError(loc, "'hetg.dynamic_reshape' needs a shape "
                                  "operand of static length");
  Shape shape(rank, kDynamic);
  if (std::optional<SmallVector<int64_t>> target =
          constantInts(adaptor.getShape())) {
    std::string error;
    FailureOr<Shape> resolved = resolveReshape(
        input.getShape(), *target, &error, bool(adaptor.getAllowzero()));
    if (failed(resolved))
      return emitOptionalError(loc, "'hetg.dynamic_reshape' ", error);
    shape = *resolved;
  }
  types.push_back(input.clone(shape));
  return success();
}

LogicalResult BroadcastOp::verify() {
  RankedTensorType input = getInput().getType(), result = getType();
  if (!input.hasStaticShape() || !result.hasStaticShape())
    return emitOpError("needs static shapes; use hetg.dynamic_broadcast for ")
           << "dynamic ones";
  FailureOr<Shape> shape =
      broadcastShapes(input.getShape(), result.getShape());
  if (failed(shape) || ArrayRef<int64_t>(*shape) != result.getShape() ||
      input.getElementType() != result.getElementType())
    return emitOpError("cannot broadcast ")
           << formatShape(input.getShape()) << " to "
           << formatShape(result.getShape());
  return success();
}

LogicalResult DynamicBroadcastOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  RankedTensorType input = rankedType(adaptor.getInput());
  int64_t rank = rankedType(adaptor.getShape()).getDimSize(0);
  if (rank == kDynamic)
    return emitOptionalError(loc, "'hetg.dynamic_broadcast' needs a shape "
                                  "operand of static length");
  Shape target(rank, kDynamic);
  if (std::optional<SmallVector<int64_t>> values =
          constantInts(adaptor.getShape()))
    target.assign(values->begin(), values->end());
  std::string error;
  FailureOr<Shape> shape = broadcastShapes(input.getShape(), target, &error);
  if (failed(shape))
    return emitOptionalError(loc, "'hetg.dynamic_broadcast' ", error);
  types.push_back(input.clone(*shape));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  RankedTensorType input = rankedType(adaptor.getInput());
  ArrayRef<int64_t> starts = adaptor.getStarts(), ends = adaptor.getEnds(),
                    steps = adaptor.getSteps();
  if (int64_t(starts.size()) != input.getRank() ||
      ends.size() != starts.size() || steps.size() != starts.size())
    return emitOptionalError(loc, "'hetg.slice' needs one start, end and step "
                                  "per dimension (",
                             input.getRank(), ")");
  Shape shape;
  for (int64_t d = 0; d < input.getRank(); ++d) {
    if (steps[d] <= 0)
      return emitOptionalError(loc, "'hetg.slice' steps must be positive, "
                                    "got ",
                               steps[d], " for dimension ", d);
    shape.push_back(
        slicedSize(input.getDimSize(d), starts[d], ends[d], steps[d]));
  }
  types.push_back(input.clone(shape));
  return success();
}

LogicalResult DynamicSliceOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  RankedTensorType input = rankedType(adaptor.getInput());
  ArrayRef<int64_t> axes = adaptor.getAxes(), steps = adaptor.getSteps();
  int64_t count = rankedType(adaptor.getStarts()).getDimSize(0);
  if (int64_t(axes.size()) != count || steps.size() != axes.size() ||
      rankedType(adaptor.getEnds()).getDimSize(0) != count)
    return emitOptionalError(loc, "'hetg.dynamic_slice' needs as many starts, "
                                  "ends and steps as axes");
  std::optional<SmallVector<int64_t>> starts = constantInts(adaptor.getStarts());
  std::optional<SmallVector<int64_t>> ends = constantInts(adaptor.getEnds());
  Shape shape(input.getShape());
  for (auto [i, axis] : llvm::enumerate(axes)) {
    std::optional<int64_t> dim = normalizeAxis(axis, input.getRank());
    if (!dim || steps[i] <= 0)
      return emitOptionalError(loc, "'hetg.dynamic_slice' axis ", axis,
                               " or step ", steps[i], " is invalid");
    shape[*dim] = starts && ends ? slicedSize(input.getDimSize(*dim),
                                              (*starts)[i], (*ends)[i], steps[i])
                                 : kDynamic;
  }
  types.push_back(input.clone(shape));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "'hetg.concat' needs at least one input");
  RankedTensorType first = rankedType(adaptor.getInputs().front());
  std::optional<int64_t> axis =
      normalizeAxis(int64_t(adaptor.getAxis()), first.getRank());
  if (!axis)
    return emitOptionalError(loc, "'hetg.concat' axis ",
                             int64_t(adaptor.getAxis()), " is out of range");
  Shape shape(first.getShape());
  shape[*axis] = 0;
  for (Value input : adaptor.getInputs()) {
    RankedTensorType type = rankedType(input);
    if (type.getRank() != first.getRank() ||
        type.getElementType() != first.getElementType())
      return emitOptionalError(loc, "'hetg.concat' inputs differ in rank or "
                                    "element type");
    for (int64_t d = 0; d < type.getRank(); ++d) {
      int64_t size = type.getDimSize(d);
      if (d == *axis) {
        shape[d] = (shape[d] == kDynamic || size == kDynamic) ? kDynamic
                                                              : shape[d] + size;
      } else if (shape[d] == kDynamic) {
        shape[d] = size;
      } else if (size != kDynamic && size != shape[d]) {
        return emitOptionalError(loc, "'hetg.concat' inputs differ in "
                                      "dimension ",
                                 d, " (", shape[d], " vs ", size, ")");
      }
    }
  }
  types.push_back(first.clone(shape));
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  RankedTensorType data = rankedType(adaptor.getData());
  std::optional<int64_t> axis =
      normalizeAxis(int64_t(adaptor.getAxis()), data.getRank());
  if (!axis)
    return emitOptionalError(loc, "'hetg.gather' axis ",
                             int64_t(adaptor.getAxis()), " is out of range");
  Shape shape(data.getShape().take_front(*axis));
  llvm::append_range(shape, rankedType(adaptor.getIndices()).getShape());
  llvm::append_range(shape, data.getShape().drop_front(*axis + 1));
  types.push_back(data.clone(shape));
  return success();
}

LogicalResult ScatterNDOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  RankedTensorType data = rankedType(adaptor.getData());
  RankedTensorType indices = rankedType(adaptor.getIndices());
  RankedTensorType updates = rankedType(adaptor.getUpdates());
  if (updates.getElementType() != data.getElementType())
    return emitOptionalError(loc, "'hetg.scatter_nd' updates ", updates,
                             " and data ", data, " differ in element type");
  if (indices.getRank() < 1 ||
      (!indices.isDynamicDim(indices.getRank() - 1) &&
       indices.getShape().back() > data.getRank()))
    return emitOptionalError(loc, "'hetg.scatter_nd' indices ", indices,
                             " must end in a dimension of at most the rank of "
                             "the data ",
                             data);
  types.push_back(data);
  // The index depth, known once shapes are specialized, fixes the updates'.
  if (indices.isDynamicDim(indices.getRank() - 1))
    return success();
  Shape expected(indices.getShape().drop_back());
  llvm::append_range(expected,
                     data.getShape().drop_front(indices.getShape().back()));
  if (!verifyCompatibleShape(expected, updates.getShape()).succeeded())
    return emitOptionalError(loc, "'hetg.scatter_nd' updates ", updates,
                             " must have shape ", formatShape(expected),
                             " (indices[:-1] + data[k:])");
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions and normalization
//===----------------------------------------------------------------------===//

static LogicalResult inferReduce(std::optional<Location> loc, StringRef opName,
                                 Value input, ArrayRef<int64_t> axes,
                                 bool keepDims, SmallVectorImpl<Type> &types) {
  RankedTensorType type = rankedType(input);
  llvm::SmallSet<int64_t, 4> reduced;
  for (int64_t axis : axes)
    if (axis < 0 || axis >= type.getRank() || !reduced.insert(axis).second)
      return emitOptionalError(loc, "'hetg.", opName, "' axes ",
                               formatShape(axes),
                               " must be distinct dimensions in [0, ",
                               type.getRank(), ")");
  Shape shape;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!reduced.contains(d))
      shape.push_back(type.getDimSize(d));
    else if (keepDims)
      shape.push_back(1);
  }
  types.push_back(type.clone(shape));
  return success();
}

#define HETG_INFER_REDUCE(OP, NAME)                                            \
  LogicalResult OP::inferReturnTypes(MLIRContext *,                            \
                                     std::optional<Location> loc,              \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    /* Parsing infers types before default-valued attributes are set. */     \
    BoolAttr keepDims = adaptor.getKeepDimsAttr();                             \
    return inferReduce(loc, NAME, adaptor.getInput(), adaptor.getAxes(),       \
                       !keepDims || keepDims.getValue(), types);               \
  }
HETG_INFER_REDUCE(ReduceSumOp, "reduce_sum")
HETG_INFER_REDUCE(ReduceMeanOp, "reduce_mean")
HETG_INFER_REDUCE(ReduceMaxOp, "reduce_max")
#undef HETG_INFER_REDUCE

LogicalResult SoftmaxOp::verify() {
  return verifyAxisInRange(*this, getAxis(), getType().getRank());
}

LogicalResult LogSoftmaxOp::verify() {
  return verifyAxisInRange(*this, getAxis(), getType().getRank());
}

/// Checks that `param` (a norm's scale or bias) has shape `expected`.
static LogicalResult verifyNormParameter(Operation *op, Value param,
                                         StringRef name,
                                         ArrayRef<int64_t> expected) {
  if (!param)
    return success();
  RankedTensorType type = rankedType(param);
  bool matches = type.getRank() == int64_t(expected.size());
  for (size_t d = 0; matches && d < expected.size(); ++d)
    matches = type.getDimSize(d) == kDynamic || expected[d] == kDynamic ||
              type.getDimSize(d) == expected[d];
  if (!matches)
    return op->emitOpError()
           << name << " has shape " << formatShape(type.getShape())
           << " but the normalized dimensions are " << formatShape(expected);
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  return inferSameType(adaptor.getInput(), types);
}

LogicalResult LayerNormOp::verify() {
  RankedTensorType input = getInput().getType();
  if (failed(verifyAxisInRange(*this, getAxis(), input.getRank())))
    return failure();
  ArrayRef<int64_t> normalized = input.getShape().drop_front(getAxis());
  if (failed(verifyNormParameter(*this, getScale(), "scale", normalized)))
    return failure();
  return verifyNormParameter(*this, getBias(), "bias", normalized);
}

LogicalResult RmsNormOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferSameType(adaptor.getInput(), types);
}

LogicalResult RmsNormOp::verify() {
  RankedTensorType input = getInput().getType();
  if (input.getRank() < 1)
    return emitOpError("needs an input of rank >= 1");
  return verifyNormParameter(*this, getScale(), "scale",
                             input.getShape().take_back());
}

//===----------------------------------------------------------------------===//
// Transformer blocks
//===----------------------------------------------------------------------===//

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  RankedTensorType q = rankedType(adaptor.getQuery());
  RankedTensorType k = rankedType(adaptor.getKey());
  RankedTensorType v = rankedType(adaptor.getValue());
  if (q.getRank() < 2 || k.getRank() != q.getRank() ||
      v.getRank() != q.getRank())
    return emitOptionalError(loc, "'hetg.attention' query, key and value must "
                                  "have one rank >= 2");
  auto mismatch = [](int64_t a, int64_t b) {
    return a != kDynamic && b != kDynamic && a != b;
  };
  if (mismatch(q.getShape().back(), k.getShape().back()))
    return emitOptionalError(loc, "'hetg.attention' query and key head sizes "
                                  "differ");
  int64_t keyLen = k.getDimSize(k.getRank() - 2);
  if (mismatch(keyLen, v.getDimSize(v.getRank() - 2)))
    return emitOptionalError(loc, "'hetg.attention' key and value lengths "
                                  "differ");
  Shape shape(q.getShape().drop_back());
  shape.push_back(v.getShape().back());
  types.push_back(q.clone(shape));
  if (adaptor.getWithLse())
    types.push_back(RankedTensorType::get(q.getShape().drop_back(),
                                          Float32Type::get(q.getContext())));
  return success();
}

LogicalResult CrossEntropyOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  RankedTensorType logits = rankedType(adaptor.getLogits());
  RankedTensorType labels = rankedType(adaptor.getLabels());
  if (logits.getRank() < 2 || labels.getRank() != logits.getRank() - 1)
    return emitOptionalError(loc, "'hetg.cross_entropy' needs logits [N, C, "
                                  "d...] and labels [N, d...]");
  Type loss = crossEntropyLossType(logits.getElementType());
  if (adaptor.getReduction() == LossReduction::none)
    types.push_back(labels.clone(loss));
  else
    types.push_back(RankedTensorType::get({}, loss));
  return success();
}

//===----------------------------------------------------------------------===//
// Shape computation
//===----------------------------------------------------------------------===//

LogicalResult ShapeOp::inferReturnTypes(MLIRContext *context,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  int64_t rank = rankedType(adaptor.getInput()).getRank();
  int64_t start = adaptor.getStart(), end = adaptor.getEnd();
  if (start < 0 || start > end || end > rank)
    return emitOptionalError(loc, "'hetg.shape' needs 0 <= start <= end <= "
                                  "rank (",
                             rank, "), got [", start, ", ", end, ")");
  types.push_back(
      RankedTensorType::get({end - start}, IntegerType::get(context, 64)));
  return success();
}

LogicalResult RangeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  Type element = rankedType(adaptor.getStart()).getElementType();
  if (rankedType(adaptor.getLimit()).getElementType() != element ||
      rankedType(adaptor.getDelta()).getElementType() != element)
    return emitOptionalError(loc, "'hetg.range' operands have different "
                                  "element types");
  int64_t size = kDynamic;
  std::optional<SmallVector<int64_t>> start = constantInts(adaptor.getStart());
  std::optional<SmallVector<int64_t>> limit = constantInts(adaptor.getLimit());
  std::optional<SmallVector<int64_t>> delta = constantInts(adaptor.getDelta());
  if (start && limit && delta) {
    int64_t s = start->front(), l = limit->front(), d = delta->front();
    if (d == 0)
      return emitOptionalError(loc, "'hetg.range' delta is zero");
    size = std::max<int64_t>(0, (l - s + d + (d > 0 ? -1 : 1)) / d);
  }
  types.push_back(RankedTensorType::get({size}, element));
  return success();
}

LogicalResult ConstantOfShapeOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  int64_t rank = rankedType(adaptor.getShape()).getDimSize(0);
  if (rank == kDynamic)
    return emitOptionalError(loc, "'hetg.constant_of_shape' needs a shape "
                                  "operand of static length");
  Shape shape(rank, kDynamic);
  if (std::optional<SmallVector<int64_t>> values =
          constantInts(adaptor.getShape()))
    shape.assign(values->begin(), values->end());
  types.push_back(RankedTensorType::get(
      shape, adaptor.getValue().getShapedType().getElementType()));
  return success();
}

LogicalResult ConstantOfShapeOp::verify() {
  if (getValue().getNumElements() != 1)
    return emitOpError("value must hold exactly one element");
  return success();
}

LogicalResult TriluOp::verify() {
  if (getType().getRank() < 2)
    return emitOpError("needs an input of rank >= 2");
  return success();
}

// The parameter's type, then `grad T` where the gradient's type differs.
static ParseResult parseParamAndGradTypes(OpAsmParser &parser, Type &paramType,
                                          Type &gradType) {
  if (parser.parseType(paramType))
    return failure();
  gradType = paramType;
  if (failed(parser.parseOptionalKeyword("grad")))
    return success();
  return parser.parseType(gradType);
}

static void printParamAndGradTypes(OpAsmPrinter &printer, Operation *,
                                   Type paramType, Type gradType) {
  printer << paramType;
  if (gradType != paramType)
    printer << " grad " << gradType;
}

#define GET_OP_CLASSES
#include "dialects/HetGraph/HetGraphOps.cpp.inc"
