//===- ParameterUpdate.h - optimizer updates of parameters ------*- C++ -*-===//
//
// The update rule is shared by the single-device step (hetg-optimizer) and
// the per-rank steps of a distribution plan (hetd-build-ranks), which update
// only their shard of a stage's parameters: a whole parameter or a flat
// piece of one. Both must train to the same numbers, so both build the
// update here.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PASSES_PARAMETERUPDATE_H
#define HETC_PASSES_PARAMETERUPDATE_H

#include "dialects/HetGraph/HetGraph.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace hetc {

/// torch.optim's settings of SGD and AdamW, and nanoGPT's learning-rate
/// schedule.
struct OptimizerSettings {
  bool adamw = true;
  double lr = 1e-3, weightDecay = 0, beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  /// Clip the global gradient norm to this value; 0: no clipping.
  double clipNorm = 0;
  hetg::LrScheduleKind lrSchedule = hetg::LrScheduleKind::constant;
  int64_t warmupSteps = 0, decaySteps = 0;
  double minLr = 0;

  /// `settings` with the optimizer and schedule named, checked: names
  /// known, lr, decay, eps, clip, warmup and min-lr >= 0, betas in [0, 1),
  /// a decay past the warmup (the options of hetg-optimizer and
  /// hetd-build-ranks).
  static mlir::FailureOr<OptimizerSettings>
  parse(mlir::Operation *anchor, llvm::StringRef optimizer,
        llvm::StringRef schedule, OptimizerSettings settings);

  /// Whether the learning rate changes over the steps.
  bool scheduled() const {
    return lrSchedule != hetg::LrScheduleKind::constant || warmupSteps > 0;
  }
};

/// Builds the updates of one step function at the builder's insertion
/// point: the AdamW step counter, state globals created next to their
/// parameter, and the stores of the state. The caller stores the new
/// parameter values.
class ParameterUpdateBuilder {
public:
  ParameterUpdateBuilder(mlir::ModuleOp module, mlir::OpBuilder &builder,
                         mlir::Location loc, const OptimizerSettings &settings);

  /// Loads and increments `@optimizer.step` (AdamW only), creating the
  /// global the first time a module needs it; with a schedule, adds the
  /// step index argument to `func` and computes the step's lr_schedule.
  /// Call once per function.
  mlir::LogicalResult beginStep(mlir::func::FuncOp func);

  /// The new value of `param` (parameter `owner`, or the flat piece of it
  /// `piece` names, e.g. "[0:96]") after its gradient `grad`. AdamW's
  /// averages live in zero-initialized globals `@<owner>.adam_m<piece>` and
  /// `@<owner>.adam_v<piece>` of `param`'s type. Weight decay applies when
  /// the parameter (not the piece) has rank >= 2. `offload` moves an AdamW
  /// update to the host: its state globals live in host memory (hetd.host),
  /// the parameter and gradient are copied there for the update and the
  /// new parameter back (SGD has no state to offload and ignores it).
  mlir::FailureOr<mlir::Value> update(mlir::ml_program::GlobalOp owner,
                                      llvm::StringRef piece, mlir::Value param,
                                      mlir::Value grad, bool offload = false);

  /// Makes the step skippable: from now on `guarded` and `storeState`
  /// keep every global's old value unless `finite` (i1 0-D) is true.
  void skipUnless(mlir::Value finite) { this->finite = finite; }

  /// What to store into `global` in place of `updated`: `updated`, or with
  /// a skip condition, `where(finite, updated, old value)`.
  mlir::Value guarded(mlir::ml_program::GlobalOp global, mlir::Value updated);

  /// Stores the updated state and the step counter.
  void storeState();

private:
  mlir::FailureOr<mlir::ml_program::GlobalOp>
  createStateGlobal(mlir::Operation *after, llvm::StringRef name,
                    mlir::RankedTensorType type, mlir::Attribute owner);
  /// `value` in host memory, copied once per step.
  mlir::Value onHost(mlir::Value value);

  mlir::ModuleOp module;
  mlir::OpBuilder &builder;
  mlir::Location loc;
  OptimizerSettings settings;
  mlir::SymbolTable symbols;
  mlir::Value step, lrFactor, finite;
  llvm::DenseMap<mlir::Value, mlir::Value> hostCopies;
  mlir::ml_program::GlobalOp counterGlobal;
  llvm::SmallVector<std::pair<mlir::ml_program::GlobalOp, mlir::Value>>
      stateStores;
};

/// torch.nn.utils.clip_grad_norm_'s factor min(1, max_norm / (norm + 1e-6))
/// for a 0-D `norm`.
mlir::Value buildClipCoefficient(mlir::OpBuilder &builder, mlir::Location loc,
                                 mlir::Value norm, double maxNorm);

/// Makes every parameter in `owners` mutable and turns its constant loads
/// (global_load_const) into loads, as stores to it will follow.
void makeParametersMutable(mlir::ModuleOp module,
                           llvm::ArrayRef<mlir::ml_program::GlobalOp> owners);

} // namespace hetc

#endif // HETC_PASSES_PARAMETERUPDATE_H
