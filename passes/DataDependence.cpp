//===- DataDependence.cpp - what a value of a step is computed from -------===//

#include "passes/DataDependence.h"

#include "mlir/Dialect/MLProgram/IR/MLProgram.h"

using namespace mlir;

namespace hetc {

bool isParameterLoad(Operation *op) {
  return llvm::isa<ml_program::GlobalLoadConstOp, ml_program::GlobalLoadOp>(
      op);
}

DataDependence::DataDependence(Block &block) {
  onInput.insert(block.getArguments().begin(), block.getArguments().end());
  for (Operation &op : block) {
    bool input = false, parameter = isParameterLoad(&op);
    for (Value operand : op.getOperands()) {
      input |= onInput.contains(operand);
      parameter |= onParameter.contains(operand);
    }
    for (Value result : op.getResults()) {
      if (input)
        onInput.insert(result);
      if (parameter)
        onParameter.insert(result);
    }
  }
}

} // namespace hetc
