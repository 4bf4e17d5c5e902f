//===- DataDependence.h - what a value of a step is computed from -*- C++ -*-===//
//
// Pipeline cuts and stage partitioning both need to tell activations (per
// sample and trained: computed from the inputs and the parameters) from
// values any stage can recompute on its own (from the parameters alone,
// like a transposed weight, or the inputs alone, like a mask built from the
// token ids).
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PASSES_DATADEPENDENCE_H
#define HETC_PASSES_DATADEPENDENCE_H

#include "mlir/IR/Block.h"
#include "llvm/ADT/DenseSet.h"

namespace hetc {

/// Whether `op` reads a global (a parameter, or optimizer state).
bool isParameterLoad(mlir::Operation *op);

/// Values of a straight-line block that depend on a block argument (per
/// sample data) and values that depend on a parameter load.
struct DataDependence {
  llvm::DenseSet<mlir::Value> onInput, onParameter;

  explicit DataDependence(mlir::Block &block);

  bool isActivation(mlir::Value v) const {
    return onInput.contains(v) && onParameter.contains(v);
  }
};

} // namespace hetc

#endif // HETC_PASSES_DATADEPENDENCE_H
