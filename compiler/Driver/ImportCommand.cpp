//===- ImportCommand.cpp - hetc import
//-------------------------------------===//
//
// Imports an ONNX model to hetg IR and verifies it; with --untie-weights it
// gives every use of a shared weight its own global; with --batch and --seq
// it also runs the simplify pipeline (specialize, fold, fuse) so the output
// is the static, fused graph the later stages start from.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/Commands.h"
#include "compiler/Driver/Diagnostics.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Driver/InitializerSelection.h"
#include "compiler/Driver/OutputFile.h"
#include "compiler/Import/ONNX/ONNXImporter.h"
#include "dialects/HetGraph/HetGraph.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace hetc::driver {

namespace {

cl::SubCommand importSubcommand(
    "import",
    "Import an ONNX model (opsets 13-18; binary .onnx, or ONNX textual "
    "syntax .onnxtxt; external data files next to the model) and print its "
    "verified hetg IR");

cl::OptionCategory importCategory("hetc import options");

cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                               cl::sub(importSubcommand),
                               cl::cat(importCategory),
                               cl::desc("<MODEL.onnx | MODEL.onnxtxt>"));

cl::opt<std::string> outputPath(
    "o", cl::sub(importSubcommand), cl::cat(importCategory),
    cl::value_desc("file"), cl::init("-"),
    cl::desc("Write the IR to <file> instead of stdout; the file is written "
             "whole or not at all"));

cl::opt<int64_t> batchSize(
    "batch", cl::sub(importSubcommand), cl::cat(importCategory),
    cl::value_desc("B"), cl::init(0),
    cl::desc("With --seq: specialize dimension 0 of the inputs to B samples, "
             "then fold and fuse (the hetg-simplify pipeline)"));

cl::opt<int64_t> seqLength(
    "seq", cl::sub(importSubcommand), cl::cat(importCategory),
    cl::value_desc("T"), cl::init(0),
    cl::desc("With --batch: specialize dimension 1 of the inputs to T "
             "tokens"));

cl::opt<bool> elideWeights(
    "elide-weights", cl::sub(importSubcommand), cl::cat(importCategory),
    cl::desc("Print weight blobs as placeholders instead of hex (the output "
             "no longer carries the weights)"));

cl::opt<bool> noWeights(
    "no-weights", cl::sub(importSubcommand), cl::cat(importCategory),
    cl::desc("Do not read the weights: each weight global is a zero splat of "
             "its type and external data files are not opened (for models "
             "whose weight files are absent, e.g. export.py --shapes-only)"));

cl::opt<bool> untieWeights(
    "untie-weights", cl::sub(importSubcommand), cl::cat(importCategory),
    cl::desc("Give every use of a shared weight initializer its own global "
             "(hetg-untie-parameters), for exporters that merge initializers "
             "of equal value; the copies are named NAME.1, NAME.2, ... and "
             "carry hetg.untied_from"));

InitializerSelectionFlags initializerFlags(importSubcommand, importCategory);

int runImport() {
  bool specialize =
      batchSize.getNumOccurrences() || seqLength.getNumOccurrences();
  if (specialize && (batchSize <= 0 || seqLength <= 0)) {
    llvm::errs() << "hetc import: --batch and --seq go together and must be "
                    "positive (got --batch="
                 << batchSize << " --seq=" << seqLength << ")\n";
    return kExitUsage;
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  UserDiagnosticHandler diagnostics(&context);

  ONNXImportOptions options;
  options.loadWeights = !noWeights;
  options.warnSharedWeights = !untieWeights;
  initializerFlags.applyTo(options);
  FailureOr<OwningOpRef<ModuleOp>> module =
      importONNXFile(context, modelPath, options);
  if (failed(module))
    return kExitFailure;

  if (untieWeights) {
    PassManager pm(&context);
    pm.addPass(createHetgUntieParameters());
    if (failed(pm.run(**module)))
      return kExitFailure;
  }

  if (specialize) {
    PassManager pm(&context);
    SimplifyPipelineOptions options;
    options.batch = batchSize;
    options.seq = seqLength;
    buildSimplifyPipeline(pm, options);
    if (failed(pm.run(**module)))
      return kExitFailure;
  }

  OpPrintingFlags flags;
  if (elideWeights)
    flags.elideLargeResourceString();
  if (llvm::Error error = writeOutputFile(
          outputPath, [&](llvm::raw_ostream &os) -> llvm::Error {
            (*module)->print(os, flags);
            os << "\n";
            return llvm::Error::success();
          })) {
    llvm::errs() << "hetc import: cannot write '" << outputPath
                 << "': " << llvm::toString(std::move(error)) << "\n";
    return kExitFailure;
  }
  return kExitSuccess;
}

} // namespace

Command importCommand() {
  return {importSubcommand, importCategory, runImport};
}

} // namespace hetc::driver
