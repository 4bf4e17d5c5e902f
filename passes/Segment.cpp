//===- Segment.cpp - cut the forward graph into a chain of segments -------===//
//
// A pipeline stage boundary can only sit where one value carries all the
// data from the inputs to the loss: there a stage sends one tensor forward
// and receives its gradient back. In a transformer that value is the
// residual stream after each residual add. This pass finds those cut points
// in program order, numbers the segments between them, and profiles each
// segment for the planner: parameters, forward and backward FLOPs, the
// activations its backward reads, and the size of its outgoing boundary.
//
// Backward numbers come from the real gradient graph: the function is
// cloned into a nested module and `hetg-autodiff` runs on the clone, which
// marks every gradient op with the segment of the forward op it
// differentiates (`hetg.grad_segment`); each is charged to that segment.
// The clone is erased again.
//
//===----------------------------------------------------------------------===//

#include "passes/DataDependence.h"
#include "passes/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"

#include <map>
#include <set>

namespace hetc {
#define GEN_PASS_DEF_HETGSEGMENT
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using namespace hetc::hetg;

namespace {


bool isStaticTensor(Type type) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() &&
         tensor.getElementType().isIntOrFloat();
}

/// FLOPs and bytes moved of one op kind in a segment.
struct KindProfile {
  int64_t forwardOps = 0; // launches of a call, whatever its batch
  int64_t backwardOps = 0;
  int64_t forwardFlops = 0;
  int64_t backwardFlops = 0;
  int64_t forwardBytes = 0;
  int64_t backwardBytes = 0;
};

struct SegmentProfile {
  int64_t ops = 0;
  int64_t parameters = 0;
  int64_t parameterBytes = 0;
  int64_t forwardFlops = 0;
  int64_t backwardFlops = 0;
  int64_t forwardBytes = 0;
  int64_t backwardBytes = 0;
  int64_t savedActivationBytes = 0;
  int64_t boundaryBytes = 0;
  bool recompute = false;
  /// By op name without its dialect, the name of the launches running it.
  std::map<std::string, KindProfile> kinds;
};

/// The cut points and segment numbers of one function.
struct Segmentation {
  /// Segment of every op but the terminator.
  DenseMap<Operation *, int64_t> segmentOf;
  /// The value leaving each segment but the last.
  SmallVector<Value> cuts;
  int64_t numSegments = 1;
};

/// A reshape of the last cut is the same boundary in another shape, not a
/// new one: it joins the next segment instead of making a segment alone.
bool isViewOfLastCut(Value value, ArrayRef<Value> cuts) {
  auto reshape = value.getDefiningOp<ReshapeOp>();
  return reshape && !cuts.empty() && reshape.getInput() == cuts.back();
}

/// A stage boundary passes per-sample activations; a scalar (the summed
/// loss before its scaling) has no samples to split and ends no segment.
bool carriesSamples(Value value) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  return type && type.getRank() > 0;
}

Segmentation segment(Block &block, const DataDependence &dependence) {
  Segmentation result;
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  DenseMap<Operation *, size_t> position;
  for (auto [i, op] : llvm::enumerate(ops))
    position[op] = i;
  auto isActivationOp = [&](Operation *op) {
    return llvm::any_of(op->getResults(),
                        [&](Value v) { return dependence.isActivation(v); });
  };
  size_t lastActivationOp = 0;
  for (auto [i, op] : llvm::enumerate(ops))
    if (isActivationOp(op))
      lastActivationOp = i;

  // Last position reading each activation; the terminator reads past the
  // end.
  DenseMap<Value, size_t> lastUse;
  for (auto [i, op] : llvm::enumerate(ops))
    for (Value operand : op->getOperands())
      if (dependence.isActivation(operand))
        lastUse[operand] = i;
  for (Value operand : block.getTerminator()->getOperands())
    lastUse[operand] = ops.size();

  // Walk the activation ops in order, keeping the set of live activations;
  // where exactly one is live and more activation ops follow, it is a cut.
  llvm::SetVector<Value> live;
  int64_t current = 0;
  for (auto [i, op] : llvm::enumerate(ops)) {
    if (!isActivationOp(op))
      continue;
    result.segmentOf[op] = current;
    for (Value value : op->getResults())
      if (dependence.isActivation(value) && lastUse.count(value))
        live.insert(value);
    for (Value operand : op->getOperands())
      if (auto it = lastUse.find(operand);
          it != lastUse.end() && it->second == i)
        live.remove(operand);
    if (i < lastActivationOp && live.size() == 1 &&
        carriesSamples(live.front()) &&
        (result.cuts.empty() || result.cuts.back() != live.front()) &&
        !isViewOfLastCut(live.front(), result.cuts)) {
      result.cuts.push_back(live.front());
      ++current;
    }
  }
  result.numSegments = current + 1;

  // Everything else joins the segment of its first user; with no user but
  // the terminator, the last segment; with none at all, the segment open
  // at its position.
  SmallVector<int64_t> openAt(ops.size());
  int64_t open = 0;
  for (auto [i, op] : llvm::enumerate(ops)) {
    if (auto it = result.segmentOf.find(op); it != result.segmentOf.end())
      open = it->second;
    openAt[i] = open;
  }
  for (Operation *op : llvm::reverse(ops)) {
    if (result.segmentOf.count(op))
      continue;
    std::optional<int64_t> first;
    bool usedByTerminator = false;
    for (Operation *user : op->getUsers()) {
      if (user == block.getTerminator()) {
        usedByTerminator = true;
        continue;
      }
      int64_t s = result.segmentOf.lookup(user);
      first = first ? std::min(*first, s) : s;
    }
    result.segmentOf[op] = first              ? *first
                           : usedByTerminator ? current
                                              : openAt[position[op]];
  }
  return result;
}

/// The batch the profile's per-sample numbers divide by: dimension 0 of
/// `input_ids`, else of the first argument.
int64_t batchOf(func::FuncOp func) {
  std::optional<unsigned> index;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (auto name = func.getArgAttrOfType<StringAttr>(i, kNameAttr))
      if (name.getValue() == "input_ids")
        index = i;
  if (!index && func.getNumArguments() > 0)
    index = 0;
  if (!index)
    return 1;
  auto type = llvm::cast<RankedTensorType>(func.getArgument(*index).getType());
  return type.getRank() > 0 && type.getDimSize(0) > 0 ? type.getDimSize(0) : 1;
}

struct HetgSegmentPass : hetc::impl::HetgSegmentBase<HetgSegmentPass> {
  using HetgSegmentBase::HetgSegmentBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        funcs.push_back(func);
    for (func::FuncOp func : funcs)
      if (failed(profile(func, module)))
        return signalPassFailure();
  }

  LogicalResult checkFunction(func::FuncOp func) {
    if (!func.getBody().hasOneBlock())
      return func.emitError("hetg-segment needs a function with one block");
    Block &block = func.getBody().front();
    Operation *terminator = block.getTerminator();
    auto loss = terminator->getNumOperands() == 1
                    ? llvm::dyn_cast<RankedTensorType>(
                          terminator->getOperand(0).getType())
                    : RankedTensorType();
    if (!loss || loss.getRank() != 0 ||
        !llvm::isa<FloatType>(loss.getElementType()))
      return func.emitError("hetg-segment needs @")
             << func.getName() << " to return one 0-D float loss; run "
             << "hetg-attach-loss first";
    for (BlockArgument arg : block.getArguments())
      if (!isStaticTensor(arg.getType()))
        return func.emitError("hetg-segment needs static shapes, but "
                              "argument ")
               << arg.getArgNumber() << " has type " << arg.getType()
               << "; run hetg-simplify first";
    for (Operation &op : block.without_terminator()) {
      if (!llvm::all_of(op.getResultTypes(), isStaticTensor))
        return op.emitError("hetg-segment needs static shapes; run "
                            "hetg-simplify first");
      if (!isParameterLoad(&op) && !llvm::isa<CostOpInterface>(op))
        return op.emitError("'")
               << op.getName() << "' has no cost model (hetg ops and "
               << "ml_program global loads only)";
    }
    return success();
  }

  LogicalResult profile(func::FuncOp func, ModuleOp module) {
    if (failed(checkFunction(func)))
      return failure();
    Block &block = func.getBody().front();
    DataDependence dependence(block);
    Segmentation segmentation = segment(block, dependence);
    int64_t numSegments = segmentation.numSegments;
    for (int64_t index : recompute)
      if (index < 0 || index >= numSegments)
        return func.emitError("recompute names segment ")
               << index << ", but @" << func.getName() << " has " << numSegments
               << " segments (0 to " << numSegments - 1 << ")";

    MLIRContext *context = func.getContext();
    Builder builder(context);
    for (Operation &op : block.without_terminator()) {
      op.setAttr(kSegmentAttr,
                 builder.getI64IntegerAttr(segmentation.segmentOf.lookup(&op)));
      op.removeAttr(kCutAttr);
    }
    for (Value cut : segmentation.cuts)
      cut.getDefiningOp()->setAttr(
          kCutAttr, builder.getI64IntegerAttr(
                        llvm::cast<OpResult>(cut).getResultNumber()));

    int64_t batch = batchOf(func);
    SmallVector<SegmentProfile> profiles(numSegments);
    SymbolTable symbols(module);
    // The segments reading each global, in increasing order.
    llvm::MapVector<Operation *, std::set<int64_t>> segmentsOfGlobal;
    for (Operation &op : block.without_terminator()) {
      int64_t s = segmentation.segmentOf.lookup(&op);
      SegmentProfile &profile = profiles[s];
      if (isParameterLoad(&op)) {
        auto symbol =
            llvm::isa<ml_program::GlobalLoadConstOp>(op)
                ? llvm::cast<ml_program::GlobalLoadConstOp>(op).getGlobal()
                : llvm::cast<ml_program::GlobalLoadOp>(op).getGlobal();
        // The load sits in its first user's segment; its users say who
        // reads the global.
        std::set<int64_t> &readers =
            segmentsOfGlobal[symbols.lookup(symbol.getRootReference())];
        readers.insert(s);
        for (Operation *user : op.getUsers())
          if (auto segment = segmentation.segmentOf.find(user);
              segment != segmentation.segmentOf.end())
            readers.insert(segment->second);
        continue;
      }
      ++profile.ops;
      std::optional<OpCost> cost = getOpCost(&op);
      if (!cost)
        return op.emitError("hetg-segment cannot cost this op: its operand "
                            "types are not static");
      profile.forwardFlops += cost->flops;
      profile.forwardBytes += cost->bytesMoved;
      KindProfile &kind = profile.kinds[op.getName().stripDialect().str()];
      ++kind.forwardOps;
      kind.forwardFlops += cost->flops;
      kind.forwardBytes += cost->bytesMoved;
    }
    // A global read in several segments (a tied weight) counts once, in
    // the first, and is listed with the segments reading it.
    SmallVector<Attribute> shared;
    for (auto global : module.getOps<ml_program::GlobalOp>()) {
      auto it = segmentsOfGlobal.find(global);
      auto type = llvm::dyn_cast<RankedTensorType>(global.getType());
      if (it == segmentsOfGlobal.end() || !type ||
          !llvm::isa<FloatType>(type.getElementType()))
        continue;
      const std::set<int64_t> &readers = it->second;
      profiles[*readers.begin()].parameters += type.getNumElements();
      profiles[*readers.begin()].parameterBytes += storageBytes(type);
      if (readers.size() > 1)
        shared.push_back(builder.getDictionaryAttr(
            {builder.getNamedAttr("name", global.getSymNameAttr()),
             builder.getNamedAttr(
                 "elements", builder.getI64IntegerAttr(type.getNumElements())),
             builder.getNamedAttr(
                 "bytes", builder.getI64IntegerAttr(storageBytes(type))),
             builder.getNamedAttr(
                 "segments",
                 builder.getDenseI64ArrayAttr(llvm::to_vector(readers)))}));
    }
    for (auto [s, cut] : llvm::enumerate(segmentation.cuts))
      profiles[s].boundaryBytes = storageBytes(cut.getType()) / batch;
    for (int64_t index : recompute)
      profiles[index].recompute = true;
    if (recomputeAll)
      for (SegmentProfile &profile : profiles)
        profile.recompute = true;

    if (failed(profileBackward(func, module, dependence, batch, profiles)))
      return failure();

    SmallVector<Attribute> entries;
    for (auto [s, profile] : llvm::enumerate(profiles)) {
      auto entry = [&](StringRef name, int64_t value) {
        return builder.getNamedAttr(name, builder.getI64IntegerAttr(value));
      };
      SmallVector<NamedAttribute> kinds;
      for (const auto &[name, kind] : profile.kinds)
        if (kind.forwardFlops || kind.backwardFlops || kind.forwardBytes ||
            kind.backwardBytes)
          kinds.push_back(builder.getNamedAttr(
              name, builder.getDictionaryAttr(
                        {entry("forward_ops", kind.forwardOps),
                         entry("backward_ops", kind.backwardOps),
                         entry("forward_flops", kind.forwardFlops),
                         entry("backward_flops", kind.backwardFlops),
                         entry("forward_bytes", kind.forwardBytes),
                         entry("backward_bytes", kind.backwardBytes)})));
      entries.push_back(builder.getDictionaryAttr(
          {entry("index", s), entry("ops", profile.ops),
           entry("parameters", profile.parameters),
           entry("parameter_bytes", profile.parameterBytes),
           entry("forward_flops", profile.forwardFlops),
           entry("backward_flops", profile.backwardFlops),
           entry("forward_bytes", profile.forwardBytes),
           entry("backward_bytes", profile.backwardBytes),
           entry("saved_activation_bytes_per_sample",
                 profile.savedActivationBytes),
           entry("boundary_bytes_per_sample", profile.boundaryBytes),
           builder.getNamedAttr("recompute",
                                builder.getBoolAttr(profile.recompute)),
           builder.getNamedAttr("kinds", builder.getDictionaryAttr(kinds))}));
    }
    func->setAttr(kSegmentsAttr, builder.getArrayAttr(entries));
    if (shared.empty())
      func->removeAttr(kSharedParametersAttr);
    else
      func->setAttr(kSharedParametersAttr, builder.getArrayAttr(shared));
    func->setAttr(kBatchAttr, builder.getI64IntegerAttr(batch));
    return success();
  }

  /// Differentiates a clone of `func` and charges each gradient op, and
  /// the per-sample forward values it reads, to the segment of the forward
  /// op it was built for.
  LogicalResult profileBackward(func::FuncOp func, ModuleOp module,
                                const DataDependence &dependence, int64_t batch,
                                MutableArrayRef<SegmentProfile> profiles) {
    MLIRContext *context = func.getContext();
    OpBuilder builder(context);
    builder.setInsertionPointToEnd(module.getBody());
    auto scratch = ModuleOp::create(builder, func.getLoc());
    llvm::scope_exit eraseScratch([&] { scratch.erase(); });
    builder.setInsertionPointToEnd(scratch.getBody());
    for (auto global : module.getOps<ml_program::GlobalOp>())
      builder.clone(*global);
    IRMapping mapping;
    auto clone = llvm::cast<func::FuncOp>(builder.clone(*func, mapping));
    clone->removeAttr(kSegmentsAttr);

    // Forward values of the clone, back to the originals.
    DenseMap<Value, Value> original;
    for (auto [from, to] : mapping.getValueMap())
      original[to] = from;

    OpPassManager pm(ModuleOp::getOperationName());
    pm.addPass(createHetgAutodiff());
    if (failed(runPipeline(pm, scratch)))
      return failure();

    int64_t lastSegment = int64_t(profiles.size()) - 1;
    SmallVector<DenseSet<Value>> saved(profiles.size());
    // Bytes saved for the backward that are no value of the forward yet:
    // attention's row log-sum-exps, which the canonicalizer has the
    // forward keep (hetg.attention with_lse).
    SmallVector<int64_t> lseBytes(profiles.size(), 0);
    for (Operation &op : clone.getBody().front().without_terminator()) {
      if (op.hasAttr(kSegmentAttr))
        continue; // forward
      // hetg-autodiff marks each gradient op with the segment of the
      // forward op it differentiates.
      auto segment = op.getAttrOfType<IntegerAttr>(kGradSegmentAttr);
      int64_t s = segment ? segment.getInt() : lastSegment;
      std::optional<OpCost> cost = getOpCost(&op);
      if (!cost)
        return op.emitError("hetg-segment cannot cost this gradient op");
      profiles[s].backwardFlops += cost->flops;
      profiles[s].backwardBytes += cost->bytesMoved;
      KindProfile &kind = profiles[s].kinds[op.getName().stripDialect().str()];
      ++kind.backwardOps;
      kind.backwardFlops += cost->flops;
      kind.backwardBytes += cost->bytesMoved;
      SmallVector<Value> reads(op.getOperands());
      if (auto grad = llvm::dyn_cast<AttentionGradOp>(op))
        if (AttentionOp forward = grad.findForward()) {
          reads.push_back(forward.getResult());
          auto query =
              llvm::cast<RankedTensorType>(forward.getQuery().getType());
          lseBytes[s] += storageBytes(RankedTensorType::get(
              query.getShape().drop_back(), Float32Type::get(context)));
        }
      for (Value operand : reads) {
        Value forward = original.lookup(operand);
        if (!forward || !dependence.onInput.contains(forward))
          continue;
        // A reshape is a view of its input: count the storage once.
        while (auto reshape = forward.getDefiningOp<ReshapeOp>())
          forward = reshape.getInput();
        saved[s].insert(forward);
      }
    }
    for (auto [s, values] : llvm::enumerate(saved)) {
      for (Value value : values)
        profiles[s].savedActivationBytes +=
            storageBytes(value.getType()) / batch;
      profiles[s].savedActivationBytes += lseBytes[s] / batch;
    }
    return success();
  }
};

} // namespace
