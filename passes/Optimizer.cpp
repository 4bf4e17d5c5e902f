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

#include "dialects/HetGraph/Gradients/GradientBuilders.h"

namespace hetc {
#define GEN_PASS_DEF_HETGOPTIMIZER
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using namespace hetc::hetg;
namespace mlp = mlir::ml_program;

namespace {

constexpr StringLiteral kGradientOfAttr = "hetg.gradient_of";
constexpr StringLiteral kStateOfAttr = "hetg.state_of";
constexpr StringLiteral kStepGlobal = "optimizer.step";
/// torch.nn.utils.clip_grad_norm_ adds this to the norm before dividing.
constexpr double kClipEpsilon = 1e-6;

struct Hyperparameters {
  bool adamw;
  double lr, weightDecay, beta1, beta2, eps, clipNorm;
};

/// One gradient result of the training function.
struct Trained {
  mlp::GlobalOp global;
  Value grad;
};

/// Creates a zero-initialized mutable global `name` next to `after`.
FailureOr<mlp::GlobalOp>
createStateGlobal(OpBuilder &builder, SymbolTable &symbols, Operation *after,
                  StringRef name, RankedTensorType type, Attribute owner) {
  if (symbols.lookup(name))
    return after->emitError("cannot create optimizer state @")
           << name << ": the name is taken";
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointAfter(after);
  Attribute zero =
      llvm::isa<FloatType>(type.getElementType())
          ? Attribute(builder.getFloatAttr(type.getElementType(), 0.0))
          : Attribute(builder.getIntegerAttr(type.getElementType(), 0));
  auto global = mlp::GlobalOp::create(
      builder, after->getLoc(), name, type, /*is_mutable=*/true,
      DenseElementsAttr::get(type, zero), builder.getStringAttr("private"));
  if (owner)
    global->setAttr(kStateOfAttr, owner);
  symbols.insert(global);
  return global;
}

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

/// Scales every gradient by min(1, max_norm / (norm + 1e-6)).
FailureOr<SmallVector<Value>> clipGradients(OpBuilder &builder, Location loc,
                                            ArrayRef<Trained> trained,
                                            double maxNorm) {
  SmallVector<Value> grads;
  for (const Trained &t : trained)
    grads.push_back(t.grad);
  if (grads.empty())
    return grads;
  Type element =
      llvm::cast<RankedTensorType>(grads[0].getType()).getElementType();
  for (Value grad : grads)
    if (llvm::cast<RankedTensorType>(grad.getType()).getElementType() !=
        element)
      return emitError(loc, "clipping needs gradients of one element type");
  Value norm = GlobalNormOp::create(builder, loc,
                                    RankedTensorType::get({}, element), grads);
  Value denominator = AddOp::create(
      builder, loc, norm, buildScalar(builder, loc, element, kClipEpsilon));
  Value ratio = DivOp::create(
      builder, loc, buildScalar(builder, loc, element, maxNorm), denominator);
  Value coefficient = MinimumOp::create(
      builder, loc, ratio, buildScalar(builder, loc, element, 1.0));
  for (Value &grad : grads)
    grad = MulOp::create(builder, loc, grad, coefficient);
  return grads;
}

LogicalResult buildStep(func::FuncOp func, ModuleOp module,
                        const Hyperparameters &h) {
  SymbolTable symbols(module);
  FailureOr<SmallVector<Trained>> trained = trainedParameters(func, symbols);
  if (failed(trained))
    return failure();
  MLIRContext *context = func.getContext();
  OpBuilder builder(context);

  // Parameters become mutable; every constant load of one becomes a load.
  for (Trained &t : *trained) {
    t.global.setIsMutable(true);
    SmallVector<mlp::GlobalLoadConstOp> loads;
    module.walk([&](mlp::GlobalLoadConstOp load) {
      if (load.getGlobal().getRootReference() == t.global.getSymNameAttr())
        loads.push_back(load);
    });
    for (mlp::GlobalLoadConstOp load : loads) {
      builder.setInsertionPoint(load);
      Value replacement = mlp::GlobalLoadOp::create(
          builder, load.getLoc(), load.getType(), load.getGlobal());
      load.replaceAllUsesWith(replacement);
      load.erase();
    }
  }

  Operation *terminator = func.getBody().front().getTerminator();
  Location loc = terminator->getLoc();
  builder.setInsertionPoint(terminator);
  SmallVector<Value> grads;
  if (h.clipNorm > 0.0) {
    FailureOr<SmallVector<Value>> clipped =
        clipGradients(builder, loc, *trained, h.clipNorm);
    if (failed(clipped))
      return failure();
    grads = *clipped;
  } else {
    for (const Trained &t : *trained)
      grads.push_back(t.grad);
  }

  Value step;
  if (h.adamw) {
    auto stepType = RankedTensorType::get({}, builder.getI64Type());
    // The counter goes after the last global, before the functions.
    Operation *lastGlobal = nullptr;
    for (auto global : module.getOps<mlp::GlobalOp>())
      lastGlobal = global;
    FailureOr<mlp::GlobalOp> counter = createStateGlobal(
        builder, symbols, lastGlobal ? lastGlobal : &module.getBody()->front(),
        kStepGlobal, stepType, Attribute());
    if (failed(counter))
      return failure();
    Value previous = mlp::GlobalLoadOp::create(
        builder, loc, stepType, FlatSymbolRefAttr::get(*counter));
    Value one = ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(stepType, builder.getI64IntegerAttr(1)));
    step = AddOp::create(builder, loc, previous, one);
  }

  // Stores come last, after every load of the step.
  SmallVector<std::pair<mlp::GlobalOp, Value>> stores;
  for (auto [t, grad] : llvm::zip(*trained, grads)) {
    auto type = llvm::cast<RankedTensorType>(t.global.getType());
    double decay = type.getRank() >= 2 ? h.weightDecay : 0.0;
    Value param = loadParameter(builder, func, t.global);
    if (!h.adamw) {
      stores.push_back(
          {t.global, SgdOp::create(builder, loc, param, grad,
                                   builder.getF64FloatAttr(h.lr),
                                   builder.getF64FloatAttr(decay))});
      continue;
    }
    Attribute owner = FlatSymbolRefAttr::get(t.global);
    FailureOr<mlp::GlobalOp> m = createStateGlobal(
        builder, symbols, t.global, (t.global.getSymName() + ".adam_m").str(),
        type, owner);
    if (failed(m))
      return failure();
    FailureOr<mlp::GlobalOp> v = createStateGlobal(
        builder, symbols, *m, (t.global.getSymName() + ".adam_v").str(), type,
        owner);
    if (failed(v))
      return failure();
    Value mValue = mlp::GlobalLoadOp::create(builder, loc, type,
                                             FlatSymbolRefAttr::get(*m));
    Value vValue = mlp::GlobalLoadOp::create(builder, loc, type,
                                             FlatSymbolRefAttr::get(*v));
    auto update = AdamWOp::create(
        builder, loc, param, grad, mValue, vValue, step,
        builder.getF64FloatAttr(h.lr), builder.getF64FloatAttr(h.beta1),
        builder.getF64FloatAttr(h.beta2), builder.getF64FloatAttr(h.eps),
        builder.getF64FloatAttr(decay));
    stores.push_back({t.global, update.getNewParam()});
    stores.push_back({*m, update.getNewExpAvg()});
    stores.push_back({*v, update.getNewExpAvgSq()});
  }
  if (step)
    stores.push_back({symbols.lookup<mlp::GlobalOp>(kStepGlobal), step});
  for (auto [global, value] : stores)
    mlp::GlobalStoreOp::create(builder, loc, FlatSymbolRefAttr::get(global),
                               value);

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
    if (optimizer != "adamw" && optimizer != "sgd") {
      module.emitError("unknown optimizer '")
          << optimizer << "'; expected adamw or sgd";
      return signalPassFailure();
    }
    if (lr < 0.0 || weightDecay < 0.0 || eps < 0.0 || clipNorm < 0.0 ||
        !(beta1 >= 0.0 && beta1 < 1.0) || !(beta2 >= 0.0 && beta2 < 1.0)) {
      module.emitError("hetg-optimizer needs lr, weight-decay, eps and "
                       "clip-norm >= 0 and betas in [0, 1)");
      return signalPassFailure();
    }
    Hyperparameters h{
        optimizer == "adamw", lr, weightDecay, beta1, beta2, eps, clipNorm};
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
    if (failed(buildStep(steps.front(), module, h)))
      signalPassFailure();
  }
};

} // namespace
