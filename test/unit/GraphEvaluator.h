//===- GraphEvaluator.h - evaluating hetg functions by constant folding ---===//
//
// The folders are the reference semantics of hetg ops, so a function whose
// global loads are replaced by constants folds down to the constants it
// computes. Tests use this to run forward graphs, gradients and optimizer
// steps without a runtime.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_TEST_UNIT_GRAPHEVALUATOR_H
#define HETC_TEST_UNIT_GRAPHEVALUATOR_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hetc::testing {

/// Values of globals by symbol name, row-major.
using GlobalValues = std::map<std::string, std::vector<double>>;

struct Evaluation {
  /// The function's results, row-major.
  std::vector<std::vector<double>> results;
  /// The values stored into globals (ml_program.global_store), by name.
  GlobalValues stores;
};

class GraphEvaluator {
public:
  GraphEvaluator();

  mlir::MLIRContext &context() { return context_; }

  /// Parses a module; fails the current test on errors.
  mlir::OwningOpRef<mlir::ModuleOp> parse(llvm::StringRef text);

  /// Runs the passes `build` adds on `module`; false (with the diagnostics
  /// in `diagnostics`) when they fail.
  bool run(mlir::ModuleOp module,
           llvm::function_ref<void(mlir::PassManager &)> build,
           std::string *diagnostics = nullptr);

  /// Evaluates the single function of a copy of `module` with every global
  /// load (constant or not) replaced by `values` of that global. Fails the
  /// current test and returns nullopt when something does not fold.
  std::optional<Evaluation> evaluate(mlir::ModuleOp module,
                                     const GlobalValues &values);

private:
  mlir::MLIRContext context_;
};

/// The values of a global's initializer (a dense constant).
std::vector<double> initialValue(mlir::ModuleOp module, llvm::StringRef name);

} // namespace hetc::testing

#endif // HETC_TEST_UNIT_GRAPHEVALUATOR_H
