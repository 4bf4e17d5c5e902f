//===- GlobalAccess.cpp - how a step reads and updates globals ------------===//

#include "passes/Conversion/HetGraphToHetExec/GlobalAccess.h"

#include "passes/Conversion/HetGraphToHetExec/Views.h"

#include "dialects/HetDist/HetDist.h"
#include "dialects/HetGraph/HetGraph.h"

#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace hetc;

namespace {

/// Whether the kernel of `op` may write result `result` over the buffer of
/// operand `operand` while reading it: elementwise kernels (broadcasting ones
/// for an operand of the result's shape) and the optimizer updates (param,
/// exp_avg, exp_avg_sq) read each element before writing it. The runtime's
/// kernels honor this contract (docs/package-format.md).
bool canWriteOver(Operation *op, unsigned operand, unsigned result) {
  if (op->getOperand(operand).getType() != op->getResult(result).getType())
    return false;
  if (op->hasTrait<OpTrait::Elementwise>() ||
      llvm::isa<hetg::AddOp, hetg::SubOp, hetg::MulOp, hetg::DivOp,
                hetg::PowOp, hetg::MinimumOp, hetg::MaximumOp, hetg::WhereOp>(op))
    return true;
  if (llvm::isa<hetg::SgdOp>(op))
    return operand == 0 && result == 0;
  if (llvm::isa<hetg::AdamWOp>(op))
    return (operand == 0 && result == 0) || (operand == 2 && result == 1) ||
           (operand == 3 && result == 2);
  return false;
}

/// The uses that read the bytes of `value`: its uses, and those of the
/// views of it, transitively.
void collectReaders(Value value, SmallVectorImpl<OpOperand *> &readers) {
  for (OpOperand &use : value.getUses()) {
    if (viewByteOffset(use.getOwner()))
      collectReaders(use.getOwner()->getResult(0), readers);
    else
      readers.push_back(&use);
  }
}

/// Whether the launch of `producer` can write its result into a global's
/// buffer: ops that view their input or hold a constant have no launch.
bool launchesKernel(Operation *producer) {
  return llvm::isa<hetg::HetGraphDialect, hetd::HetDistDialect>(
             producer->getDialect()) &&
         !llvm::isa<hetg::ConstantOp>(producer) && !viewByteOffset(producer);
}

class GlobalAccessAnalysis {
public:
  explicit GlobalAccessAnalysis(Block &body) : body(body) {}

  FailureOr<GlobalAccessPlan> run();

private:
  LogicalResult collectAccesses();
  void planSnapshots(ml_program::GlobalStoreOp store);
  void planInPlaceStore(ml_program::GlobalStoreOp store);

  Block &body;
  DenseMap<Operation *, int64_t> position;
  llvm::StringMap<SmallVector<Operation *>> loads;
  llvm::StringMap<ml_program::GlobalStoreOp> stores;
  DenseMap<Value, int> storedTimes;
  GlobalAccessPlan plan;
};

LogicalResult GlobalAccessAnalysis::collectAccesses() {
  int64_t index = 0;
  for (Operation &op : body) {
    position[&op] = index++;
    if (auto load = llvm::dyn_cast<ml_program::GlobalLoadOp>(op))
      loads[load.getGlobal().getLeafReference()].push_back(&op);
    else if (auto load = llvm::dyn_cast<ml_program::GlobalLoadConstOp>(op))
      loads[load.getGlobal().getLeafReference()].push_back(&op);
    else if (auto store = llvm::dyn_cast<ml_program::GlobalStoreOp>(op)) {
      StringRef name = store.getGlobal().getLeafReference();
      auto [it, inserted] = stores.try_emplace(name, store);
      if (!inserted) {
        InFlightDiagnostic diag =
            store.emitOpError("stores @")
            << name << " a second time in one step; a program updates each "
            << "global once";
        diag.attachNote(it->second.getLoc()) << "the first store is here";
        return diag;
      }
      ++storedTimes[store.getValue()];
    }
  }
  return success();
}

// A load whose value is still read after the store keeps a copy.
void GlobalAccessAnalysis::planSnapshots(ml_program::GlobalStoreOp store) {
  int64_t storeAt = position[store];
  for (Operation *load : loads.lookup(store.getGlobal().getLeafReference())) {
    if (position[load] > storeAt)
      continue;
    SmallVector<OpOperand *> readers;
    collectReaders(load->getResult(0), readers);
    for (OpOperand *reader : readers)
      if (position[reader->getOwner()] > storeAt &&
          reader->getOwner() != store.getOperation()) {
        plan.snapshotLoads.insert(load);
        break;
      }
  }
}

// The producer may write the global directly when nothing reads the
// global's old value after it (or only the producer itself, where its
// kernel updates in place).
void GlobalAccessAnalysis::planInPlaceStore(ml_program::GlobalStoreOp store) {
  Value value = store.getValue();
  auto result = llvm::dyn_cast<OpResult>(value);
  Operation *producer = result ? result.getOwner() : nullptr;
  if (!producer || producer->getBlock() != &body ||
      !launchesKernel(producer) || storedTimes[value] != 1)
    return;
  int64_t storeAt = position[store];
  int64_t producedAt = position[producer];
  for (Operation *load : loads.lookup(store.getGlobal().getLeafReference())) {
    if (position[load] > storeAt)
      continue;
    if (plan.snapshotLoads.contains(load)) {
      if (position[load] >= producedAt)
        return;
      continue;
    }
    SmallVector<OpOperand *> readers;
    collectReaders(load->getResult(0), readers);
    for (OpOperand *reader : readers) {
      Operation *owner = reader->getOwner();
      if (owner == store.getOperation() || position[owner] < producedAt)
        continue;
      if (owner != producer || reader->get() != load->getResult(0) ||
          !canWriteOver(producer, reader->getOperandNumber(),
                        result.getResultNumber()))
        return;
    }
  }
  plan.inPlaceStores.insert(store);
  plan.inPlaceResults[value] = store.getGlobal().getLeafReference();
}

FailureOr<GlobalAccessPlan> GlobalAccessAnalysis::run() {
  if (failed(collectAccesses()))
    return failure();
  // Snapshots first: whether a store can be in place depends on them.
  for (auto &entry : stores)
    planSnapshots(entry.second);
  for (auto &entry : stores)
    planInPlaceStore(entry.second);
  return std::move(plan);
}

} // namespace

FailureOr<GlobalAccessPlan> hetc::planGlobalAccesses(Block &body) {
  return GlobalAccessAnalysis(body).run();
}
