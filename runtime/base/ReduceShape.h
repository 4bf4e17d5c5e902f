//===- ReduceShape.h - reduced axes and output shape of reduce ---*- C++ -*-===//

#ifndef HETC_RUNTIME_BASE_REDUCESHAPE_H
#define HETC_RUNTIME_BASE_REDUCESHAPE_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"

namespace hetc::runtime {

/// "reduce_sum", "reduce_mean" or "reduce_max".
const char *reduceOpName(ReduceOp op);

/// What reduce over `axes` of a tensor does to its dimensions.
struct ReducedAxes {
  std::vector<bool> reduced; // per dimension of x
  double scale = 1.0;        // 1/count for a mean (NaN over nothing), else 1
};

/// Normalizes `axes` (negative, distinct) over x's rank, checks y's shape
/// (reduced axes kept as 1 with keepDims, else removed) and that a max
/// reduces no empty axis. Dtypes and data are the caller's.
Status planReducedAxes(const char *name, ReduceOp op, const TensorView &x,
                       const std::vector<int64_t> &axes, bool keepDims,
                       const TensorView &y, ReducedAxes *plan);

} // namespace hetc::runtime

#endif // HETC_RUNTIME_BASE_REDUCESHAPE_H
