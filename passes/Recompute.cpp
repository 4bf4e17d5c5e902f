//===- Recompute.cpp - recompute flagged segments in the backward pass ----===//
//
// Activation recomputation (checkpointing) at segment granularity. After
// `hetg-autodiff`, the gradient ops read forward values directly, so every
// such value stays live from the forward op producing it to its last
// backward reader, and the peak of a train step is the sum of them. For
// the segments `hetg-segment` flagged `recompute = true`, this pass clones
// each forward op whose value a backward op reads, with the chain of its
// operands from the same segment, right before that backward op, and makes
// the backward ops read the clones. Only the segment's inputs (its incoming
// boundary, parameters, constants, the batch) stay alive across the
// forward-to-backward turn; the segment's own activations die inside the
// forward pass and are rebuilt when the backward pass needs them.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/IRMapping.h"

namespace hetc {
#define GEN_PASS_DEF_HETGRECOMPUTE
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using namespace hetc::hetg;

namespace {


/// The segments whose `recompute` flag is set in `func`'s profile.
FailureOr<DenseSet<int64_t>> flaggedSegments(func::FuncOp func) {
  DenseSet<int64_t> flagged;
  auto segments = func->getAttrOfType<ArrayAttr>(kSegmentsAttr);
  if (!segments)
    return flagged;
  for (Attribute entry : segments) {
    auto dict = llvm::dyn_cast<DictionaryAttr>(entry);
    auto index = dict ? dict.getAs<IntegerAttr>("index") : IntegerAttr();
    auto recompute = dict ? dict.getAs<BoolAttr>("recompute") : BoolAttr();
    if (!index || !recompute)
      return func.emitError("hetg-recompute: malformed hetg.segments entry ")
             << entry << " (needs an integer 'index' and a bool 'recompute')";
    if (recompute.getValue())
      flagged.insert(index.getInt());
  }
  return flagged;
}

/// Values a recomputed chain starts from rather than rebuilds.
bool isChainLeaf(Operation *op) {
  return llvm::isa<ml_program::GlobalLoadConstOp, ml_program::GlobalLoadOp>(
             op) ||
         op->hasTrait<OpTrait::ConstantLike>();
}

struct Recomputer {
  const DenseSet<int64_t> &flagged;
  /// Forward op -> its clone, once made.
  DenseMap<Operation *, Operation *> clones;

  explicit Recomputer(const DenseSet<int64_t> &flagged) : flagged(flagged) {}

  /// The segment of a forward op that is to be recomputed, if `value` is
  /// produced by one.
  std::optional<int64_t> recomputedSegment(Value value) const {
    Operation *def = value.getDefiningOp();
    if (!def || isChainLeaf(def))
      return std::nullopt;
    auto segment = def->getAttrOfType<IntegerAttr>(kSegmentAttr);
    if (!segment || !flagged.contains(segment.getInt()))
      return std::nullopt;
    return segment.getInt();
  }

  /// The clone of `value`'s producer (built before `before` if new), with
  /// the chain of its operands from segment `segment`.
  Value materialize(Value value, int64_t segment, Operation *before) {
    Operation *def = value.getDefiningOp();
    auto result = llvm::cast<OpResult>(value);
    if (Operation *clone = clones.lookup(def))
      return clone->getResult(result.getResultNumber());
    IRMapping mapping;
    for (Value operand : def->getOperands())
      if (std::optional<int64_t> s = recomputedSegment(operand);
          s && *s == segment)
        mapping.map(operand, materialize(operand, segment, before));
    OpBuilder builder(before);
    Operation *clone = builder.clone(*def, mapping);
    clone->removeAttr(kSegmentAttr);
    clone->removeAttr(kCutAttr);
    clone->setAttr(kRecomputedAttr, builder.getI64IntegerAttr(segment));
    clones[def] = clone;
    return clone->getResult(result.getResultNumber());
  }

  void run(Block &block) {
    SmallVector<Operation *> backward;
    for (Operation &op : block.without_terminator())
      if (!op.hasAttr(kSegmentAttr))
        backward.push_back(&op);
    for (Operation *op : backward) {
      // Only the segment's own backward reads the clones: the cut leaving
      // the segment, which the next segment's backward reads, stays saved
      // (it is that segment's input), so no clone serves two segments, and
      // no two pipeline stages.
      auto owner = op->getAttrOfType<IntegerAttr>(kGradSegmentAttr);
      for (OpOperand &operand : op->getOpOperands())
        if (std::optional<int64_t> s = recomputedSegment(operand.get());
            s && (!owner || owner.getInt() == *s))
          operand.set(materialize(operand.get(), *s, op));
    }
  }
};

struct HetgRecomputePass : hetc::impl::HetgRecomputeBase<HetgRecomputePass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      FailureOr<DenseSet<int64_t>> flagged = flaggedSegments(func);
      if (failed(flagged))
        return signalPassFailure();
      if (flagged->empty())
        continue;
      if (!func.getBody().hasOneBlock()) {
        func.emitError("hetg-recompute needs a function with one block");
        return signalPassFailure();
      }
      Recomputer recomputer(*flagged);
      recomputer.run(func.getBody().front());
    }
  }
};

} // namespace
