//===- ParameterUpdate.cpp - optimizer updates of parameters --------------===//

#include "passes/ParameterUpdate.h"

#include "dialects/HetGraph/Gradients/GradientBuilders.h"
#include "dialects/HetDist/HetDist.h"
#include "dialects/HetGraph/HetGraph.h"

using namespace mlir;
namespace mlp = mlir::ml_program;

namespace hetc {

namespace {
constexpr StringLiteral kStepGlobal = "optimizer.step";
/// torch.nn.utils.clip_grad_norm_ adds this to the norm before dividing.
constexpr double kClipEpsilon = 1e-6;
} // namespace

FailureOr<OptimizerSettings>
OptimizerSettings::parse(Operation *anchor, StringRef optimizer,
                         StringRef schedule, OptimizerSettings settings) {
  if (optimizer != "adamw" && optimizer != "sgd")
    return anchor->emitError("unknown optimizer '")
           << optimizer << "'; expected adamw or sgd";
  settings.adamw = optimizer == "adamw";
  std::optional<hetg::LrScheduleKind> kind =
      hetg::symbolizeLrScheduleKind(schedule);
  if (!kind)
    return anchor->emitError("unknown learning-rate schedule '")
           << schedule << "'; expected constant, cosine or linear";
  settings.lrSchedule = *kind;
  if (settings.lr < 0.0 || settings.weightDecay < 0.0 || settings.eps < 0.0 ||
      settings.clipNorm < 0.0 ||
      !(settings.beta1 >= 0.0 && settings.beta1 < 1.0) ||
      !(settings.beta2 >= 0.0 && settings.beta2 < 1.0))
    return anchor->emitError("the optimizer needs lr, weight-decay, eps and "
                             "clip-norm >= 0 and betas in [0, 1)");
  if (settings.warmupSteps < 0 || settings.minLr < 0.0)
    return anchor->emitError("the schedule needs warmup-steps >= 0 and "
                             "min-lr >= 0");
  bool decays = *kind != hetg::LrScheduleKind::constant;
  if (decays && settings.decaySteps <= settings.warmupSteps)
    return anchor->emitError("a ")
           << schedule << " schedule needs decay-steps > warmup-steps, got "
           << settings.decaySteps << " and " << settings.warmupSteps;
  if (decays && settings.minLr > settings.lr)
    return anchor->emitError("min-lr ")
           << settings.minLr << " exceeds lr " << settings.lr;
  if (!decays && (settings.decaySteps != 0 || settings.minLr != 0.0))
    return anchor->emitError("decay-steps and min-lr need a cosine or "
                             "linear schedule");
  return settings;
}

ParameterUpdateBuilder::ParameterUpdateBuilder(ModuleOp module,
                                               OpBuilder &builder,
                                               Location loc,
                                               const OptimizerSettings &settings)
    : module(module), builder(builder), loc(loc), settings(settings),
      symbols(module) {}

FailureOr<mlp::GlobalOp> ParameterUpdateBuilder::createStateGlobal(
    Operation *after, StringRef name, RankedTensorType type, Attribute owner) {
  if (auto existing = symbols.lookup<mlp::GlobalOp>(name)) {
    // Another function of the module (another rank) updates the same state.
    if (existing.getType() == type && existing.getIsMutable())
      return existing;
    return after->emitError("cannot create optimizer state @")
           << name << ": the name is taken";
  }
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
    global->setAttr(hetg::kStateOfAttr, owner);
  symbols.insert(global);
  return global;
}

LogicalResult ParameterUpdateBuilder::beginStep(func::FuncOp func) {
  if (settings.scheduled()) {
    // The runtime writes the step's 0-based index into this argument.
    auto indexType = RankedTensorType::get({}, builder.getI64Type());
    unsigned index = func.getNumArguments();
    NamedAttribute attrs[] = {
        builder.getNamedAttr(hetg::kNameAttr, builder.getStringAttr("step")),
        builder.getNamedAttr(hetg::kStepIndexAttr, builder.getUnitAttr())};
    if (failed(func.insertArgument(index, indexType,
                                   builder.getDictionaryAttr(attrs), loc)))
      return failure();
    // A zero lr makes the factor irrelevant, and min_lr / lr undefined.
    double minFactor = settings.lr > 0.0 ? settings.minLr / settings.lr : 0.0;
    lrFactor = hetg::LrScheduleOp::create(
        builder, loc, func.getArgument(index),
        hetg::LrScheduleKindAttr::get(builder.getContext(),
                                      settings.lrSchedule),
        builder.getI64IntegerAttr(settings.warmupSteps),
        builder.getI64IntegerAttr(settings.decaySteps),
        builder.getF64FloatAttr(minFactor));
  }
  if (!settings.adamw)
    return success();
  auto stepType = RankedTensorType::get({}, builder.getI64Type());
  // The counter goes after the last global, before the functions.
  Operation *lastGlobal = nullptr;
  for (auto global : module.getOps<mlp::GlobalOp>())
    lastGlobal = global;
  FailureOr<mlp::GlobalOp> counter = createStateGlobal(
      lastGlobal ? lastGlobal : &module.getBody()->front(), kStepGlobal,
      stepType, Attribute());
  if (failed(counter))
    return failure();
  Value previous = mlp::GlobalLoadOp::create(builder, loc, stepType,
                                             FlatSymbolRefAttr::get(*counter));
  Value one = hetg::ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(stepType, builder.getI64IntegerAttr(1)));
  step = hetg::AddOp::create(builder, loc, previous, one);
  counterGlobal = *counter;
  return success();
}

Value ParameterUpdateBuilder::onHost(Value value) {
  if (!value)
    return value;
  Value &copy = hostCopies[value];
  if (!copy)
    copy = hetd::ToHostOp::create(builder, loc, value.getType(), value);
  return copy;
}

FailureOr<Value> ParameterUpdateBuilder::update(mlp::GlobalOp owner,
                                                StringRef piece, Value param,
                                                Value grad, bool offload) {
  auto ownerType = llvm::cast<RankedTensorType>(owner.getType());
  double decay = ownerType.getRank() >= 2 ? settings.weightDecay : 0.0;
  if (!settings.adamw)
    return Value(hetg::SgdOp::create(builder, loc, param, grad, lrFactor,
                                     builder.getF64FloatAttr(settings.lr),
                                     builder.getF64FloatAttr(decay)));
  if (!step)
    return owner.emitError("the AdamW step counter was not started");
  auto type = llvm::cast<RankedTensorType>(param.getType());
  Attribute ownerRef = FlatSymbolRefAttr::get(owner);
  FailureOr<mlp::GlobalOp> m = createStateGlobal(
      owner, (owner.getSymName() + ".adam_m" + piece).str(), type, ownerRef);
  if (failed(m))
    return failure();
  FailureOr<mlp::GlobalOp> v = createStateGlobal(
      *m, (owner.getSymName() + ".adam_v" + piece).str(), type, ownerRef);
  if (failed(v))
    return failure();
  Value mValue =
      mlp::GlobalLoadOp::create(builder, loc, type, FlatSymbolRefAttr::get(*m));
  Value vValue =
      mlp::GlobalLoadOp::create(builder, loc, type, FlatSymbolRefAttr::get(*v));
  Value stepValue = step, factor = lrFactor;
  if (offload) {
    param = onHost(param);
    grad = onHost(grad);
    stepValue = onHost(step);
    factor = onHost(lrFactor);
  }
  auto adamw = hetg::AdamWOp::create(
      builder, loc, param, grad, mValue, vValue, stepValue, factor,
      builder.getF64FloatAttr(settings.lr),
      builder.getF64FloatAttr(settings.beta1),
      builder.getF64FloatAttr(settings.beta2),
      builder.getF64FloatAttr(settings.eps), builder.getF64FloatAttr(decay));
  for (mlp::GlobalOp state : {*m, *v}) {
    if (!piece.empty())
      state->setAttr(hetd::kWholeShapeAttr,
                     builder.getDenseI64ArrayAttr(ownerType.getShape()));
    if (offload)
      state->setAttr(hetd::kHostAttr, builder.getUnitAttr());
  }
  stateStores.push_back({*m, adamw.getNewExpAvg()});
  stateStores.push_back({*v, adamw.getNewExpAvgSq()});
  if (offload)
    return Value(hetd::ToDeviceOp::create(builder, loc, param.getType(),
                                          adamw.getNewParam()));
  return adamw.getNewParam();
}

Value ParameterUpdateBuilder::guarded(mlp::GlobalOp global, Value updated) {
  if (!finite)
    return updated;
  Value old = mlp::GlobalLoadOp::create(builder, loc, global.getType(),
                                        FlatSymbolRefAttr::get(global));
  Value condition = global->hasAttr(hetd::kHostAttr) ? onHost(finite) : finite;
  return hetg::WhereOp::create(builder, loc, condition, updated, old);
}

void ParameterUpdateBuilder::storeState() {
  if (step)
    stateStores.push_back({counterGlobal, step});
  // Every old value is read before the first store.
  for (auto &[global, value] : stateStores)
    value = guarded(global, value);
  for (auto [global, value] : stateStores)
    mlp::GlobalStoreOp::create(builder, loc, FlatSymbolRefAttr::get(global),
                               value);
  stateStores.clear();
}

Value buildClipCoefficient(OpBuilder &builder, Location loc, Value norm,
                           double maxNorm) {
  Type element = llvm::cast<RankedTensorType>(norm.getType()).getElementType();
  Value denominator = hetg::AddOp::create(
      builder, loc, norm,
      hetg::buildScalar(builder, loc, element, kClipEpsilon));
  Value ratio = hetg::DivOp::create(
      builder, loc, hetg::buildScalar(builder, loc, element, maxNorm),
      denominator);
  return hetg::MinimumOp::create(builder, loc, ratio,
                                 hetg::buildScalar(builder, loc, element, 1.0));
}

void makeParametersMutable(ModuleOp module,
                           ArrayRef<mlp::GlobalOp> owners) {
  DenseSet<StringAttr> names;
  for (mlp::GlobalOp global : owners) {
    global.setIsMutable(true);
    names.insert(global.getSymNameAttr());
  }
  SmallVector<mlp::GlobalLoadConstOp> loads;
  module.walk([&](mlp::GlobalLoadConstOp load) {
    if (names.contains(load.getGlobal().getRootReference()))
      loads.push_back(load);
  });
  OpBuilder builder(module.getContext());
  for (mlp::GlobalLoadConstOp load : loads) {
    builder.setInsertionPoint(load);
    Value replacement = mlp::GlobalLoadOp::create(
        builder, load.getLoc(), load.getType(), load.getGlobal());
    load.replaceAllUsesWith(replacement);
    load.erase();
  }
}

} // namespace hetc
