//===- CompileProgress.h - a progress line per compile stage ----*- C++ -*-===//
//
// `hetc compile` runs one pass pipeline (buildCompilePipeline); this
// instrumentation prints a line as each stage's first pass starts, in the
// user's words ("simplify to batch 2, sequence 16", "differentiate"), also
// for the per-micro-batch pipelines that hetd-micro-batch-steps runs.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_DRIVER_COMPILEPROGRESS_H
#define HETC_COMPILER_DRIVER_COMPILEPROGRESS_H

#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <functional>

namespace hetc::driver {

class CompileProgress : public mlir::PassInstrumentation {
public:
  explicit CompileProgress(std::function<void(const llvm::Twine &)> print)
      : print(std::move(print)) {}
  void runBeforePass(mlir::Pass *pass, mlir::Operation *op) override;
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override;

private:
  std::function<void(const llvm::Twine &)> print;
  bool insideSegmentation = false;
};

} // namespace hetc::driver

#endif // HETC_COMPILER_DRIVER_COMPILEPROGRESS_H
