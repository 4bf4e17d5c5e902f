//===- EvalStep.cpp - the forward-only copy of a train step ---------------===//
//
// Validation computes the loss of held-out batches with the weights as
// trained so far. The copy is the train step itself minus what changes
// state: without its global stores nothing reads the backward or the
// optimizer any more, so erasing the dead ops leaves exactly the forward
// pass and the loss the step reports.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/HetDist/HetDist.h"
#include "dialects/HetGraph/HetGraph.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/BitVector.h"

namespace hetc {
#define GEN_PASS_DEF_HETGEVALSTEP
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;

namespace {

bool storesGlobals(func::FuncOp func) {
  return func
      .walk([](ml_program::GlobalStoreOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// The train step of `module`: its only function that stores globals.
FailureOr<func::FuncOp> findTrainStep(ModuleOp module) {
  SmallVector<func::FuncOp> steps;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && !func->hasAttr(hetd::kEvalAttr) &&
        storesGlobals(func))
      steps.push_back(func);
  if (steps.size() != 1)
    return module.emitError("hetg-eval-step takes a module with one train "
                            "step (a function that stores globals); it has ")
           << steps.size();
  func::FuncOp step = steps.front();
  auto name = step.getNumResults() > 0
                  ? step.getResultAttrOfType<StringAttr>(0, hetg::kNameAttr)
                  : StringAttr();
  if (!name || name.getValue() != "loss")
    return step.emitOpError("is a train step whose first result is not its "
                            "loss (hetg.name = \"loss\"); run hetg-optimizer "
                            "first");
  return step;
}

struct HetgEvalStepPass : hetc::impl::HetgEvalStepBase<HetgEvalStepPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<func::FuncOp> step = findTrainStep(module);
    if (failed(step))
      return signalPassFailure();

    auto eval = llvm::cast<func::FuncOp>((*step)->clone());
    eval.setSymName((step->getSymName() + "_eval").str());
    eval->setAttr(hetd::kEvalAttr, UnitAttr::get(&getContext()));
    SymbolTable(module).insert(eval, std::next(step->getOperation()->getIterator()));

    eval.walk([](ml_program::GlobalStoreOp store) { store.erase(); });
    Block &body = eval.getBody().front();
    Operation *terminator = body.getTerminator();
    terminator->setOperands(terminator->getOperand(0));
    llvm::BitVector laterResults(eval.getNumResults(), true);
    laterResults.reset(0);
    if (failed(eval.eraseResults(laterResults)))
      return signalPassFailure();
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (&op != terminator && isOpTriviallyDead(&op))
        op.erase();
    // What the forward kept for the backward (attention's lse) goes too.
    RewritePatternSet patterns(&getContext());
    hetg::AttentionOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(eval, std::move(patterns))))
      return signalPassFailure();

    // The step index feeds only the learning rate, which is gone.
    llvm::BitVector unusedSteps(eval.getNumArguments());
    for (BlockArgument arg : eval.getArguments())
      if (arg.use_empty() &&
          eval.getArgAttr(arg.getArgNumber(), hetg::kStepIndexAttr))
        unusedSteps.set(arg.getArgNumber());
    if (failed(eval.eraseArguments(unusedSteps)))
      return signalPassFailure();
  }
};

} // namespace
