//===- FuzzOnnx.cpp - the ONNX reader and importer ------------------------===//
//
// A binary ModelProto through the importer (its weights read when they are
// inline; a model pointing at external data is imported without them, as
// `hetc import --no-weights` does), then the canonicalizer, whose folds
// evaluate constant arithmetic.
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

#include "compiler/Import/ONNX/ONNXImporter.h"
#include "passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "onnx/onnx_pb.h"

namespace {

bool usesExternalData(const onnx::ModelProto &model) {
  for (const onnx::TensorProto &tensor : model.graph().initializer())
    if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
      return true;
  return false;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(size)))
    return 0;
  static mlir::DialectRegistry *registry = [] {
    auto *made = new mlir::DialectRegistry();
    hetc::registerAllDialects(*made);
    return made;
  }();
  // A context per input: uniqued attributes of one input never pile up
  // over millions of them.
  mlir::MLIRContext context(*registry, mlir::MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  context.getDiagEngine().registerHandler(
      [](mlir::Diagnostic &) { return mlir::success(); });
  hetc::ONNXImportOptions options;
  options.modelPath = "/nonexistent/hetc-fuzz/model.onnx";
  options.loadWeights = !usesExternalData(model);
  llvm::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>> module =
      hetc::importONNXModel(context, model, options);
  if (failed(module))
    return 0;
  mlir::PassManager pm(&context);
  pm.addPass(mlir::createCanonicalizerPass());
  (void)pm.run(**module);
  return 0;
}
