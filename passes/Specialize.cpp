//===- Specialize.cpp - fix batch and sequence length, fold shapes --------===//
//
// Imported graphs keep the batch (and possibly the sequence) dynamic, with
// the shape arithmetic torch.onnx.export emits for them. Training needs
// static shapes: this pass fixes the input dimensions, then alternates
// result type inference with constant folding until a fixed point.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace hetc {
#define GEN_PASS_DEF_HETGSPECIALIZE
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using namespace hetc::hetg;

namespace {

constexpr int kMaxRounds = 32;

bool isStatic(Type type) {
  auto shaped = llvm::dyn_cast<ShapedType>(type);
  return !shaped || shaped.hasStaticShape();
}

/// Names input `index` for messages: its ONNX name when the importer kept it.
std::string describeInput(func::FuncOp func, unsigned index) {
  if (auto name = func.getArgAttrOfType<StringAttr>(index, "hetg.name"))
    return ("'" + name.getValue() + "'").str();
  return "#" + std::to_string(index);
}

/// Replaces dynamic dimensions of the function inputs: 0 is the batch,
/// 1 the sequence.
LogicalResult specializeInputs(func::FuncOp func, int64_t batch, int64_t seq) {
  Block &entry = func.getBody().front();
  for (BlockArgument arg : entry.getArguments()) {
    auto type = llvm::dyn_cast<RankedTensorType>(arg.getType());
    if (!type)
      continue;
    Shape shape(type.getShape());
    for (auto [dim, size] : llvm::enumerate(shape)) {
      int64_t value = dim == 0 ? batch : dim == 1 ? seq : 0;
      StringRef option = dim == 0 ? "batch" : "seq";
      if (size != kDynamic) {
        if (dim <= 1 && value > 0 && value != size)
          return func.emitError("input ")
                 << describeInput(func, arg.getArgNumber()) << " has a static "
                 << (dim == 0 ? "batch" : "sequence length") << " of " << size
                 << " but " << option << "=" << value << " was asked; "
                 << "export the model with that axis dynamic";
        continue;
      }
      if (dim > 1)
        return func.emitError("input ")
               << describeInput(func, arg.getArgNumber()) << " has dynamic "
               << "dimension " << dim << "; only dimension 0 (batch) and 1 "
               << "(sequence) can be specialized";
      if (value <= 0)
        return func.emitError("input ")
               << describeInput(func, arg.getArgNumber())
               << " has a dynamic dimension " << dim << "; pass " << option
               << "=N to hetg-specialize";
      size = value;
    }
    arg.setType(type.clone(shape));
  }
  func.setType(FunctionType::get(func.getContext(), entry.getArgumentTypes(),
                                 func.getResultTypes()));
  return success();
}

/// The name of the optional padding mask, which packed language-model
/// training feeds all ones: every token is real.
constexpr llvm::StringLiteral kAttentionMaskName = "attention_mask";

/// Replaces an `attention_mask` input by a constant of ones and drops it, so
/// that the masks computed from it fold away like the causal mask.
void feedAllOnesAttentionMask(func::FuncOp func) {
  for (unsigned index = func.getNumArguments(); index-- > 0;) {
    auto name = func.getArgAttrOfType<StringAttr>(index, "hetg.name");
    BlockArgument arg = func.getArgument(index);
    auto type = llvm::dyn_cast<RankedTensorType>(arg.getType());
    if (!name || name.getValue() != kAttentionMaskName || !type ||
        !type.hasStaticShape())
      continue;
    OpBuilder builder = OpBuilder::atBlockBegin(&func.getBody().front());
    Type element = type.getElementType();
    Attribute one = llvm::isa<FloatType>(element)
                        ? Attribute(builder.getFloatAttr(element, 1.0))
                        : Attribute(builder.getIntegerAttr(element, 1));
    Value ones = ConstantOp::create(builder, arg.getLoc(),
                                    DenseElementsAttr::get(type, one));
    arg.replaceAllUsesWith(ones);
    (void)func.eraseArgument(index);
  }
}

/// Gives each op the result types inferred from its (refined) operands.
/// Returns true when any type changed.
bool refineResultTypes(func::FuncOp func) {
  bool changed = false;
  func.walk([&](Operation *op) {
    SmallVector<Type> inferred;
    if (auto infer = llvm::dyn_cast<InferTypeOpInterface>(op)) {
      if (failed(infer.inferReturnTypes(
              op->getContext(), op->getLoc(), op->getOperands(),
              op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
              op->getRegions(), inferred)))
        return;
    } else if (op->hasTrait<OpTrait::SameOperandsAndResultType>()) {
      inferred.assign(op->getNumResults(), op->getOperand(0).getType());
    } else {
      return;
    }
    for (auto [result, type] : llvm::zip(op->getResults(), inferred)) {
      if (result.getType() != type && areRefinableTypes(result.getType(), type)) {
        result.setType(type);
        changed = true;
      }
    }
  });
  return changed;
}

/// Points out what stayed dynamic; the shape ops first since they are the
/// cause of the rest.
LogicalResult checkFullySpecialized(func::FuncOp func) {
  Operation *culprit = nullptr;
  func.walk([&](Operation *op) {
    if (llvm::isa<ShapeOp, RangeOp, ConstantOfShapeOp, DynamicReshapeOp,
                  DynamicBroadcastOp, DynamicSliceOp>(op)) {
      culprit = op;
      return WalkResult::interrupt();
    }
    if (!culprit && !llvm::all_of(op->getResultTypes(), isStatic))
      culprit = op;
    return WalkResult::advance();
  });
  if (!culprit)
    return success();
  return culprit->emitError("still has dynamic shapes after specialization: ")
         << "its shape depends on something other than the batch and "
         << "sequence length";
}

struct HetgSpecializePass
    : hetc::impl::HetgSpecializeBase<HetgSpecializePass> {
  using HetgSpecializeBase::HetgSpecializeBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      op.getCanonicalizationPatterns(patterns, context);
    FrozenRewritePatternSet frozen(std::move(patterns));

    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (failed(specializeInputs(func, batch, seq)))
        return signalPassFailure();
      feedAllOnesAttentionMask(func);
      for (int round = 0; round < kMaxRounds; ++round) {
        bool refined = refineResultTypes(func);
        bool rewritten = false;
        if (failed(applyPatternsGreedily(func, frozen, GreedyRewriteConfig(),
                                         &rewritten)))
          return signalPassFailure();
        if (!refined && !rewritten)
          break;
      }
      Operation *terminator = func.getBody().front().getTerminator();
      func.setType(FunctionType::get(context, func.getArgumentTypes(),
                                     terminator->getOperandTypes()));
      if (failed(checkFullySpecialized(func)))
        return signalPassFailure();
    }
  }
};

} // namespace
