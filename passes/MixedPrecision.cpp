//===- MixedPrecision.cpp - compute the forward graph in bf16 or f16 ------===//
//
// Mixed precision as the frameworks do it: parameters stay f32 (the master
// copy the optimizer updates) and the float ops of the forward graph
// compute in a 16-bit type, reading the parameters through casts. Doing it
// before hetg-autodiff makes the backward low-precision as well without
// any gradient code of its own: every gradient has its value's type, and a
// parameter's cast sends its gradient back as f32.
//
// The low type spreads from the parameters along the data flow. An op
// joins it when it reads a parameter or a low-precision value; an op that
// reads only f32 values stays f32, which keeps the loss tail after
// hetg.cross_entropy (f32 from low-precision logits) and masks built from
// constants in f32 until they meet a low-precision activation.
//
//===----------------------------------------------------------------------===//

#include "passes/LossScaling.h"
#include "passes/Passes.h"

#include <map>

namespace hetc {
#define GEN_PASS_DEF_HETGMIXEDPRECISION
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using namespace hetc::hetg;
namespace mlp = mlir::ml_program;

namespace {

FailureOr<Type> parsePrecision(MLIRContext *context, StringRef name,
                               Operation *anchor) {
  if (name == "f32")
    return Type(Float32Type::get(context));
  if (name == "bf16")
    return Type(BFloat16Type::get(context));
  if (name == "f16")
    return Type(Float16Type::get(context));
  return anchor->emitError("hetg-mixed-precision: unknown precision '")
         << name << "'; expected f32, bf16 or f16";
}

bool isLowPrecision(Type element) {
  return element.isBF16() || element.isF16();
}

/// The element type of `value` when it is a tensor of a type this pass
/// moves between (f32, bf16, f16); null otherwise (f64 stays as it is).
Type computeElement(Value value) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(value.getType());
  if (!tensor)
    return Type();
  Type element = tensor.getElementType();
  return element.isF32() || isLowPrecision(element) ? element : Type();
}

/// A value read from a float global: a parameter.
bool isParameter(Value value) {
  Operation *def = value.getDefiningOp();
  return def && llvm::isa<mlp::GlobalLoadConstOp, mlp::GlobalLoadOp>(def) &&
         computeElement(value);
}

class ForwardRewriter {
public:
  ForwardRewriter(Type precision, ArrayRef<Type> segmentTypes)
      : precision(precision), segmentTypes(segmentTypes) {}

  LogicalResult run(func::FuncOp func);
  bool computesInF16() const { return usesF16; }

private:
  Type typeOf(Operation *op) const {
    auto segment = op->getAttrOfType<IntegerAttr>(kSegmentAttr);
    if (segment && segment.getInt() >= 0 &&
        segment.getInt() < static_cast<int64_t>(segmentTypes.size()))
      return segmentTypes[segment.getInt()];
    return precision;
  }
  Value castBefore(Operation *user, Value value, Type element);
  LogicalResult rewrite(Operation *op);

  Type precision;
  ArrayRef<Type> segmentTypes;
  /// (value, type, segment of the reader) -> its cast, made once.
  std::map<std::tuple<const void *, const void *, int64_t>, Value> casts;
  bool usesF16 = false;
};

Value ForwardRewriter::castBefore(Operation *user, Value value, Type element) {
  auto segment = user->getAttrOfType<IntegerAttr>(kSegmentAttr);
  auto key =
      std::make_tuple(value.getAsOpaquePointer(), element.getAsOpaquePointer(),
                      segment ? segment.getInt() : int64_t(-1));
  if (Value cast = casts[key])
    return cast;
  OpBuilder builder(user);
  Value cast = builder.createOrFold<CastOp>(user->getLoc(), value, element);
  // The cast (or the constant it folded to) runs in its reader's segment.
  if (Operation *def = cast.getDefiningOp();
      def && segment && !def->hasAttr(kSegmentAttr))
    def->setAttr(kSegmentAttr, segment);
  casts[key] = cast;
  return cast;
}

LogicalResult ForwardRewriter::rewrite(Operation *op) {
  if (!llvm::isa<HetGraphDialect>(op->getDialect()) ||
      op->hasTrait<OpTrait::ConstantLike>())
    return success();
  Type target = typeOf(op);
  bool low = isLowPrecision(target);
  SmallVector<unsigned> floats;
  for (OpOperand &operand : op->getOpOperands())
    if (computeElement(operand.get()))
      floats.push_back(operand.getOperandNumber());
  bool joins = llvm::any_of(floats, [&](unsigned i) {
    Value operand = op->getOperand(i);
    return isLowPrecision(computeElement(operand)) ||
           (low && isParameter(operand));
  });
  if (!joins)
    return success();
  if (target.isF16())
    usesF16 = true;

  if (auto cast = llvm::dyn_cast<CastOp>(op)) {
    // A float-to-float cast of the model becomes one to the target type;
    // a cast to an integer or bool reads its operand in any type.
    if (!computeElement(cast.getResult()))
      return success();
    cast.setTo(target);
  } else {
    for (unsigned i : floats)
      if (computeElement(op->getOperand(i)) != target)
        op->setOperand(i, castBefore(op, op->getOperand(i), target));
  }

  // Result types: what the op infers from its new operands where it can
  // (hetg.cross_entropy keeps an f32 loss), else the target type.
  SmallVector<Type> inferred;
  if (auto infer = llvm::dyn_cast<InferTypeOpInterface>(op)) {
    if (failed(infer.inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
            op->getRegions(), inferred)))
      return op->emitError("hetg-mixed-precision cannot infer the result "
                           "types of this op in ")
             << target;
  }
  for (OpResult result : op->getResults()) {
    auto type = llvm::dyn_cast<RankedTensorType>(result.getType());
    if (!type || !computeElement(result))
      continue;
    Type element = target;
    if (!inferred.empty())
      element = llvm::cast<RankedTensorType>(inferred[result.getResultNumber()])
                    .getElementType();
    result.setType(type.clone(element));
  }
  return success();
}

LogicalResult ForwardRewriter::run(func::FuncOp func) {
  Block &block = func.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(block.without_terminator()))
    if (failed(rewrite(&op)))
      return failure();
  // The function keeps its signature: results whose type changed are cast
  // back right before the return.
  Operation *terminator = block.getTerminator();
  for (auto [operand, type] :
       llvm::zip(terminator->getOpOperands(), func.getResultTypes())) {
    if (operand.get().getType() == type)
      continue;
    OpBuilder builder(terminator);
    Value back =
        CastOp::create(builder, terminator->getLoc(), operand.get(),
                       llvm::cast<RankedTensorType>(type).getElementType());
    if (Operation *def = operand.get().getDefiningOp())
      if (Attribute segment = def->getAttr(kSegmentAttr))
        back.getDefiningOp()->setAttr(kSegmentAttr, segment);
    operand.set(back);
  }
  return success();
}

/// The number of segments `func` was cut into, or nullopt without
/// hetg-segment.
std::optional<int64_t> segmentCount(func::FuncOp func) {
  if (auto segments = func->getAttrOfType<ArrayAttr>(kSegmentsAttr))
    return static_cast<int64_t>(segments.size());
  return std::nullopt;
}

LogicalResult checkIsForward(func::FuncOp func) {
  if (!func.getBody().hasOneBlock())
    return func.emitError("hetg-mixed-precision needs a function with one "
                          "block");
  bool differentiated =
      llvm::any_of(llvm::seq(func.getNumResults()), [&](unsigned i) {
        return func.getResultAttr(i, kGradientOfAttr) != nullptr;
      });
  bool stores = false;
  func.walk([&](mlp::GlobalStoreOp) { stores = true; });
  if (differentiated || stores)
    return func.emitError("hetg-mixed-precision rewrites the forward graph, "
                          "but @")
           << func.getName() << " already "
           << (differentiated ? "returns gradients" : "stores globals")
           << "; run it before hetg-autodiff";
  return success();
}

struct HetgMixedPrecisionPass
    : hetc::impl::HetgMixedPrecisionBase<HetgMixedPrecisionPass> {
  using HetgMixedPrecisionBase::HetgMixedPrecisionBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = module.getContext();
    FailureOr<Type> everywhere = parsePrecision(context, precision, module);
    if (failed(everywhere))
      return signalPassFailure();
    SmallVector<Type> perSegment;
    for (const std::string &name : segmentPrecision) {
      FailureOr<Type> type = parsePrecision(context, name, module);
      if (failed(type))
        return signalPassFailure();
      perSegment.push_back(*type);
    }
    if (lossScale < 0.0 || growthInterval < 1) {
      module.emitError("hetg-mixed-precision needs loss-scale >= 0 and "
                       "growth-interval >= 1");
      return signalPassFailure();
    }
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (failed(checkIsForward(func)))
        return signalPassFailure();
      if (!perSegment.empty()) {
        std::optional<int64_t> segments = segmentCount(func);
        if (!segments || *segments < static_cast<int64_t>(perSegment.size())) {
          func.emitError("segment-precision lists ")
              << perSegment.size() << " segments but @" << func.getName()
              << " has " << (segments ? *segments : 0)
              << (segments ? "" : " (run hetg-segment first)");
          return signalPassFailure();
        }
      }
      ForwardRewriter rewriter(*everywhere, perSegment);
      if (failed(rewriter.run(func)))
        return signalPassFailure();
      if (!rewriter.computesInF16() || lossScale == 0.0)
        continue;
      LossScaleSettings settings;
      settings.initial = lossScale;
      settings.interval = growthInterval;
      FailureOr<LossScaler> scaler = LossScaler::getOrCreate(module, settings);
      if (failed(scaler))
        return signalPassFailure();
      func->setAttr(kLossScaleAttr,
                    FlatSymbolRefAttr::get(scaler->scaleGlobal()));
    }
  }
};

} // namespace
