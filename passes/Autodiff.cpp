//===- Autodiff.cpp - reverse-mode gradients of the loss ------------------===//
//
// Training graphs are straight-line hetg code in one block, so reverse mode
// is one backward sweep: each op between the parameters and the loss builds
// its operand gradients from its result gradients, and gradients meeting at
// one value are summed. An activity analysis first marks the values that
// both depend on a parameter and lead to the loss; nothing is built for any
// other value.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/HetGraph/Gradients/GradientBuilders.h"
#include "passes/LossScaling.h"

#include "llvm/ADT/MapVector.h"

namespace hetc {
#define GEN_PASS_DEF_HETGAUTODIFF
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using namespace hetc::hetg;

namespace {


bool isFloatTensor(Type type) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  return tensor && llvm::isa<FloatType>(tensor.getElementType());
}

/// Records the ops a builder creates, so that unused ones can be erased.
struct CreatedOps : OpBuilder::Listener {
  SmallVector<Operation *> ops;
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    ops.push_back(op);
  }
};

/// The trainable parameters of a function: its float globals read with
/// global_load_const, in module order, with their loads.
using Parameters = llvm::MapVector<ml_program::GlobalOp,
                                   SmallVector<ml_program::GlobalLoadConstOp>>;

Parameters collectParameters(func::FuncOp func, ModuleOp module) {
  SymbolTable symbols(module);
  DenseMap<ml_program::GlobalOp, SmallVector<ml_program::GlobalLoadConstOp>>
      loads;
  func.walk([&](ml_program::GlobalLoadConstOp load) {
    auto global = symbols.lookup<ml_program::GlobalOp>(
        load.getGlobal().getRootReference());
    if (global && load.getGlobal().getNestedReferences().empty() &&
        isFloatTensor(load.getType()))
      loads[global].push_back(load);
  });
  Parameters parameters;
  for (auto global : module.getOps<ml_program::GlobalOp>())
    if (auto it = loads.find(global); it != loads.end())
      parameters.insert({global, it->second});
  return parameters;
}

/// Values whose gradient is needed: float values that depend on a parameter
/// and that the loss depends on.
DenseSet<Value> activeValues(Block &block, const Parameters &parameters,
                             Value loss) {
  DenseSet<Value> varied, useful;
  for (const auto &entry : parameters)
    for (ml_program::GlobalLoadConstOp load : entry.second)
      varied.insert(load.getResult());
  for (Operation &op : block) {
    if (!llvm::any_of(op.getOperands(),
                      [&](Value v) { return varied.contains(v); }))
      continue;
    for (Value result : op.getResults())
      if (isFloatTensor(result.getType()))
        varied.insert(result);
  }
  useful.insert(loss);
  for (Operation &op : llvm::reverse(block))
    if (llvm::any_of(op.getResults(),
                     [&](Value v) { return useful.contains(v); }))
      useful.insert(op.getOperands().begin(), op.getOperands().end());
  DenseSet<Value> active;
  for (Value v : varied)
    if (useful.contains(v))
      active.insert(v);
  return active;
}

/// Marks the ops created from index `first` on as the backward of segment
/// `segment` (hetg-segment's numbering), when there is one: the pipeline
/// partitioner puts them in that segment's stage.
void markBackwardOf(IntegerAttr segment, ArrayRef<Operation *> created,
                    size_t first) {
  if (!segment)
    return;
  for (Operation *op : created.drop_front(first))
    op->setAttr(kGradSegmentAttr, segment);
}

/// Adds `grad` to the gradient of `value`.
void accumulate(OpBuilder &builder, DenseMap<Value, Value> &grads, Value value,
                Value grad) {
  Value &slot = grads[value];
  slot = slot ? AddOp::create(builder, grad.getLoc(), slot, grad).getResult()
              : grad;
}

/// One backward step through `op`.
LogicalResult backpropagate(Operation *op, OpBuilder &builder,
                            const DenseSet<Value> &active,
                            DenseMap<Value, Value> &grads) {
  SmallVector<Value> resultGrads;
  for (Value result : op->getResults())
    resultGrads.push_back(grads.lookup(result));
  SmallVector<bool> needs;
  for (Value operand : op->getOperands())
    needs.push_back(active.contains(operand));
  if (llvm::all_of(resultGrads, [](Value g) { return !g; }) ||
      llvm::none_of(needs, [](bool n) { return n; }))
    return success();
  auto differentiable = llvm::dyn_cast<DifferentiableOpInterface>(op);
  if (!differentiable)
    return op->emitError("'")
           << op->getName() << "' is not differentiable, but the loss "
           << "depends through it on trainable parameters";
  SmallVector<Value> operandGrads;
  if (failed(differentiable.buildGradients(builder, resultGrads, needs,
                                           operandGrads)))
    return failure();
  if (operandGrads.size() != op->getNumOperands())
    return op->emitError("built ")
           << operandGrads.size() << " operand gradients for "
           << op->getNumOperands() << " operands";
  for (auto [operand, grad, need] :
       llvm::zip(op->getOperands(), operandGrads, needs)) {
    if (!grad || !need)
      continue;
    if (grad.getType() != operand.getType())
      return op->emitError("built a gradient of type ")
             << grad.getType() << " for an operand of type "
             << operand.getType();
    accumulate(builder, grads, operand, grad);
  }
  return success();
}

LogicalResult differentiate(func::FuncOp func, ModuleOp module) {
  if (!func.getBody().hasOneBlock())
    return func.emitError("hetg-autodiff needs a function with one block");
  Block &block = func.getBody().front();
  Operation *terminator = block.getTerminator();
  if (terminator->getNumOperands() != 1 ||
      !isFloatTensor(terminator->getOperand(0).getType()) ||
      llvm::cast<RankedTensorType>(terminator->getOperand(0).getType())
              .getRank() != 0)
    return func.emitError("hetg-autodiff needs @")
           << func.getName() << " to return one 0-D float loss; run "
           << "hetg-attach-loss on a model that returns logits";
  Value loss = terminator->getOperand(0);

  Parameters parameters = collectParameters(func, module);
  DenseSet<Value> active = activeValues(block, parameters, loss);

  CreatedOps created;
  OpBuilder builder(terminator);
  builder.setListener(&created);
  DenseMap<Value, Value> grads;
  auto lossType = llvm::cast<RankedTensorType>(loss.getType());
  grads[loss] = buildSplat(builder, loss.getLoc(), lossType, 1.0);
  // A scaled loss seeds the backward pass with its scale (f32 0-D).
  if (auto ref = func->getAttrOfType<FlatSymbolRefAttr>(kLossScaleAttr)) {
    FailureOr<LossScaler> scaler = LossScaler::lookup(module, ref, func);
    if (failed(scaler))
      return failure();
    Value scale = scaler->buildScale(builder, loss.getLoc());
    if (scale.getType() != lossType)
      scale = CastOp::create(builder, loss.getLoc(), scale,
                             lossType.getElementType());
    grads[loss] = scale;
  }
  auto segmentOf = [](Value value) {
    Operation *op = value.getDefiningOp();
    return op ? op->getAttrOfType<IntegerAttr>(kSegmentAttr) : IntegerAttr();
  };
  markBackwardOf(segmentOf(loss), created.ops, 0);
  // Walk the forward ops only: the ones built here come after them.
  SmallVector<Operation *> forward;
  for (Operation &op : block.without_terminator())
    forward.push_back(&op);
  for (Operation *op : llvm::reverse(forward)) {
    size_t first = created.ops.size();
    if (failed(backpropagate(op, builder, active, grads)))
      return failure();
    markBackwardOf(op->getAttrOfType<IntegerAttr>(kSegmentAttr), created.ops,
                   first);
  }

  SmallVector<Value> results{loss};
  SmallVector<DictionaryAttr> resultAttrs{func.getResultAttrDict(0)};
  MLIRContext *context = func.getContext();
  for (auto &[global, loads] : parameters) {
    Value total;
    for (ml_program::GlobalLoadConstOp load : loads) {
      Value grad = grads.lookup(load.getResult());
      if (!grad)
        continue;
      if (!total) {
        total = grad;
        continue;
      }
      size_t first = created.ops.size();
      total = AddOp::create(builder, load.getLoc(), total, grad);
      Operation *producer = grad.getDefiningOp();
      markBackwardOf(producer ? producer->getAttrOfType<IntegerAttr>(
                                    kGradSegmentAttr)
                              : IntegerAttr(),
                     created.ops, first);
    }
    if (!total) {
      global.emitWarning("the loss of @")
          << func.getName() << " does not depend on parameter @"
          << global.getSymName() << "; its gradient is zero";
      total = buildSplat(builder, global.getLoc(),
                         llvm::cast<RankedTensorType>(loads.front().getType()),
                         0.0);
    }
    results.push_back(total);
    resultAttrs.push_back(DictionaryAttr::get(
        context, {NamedAttribute(StringAttr::get(context, kGradientOfAttr),
                                 FlatSymbolRefAttr::get(global))}));
  }
  builder.setListener(nullptr);
  func::ReturnOp::create(builder, terminator->getLoc(), results);
  terminator->erase();
  func.setType(FunctionType::get(context, func.getArgumentTypes(),
                                 ValueRange(results).getTypes()));
  func.setAllResultAttrs(resultAttrs);

  // Ops built for gradients that nothing uses (e.g. the unused results of a
  // multi-result gradient op's neighbours) go away again.
  for (Operation *op : llvm::reverse(created.ops))
    if (op->use_empty() && isPure(op))
      op->erase();
  return success();
}

struct HetgAutodiffPass : hetc::impl::HetgAutodiffBase<HetgAutodiffPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && failed(differentiate(func, module)))
        return signalPassFailure();
  }
};

} // namespace
