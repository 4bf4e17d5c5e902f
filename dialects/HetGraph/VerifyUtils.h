//===- VerifyUtils.h - checks shared by hetg op verifiers -----------------===//

#ifndef HETC_DIALECTS_HETGRAPH_VERIFYUTILS_H
#define HETC_DIALECTS_HETGRAPH_VERIFYUTILS_H

#include "mlir/IR/Operation.h"

namespace hetc::hetg {

/// An `axis` attribute must name a dimension of a tensor of `rank`.
inline llvm::LogicalResult verifyAxisInRange(mlir::Operation *op, int64_t axis,
                                             int64_t rank) {
  if (axis < 0 || axis >= rank)
    return op->emitOpError("axis ")
           << axis << " is out of range for rank " << rank;
  return llvm::success();
}

} // namespace hetc::hetg

#endif // HETC_DIALECTS_HETGRAPH_VERIFYUTILS_H
