//===- InitializerSelection.h - trained and frozen initializers -*- C++ -*-===//
//
// The --freeze/--train flags every command that imports ONNX takes, and
// the summary of which float initializers became parameters and which
// stayed constants, as `hetc compile` prints it and the manifest keeps it.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_DRIVER_INITIALIZERSELECTION_H
#define HETC_COMPILER_DRIVER_INITIALIZERSELECTION_H

#include "compiler/Import/ONNX/ONNXImporter.h"
#include "compiler/Package/PackageWriter.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

namespace hetc::pkg {
class Manifest;
} // namespace hetc::pkg

namespace hetc::driver {

/// `--freeze PATTERN[,PATTERN...]` and `--train PATTERN[,...]` of one
/// subcommand.
class InitializerSelectionFlags {
public:
  InitializerSelectionFlags(llvm::cl::SubCommand &subcommand,
                            llvm::cl::OptionCategory &category);
  /// Copies the globs into the importer's options.
  void applyTo(ONNXImportOptions &options) const;
  /// Whether any glob was given (they apply to ONNX models only).
  bool given() const { return !freeze.empty() || !train.empty(); }

private:
  llvm::cl::list<std::string> freeze;
  llvm::cl::list<std::string> train;
};

/// The float initializers of an imported (not yet trained) module: its
/// float globals are the trainable ones, hetg.frozen_initializers the rest.
package::InitializerSummary summarizeInitializers(mlir::ModuleOp module);

/// The summary a package's manifest records.
package::InitializerSummary summarizeInitializers(const pkg::Manifest &manifest);

/// "initializers: N trainable (E parameters), M frozen (F values)" and one
/// line per frozen initializer, each line after `prefix`.
void printInitializerSummary(const package::InitializerSummary &summary,
                             llvm::StringRef prefix, llvm::raw_ostream &os);

} // namespace hetc::driver

#endif // HETC_COMPILER_DRIVER_INITIALIZERSELECTION_H
