//===- AttachLoss.cpp - append the token cross-entropy to a model ---------===//
//
// Exported language models return logits; training needs the loss. The
// mean over all B * T tokens matches the plan semantics: every replica
// scales its summed loss by 1 / (B * T), and stage gradients are sums.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

namespace hetc {
#define GEN_PASS_DEF_HETGATTACHLOSS
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using namespace hetc::hetg;

namespace {


bool isScalarFloat(Type type) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 0 &&
         llvm::isa<FloatType>(tensor.getElementType());
}

/// The argument named `name` by the importer, if any.
std::optional<unsigned> findNamedArgument(func::FuncOp func, StringRef name) {
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (auto attr = func.getArgAttrOfType<StringAttr>(i, kNameAttr))
      if (attr.getValue() == name)
        return i;
  return std::nullopt;
}

/// Attaches the loss; `tokens` > 0 divides the summed token loss by it
/// instead of by this function's own batch * seq (a micro-batch's share of
/// the mean over the global batch). `keepLogits` returns the logits after
/// the loss.
LogicalResult attachLoss(func::FuncOp func, int64_t tokens, bool keepLogits) {
  TypeRange results = func.getResultTypes();
  if (results.size() == 1 && isScalarFloat(results.front())) {
    // The model computes its own loss, a mean we cannot rescale safely.
    auto ids = findNamedArgument(func, "input_ids");
    auto idsType = ids ? llvm::dyn_cast<RankedTensorType>(
                             func.getArgument(*ids).getType())
                       : RankedTensorType();
    if (tokens > 0 && !(idsType && idsType.hasStaticShape() &&
                        idsType.getNumElements() == tokens))
      return func.emitError("@")
             << func.getName() << " computes its own loss, which cannot be "
             << "rescaled to a share of a mean over " << tokens
             << " tokens; export the model with logits as its output";
    return success();
  }
  if (results.size() != 1)
    return func.emitError("expected one result, logits [batch, seq, vocab] or "
                          "a scalar loss, but @")
           << func.getName() << " has " << results.size();
  auto logits = llvm::dyn_cast<RankedTensorType>(results.front());
  if (!logits || logits.getRank() != 3 ||
      !llvm::isa<FloatType>(logits.getElementType()))
    return func.emitError("expected logits of type tensor<BxTxVxf..> "
                          "(batch, seq, vocab), got ")
           << results.front();
  if (!logits.hasStaticShape())
    return func.emitError("logits have dynamic shape ")
           << logits << "; run hetg-specialize first";
  int64_t batch = logits.getDimSize(0), seq = logits.getDimSize(1),
          vocab = logits.getDimSize(2);
  if (std::optional<unsigned> ids = findNamedArgument(func, "input_ids")) {
    auto idsType =
        llvm::dyn_cast<RankedTensorType>(func.getArgument(*ids).getType());
    if (!idsType || idsType.getShape() != logits.getShape().take_front(2))
      return func.emitError("'input_ids' has type ")
             << func.getArgument(*ids).getType() << " but the logits are "
             << logits << "; expected [" << batch << ", " << seq << "]";
  }
  if (findNamedArgument(func, "labels"))
    return func.emitError("already has a 'labels' input but returns logits, "
                          "not a loss");

  MLIRContext *context = func.getContext();
  Operation *terminator = func.getBody().front().getTerminator();
  Location loc = terminator->getLoc();
  auto labelsType =
      RankedTensorType::get({batch, seq}, IntegerType::get(context, 64));
  auto labelsName = NamedAttribute(StringAttr::get(context, kNameAttr),
                                   StringAttr::get(context, "labels"));
  unsigned index = func.getNumArguments();
  if (failed(func.insertArgument(index, labelsType,
                                 DictionaryAttr::get(context, {labelsName}),
                                 func.getLoc())))
    return failure();

  OpBuilder builder(terminator);
  Value flatLogits =
      ReshapeOp::create(builder, loc, logits.clone({batch * seq, vocab}),
                        terminator->getOperand(0));
  Value flatLabels = ReshapeOp::create(
      builder, loc, labelsType.clone({batch * seq}), func.getArgument(index));
  Value loss;
  if (tokens > 0) {
    Value sum = CrossEntropyOp::create(builder, loc, flatLogits, flatLabels,
                                       LossReduction::sum, IntegerAttr());
    auto scalar = llvm::cast<RankedTensorType>(sum.getType());
    Value scale = ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(
            scalar, builder.getFloatAttr(scalar.getElementType(),
                                         1.0 / static_cast<double>(tokens))));
    loss = MulOp::create(builder, loc, sum, scale);
  } else {
    loss = CrossEntropyOp::create(builder, loc, flatLogits, flatLabels,
                                  LossReduction::mean, IntegerAttr());
  }
  DictionaryAttr logitsAttrs = func.getResultAttrDict(0);
  SmallVector<Value> returned = {loss};
  if (keepLogits)
    returned.push_back(terminator->getOperand(0));
  terminator->setOperands(returned);
  func.setType(FunctionType::get(context, func.getArgumentTypes(),
                                 ValueRange(returned).getTypes()));
  SmallVector<DictionaryAttr> resultAttrs = {DictionaryAttr::get(
      context, {NamedAttribute(StringAttr::get(context, kNameAttr),
                               StringAttr::get(context, "loss"))})};
  if (keepLogits)
    resultAttrs.push_back(logitsAttrs);
  func.setAllResultAttrs(resultAttrs);
  return success();
}

struct HetgAttachLossPass : hetc::impl::HetgAttachLossBase<HetgAttachLossPass> {
  using HetgAttachLossBase::HetgAttachLossBase;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(attachLoss(func, tokens, keepLogits)))
        return signalPassFailure();
  }
};

} // namespace
