//===- hetc-opt.cpp - runs hetc passes and pipelines like mlir-opt --------===//

#include "passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  hetc::registerAllPasses();

  mlir::DialectRegistry registry;
  hetc::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "hetc optimizer driver\n", registry));
}
