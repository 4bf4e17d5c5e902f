//===- ShapeOps.cpp - reshaping, shape and constant ONNX ops to hetg
//-------===//
//
// Transpose Reshape Flatten Squeeze Unsqueeze Expand Shape Constant
// ConstantOfShape Range. Whenever the operands that decide a shape are
// constants, the static hetg op is used; the dynamic_* forms are left for
// `hetg-specialize`.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/ONNX/OpTable.h"
#include "compiler/Import/ONNX/ShapeHelpers.h"
#include "compiler/Import/ONNX/TensorReader.h"

#include <onnx/onnx_pb.h>

using namespace mlir;

namespace hetc::onnximport {

namespace {

using hetg::kDynamic;

/// Checks that input `index` is a 1-D int64 tensor of static length.
LogicalResult checkShapeOperand(NodeContext &ctx, unsigned index,
                                llvm::StringRef role) {
  RankedTensorType type = NodeContext::typeOf(ctx.input(index));
  if (type.getRank() != 1 || type.isDynamicDim(0) ||
      !type.getElementType().isSignlessInteger(64))
    return ctx.emitError() << "input " << index << " (" << role
                           << ") must be a 1-D int64 tensor of static length, "
                           << "not " << type;
  return success();
}

LogicalResult convertTranspose(NodeContext &ctx) {
  Value input = ctx.input(0);
  int64_t rank = NodeContext::typeOf(input).getRank();
  FailureOr<std::optional<SmallVector<int64_t>>> perm = ctx.intsAttr("perm");
  if (failed(perm))
    return failure();
  SmallVector<int64_t> permutation;
  if (*perm)
    permutation = **perm;
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      permutation.push_back(d);
  return ctx.bindResult(ctx.create<hetg::TransposeOp>(input, permutation));
}

LogicalResult convertReshape(NodeContext &ctx) {
  Value input = ctx.input(0), shape = ctx.input(1);
  if (failed(checkShapeOperand(ctx, 1, "shape")))
    return failure();
  FailureOr<int64_t> allowZero = ctx.intAttr("allowzero", 0);
  if (failed(allowZero))
    return failure();
  RankedTensorType inputType = NodeContext::typeOf(input);
  std::optional<SmallVector<int64_t>> target = NodeContext::constantInts(shape);
  if (!target)
    return ctx.bindResult(
        ctx.create<hetg::DynamicReshapeOp>(input, shape, bool(*allowZero)));
  if (*allowZero && llvm::is_contained(*target, 0)) {
    // A literal 0 makes an empty dimension: the result shape is the target.
    if (llvm::is_contained(*target, -1) || !inputType.hasStaticShape() ||
        llvm::any_of(*target, [](int64_t d) { return d < 0; }))
      return ctx.emitError()
             << "allowzero=1 with shape " << formatShape(*target)
             << " needs a static input and no -1 in the shape";
    RankedTensorType resultType = inputType.clone(*target);
    if (resultType.getNumElements() != inputType.getNumElements())
      return ctx.emitError() << "cannot reshape " << inputType << " to "
                             << formatShape(*target);
    return ctx.bindResult(ctx.create<hetg::ReshapeOp>(resultType, input));
  }
  if (!inputType.hasStaticShape())
    return ctx.bindResult(ctx.create<hetg::DynamicReshapeOp>(input, shape));
  std::string error;
  FailureOr<hetg::Shape> resolved =
      hetg::resolveReshape(inputType.getShape(), *target, &error);
  if (failed(resolved))
    return ctx.emitError() << "cannot reshape " << inputType << " to "
                           << formatShape(*target) << ": " << error;
  if (ArrayRef<int64_t>(*resolved) == inputType.getShape())
    return ctx.bindResult(input);
  return ctx.bindResult(
      ctx.create<hetg::ReshapeOp>(inputType.clone(*resolved), input));
}

LogicalResult convertFlatten(NodeContext &ctx) {
  Value input = ctx.input(0);
  int64_t rank = NodeContext::typeOf(input).getRank();
  FailureOr<int64_t> axis = ctx.intAttr("axis", 1);
  if (failed(axis))
    return failure();
  int64_t split = *axis < 0 ? *axis + rank : *axis;
  if (split < 0 || split > rank)
    return ctx.emitError() << "axis " << *axis << " is out of range for rank "
                           << rank;
  ShapeBuilder target(ctx);
  target.addDimProduct(input, 0, split);
  target.addDimProduct(input, split, rank);
  return ctx.bindResult(reshapeTo(ctx, input, target));
}

LogicalResult convertSqueeze(NodeContext &ctx) {
  Value input = ctx.input(0);
  RankedTensorType type = NodeContext::typeOf(input);
  SmallVector<int64_t> axes;
  if (ctx.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> given = ctx.requireConstantInts(
        1, "axes", "needs them to know the rank of the result");
    if (failed(given))
      return failure();
    FailureOr<SmallVector<int64_t>> normalized =
        normalizeAxesOrError(ctx, *given, type.getRank(), "axis");
    if (failed(normalized))
      return failure();
    axes = *normalized;
  } else {
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (type.isDynamicDim(d))
        return ctx.emitError() << "Squeeze without axes needs a static input "
                               << "shape, but dimension " << d << " of " << type
                               << " is dynamic";
      if (type.getDimSize(d) == 1)
        axes.push_back(d);
    }
  }
  for (int64_t axis : axes)
    if (!type.isDynamicDim(axis) && type.getDimSize(axis) != 1)
      return ctx.emitError() << "cannot squeeze dimension " << axis << " of "
                             << type << ": its size is not 1";
  ShapeBuilder target(ctx);
  int64_t begin = 0;
  for (int64_t axis : axes) {
    target.addDims(input, begin, axis);
    begin = axis + 1;
  }
  target.addDims(input, begin, type.getRank());
  return ctx.bindResult(reshapeTo(ctx, input, target));
}

LogicalResult convertUnsqueeze(NodeContext &ctx) {
  Value input = ctx.input(0);
  int64_t rank = NodeContext::typeOf(input).getRank();
  FailureOr<SmallVector<int64_t>> given = ctx.requireConstantInts(
      1, "axes", "needs them to know the rank of the result");
  if (failed(given))
    return failure();
  int64_t resultRank = rank + int64_t(given->size());
  FailureOr<SmallVector<int64_t>> axes =
      normalizeAxesOrError(ctx, *given, resultRank, "axis");
  if (failed(axes))
    return failure();
  ShapeBuilder target(ctx);
  int64_t next = 0, runStart = 0;
  for (int64_t d = 0; d < resultRank; ++d) {
    if (!llvm::is_contained(*axes, d)) {
      ++next;
      continue;
    }
    target.addDims(input, runStart, next);
    target.addSize(1);
    runStart = next;
  }
  target.addDims(input, runStart, rank);
  return ctx.bindResult(reshapeTo(ctx, input, target));
}

LogicalResult convertExpand(NodeContext &ctx) {
  Value input = ctx.input(0), shape = ctx.input(1);
  if (failed(checkShapeOperand(ctx, 1, "shape")))
    return failure();
  RankedTensorType type = NodeContext::typeOf(input);
  std::optional<SmallVector<int64_t>> target = NodeContext::constantInts(shape);
  if (!target || !type.hasStaticShape())
    return ctx.bindResult(ctx.create<hetg::DynamicBroadcastOp>(input, shape));
  std::string error;
  FailureOr<hetg::Shape> result =
      llvm::any_of(*target, [](int64_t d) { return d < 0; })
          ? FailureOr<hetg::Shape>(failure())
          : hetg::broadcastShapes(type.getShape(), *target, &error);
  if (failed(result))
    return ctx.emitError() << "cannot expand " << type << " to shape "
                           << formatShape(*target)
                           << (error.empty() ? "" : ": ") << error;
  if (ArrayRef<int64_t>(*result) == type.getShape())
    return ctx.bindResult(input);
  return ctx.bindResult(
      ctx.create<hetg::BroadcastOp>(type.clone(*result), input));
}

LogicalResult convertShape(NodeContext &ctx) {
  Value input = ctx.input(0);
  int64_t rank = NodeContext::typeOf(input).getRank();
  FailureOr<int64_t> start = ctx.intAttr("start", 0);
  FailureOr<int64_t> end = ctx.intAttr("end", rank);
  if (failed(start) || failed(end))
    return failure();
  auto clampIndex = [&](int64_t i) {
    return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank);
  };
  int64_t first = clampIndex(*start);
  int64_t last = std::max(first, clampIndex(*end));
  return ctx.bindResult(ctx.create<hetg::ShapeOp>(input, first, last));
}

LogicalResult convertConstant(NodeContext &ctx) {
  auto scalarOrList = [&](Type element, auto values, bool scalar) {
    auto type = RankedTensorType::get(
        scalar ? ArrayRef<int64_t>{}
               : ArrayRef<int64_t>{int64_t(values.size())},
        element);
    return ctx.constant(DenseElementsAttr::get(type, ArrayRef(values)));
  };
  if (ctx.findAttribute("value")) {
    FailureOr<std::optional<TensorData>> tensor = ctx.tensorAttr("value");
    if (failed(tensor))
      return failure();
    return ctx.bindResult(ctx.constant((*tensor)->toElementsAttr()));
  }
  if (ctx.findAttribute("value_float")) {
    FailureOr<float> value = ctx.floatAttr("value_float", 0);
    if (failed(value))
      return failure();
    SmallVector<float> values{*value};
    return ctx.bindResult(scalarOrList(ctx.builder().getF32Type(), values,
                                       /*scalar=*/true));
  }
  if (ctx.findAttribute("value_floats")) {
    FailureOr<std::optional<SmallVector<float>>> values =
        ctx.floatsAttr("value_floats");
    if (failed(values))
      return failure();
    return ctx.bindResult(scalarOrList(ctx.builder().getF32Type(), **values,
                                       /*scalar=*/false));
  }
  if (ctx.findAttribute("value_int")) {
    FailureOr<int64_t> value = ctx.intAttr("value_int", 0);
    if (failed(value))
      return failure();
    SmallVector<int64_t> values{*value};
    return ctx.bindResult(scalarOrList(ctx.builder().getI64Type(), values,
                                       /*scalar=*/true));
  }
  if (ctx.findAttribute("value_ints")) {
    FailureOr<std::optional<SmallVector<int64_t>>> values =
        ctx.intsAttr("value_ints");
    if (failed(values))
      return failure();
    return ctx.bindResult(scalarOrList(ctx.builder().getI64Type(), **values,
                                       /*scalar=*/false));
  }
  for (llvm::StringRef unsupported :
       {"sparse_value", "value_string", "value_strings"})
    if (ctx.findAttribute(unsupported))
      return ctx.emitError() << "attribute '" << unsupported
                             << "' is not supported; hetc imports dense "
                             << "numeric constants (value, value_float(s), "
                             << "value_int(s))";
  return ctx.emitError() << "has no value attribute";
}

LogicalResult convertConstantOfShape(NodeContext &ctx) {
  Value shape = ctx.input(0);
  if (failed(checkShapeOperand(ctx, 0, "shape")))
    return failure();
  FailureOr<std::optional<TensorData>> valueAttr = ctx.tensorAttr("value");
  if (failed(valueAttr))
    return failure();
  DenseElementsAttr value;
  if (*valueAttr) {
    if ((*valueAttr)->numElements() != 1)
      return ctx.emitError() << "attribute 'value' must hold one element, "
                             << "not " << (*valueAttr)->type;
    DenseElementsAttr given = (*valueAttr)->toElementsAttr();
    value = given.reshape(
        RankedTensorType::get({1}, (*valueAttr)->type.getElementType()));
  } else {
    value = DenseElementsAttr::get(
        RankedTensorType::get({1}, ctx.builder().getF32Type()), 0.0f);
  }
  if (std::optional<SmallVector<int64_t>> dims =
          NodeContext::constantInts(shape)) {
    if (llvm::any_of(*dims, [](int64_t d) { return d < 0; }))
      return ctx.emitError()
             << "shape " << formatShape(*dims) << " has a negative dimension";
    return ctx.bindResult(ctx.constant(value.resizeSplat(
        RankedTensorType::get(*dims, value.getElementType()))));
  }
  return ctx.bindResult(ctx.create<hetg::ConstantOfShapeOp>(shape, value));
}

LogicalResult convertRange(NodeContext &ctx) {
  return ctx.bindResult(
      ctx.create<hetg::RangeOp>(ctx.input(0), ctx.input(1), ctx.input(2)));
}

} // namespace

void addShapeConverters(OpTable &table) {
  table["Transpose"] = {convertTranspose, 1, 1};
  table["Reshape"] = {convertReshape, 2, 2, 1, {1}};
  table["Flatten"] = {convertFlatten, 1, 1};
  table["Squeeze"] = {convertSqueeze, 1, 2, 1, {1}};
  table["Unsqueeze"] = {convertUnsqueeze, 2, 2, 1, {1}};
  table["Expand"] = {convertExpand, 2, 2, 1, {1}};
  table["Shape"] = {convertShape, 1, 1};
  table["Constant"] = {convertConstant, 0, 0};
  table["ConstantOfShape"] = {convertConstantOfShape, 1, 1, 1, {0}};
  table["Range"] = {convertRange, 3, 3};
}

} // namespace hetc::onnximport
