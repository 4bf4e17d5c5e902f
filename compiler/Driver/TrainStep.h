//===- TrainStep.h - the passes from a model to its gradients ---*- C++ -*-===//
//
// Single-device compiles and distributed ones build the same loss and
// gradients; they differ in what follows (the update, or the partition into
// stages). This is the shared part.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_DRIVER_TRAINSTEP_H
#define HETC_COMPILER_DRIVER_TRAINSTEP_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>
#include <vector>

namespace hetc::driver {

/// Runs the textual pass pipeline `pipeline` on `module`.
mlir::LogicalResult runPipeline(mlir::ModuleOp module, llvm::StringRef pipeline);

/// The most segments `hetg-segment` found in any function of `module`.
int64_t countSegments(mlir::ModuleOp module);

struct GradientStepOptions {
  int64_t batch = 0, seq = 0;
  /// Tokens the summed loss is divided by; 0: batch * seq (a plain mean).
  int64_t lossTokens = 0;
  /// Segment the forward graph (hetg-segment) even without recomputation.
  bool segment = false;
  /// `--recompute`: "none", "all" or a comma-separated segment list.
  std::string recompute = "none";
  /// What the float ops compute in (hetg-mixed-precision): f32, bf16 or
  /// f16, overridden per segment by `segmentPrecision` (a plan's stages).
  std::string precision = "f32";
  std::vector<std::string> segmentPrecision;
};

/// Specializes the imported `module` to `batch` x `seq`, attaches the loss
/// and differentiates it: the function then returns the loss and one
/// gradient per parameter. Reports each stage through `progress`.
mlir::LogicalResult
buildGradientStep(mlir::ModuleOp module, const GradientStepOptions &options,
                  llvm::function_ref<void(const llvm::Twine &)> progress);

/// Specializes the imported `module` to `batch` x `seq` and attaches the
/// loss, keeping the logits: the function returns the loss, then the
/// logits (a forward-only step).
mlir::LogicalResult
buildForwardStep(mlir::ModuleOp module, const GradientStepOptions &options,
                 llvm::function_ref<void(const llvm::Twine &)> progress);

} // namespace hetc::driver

#endif // HETC_COMPILER_DRIVER_TRAINSTEP_H
