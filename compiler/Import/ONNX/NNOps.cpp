//===- NNOps.cpp - matmul, normalization, reduction ONNX ops to hetg
//-------===//
//
// MatMul Gemm Softmax LogSoftmax LayerNormalization ReduceMean ReduceSum
// ReduceMax Trilu SoftmaxCrossEntropyLoss.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/ONNX/OpTable.h"
#include "compiler/Import/ONNX/ShapeHelpers.h"

#include <onnx/onnx_pb.h>

#include <numeric>

using namespace mlir;

namespace hetc::onnximport {

namespace {

using hetg::kDynamic;

/// numpy matmul: a 1-D operand becomes a matrix (a row on the left, a
/// column on the right) and its added dimension is removed from the result.
LogicalResult convertMatMul(NodeContext &ctx) {
  Value lhs = ctx.input(0), rhs = ctx.input(1);
  int64_t lhsRank = NodeContext::typeOf(lhs).getRank();
  int64_t rhsRank = NodeContext::typeOf(rhs).getRank();
  if (lhsRank == 0 || rhsRank == 0)
    return ctx.emitError() << "MatMul operands must have rank >= 1";
  if (lhsRank == 1) {
    ShapeBuilder row(ctx);
    row.addSize(1);
    row.addDims(lhs, 0, 1);
    FailureOr<Value> reshaped = reshapeTo(ctx, lhs, row);
    if (failed(reshaped))
      return failure();
    lhs = *reshaped;
  }
  if (rhsRank == 1) {
    ShapeBuilder column(ctx);
    column.addDims(rhs, 0, 1);
    column.addSize(1);
    FailureOr<Value> reshaped = reshapeTo(ctx, rhs, column);
    if (failed(reshaped))
      return failure();
    rhs = *reshaped;
  }
  FailureOr<Value> product = ctx.create<hetg::MatmulOp>(lhs, rhs, Value());
  if (failed(product) || (lhsRank > 1 && rhsRank > 1))
    return ctx.bindResult(product);
  int64_t rank = NodeContext::typeOf(*product).getRank();
  ShapeBuilder target(ctx);
  target.addDims(*product, 0, rank - 2);
  if (lhsRank > 1)
    target.addDims(*product, rank - 2, rank - 1);
  if (rhsRank > 1)
    target.addDims(*product, rank - 1, rank);
  return ctx.bindResult(reshapeTo(ctx, *product, target));
}

/// alpha * op(A) @ op(B) + beta * C. C rides on the matmul as its bias when
/// it is exactly a [N] vector and neither scale applies to it.
LogicalResult convertGemm(NodeContext &ctx) {
  Value a = ctx.input(0), b = ctx.input(1), c = ctx.input(2);
  FailureOr<int64_t> transA = ctx.intAttr("transA", 0);
  FailureOr<int64_t> transB = ctx.intAttr("transB", 0);
  FailureOr<float> alpha = ctx.floatAttr("alpha", 1.0f);
  FailureOr<float> beta = ctx.floatAttr("beta", 1.0f);
  if (failed(transA) || failed(transB) || failed(alpha) || failed(beta))
    return failure();
  RankedTensorType aType = NodeContext::typeOf(a);
  RankedTensorType bType = NodeContext::typeOf(b);
  if (aType.getRank() != 2 || bType.getRank() != 2)
    return ctx.emitError() << "Gemm operands must be matrices, not " << aType
                           << " and " << bType;
  Type element = aType.getElementType();
  if (*beta == 0.0f)
    c = Value();
  int64_t n = bType.getDimSize(*transB ? 0 : 1);
  bool cAsBias = false;
  if (c) {
    RankedTensorType cType = NodeContext::typeOf(c);
    cAsBias = *alpha == 1.0f && *beta == 1.0f && cType.getRank() == 1 &&
              n != kDynamic && cType.getDimSize(0) == n;
  }
  FailureOr<Value> result = ctx.create<hetg::MatmulOp>(
      a, b, cAsBias ? c : Value(), *transA != 0, *transB != 0);
  if (failed(result))
    return failure();
  if (*alpha != 1.0f) {
    result =
        ctx.create<hetg::MulOp>(*result, ctx.scalarConstant(element, *alpha));
    if (failed(result))
      return failure();
  }
  if (c && !cAsBias) {
    if (*beta != 1.0f) {
      FailureOr<Value> scaled =
          ctx.create<hetg::MulOp>(c, ctx.scalarConstant(element, *beta));
      if (failed(scaled))
        return failure();
      c = *scaled;
    }
    result = ctx.create<hetg::AddOp>(*result, c);
  }
  return ctx.bindResult(result);
}

template <typename OpTy> LogicalResult convertSoftmax(NodeContext &ctx) {
  Value input = ctx.input(0);
  FailureOr<int64_t> axis = ctx.intAttr("axis", -1);
  if (failed(axis))
    return failure();
  FailureOr<int64_t> normalized = normalizeAxisOrError(
      ctx, *axis, NodeContext::typeOf(input).getRank(), "axis");
  if (failed(normalized))
    return failure();
  return ctx.bindResult(ctx.create<OpTy>(input, uint64_t(*normalized)));
}

/// True when `param` has exactly the shape of the normalized dimensions
/// (as far as static sizes tell), so it can be a layer_norm operand.
bool matchesNormalizedShape(Value param, ArrayRef<int64_t> normalized) {
  RankedTensorType type = NodeContext::typeOf(param);
  if (type.getRank() != int64_t(normalized.size()))
    return false;
  for (auto [have, want] : llvm::zip(type.getShape(), normalized))
    if (have != want && have != kDynamic && want != kDynamic)
      return false;
  return true;
}

LogicalResult convertLayerNorm(NodeContext &ctx) {
  Value input = ctx.input(0), scale = ctx.input(1), bias = ctx.input(2);
  RankedTensorType type = NodeContext::typeOf(input);
  FailureOr<int64_t> axisAttr = ctx.intAttr("axis", -1);
  FailureOr<float> epsilon = ctx.floatAttr("epsilon", 1e-5f);
  FailureOr<int64_t> stashType = ctx.intAttr("stash_type", 1);
  if (failed(axisAttr) || failed(epsilon) || failed(stashType))
    return failure();
  if (*stashType != onnx::TensorProto::FLOAT)
    return ctx.emitError() << "stash_type " << *stashType << " is not "
                           << "supported; hetc computes statistics in FLOAT "
                           << "(stash_type 1)";
  FailureOr<int64_t> axis =
      normalizeAxisOrError(ctx, *axisAttr, type.getRank(), "axis");
  if (failed(axis))
    return failure();
  ArrayRef<int64_t> normalized = type.getShape().drop_front(*axis);
  // Scale and bias that merely broadcast to the normalized shape are
  // applied after the op; bias can ride on it only if scale does.
  bool scaleInline = !scale || matchesNormalizedShape(scale, normalized);
  bool biasInline =
      !bias || (scaleInline && matchesNormalizedShape(bias, normalized));
  FailureOr<Value> result = ctx.create<hetg::LayerNormOp>(
      input, scaleInline ? scale : Value(), biasInline ? bias : Value(),
      uint64_t(*axis), llvm::APFloat(*epsilon));
  if (failed(result))
    return failure();
  if (!scaleInline) {
    result = ctx.create<hetg::MulOp>(*result, scale);
    if (failed(result))
      return failure();
  }
  if (!biasInline) {
    result = ctx.create<hetg::AddOp>(*result, bias);
    if (failed(result))
      return failure();
  }
  ctx.setOutput(0, *result);
  if (!ctx.isOutputUsed(1) && !ctx.isOutputUsed(2))
    return success();

  // The saved statistics, spelled out: mean and 1 / sqrt(var + epsilon)
  // over the normalized dimensions, kept as size-1 dimensions.
  SmallVector<int64_t> axes(type.getRank() - *axis);
  std::iota(axes.begin(), axes.end(), *axis);
  FailureOr<Value> mean = ctx.create<hetg::ReduceMeanOp>(input, axes, true);
  if (failed(mean))
    return failure();
  ctx.setOutput(1, *mean);
  if (!ctx.isOutputUsed(2))
    return success();
  FailureOr<Value> centered = ctx.create<hetg::SubOp>(input, *mean);
  if (failed(centered))
    return failure();
  FailureOr<Value> squared = ctx.create<hetg::MulOp>(*centered, *centered);
  if (failed(squared))
    return failure();
  FailureOr<Value> variance =
      ctx.create<hetg::ReduceMeanOp>(*squared, axes, true);
  if (failed(variance))
    return failure();
  FailureOr<Value> shifted = ctx.create<hetg::AddOp>(
      *variance, ctx.scalarConstant(type.getElementType(), *epsilon));
  if (failed(shifted))
    return failure();
  FailureOr<Value> stddev = ctx.create<hetg::SqrtOp>(*shifted);
  if (failed(stddev))
    return failure();
  FailureOr<Value> inverse = ctx.create<hetg::ReciprocalOp>(*stddev);
  if (failed(inverse))
    return failure();
  ctx.setOutput(2, *inverse);
  return success();
}

/// ReduceSum takes axes as input 1 from opset 13, ReduceMean and ReduceMax
/// from opset 18; before that they are the `axes` attribute.
template <typename OpTy> LogicalResult convertReduce(NodeContext &ctx) {
  Value input = ctx.input(0);
  int64_t rank = NodeContext::typeOf(input).getRank();
  FailureOr<int64_t> keepDims = ctx.intAttr("keepdims", 1);
  FailureOr<int64_t> noopWithEmptyAxes = ctx.intAttr("noop_with_empty_axes", 0);
  if (failed(keepDims) || failed(noopWithEmptyAxes))
    return failure();
  int64_t inputFrom = ctx.opType() == "ReduceSum" ? 13 : 18;
  SmallVector<int64_t> axes;
  if (ctx.opset() >= inputFrom) {
    if (ctx.findAttribute("axes"))
      return ctx.emitError() << "takes axes as input 1 from opset " << inputFrom
                             << ", not as an attribute";
    if (ctx.hasInput(1)) {
      FailureOr<SmallVector<int64_t>> given = ctx.requireConstantInts(
          1, "axes", "needs them to know the result shape");
      if (failed(given))
        return failure();
      axes = *given;
    }
  } else {
    if (ctx.hasInput(1))
      return ctx.emitError() << "takes axes as an attribute before opset "
                             << inputFrom << ", not as input 1";
    FailureOr<std::optional<SmallVector<int64_t>>> given = ctx.intsAttr("axes");
    if (failed(given))
      return failure();
    if (*given)
      axes = **given;
  }
  if (axes.empty()) {
    if (*noopWithEmptyAxes)
      return ctx.bindResult(input);
    axes.resize(rank);
    std::iota(axes.begin(), axes.end(), 0);
  }
  FailureOr<SmallVector<int64_t>> normalized =
      normalizeAxesOrError(ctx, axes, rank, "axis");
  if (failed(normalized))
    return failure();
  return ctx.bindResult(ctx.create<OpTy>(input, *normalized, *keepDims != 0));
}

LogicalResult convertTrilu(NodeContext &ctx) {
  FailureOr<int64_t> upper = ctx.intAttr("upper", 1);
  if (failed(upper))
    return failure();
  int64_t k = 0;
  if (ctx.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> given = ctx.requireConstantInts(
        1, "k", "keeps the diagonal offset as an attribute");
    if (failed(given))
      return failure();
    if (given->size() != 1)
      return ctx.emitError() << "input 1 (k) must hold one value";
    k = given->front();
  }
  return ctx.bindResult(
      ctx.create<hetg::TriluOp>(ctx.input(0), uint64_t(k), *upper != 0));
}

LogicalResult convertSoftmaxCrossEntropy(NodeContext &ctx) {
  Value scores = ctx.input(0), labels = ctx.input(1);
  if (ctx.hasInput(2))
    return ctx.emitError() << "class weights (input 2) are not supported; "
                           << "hetc trains with unweighted cross-entropy";
  FailureOr<std::string> reductionName = ctx.stringAttr("reduction", "mean");
  FailureOr<std::optional<int64_t>> ignoreIndex =
      ctx.optionalIntAttr("ignore_index");
  if (failed(reductionName) || failed(ignoreIndex))
    return failure();
  std::optional<hetg::LossReduction> reduction =
      hetg::symbolizeLossReduction(*reductionName);
  if (!reduction)
    return ctx.emitError() << "reduction '" << *reductionName
                           << "' is not one of none, sum, mean";
  IntegerAttr ignore;
  if (*ignoreIndex)
    ignore = ctx.builder().getI64IntegerAttr(**ignoreIndex);
  FailureOr<Value> loss =
      ctx.create<hetg::CrossEntropyOp>(scores, labels, *reduction, ignore);
  if (failed(loss))
    return failure();
  ctx.setOutput(0, *loss);
  if (ctx.isOutputUsed(1)) {
    FailureOr<Value> logProb =
        ctx.create<hetg::LogSoftmaxOp>(scores, uint64_t(1));
    if (failed(logProb))
      return failure();
    ctx.setOutput(1, *logProb);
  }
  return success();
}

} // namespace

void addNNConverters(OpTable &table) {
  table["MatMul"] = {convertMatMul, 2, 2};
  table["Gemm"] = {convertGemm, 2, 3};
  table["Softmax"] = {convertSoftmax<hetg::SoftmaxOp>, 1, 1};
  table["LogSoftmax"] = {convertSoftmax<hetg::LogSoftmaxOp>, 1, 1};
  table["LayerNormalization"] = {convertLayerNorm, 1, 3, /*maxOutputs=*/3};
  table["ReduceMean"] = {convertReduce<hetg::ReduceMeanOp>, 1, 2, 1, {1}};
  table["ReduceSum"] = {convertReduce<hetg::ReduceSumOp>, 1, 2, 1, {1}};
  table["ReduceMax"] = {convertReduce<hetg::ReduceMaxOp>, 1, 2, 1, {1}};
  table["Trilu"] = {convertTrilu, 1, 2, 1, {1}};
  table["SoftmaxCrossEntropyLoss"] = {convertSoftmaxCrossEntropy, 2, 3,
                                      /*maxOutputs=*/2};
}

} // namespace hetc::onnximport
