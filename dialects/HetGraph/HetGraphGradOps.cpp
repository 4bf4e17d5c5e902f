//===- HetGraphGradOps.cpp - gradient and optimizer op types, verifiers ---===//

#include "dialects/HetGraph/HetGraph.h"
#include "dialects/HetGraph/VerifyUtils.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace hetc::hetg;

namespace {

/// Equal where both are static.
bool compatibleShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip(a, b))
    if (x != kDynamic && y != kDynamic && x != y)
      return false;
  return true;
}

/// A norm's scale has the normalized shape and the input's element type.
LogicalResult checkScale(std::optional<Location> loc, StringRef opName,
                         Value scale, RankedTensorType input,
                         ArrayRef<int64_t> normalized) {
  if (!scale)
    return success();
  RankedTensorType type = rankedType(scale);
  if (!compatibleShapes(type.getShape(), normalized) ||
      type.getElementType() != input.getElementType())
    return emitOptionalError(loc, "'hetg.", opName, "' scale has type ", type,
                             " but the normalized dimensions are ",
                             formatShape(normalized), " of ",
                             input.getElementType());
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Normalization and softmax
//===----------------------------------------------------------------------===//

LogicalResult LayerNormGradOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  RankedTensorType input = rankedType(adaptor.getInput());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= input.getRank())
    return emitOptionalError(loc, "'hetg.layer_norm_grad' axis ", axis,
                             " is out of range for rank ", input.getRank());
  ArrayRef<int64_t> normalized = input.getShape().drop_front(axis);
  if (failed(checkScale(loc, "layer_norm_grad", adaptor.getScale(), input,
                        normalized)))
    return failure();
  types.push_back(input);
  types.push_back(input.clone(normalized));
  types.push_back(input.clone(normalized));
  return success();
}

LogicalResult RmsNormGradOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  RankedTensorType input = rankedType(adaptor.getInput());
  if (input.getRank() < 1)
    return emitOptionalError(loc, "'hetg.rms_norm_grad' needs an input of "
                                  "rank >= 1");
  ArrayRef<int64_t> normalized = input.getShape().take_back();
  if (failed(checkScale(loc, "rms_norm_grad", adaptor.getScale(), input,
                        normalized)))
    return failure();
  types.push_back(input);
  types.push_back(input.clone(normalized));
  return success();
}

LogicalResult SoftmaxGradOp::verify() {
  return verifyAxisInRange(*this, getAxis(), getType().getRank());
}

LogicalResult LogSoftmaxGradOp::verify() {
  return verifyAxisInRange(*this, getAxis(), getType().getRank());
}

//===----------------------------------------------------------------------===//
// Attention and loss
//===----------------------------------------------------------------------===//

LogicalResult AttentionGradOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  RankedTensorType q = rankedType(adaptor.getQuery());
  RankedTensorType k = rankedType(adaptor.getKey());
  RankedTensorType v = rankedType(adaptor.getValue());
  RankedTensorType dy = rankedType(adaptor.getResultGrad());
  int64_t rank = q.getRank();
  if (rank < 2 || k.getRank() != rank || v.getRank() != rank)
    return emitOptionalError(loc, "'hetg.attention_grad' query, key and value "
                                  "must have one rank >= 2");
  ArrayRef<int64_t> lead = q.getShape().drop_back(2);
  if (!compatibleShapes(k.getShape().drop_back(2), lead) ||
      !compatibleShapes(v.getShape().drop_back(2), lead))
    return emitOptionalError(loc, "'hetg.attention_grad' query, key and value "
                                  "must have the same leading dimensions");
  if (!compatibleShapes(q.getShape().take_back(), k.getShape().take_back()) ||
      !compatibleShapes(k.getShape().slice(rank - 2, 1),
                        v.getShape().slice(rank - 2, 1)))
    return emitOptionalError(loc, "'hetg.attention_grad' query and key head "
                                  "sizes or key and value lengths differ");
  Shape output(q.getShape().drop_back());
  output.push_back(v.getShape().back());
  if (!compatibleShapes(dy.getShape(), output) ||
      dy.getElementType() != q.getElementType())
    return emitOptionalError(loc,
                             "'hetg.attention_grad' result gradient has "
                             "type ",
                             dy, " but the attention result is ",
                             formatShape(output), " of ", q.getElementType());
  types.append({q, k, v});
  return success();
}

LogicalResult
CrossEntropyGradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                     Adaptor adaptor,
                                     SmallVectorImpl<Type> &types) {
  RankedTensorType logits = rankedType(adaptor.getLogits());
  RankedTensorType labels = rankedType(adaptor.getLabels());
  RankedTensorType lossGrad = rankedType(adaptor.getLossGrad());
  if (logits.getRank() < 2 || labels.getRank() != logits.getRank() - 1)
    return emitOptionalError(loc, "'hetg.cross_entropy_grad' needs logits "
                                  "[N, C, d...] and labels [N, d...]");
  Shape tokens{logits.getDimSize(0)};
  llvm::append_range(tokens, logits.getShape().drop_front(2));
  if (!compatibleShapes(labels.getShape(), tokens))
    return emitOptionalError(loc, "'hetg.cross_entropy_grad' labels ",
                             formatShape(labels.getShape()),
                             " do not match logits ",
                             formatShape(logits.getShape()));
  bool perToken = adaptor.getReduction() == LossReduction::none;
  if (!compatibleShapes(lossGrad.getShape(), perToken
                                                 ? ArrayRef<int64_t>(tokens)
                                                 : ArrayRef<int64_t>()) ||
      lossGrad.getElementType() !=
          crossEntropyLossType(logits.getElementType()))
    return emitOptionalError(loc,
                             "'hetg.cross_entropy_grad' loss gradient "
                             "must have the loss's type: ",
                             perToken ? "one value per label" : "0-D", " of ",
                             crossEntropyLossType(logits.getElementType()));
  types.push_back(logits);
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult GatherGradOp::verify() {
  RankedTensorType data = getType(), dy = getResultGrad().getType();
  if (!data.hasStaticShape())
    return emitOpError("needs a static result (data) shape");
  std::optional<int64_t> axis = normalizeAxis(getAxis(), data.getRank());
  if (!axis)
    return emitOpError("axis ")
           << getAxis() << " is out of range for rank " << data.getRank();
  Shape expected(data.getShape().take_front(*axis));
  llvm::append_range(expected, getIndices().getType().getShape());
  llvm::append_range(expected, data.getShape().drop_front(*axis + 1));
  if (!compatibleShapes(dy.getShape(), expected) ||
      dy.getElementType() != data.getElementType())
    return emitOpError("result gradient has type ")
           << dy << " but gathering from " << data << " gives "
           << formatShape(expected);
  return success();
}

LogicalResult AttentionGradOp::verify() {
  if (!getOutput() != !getLse())
    return emitOpError("reads the forward's result and lse together");
  if (!getOutput())
    return success();
  if (getOutput().getType() != getResultGrad().getType())
    return emitOpError("forward result ")
           << getOutput().getType() << " differs from the result gradient "
           << getResultGrad().getType();
  auto lse = llvm::cast<RankedTensorType>(getLse().getType());
  if (!compatibleShapes(lse.getShape(),
                        getQuery().getType().getShape().drop_back()))
    return emitOpError("lse ") << lse << " must have the query's shape "
                               << "without its last dimension";
  return success();
}

LogicalResult SliceGradOp::verify() {
  RankedTensorType input = getType(), dy = getResultGrad().getType();
  ArrayRef<int64_t> starts = getStarts(), ends = getEnds(), steps = getSteps();
  if (!input.hasStaticShape())
    return emitOpError("needs a static result (input) shape");
  if (int64_t(starts.size()) != input.getRank() ||
      ends.size() != starts.size() || steps.size() != starts.size())
    return emitOpError("needs one start, end and step per dimension (")
           << input.getRank() << ")";
  Shape sliced;
  for (int64_t d = 0; d < input.getRank(); ++d) {
    if (steps[d] <= 0)
      return emitOpError("steps must be positive, got ")
             << steps[d] << " for dimension " << d;
    sliced.push_back(
        slicedSize(input.getDimSize(d), starts[d], ends[d], steps[d]));
  }
  if (!compatibleShapes(dy.getShape(), sliced) ||
      dy.getElementType() != input.getElementType())
    return emitOpError("result gradient has type ")
           << dy << " but slicing " << input << " gives "
           << formatShape(sliced);
  return success();
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

LogicalResult SgdOp::verify() {
  if (getLr().isNegative() || getWeightDecay().isNegative())
    return emitOpError("needs lr >= 0 and weight_decay >= 0");
  return success();
}

LogicalResult AdamWOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  types.assign(3, adaptor.getParam().getType());
  return success();
}

LogicalResult AdamWOp::verify() {
  double beta1 = getBeta1().convertToDouble();
  double beta2 = getBeta2().convertToDouble();
  if (getLr().isNegative() || getEps().isNegative() ||
      getWeightDecay().isNegative())
    return emitOpError("needs lr, eps and weight_decay >= 0");
  if (!(beta1 >= 0.0 && beta1 < 1.0) || !(beta2 >= 0.0 && beta2 < 1.0))
    return emitOpError("needs betas in [0, 1), got ")
           << beta1 << " and " << beta2;
  return success();
}

LogicalResult LrScheduleOp::verify() {
  int64_t warmup = getWarmupSteps(), decay = getDecaySteps();
  if (warmup < 0 || getMinFactor().isNegative())
    return emitOpError("needs warmup_steps >= 0 and min_factor >= 0");
  if (getKind() != LrScheduleKind::constant && decay <= warmup)
    return emitOpError("a ")
           << stringifyLrScheduleKind(getKind())
           << " schedule needs decay_steps > warmup_steps, got " << decay
           << " and " << warmup;
  return success();
}

LogicalResult GlobalNormOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "'hetg.global_norm' needs at least one "
                                  "input");
  Type element = rankedType(adaptor.getInputs().front()).getElementType();
  for (Value input : adaptor.getInputs())
    if (rankedType(input).getElementType() != element)
      return emitOptionalError(loc, "'hetg.global_norm' inputs have different "
                                    "element types");
  types.push_back(RankedTensorType::get({}, element));
  return success();
}
