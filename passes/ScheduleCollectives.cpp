//===- ScheduleCollectives.cpp - hetd-schedule-collectives ----------------===//
//
// hetd-build-ranks writes a call's gathers before the call and its
// reduce-scatters after it; once the call is inlined, the memory plan would
// keep every gathered parameter live through the whole call and every full
// gradient until its end. Moving each collective to where its data is used
// or complete gives them the lifetimes of one segment. The collectives keep
// their order relative to every other op that crosses ranks, which is what
// the ranks must agree on; the views and concatenations around them are
// pure and move freely.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/HetDist/HetDist.h"
#include "dialects/HetGraph/HetGraph.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/CallInterfaces.h"

namespace hetc {
#define GEN_PASS_DEF_HETDSCHEDULECOLLECTIVES
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;

namespace {

/// Whether `op` may cross ranks: a communication op, or a call that may
/// hold some.
bool crossesRanks(Operation *op) {
  if (llvm::isa<CallOpInterface>(op))
    return true;
  auto effects = llvm::dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [](const MemoryEffects::EffectInstance &e) {
    return e.getResource() == hetd::ChannelResource::get();
  });
}

/// The ops that take a collective's result apart or build its input.
bool isReshaping(Operation *op) {
  return llvm::isa<hetg::ReshapeOp, hetg::SliceOp, hetg::ConcatOp>(op);
}

/// Walking from `op` towards `target` (down or up its block, `target`
/// excluded; null: the block's start), the first op crossing ranks, or
/// `target`: how far `op` may move. Only a collective is held back.
Operation *reachable(Operation *op, Operation *target, bool down) {
  if (!crossesRanks(op))
    return target;
  for (Operation *it = down ? op->getNextNode() : op->getPrevNode();
       it != target; it = down ? it->getNextNode() : it->getPrevNode())
    if (crossesRanks(it))
      return it;
  return target;
}

/// Moves the reshaping ops that build only `op`'s operands down to just
/// before it, so that their copies live no longer than its input.
void gatherInputsBefore(Operation *op) {
  for (Value operand : op->getOperands())
    if (Operation *def = operand.getDefiningOp();
        def && def->getBlock() == op->getBlock() && isReshaping(def) &&
        def->hasOneUse()) {
      def->moveBefore(op);
      gatherInputsBefore(def);
    }
}

/// Moves `op` down to just before its first user in its block, its
/// reshaping users first and the reshaping ops building its input with it;
/// a collective stops before any op crossing ranks.
void sinkToFirstUse(Operation *op) {
  Block *block = op->getBlock();
  for (Operation *user : llvm::to_vector(op->getUsers()))
    if (user->getBlock() == block && isReshaping(user) &&
        user->getNumOperands() == 1)
      sinkToFirstUse(user);
  Operation *first = nullptr;
  for (Operation *user : op->getUsers()) {
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    if (inBlock && (!first || inBlock->isBeforeInBlock(first)))
      first = inBlock;
  }
  if (!first)
    return;
  op->moveBefore(reachable(op, first, /*down=*/true));
  gatherInputsBefore(op);
}

/// Moves `op` up to just after its last operand's definition in its block,
/// the reshaping ops building its operands first; a collective stops after
/// any op crossing ranks.
void hoistToLastInput(Operation *op) {
  Block *block = op->getBlock();
  for (Value operand : op->getOperands())
    if (Operation *def = operand.getDefiningOp();
        def && def->getBlock() == block && isReshaping(def) &&
        def->hasOneUse())
      hoistToLastInput(def);
  Operation *last = nullptr;
  for (Value operand : op->getOperands())
    if (Operation *def = operand.getDefiningOp())
      if (Operation *inBlock = block->findAncestorOpInBlock(*def);
          inBlock && (!last || last->isBeforeInBlock(inBlock)))
        last = inBlock;
  if (Operation *after = reachable(op, last, /*down=*/false))
    op->moveAfter(after);
  else
    op->moveBefore(&block->front());
}

struct HetdScheduleCollectives
    : hetc::impl::HetdScheduleCollectivesBase<HetdScheduleCollectives> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<hetd::AllGatherOp> gathers;
    SmallVector<hetd::ReduceScatterOp> scatters;
    func.walk([&](Operation *op) {
      if (auto gather = llvm::dyn_cast<hetd::AllGatherOp>(op))
        gathers.push_back(gather);
      else if (auto scatter = llvm::dyn_cast<hetd::ReduceScatterOp>(op))
        scatters.push_back(scatter);
    });
    // Later gathers go first, so that an earlier one never has to pass
    // one still waiting; earlier reduce-scatters likewise.
    for (hetd::AllGatherOp gather : llvm::reverse(gathers))
      sinkToFirstUse(gather);
    for (hetd::ReduceScatterOp scatter : scatters)
      hoistToLastInput(scatter);
  }
};

} // namespace
