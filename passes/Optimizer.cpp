//===- Optimizer.cpp - parameter updates from the returned gradients ------===//
//
// Turns the loss-and-gradients function of hetg-autodiff into a training
// step: parameters and optimizer state live in mutable globals, the step
// reads them, computes the update with torch.optim semantics and stores
// them back. Everything stays value-semantic up to the final stores, so the
// partitioner can still see which update belongs to which parameter.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "passes/LossScaling.h"
#include "passes/ParameterUpdate.h"

namespace hetc {
#define GEN_PASS_DEF_HETGOPTIMIZER
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using namespace hetc::hetg;
namespace mlp = mlir::ml_program;

namespace {

/// One gradient result of the training function.
struct Trained {
  mlp::GlobalOp global;
  Value grad;
};

/// The training function's gradients, checked: the loss first, then only
/// gradients of distinct float globals of the gradient's type.
FailureOr<SmallVector<Trained>> trainedParameters(func::FuncOp func,
                                                  SymbolTable &symbols) {
  Operation *terminator = func.getBody().front().getTerminator();
  SmallVector<Trained> trained;
  DenseSet<Operation *> seen;
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    auto ref = func.getResultAttrOfType<FlatSymbolRefAttr>(i, kGradientOfAttr);
    if (i == 0) {
      auto type = llvm::dyn_cast<RankedTensorType>(func.getResultTypes()[0]);
      if (ref || !type || type.getRank() != 0)
        return func.emitError("hetg-optimizer needs the loss (0-D) as the "
                              "first result");
      continue;
    }
    if (!ref)
      return func.emitError("result #")
             << i << " is not a gradient (hetg.gradient_of); "
             << "hetg-optimizer expects the loss followed by gradients";
    auto global = symbols.lookup<mlp::GlobalOp>(ref.getValue());
    if (!global || global.getType() != func.getResultTypes()[i] ||
        !seen.insert(global).second)
      return func.emitError("result #")
             << i << " is not the only gradient of a global " << ref
             << " of its type";
    trained.push_back({global, terminator->getOperand(i)});
  }
  return trained;
}

/// The value of `global` at the start of the step: an existing load in
/// `func`, or a new one before `terminator`.
Value loadParameter(OpBuilder &builder, func::FuncOp func,
                    mlp::GlobalOp global) {
  Value found;
  func.walk([&](mlp::GlobalLoadOp load) {
    if (!found &&
        load.getGlobal().getRootReference() == global.getSymNameAttr())
      found = load.getResult();
  });
  if (found)
    return found;
  return mlp::GlobalLoadOp::create(builder, global.getLoc(), global.getType(),
                                   FlatSymbolRefAttr::get(global));
}

/// The global norm of the gradients (0-D), which clipping and loss scaling
/// read.
FailureOr<Value> globalNorm(OpBuilder &builder, Location loc,
                            ArrayRef<Value> grads) {
  Type element =
      llvm::cast<RankedTensorType>(grads[0].getType()).getElementType();
  for (Value grad : grads)
    if (llvm::cast<RankedTensorType>(grad.getType()).getElementType() !=
        element)
      return emitError(loc, "clipping and loss scaling need gradients of one "
                            "element type");
  return Value(GlobalNormOp::create(builder, loc,
                                    RankedTensorType::get({}, element), grads));
}

LogicalResult buildStep(func::FuncOp func, ModuleOp module,
                        const OptimizerSettings &settings) {
  SymbolTable symbols(module);
  FailureOr<SmallVector<Trained>> trained = trainedParameters(func, symbols);
  if (failed(trained))
    return failure();
  SmallVector<mlp::GlobalOp> owners;
  for (const Trained &t : *trained)
    owners.push_back(t.global);
  makeParametersMutable(module, owners);

  MLIRContext *context = func.getContext();
  Operation *terminator = func.getBody().front().getTerminator();
  Location loc = terminator->getLoc();
  OpBuilder builder(terminator);
  FailureOr<std::optional<LossScaler>> scaler = LossScaler::find(module);
  if (failed(scaler))
    return failure();
  SmallVector<Value> grads;
  for (const Trained &t : *trained)
    grads.push_back(t.grad);
  // The gradients of a scaled loss are scaled too.
  Value scale;
  if (*scaler && !grads.empty()) {
    scale = (*scaler)->buildScale(builder, loc);
    Value inverse = ReciprocalOp::create(builder, loc, scale);
    for (Value &grad : grads)
      grad = MulOp::create(builder, loc, grad, inverse);
  }
  Value norm;
  if ((settings.clipNorm > 0.0 || scale) && !grads.empty()) {
    FailureOr<Value> computed = globalNorm(builder, loc, grads);
    if (failed(computed))
      return failure();
    norm = *computed;
  }
  if (settings.clipNorm > 0.0 && norm) {
    Value coefficient =
        buildClipCoefficient(builder, loc, norm, settings.clipNorm);
    for (Value &grad : grads)
      grad = MulOp::create(builder, loc, grad, coefficient);
  }

  ParameterUpdateBuilder updates(module, builder, loc, settings);
  if (failed(updates.beginStep(func)))
    return failure();
  // An overflow in the scaled gradients skips the step.
  Value finite = scale ? buildIsFinite(builder, loc, norm) : Value();
  if (finite)
    updates.skipUnless(finite);
  // Stores come last, after every load of the step.
  SmallVector<std::pair<mlp::GlobalOp, Value>> stores;
  for (auto [t, grad] : llvm::zip(*trained, grads)) {
    FailureOr<Value> updated = updates.update(
        t.global, "", loadParameter(builder, func, t.global), grad);
    if (failed(updated))
      return failure();
    stores.push_back({t.global, updates.guarded(t.global, *updated)});
  }
  for (auto [global, value] : stores)
    mlp::GlobalStoreOp::create(builder, loc, FlatSymbolRefAttr::get(global),
                               value);
  updates.storeState();
  if (scale)
    (*scaler)->buildUpdate(builder, loc, scale, finite);

  // The step returns only the loss.
  DictionaryAttr lossAttrs = func.getResultAttrDict(0);
  Value loss = terminator->getOperand(0);
  terminator->setOperands(loss);
  func.setType(
      FunctionType::get(context, func.getArgumentTypes(), {loss.getType()}));
  func.setAllResultAttrs(ArrayRef<DictionaryAttr>{lossAttrs});
  return success();
}

struct HetgOptimizerPass : hetc::impl::HetgOptimizerBase<HetgOptimizerPass> {
  using HetgOptimizerBase::HetgOptimizerBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<OptimizerSettings> settings = OptimizerSettings::parse(
        module, optimizer, lrSchedule,
        {true, lr, weightDecay, beta1, beta2, eps, clipNorm, {}, warmupSteps,
         decaySteps, minLr});
    if (failed(settings))
      return signalPassFailure();
    SmallVector<func::FuncOp> steps;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() &&
          llvm::any_of(llvm::seq(func.getNumResults()), [&](unsigned i) {
            return func.getResultAttr(i, kGradientOfAttr);
          }))
        steps.push_back(func);
    if (steps.empty()) {
      module.emitError("no function returns gradients (hetg.gradient_of); "
                       "run hetg-autodiff first");
      return signalPassFailure();
    }
    if (steps.size() > 1) {
      steps[1].emitError("hetg-optimizer updates the parameters of one "
                         "training function; @")
          << steps[0].getName() << " also returns gradients";
      return signalPassFailure();
    }
    if (failed(buildStep(steps.front(), module, *settings)))
      signalPassFailure();
  }
};

} // namespace
