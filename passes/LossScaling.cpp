//===- LossScaling.cpp - dynamic loss scaling for f16 training ------------===//

#include "passes/LossScaling.h"

#include "dialects/HetGraph/Gradients/GradientBuilders.h"
#include "dialects/HetGraph/HetGraph.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
namespace mlp = mlir::ml_program;

namespace hetc {

namespace {
constexpr StringLiteral kScaleGlobal = "loss_scale";
constexpr StringLiteral kGoodStepsSuffix = ".good_steps";

RankedTensorType scalarType(Type element) {
  return RankedTensorType::get({}, element);
}

Value i64Scalar(OpBuilder &builder, Location loc, int64_t value) {
  auto type = scalarType(builder.getI64Type());
  return hetg::ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(type, builder.getI64IntegerAttr(value)));
}

Value load(OpBuilder &builder, Location loc, mlp::GlobalOp global) {
  return mlp::GlobalLoadOp::create(builder, loc, global.getType(),
                                   FlatSymbolRefAttr::get(global));
}
} // namespace

FailureOr<LossScaler> LossScaler::fromGlobal(ModuleOp module,
                                             mlp::GlobalOp global) {
  auto dict = global->getAttrOfType<DictionaryAttr>(hetg::kLossScaleAttr);
  auto number = [&](StringRef name) -> std::optional<double> {
    if (auto attr = dict ? dict.getAs<FloatAttr>(name) : FloatAttr())
      return attr.getValueAsDouble();
    return std::nullopt;
  };
  auto interval = dict ? dict.getAs<IntegerAttr>("interval") : IntegerAttr();
  auto counter =
      dict ? dict.getAs<FlatSymbolRefAttr>("good_steps") : FlatSymbolRefAttr();
  auto goodSteps =
      counter
          ? SymbolTable::lookupNearestSymbolFrom<mlp::GlobalOp>(module, counter)
          : mlp::GlobalOp();
  auto f32 = scalarType(Float32Type::get(module.getContext()));
  auto i64 = scalarType(IntegerType::get(module.getContext(), 64));
  if (!dict || !number("initial") || !number("growth") || !number("backoff") ||
      !interval || !goodSteps || global.getType() != f32 ||
      goodSteps.getType() != i64 || !global.getIsMutable() ||
      !goodSteps.getIsMutable())
    return global.emitError("malformed loss scale: ")
           << hetg::kLossScaleAttr
           << " needs {initial, growth, backoff : f64, interval : i64, "
           << "good_steps = @counter} on a mutable tensor<f32> global, with "
           << "a mutable tensor<i64> counter";
  LossScaler scaler;
  scaler.scale = global;
  scaler.goodSteps = goodSteps;
  scaler.settings = {*number("initial"), *number("growth"), *number("backoff"),
                     interval.getInt()};
  return scaler;
}

FailureOr<std::optional<LossScaler>> LossScaler::find(ModuleOp module) {
  for (auto global : module.getOps<mlp::GlobalOp>())
    if (global->hasAttr(hetg::kLossScaleAttr)) {
      FailureOr<LossScaler> scaler = fromGlobal(module, global);
      if (failed(scaler))
        return failure();
      return std::optional<LossScaler>(*scaler);
    }
  return std::optional<LossScaler>();
}

FailureOr<LossScaler> LossScaler::lookup(ModuleOp module, FlatSymbolRefAttr ref,
                                         Operation *user) {
  auto global =
      SymbolTable::lookupNearestSymbolFrom<mlp::GlobalOp>(module, ref);
  if (!global || !global->hasAttr(hetg::kLossScaleAttr))
    return user->emitError("its ") << hetg::kLossScaleAttr << " " << ref
                                   << " is not a loss scale global (one marked "
                                   << hetg::kLossScaleAttr << ")";
  return fromGlobal(module, global);
}

FailureOr<LossScaler>
LossScaler::getOrCreate(ModuleOp module, const LossScaleSettings &settings) {
  FailureOr<std::optional<LossScaler>> existing = find(module);
  if (failed(existing))
    return failure();
  if (*existing)
    return **existing;
  SymbolTable symbols(module);
  std::string counterName = (kScaleGlobal + kGoodStepsSuffix).str();
  for (StringRef name : {StringRef(kScaleGlobal), StringRef(counterName)})
    if (Operation *taken = symbols.lookup(name))
      return taken->emitError("cannot create the loss scale state @")
             << name << ": the name is taken";

  MLIRContext *context = module.getContext();
  OpBuilder builder(context);
  auto functions = module.getOps<func::FuncOp>();
  if (functions.empty())
    builder.setInsertionPointToEnd(module.getBody());
  else
    builder.setInsertionPoint(*functions.begin());
  Location loc = module.getLoc();
  auto make = [&](StringRef name, Type element) {
    RankedTensorType type = scalarType(element);
    Attribute zero = llvm::isa<FloatType>(element)
                         ? Attribute(builder.getFloatAttr(element, 0.0))
                         : Attribute(builder.getIntegerAttr(element, 0));
    auto global = mlp::GlobalOp::create(
        builder, loc, name, type, /*is_mutable=*/true,
        DenseElementsAttr::get(type, zero), builder.getStringAttr("private"));
    symbols.insert(global);
    return global;
  };
  mlp::GlobalOp scale = make(kScaleGlobal, builder.getF32Type());
  mlp::GlobalOp goodSteps = make(counterName, builder.getI64Type());
  NamedAttribute fields[] = {
      builder.getNamedAttr("initial",
                           builder.getF64FloatAttr(settings.initial)),
      builder.getNamedAttr("growth", builder.getF64FloatAttr(settings.growth)),
      builder.getNamedAttr("backoff",
                           builder.getF64FloatAttr(settings.backoff)),
      builder.getNamedAttr("interval",
                           builder.getI64IntegerAttr(settings.interval)),
      builder.getNamedAttr("good_steps", FlatSymbolRefAttr::get(goodSteps))};
  scale->setAttr(hetg::kLossScaleAttr, builder.getDictionaryAttr(fields));
  LossScaler scaler;
  scaler.scale = scale;
  scaler.goodSteps = goodSteps;
  scaler.settings = settings;
  return scaler;
}

Value LossScaler::buildScale(OpBuilder &builder, Location loc) const {
  Type f32 = builder.getF32Type();
  Value stored = load(builder, loc, scale);
  Value unset = hetg::EqualOp::create(
      builder, loc, stored, hetg::buildScalar(builder, loc, f32, 0.0));
  return hetg::WhereOp::create(
      builder, loc, unset,
      hetg::buildScalar(builder, loc, f32, settings.initial), stored);
}

void LossScaler::buildUpdate(OpBuilder &builder, Location loc, Value stepScale,
                             Value finite) const {
  Type f32 = builder.getF32Type();
  auto scalar = [&](double value) {
    return hetg::buildScalar(builder, loc, f32, value);
  };
  // A good step counts; the interval-th in a row grows the scale and
  // restarts the count. An overflow backs off and restarts it too.
  Value counted = hetg::AddOp::create(
      builder, loc, load(builder, loc, goodSteps), i64Scalar(builder, loc, 1));
  Value grow = hetg::EqualOp::create(
      builder, loc, counted, i64Scalar(builder, loc, settings.interval));
  Value grown = hetg::WhereOp::create(
      builder, loc, grow,
      hetg::MulOp::create(builder, loc, stepScale, scalar(settings.growth)),
      stepScale);
  Value nextScale = hetg::WhereOp::create(
      builder, loc, finite, grown,
      hetg::MulOp::create(builder, loc, stepScale, scalar(settings.backoff)));
  Value zero = i64Scalar(builder, loc, 0);
  Value nextCount = hetg::WhereOp::create(
      builder, loc, finite,
      hetg::WhereOp::create(builder, loc, grow, zero, counted), zero);
  mlp::GlobalStoreOp::create(builder, loc, FlatSymbolRefAttr::get(scale),
                             nextScale);
  mlp::GlobalStoreOp::create(builder, loc, FlatSymbolRefAttr::get(goodSteps),
                             nextCount);
}

Value buildIsFinite(OpBuilder &builder, Location loc, Value norm) {
  Type element = llvm::cast<RankedTensorType>(norm.getType()).getElementType();
  Value difference = hetg::SubOp::create(builder, loc, norm, norm);
  return hetg::EqualOp::create(builder, loc, difference,
                               hetg::buildScalar(builder, loc, element, 0.0));
}

} // namespace hetc
