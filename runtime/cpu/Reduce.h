//===- Reduce.h - sum, mean and max over axes -------------------*- C++ -*-===//

#ifndef HETC_RUNTIME_CPU_REDUCE_H
#define HETC_RUNTIME_CPU_REDUCE_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"

namespace hetc::runtime::cpu {

using runtime::ReduceOp;

// y = op over `axes` of x (f32). Axes may be negative and must be distinct;
// an empty list reduces nothing (a copy). With keepDims, y keeps the reduced
// axes as size 1; otherwise they are removed. Sums and means accumulate in
// double. The mean over zero elements is NaN and the max over an empty axis
// is an error. Max propagates NaN.
Status reduce(ReduceOp op, const TensorView &x,
              const std::vector<int64_t> &axes, bool keepDims,
              const TensorView &y);

} // namespace hetc::runtime::cpu

#endif // HETC_RUNTIME_CPU_REDUCE_H
