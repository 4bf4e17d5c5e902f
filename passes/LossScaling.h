//===- LossScaling.h - dynamic loss scaling for f16 training ----*- C++ -*-===//
//
// f16 has five exponent bits, so small gradients flush to zero. Dynamic loss
// scaling (torch.cuda.amp.GradScaler) seeds the backward pass with a large
// scale instead of 1, divides the parameter gradients by it before the
// update, and skips a step whose gradients overflowed while halving the
// scale; after `interval` good steps in a row it doubles the scale.
//
// The state is two optimizer-state globals, zero-initialized like all
// optimizer state: `@loss_scale` (f32 0-D; 0 reads as the initial scale)
// and `@loss_scale.good_steps` (i64 0-D). hetg-mixed-precision creates
// them, hetg-autodiff seeds with the scale, and hetg-optimizer and
// hetd-build-ranks unscale, skip and update through this file, so that the
// single-device and distributed steps make the same decisions.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PASSES_LOSSSCALING_H
#define HETC_PASSES_LOSSSCALING_H

#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace hetc {

/// GradScaler's settings (its defaults but the interval).
struct LossScaleSettings {
  double initial = 65536.0;
  double growth = 2.0;
  double backoff = 0.5;
  int64_t interval = 2000;
};

class LossScaler {
public:
  /// The scaler of `module`, made by an earlier call or created now: its
  /// globals go before the module's first function.
  static mlir::FailureOr<LossScaler>
  getOrCreate(mlir::ModuleOp module, const LossScaleSettings &settings);

  /// The module's scaler, if it has one (a global marked hetg.loss_scale).
  static mlir::FailureOr<std::optional<LossScaler>> find(mlir::ModuleOp module);

  /// The scaler whose scale global `ref` names; errors at `user`.
  static mlir::FailureOr<LossScaler> lookup(mlir::ModuleOp module,
                                            mlir::FlatSymbolRefAttr ref,
                                            mlir::Operation *user);

  mlir::ml_program::GlobalOp scaleGlobal() const { return scale; }

  /// This step's scale (f32 0-D): the global's value, or the initial scale
  /// while the global still holds its zero.
  mlir::Value buildScale(mlir::OpBuilder &builder, mlir::Location loc) const;

  /// Stores the next scale and good-step count after a step with scale
  /// `stepScale` whose gradients were all finite or not (`finite`, i1 0-D).
  void buildUpdate(mlir::OpBuilder &builder, mlir::Location loc,
                   mlir::Value stepScale, mlir::Value finite) const;

private:
  static mlir::FailureOr<LossScaler>
  fromGlobal(mlir::ModuleOp module, mlir::ml_program::GlobalOp global);

  mlir::ml_program::GlobalOp scale, goodSteps;
  LossScaleSettings settings;
};

/// i1 0-D: whether the 0-D float `norm` is finite (inf - inf and NaN - NaN
/// are NaN, which equals nothing).
mlir::Value buildIsFinite(mlir::OpBuilder &builder, mlir::Location loc,
                          mlir::Value norm);

} // namespace hetc

#endif // HETC_PASSES_LOSSSCALING_H
