//===- SliceOps.cpp - joining, splitting and indexing ONNX ops to hetg
//-----===//
//
// Concat Split Slice Gather. Constant bounds give hetg.slice (one entry per
// dimension); bounds known only at run time give hetg.dynamic_slice.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/ONNX/OpTable.h"
#include "compiler/Import/ONNX/ShapeHelpers.h"

#include <onnx/onnx_pb.h>

#include <limits>
#include <numeric>

using namespace mlir;

namespace hetc::onnximport {

namespace {

using hetg::kDynamic;

LogicalResult convertConcat(NodeContext &ctx) {
  FailureOr<std::optional<int64_t>> axis = ctx.optionalIntAttr("axis");
  if (failed(axis))
    return failure();
  if (!*axis)
    return ctx.emitError() << "attribute 'axis' is required";
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < ctx.numInputs(); ++i) {
    if (!ctx.hasInput(i))
      return ctx.emitError() << "input " << i << " is empty";
    inputs.push_back(ctx.input(i));
  }
  FailureOr<int64_t> normalized = normalizeAxisOrError(
      ctx, **axis, NodeContext::typeOf(inputs.front()).getRank(), "axis");
  if (failed(normalized))
    return failure();
  if (inputs.size() == 1)
    return ctx.bindResult(inputs.front());
  return ctx.bindResult(ctx.create<hetg::ConcatOp>(inputs, *normalized));
}

/// Split with sizes unknown at import: equal parts of a dynamic dimension,
/// each a hetg.dynamic_slice whose bounds are computed from hetg.shape.
LogicalResult splitDynamic(NodeContext &ctx, Value input, int64_t axis,
                           bool ceilParts) {
  int64_t parts = ctx.numOutputs();
  FailureOr<Value> size = dimSize(ctx, input, axis);
  if (failed(size))
    return failure();
  Value numerator = *size;
  if (ceilParts && parts > 1) {
    FailureOr<Value> rounded =
        ctx.create<hetg::AddOp>(*size, ctx.i64Constant({parts - 1}));
    if (failed(rounded))
      return failure();
    numerator = *rounded;
  }
  FailureOr<Value> chunk =
      ctx.create<hetg::DivOp>(numerator, ctx.i64Constant({parts}));
  if (failed(chunk))
    return failure();
  for (int64_t i = 0; i < parts; ++i) {
    FailureOr<Value> start =
        ctx.create<hetg::MulOp>(*chunk, ctx.i64Constant({i}));
    if (failed(start))
      return failure();
    FailureOr<Value> end =
        i + 1 == parts
            ? FailureOr<Value>(ctx.i64Constant({kSliceToEnd}))
            : ctx.create<hetg::MulOp>(*chunk, ctx.i64Constant({i + 1}));
    if (failed(end))
      return failure();
    FailureOr<Value> part = ctx.create<hetg::DynamicSliceOp>(
        input, *start, *end, ArrayRef<int64_t>{axis}, ArrayRef<int64_t>{1});
    if (failed(part))
      return failure();
    ctx.setOutput(i, *part);
  }
  return success();
}

LogicalResult convertSplit(NodeContext &ctx) {
  Value input = ctx.input(0);
  RankedTensorType type = NodeContext::typeOf(input);
  FailureOr<int64_t> axisAttr = ctx.intAttr("axis", 0);
  if (failed(axisAttr))
    return failure();
  FailureOr<int64_t> axis =
      normalizeAxisOrError(ctx, *axisAttr, type.getRank(), "axis");
  if (failed(axis))
    return failure();
  int64_t parts = ctx.numOutputs();
  int64_t dim = type.getDimSize(*axis);

  SmallVector<int64_t> sizes;
  if (ctx.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> split = ctx.requireConstantInts(
        1, "split", "needs the sizes to build one slice per output");
    if (failed(split))
      return failure();
    sizes = *split;
    if (int64_t(sizes.size()) != parts ||
        llvm::any_of(sizes, [](int64_t s) { return s < 0; }) ||
        (dim != kDynamic &&
         std::accumulate(sizes.begin(), sizes.end(), int64_t(0)) != dim))
      return ctx.emitError() << "split sizes " << formatShape(sizes)
                             << " do not divide dimension " << *axis << " of "
                             << type << " into " << parts << " outputs";
  } else {
    bool ceilParts = ctx.opset() >= 18;
    if (ctx.opset() >= 18) {
      FailureOr<std::optional<int64_t>> numOutputs =
          ctx.optionalIntAttr("num_outputs");
      if (failed(numOutputs))
        return failure();
      if (!*numOutputs || **numOutputs != parts)
        return ctx.emitError()
               << "needs the 'split' input or a 'num_outputs' attribute "
               << "equal to its " << parts << " outputs";
    }
    if (dim == kDynamic)
      return splitDynamic(ctx, input, *axis, ceilParts);
    int64_t chunk = ceilParts ? (dim + parts - 1) / parts : dim / parts;
    if (!ceilParts && dim % parts != 0)
      return ctx.emitError() << "cannot split dimension " << *axis << " of "
                             << type << " into " << parts << " equal parts";
    for (int64_t i = 0; i < parts; ++i)
      sizes.push_back(std::clamp<int64_t>(dim - i * chunk, 0, chunk));
  }

  FailureOr<SmallVector<Value>> pieces =
      slicePieces(ctx, input, *axis, sizes);
  if (failed(pieces))
    return failure();
  for (auto [i, piece] : llvm::enumerate(*pieces))
    ctx.setOutput(i, piece);
  return success();
}

/// The indices ONNX Slice visits with a negative step on a dimension of
/// static `size`.
SmallVector<int64_t> reversedSliceIndices(int64_t size, int64_t start,
                                          int64_t end, int64_t step) {
  if (start < 0)
    start += size;
  if (end < 0)
    end += size;
  start = std::clamp<int64_t>(start, 0, size - 1);
  end = std::clamp<int64_t>(end, -1, size - 1);
  SmallVector<int64_t> indices;
  for (int64_t i = start; i > end; i += step)
    indices.push_back(i);
  return indices;
}

/// Converts an int32 bounds operand to the i64 form hetg shape ops take.
FailureOr<Value> boundsAsI64(NodeContext &ctx, Value bounds) {
  if (NodeContext::typeOf(bounds).getElementType().isSignlessInteger(64))
    return bounds;
  return ctx.create<hetg::CastOp>(bounds, ctx.builder().getI64Type());
}

LogicalResult convertSlice(NodeContext &ctx) {
  Value input = ctx.input(0);
  RankedTensorType type = NodeContext::typeOf(input);
  for (unsigned i = 1; i <= 2; ++i) {
    RankedTensorType bounds = NodeContext::typeOf(ctx.input(i));
    if (bounds.getRank() != 1 || bounds.isDynamicDim(0))
      return ctx.emitError()
             << "input " << i << " (" << (i == 1 ? "starts" : "ends")
             << ") must be 1-D of static length, not " << bounds;
  }
  int64_t count = NodeContext::typeOf(ctx.input(1)).getDimSize(0);
  SmallVector<int64_t> axes;
  if (ctx.hasInput(3)) {
    FailureOr<SmallVector<int64_t>> given = ctx.requireConstantInts(
        3, "axes", "needs them to know which dimensions are sliced");
    if (failed(given))
      return failure();
    axes = *given;
  } else {
    for (int64_t i = 0; i < count; ++i)
      axes.push_back(i);
  }
  SmallVector<int64_t> steps(count, 1);
  if (ctx.hasInput(4)) {
    FailureOr<SmallVector<int64_t>> given = ctx.requireConstantInts(
        4, "steps", "needs them to know the result shape");
    if (failed(given))
      return failure();
    steps = *given;
  }
  if (int64_t(axes.size()) != count || int64_t(steps.size()) != count ||
      NodeContext::typeOf(ctx.input(2)).getDimSize(0) != count)
    return ctx.emitError() << "starts, ends, axes and steps must have the "
                           << "same length";
  for (auto [i, axis] : llvm::enumerate(axes)) {
    FailureOr<int64_t> n =
        normalizeAxisOrError(ctx, axis, type.getRank(), "axis");
    if (failed(n))
      return failure();
    if (llvm::is_contained(ArrayRef<int64_t>(axes).take_front(i), *n))
      return ctx.emitError() << "axes list dimension " << *n << " twice";
    axes[i] = *n;
    if (steps[i] == 0)
      return ctx.emitError() << "step for axis " << *n << " is 0";
  }

  std::optional<SmallVector<int64_t>> starts =
      NodeContext::constantInts(ctx.input(1));
  std::optional<SmallVector<int64_t>> ends =
      NodeContext::constantInts(ctx.input(2));
  if (!starts || !ends) {
    for (auto [axis, step] : llvm::zip(axes, steps))
      if (step < 0)
        return ctx.emitError() << "negative step " << step << " on axis "
                               << axis << " needs constant starts and ends; "
                               << "hetc supports negative steps only on "
                               << "constant bounds of static dimensions";
    FailureOr<Value> startValues = boundsAsI64(ctx, ctx.input(1));
    FailureOr<Value> endValues = boundsAsI64(ctx, ctx.input(2));
    if (failed(startValues) || failed(endValues))
      return failure();
    return ctx.bindResult(ctx.create<hetg::DynamicSliceOp>(
        input, *startValues, *endValues, axes, steps));
  }

  // Positive steps slice with hetg.slice; each negative step then picks its
  // (static) dimension's elements in reverse with a constant gather.
  SmallVector<int64_t> allStarts, allEnds, allSteps;
  fullSlice(type, allStarts, allEnds, allSteps);
  SmallVector<std::pair<int64_t, SmallVector<int64_t>>> reversed;
  bool sliced = false;
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (steps[i] > 0) {
      allStarts[axis] = (*starts)[i];
      allEnds[axis] = (*ends)[i];
      allSteps[axis] = steps[i];
      sliced = true;
      continue;
    }
    if (type.isDynamicDim(axis))
      return ctx.emitError() << "negative step " << steps[i] << " on axis "
                             << axis << " needs a static dimension; hetc "
                             << "supports negative steps only on constant "
                             << "bounds of static dimensions";
    reversed.push_back(
        {axis, reversedSliceIndices(type.getDimSize(axis), (*starts)[i],
                                    (*ends)[i], steps[i])});
  }
  Value result = input;
  if (sliced) {
    FailureOr<Value> slice =
        ctx.create<hetg::SliceOp>(input, allStarts, allEnds, allSteps);
    if (failed(slice))
      return failure();
    result = *slice;
  }
  for (auto &[axis, indices] : reversed) {
    FailureOr<Value> gathered =
        ctx.create<hetg::GatherOp>(result, ctx.i64Constant(indices), axis);
    if (failed(gathered))
      return failure();
    result = *gathered;
  }
  return ctx.bindResult(result);
}

LogicalResult convertGather(NodeContext &ctx) {
  Value data = ctx.input(0);
  FailureOr<int64_t> axis = ctx.intAttr("axis", 0);
  if (failed(axis))
    return failure();
  FailureOr<int64_t> normalized = normalizeAxisOrError(
      ctx, *axis, NodeContext::typeOf(data).getRank(), "axis");
  if (failed(normalized))
    return failure();
  return ctx.bindResult(
      ctx.create<hetg::GatherOp>(data, ctx.input(1), *normalized));
}

LogicalResult convertScatterND(NodeContext &ctx) {
  FailureOr<std::string> reductionName = ctx.stringAttr("reduction", "none");
  if (failed(reductionName))
    return failure();
  std::optional<hetg::ScatterReduction> reduction =
      hetg::symbolizeScatterReduction(*reductionName);
  if (!reduction)
    return ctx.emitError() << "reduction '" << *reductionName
                           << "' is not one of none, add, mul, max, min";
  return ctx.bindResult(ctx.create<hetg::ScatterNDOp>(
      ctx.input(0), ctx.input(1), ctx.input(2), *reduction));
}
} // namespace

void addSliceConverters(OpTable &table) {
  constexpr unsigned kMany = std::numeric_limits<unsigned>::max();
  table["Concat"] = {convertConcat, 1, kMany};
  table["Split"] = {convertSplit, 1, 2, kMany, {1}};
  table["Slice"] = {convertSlice, 3, 5, 1, {1, 2, 3, 4}};
  table["Gather"] = {convertGather, 2, 2};
  table["ScatterND"] = {convertScatterND, 3, 3};
}

} // namespace hetc::onnximport
