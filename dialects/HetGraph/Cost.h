//===- Cost.h - FLOPs and bytes moved of hetg ops ---------------*- C++ -*-===//
//
// Helpers behind CostOpInterface (conventions in HetGraphInterfaces.td) and
// the entry point that checks an op's types are static before asking it.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_DIALECTS_HETGRAPH_COST_H
#define HETC_DIALECTS_HETGRAPH_COST_H

#include "mlir/IR/Operation.h"

#include <cstdint>
#include <optional>

namespace hetc::hetg {

/// FLOPs of one exp, log, tanh or erf.
constexpr int64_t kTranscendentalFlops = 4;

/// Bytes of a static shaped type at its element width (i1 is one byte).
int64_t storageBytes(mlir::Type type);

/// The sum of the sizes of `op`'s operands and results: the default
/// `bytesMoved`. Every operand and result type must be static.
int64_t operandAndResultBytes(mlir::Operation *op);

struct OpCost {
  int64_t flops = 0;
  int64_t bytesMoved = 0;
};

/// The cost of `op` through CostOpInterface; none when `op` does not
/// implement it or one of its operand or result types is not a static
/// tensor.
std::optional<OpCost> getOpCost(mlir::Operation *op);

/// The FLOPs of the ops nested in `op` (one run of a function's body),
/// leaving out the clones hetg-recompute made (`hetg.recomputed`): the
/// model FLOPs that MFU counts, not the FLOPs the hardware executes.
int64_t modelFlops(mlir::Operation *op);

} // namespace hetc::hetg

#endif // HETC_DIALECTS_HETGRAPH_COST_H
