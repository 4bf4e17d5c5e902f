//===- VerifyUtils.h - checks and messages shared by hetg verifiers -------===//

#ifndef HETC_DIALECTS_HETGRAPH_VERIFYUTILS_H
#define HETC_DIALECTS_HETGRAPH_VERIFYUTILS_H

#include "dialects/HetGraph/ShapeInference.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringExtras.h"

#include <string>

namespace hetc::hetg {

inline mlir::RankedTensorType rankedType(mlir::Value value) {
  return llvm::cast<mlir::RankedTensorType>(value.getType());
}

/// A shape for messages: `[2x?x64]`.
inline std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  return "[" +
         llvm::join(llvm::map_range(shape,
                                    [](int64_t d) {
                                      return d == kDynamic ? std::string("?")
                                                           : std::to_string(d);
                                    }),
                    "x") +
         "]";
}

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
