//===- ElementwiseOps.cpp - elementwise ONNX ops to hetg
//-------------------===//
//
// Add Sub Mul Div Mod Pow Equal Max Min Clip, the unary math ops, Where, Cast,
// CastLike, and the ops that pass their input through (Identity, Dropout
// outside training).
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/ONNX/OpTable.h"
#include "compiler/Import/ONNX/ShapeHelpers.h"
#include "compiler/Import/ONNX/TensorReader.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <onnx/onnx_pb.h>

#include <limits>

using namespace mlir;

namespace hetc::onnximport {

namespace {

template <typename OpTy> LogicalResult convertBinary(NodeContext &ctx) {
  return ctx.bindResult(ctx.create<OpTy>(ctx.input(0), ctx.input(1)));
}

template <typename OpTy> LogicalResult convertUnary(NodeContext &ctx) {
  Value input = ctx.input(0);
  return ctx.bindResult(ctx.create<OpTy>(input));
}

/// ONNX Pow lets the exponent have another element type; the result has
/// the base's. A float exponent of an integer base is applied in float (as
/// the ONNX reference does) and the result cast back.
LogicalResult convertPow(NodeContext &ctx) {
  Value base = ctx.input(0), exponent = ctx.input(1);
  Type baseElement = NodeContext::typeOf(base).getElementType();
  Type expElement = NodeContext::typeOf(exponent).getElementType();
  if (baseElement == expElement)
    return convertBinary<hetg::PowOp>(ctx);
  if (llvm::isa<IntegerType>(baseElement) && llvm::isa<FloatType>(expElement)) {
    FailureOr<Value> floatBase = ctx.create<hetg::CastOp>(base, expElement);
    if (failed(floatBase))
      return failure();
    FailureOr<Value> power = ctx.create<hetg::PowOp>(*floatBase, exponent);
    if (failed(power))
      return failure();
    return ctx.bindResult(ctx.create<hetg::CastOp>(*power, baseElement));
  }
  FailureOr<Value> cast = ctx.create<hetg::CastOp>(exponent, baseElement);
  if (failed(cast))
    return failure();
  return ctx.bindResult(ctx.create<hetg::PowOp>(base, *cast));
}

/// Mod: fmod = 0 (the default) takes the divisor's sign and ONNX defines it
/// for integers only; fmod = 1 takes the dividend's.
LogicalResult convertMod(NodeContext &ctx) {
  FailureOr<int64_t> fmod = ctx.intAttr("fmod", 0);
  if (failed(fmod))
    return failure();
  Value x = ctx.input(0), y = ctx.input(1);
  if (*fmod)
    return ctx.bindResult(ctx.create<hetg::FmodOp>(x, y));
  if (llvm::isa<FloatType>(NodeContext::typeOf(x).getElementType()))
    return ctx.emitError() << "fmod=0 on floats is not defined by ONNX; "
                           << "export it with fmod=1 (torch.fmod)";
  return ctx.bindResult(ctx.create<hetg::ModOp>(x, y));
}

/// Max and Min of any number of inputs, folded left pairwise.
template <typename OpTy> LogicalResult convertVariadic(NodeContext &ctx) {
  Value result = ctx.input(0);
  for (unsigned i = 1; i < ctx.numInputs(); ++i) {
    FailureOr<Value> next = ctx.create<OpTy>(result, ctx.input(i));
    if (failed(next))
      return failure();
    result = *next;
  }
  return ctx.bindResult(result);
}

/// Clip(x, lo, hi) = min(max(x, lo), hi), each bound optional; with lo >
/// hi every element is hi, as ONNX says.
LogicalResult convertClip(NodeContext &ctx) {
  Value result = ctx.input(0);
  if (ctx.hasInput(1)) {
    FailureOr<Value> low = ctx.create<hetg::MaximumOp>(result, ctx.input(1));
    if (failed(low))
      return failure();
    result = *low;
  }
  if (ctx.hasInput(2)) {
    FailureOr<Value> high = ctx.create<hetg::MinimumOp>(result, ctx.input(2));
    if (failed(high))
      return failure();
    result = *high;
  }
  return ctx.bindResult(result);
}

LogicalResult convertWhere(NodeContext &ctx) {
  return ctx.bindResult(
      ctx.create<hetg::WhereOp>(ctx.input(0), ctx.input(1), ctx.input(2)));
}

LogicalResult convertCast(NodeContext &ctx) {
  FailureOr<std::optional<int64_t>> to = ctx.optionalIntAttr("to");
  if (failed(to))
    return failure();
  if (!*to)
    return ctx.emitError() << "attribute 'to' is required";
  Type element = convertElementType(*ctx.context(), int32_t(**to));
  if (!element)
    return ctx.emitError() << "cannot cast to " << dataTypeName(int32_t(**to))
                           << "; hetc supports " << supportedDataTypesText();
  Value input = ctx.input(0);
  if (NodeContext::typeOf(input).getElementType() == element)
    return ctx.bindResult(input);
  return ctx.bindResult(ctx.create<hetg::CastOp>(input, element));
}

/// Cast to the element type of input 1 (the torch.export exporter's
/// spelling of dtype promotion).
LogicalResult convertCastLike(NodeContext &ctx) {
  Value input = ctx.input(0);
  Type element = NodeContext::typeOf(ctx.input(1)).getElementType();
  if (NodeContext::typeOf(input).getElementType() == element)
    return ctx.bindResult(input);
  return ctx.bindResult(ctx.create<hetg::CastOp>(input, element));
}

LogicalResult convertIdentity(NodeContext &ctx) {
  return ctx.bindResult(ctx.input(0));
}

/// An all-true mask shaped like `like`: Dropout's mask when nothing drops.
FailureOr<Value> allTrueLike(NodeContext &ctx, Value like) {
  RankedTensorType type = NodeContext::typeOf(like);
  auto maskType = type.clone(ctx.builder().getI1Type());
  if (type.hasStaticShape())
    return ctx.constant(DenseElementsAttr::get(maskType, true));
  ShapeBuilder shape(ctx);
  shape.addDims(like, 0, type.getRank());
  FailureOr<Value> shapeTensor = shape.build();
  if (failed(shapeTensor))
    return failure();
  auto one = DenseElementsAttr::get(
      RankedTensorType::get({1}, ctx.builder().getI1Type()), true);
  return ctx.create<hetg::ConstantOfShapeOp>(*shapeTensor, one);
}

/// Dropout drops nothing outside training mode or with ratio 0: the output
/// is the input and the mask is all true. Training-mode dropout is random
/// and belongs to the training step, not to the imported forward graph.
LogicalResult convertDropout(NodeContext &ctx) {
  bool training = false;
  if (ctx.hasInput(2)) {
    std::optional<SmallVector<int64_t>> mode =
        NodeContext::constantInts(ctx.input(2));
    if (!mode || mode->size() != 1)
      return ctx.emitError() << "input 2 (training_mode) must be a constant "
                             << "scalar: hetc imports graphs exported for "
                             << "inference (model.eval())";
    training = mode->front() != 0;
  }
  if (training) {
    double ratio = 0.5;
    if (ctx.hasInput(1)) {
      std::optional<SmallVector<double>> r =
          NodeContext::constantFloats(ctx.input(1));
      if (!r || r->size() != 1)
        return ctx.emitError() << "input 1 (ratio) must be a constant scalar "
                               << "in training mode";
      ratio = r->front();
    }
    std::string ratioText;
    llvm::raw_string_ostream(ratioText) << llvm::format("%g", ratio);
    if (ratio != 0.0)
      return ctx.emitError()
             << "Dropout in training mode with ratio " << ratioText
             << " is random, which hetc does not import; export the model "
             << "in eval mode (model.eval(), or torch.onnx.export(..., "
             << "training=torch.onnx.TrainingMode.EVAL))";
  }
  ctx.setOutput(0, ctx.input(0));
  if (ctx.isOutputUsed(1)) {
    FailureOr<Value> mask = allTrueLike(ctx, ctx.input(0));
    if (failed(mask))
      return failure();
    ctx.setOutput(1, *mask);
  }
  return success();
}

} // namespace

void addElementwiseConverters(OpTable &table) {
  constexpr unsigned kManyInputs = std::numeric_limits<unsigned>::max();
  table["Add"] = {convertBinary<hetg::AddOp>, 2, 2};
  table["Sub"] = {convertBinary<hetg::SubOp>, 2, 2};
  table["Mul"] = {convertBinary<hetg::MulOp>, 2, 2};
  table["Div"] = {convertBinary<hetg::DivOp>, 2, 2};
  table["Pow"] = {convertPow, 2, 2};
  table["Equal"] = {convertBinary<hetg::EqualOp>, 2, 2};
  table["Neg"] = {convertUnary<hetg::NegOp>, 1, 1};
  table["Sqrt"] = {convertUnary<hetg::SqrtOp>, 1, 1};
  table["Reciprocal"] = {convertUnary<hetg::ReciprocalOp>, 1, 1};
  table["Exp"] = {convertUnary<hetg::ExpOp>, 1, 1};
  table["Log"] = {convertUnary<hetg::LogOp>, 1, 1};
  table["Tanh"] = {convertUnary<hetg::TanhOp>, 1, 1};
  table["Cos"] = {convertUnary<hetg::CosOp>, 1, 1};
  table["Sin"] = {convertUnary<hetg::SinOp>, 1, 1};
  table["Erf"] = {convertUnary<hetg::ErfOp>, 1, 1};
  table["Sigmoid"] = {convertUnary<hetg::SigmoidOp>, 1, 1};
  table["Relu"] = {convertUnary<hetg::ReluOp>, 1, 1};
  table["Mod"] = {convertMod, 2, 2};
  table["Max"] = {convertVariadic<hetg::MaximumOp>, 1, kManyInputs};
  table["Min"] = {convertVariadic<hetg::MinimumOp>, 1, kManyInputs};
  table["Clip"] = {convertClip, 1, 3};
  table["Where"] = {convertWhere, 3, 3};
  table["Cast"] = {convertCast, 1, 1};
  table["CastLike"] = {convertCastLike, 2, 2};
  table["Identity"] = {convertIdentity, 1, 1};
  table["Dropout"] = {convertDropout, 1, 3, /*maxOutputs=*/2, {1, 2}};
}

} // namespace hetc::onnximport
