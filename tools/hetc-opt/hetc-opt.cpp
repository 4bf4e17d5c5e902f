//===- hetc-opt.cpp - runs hetc passes and pipelines like mlir-opt --------===//

#include "dialects/HetExec/HetExec.h"
#include "dialects/HetGraph/HetGraph.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  hetc::registerAllPasses();

  mlir::DialectRegistry registry;
  registry.insert<hetc::hetg::HetGraphDialect, hetc::hetx::HetExecDialect,
                  mlir::func::FuncDialect,
                  mlir::ml_program::MLProgramDialect,
                  mlir::tensor::TensorDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "hetc optimizer driver\n", registry));
}
