//===- GlobalAccess.h - how a step reads and updates globals ----*- C++ -*-===//
//
// A global has one buffer for the whole run, so a step that loads a global
// and stores its new value must not overwrite bytes that are still to be
// read. This analysis of a straight-line body decides, per global, which
// loads take a copy of the old value and which stores need no copy because
// the producing launch can write straight into the global's buffer. Values
// that view a loaded value's bytes (reshapes, contiguous slices) read the
// global as much as the load does.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PASSES_CONVERSION_HETGRAPHTOHETEXEC_GLOBALACCESS_H
#define HETC_PASSES_CONVERSION_HETGRAPHTOHETEXEC_GLOBALACCESS_H

#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace hetc {

struct GlobalAccessPlan {
  /// Loads that copy the global's value at the load: the old value is still
  /// read after the global is stored.
  llvm::DenseSet<mlir::Operation *> snapshotLoads;
  /// Stores whose value the producing launch writes into the global.
  llvm::DenseSet<mlir::Operation *> inPlaceStores;
  /// The values of those stores -> the global they are written into.
  llvm::DenseMap<mlir::Value, mlir::StringAttr> inPlaceResults;
};

/// Plans the global accesses of `body`; fails (with an error at the op)
/// when a global is stored twice.
mlir::FailureOr<GlobalAccessPlan> planGlobalAccesses(mlir::Block &body);

} // namespace hetc

#endif // HETC_PASSES_CONVERSION_HETGRAPHTOHETEXEC_GLOBALACCESS_H
