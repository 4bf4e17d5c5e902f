//===- Reduce.h - sum, mean and max over axes on CUDA -----------*- C++ -*-===//

#ifndef HETC_RUNTIME_CUDA_REDUCE_H
#define HETC_RUNTIME_CUDA_REDUCE_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"
#include "runtime/cuda/Stream.h"

// The kernel of runtime/cpu/Reduce.h on the current stream (Stream.h), with
// device pointers.

namespace hetc::runtime::cuda {

using runtime::ReduceOp;

// y = op over `axes` of x (f32, bf16 or f16; y has x's dtype). Axes may be
// negative and must be distinct; an empty list reduces nothing (a copy).
// With keepDims, y keeps the reduced axes as size 1; otherwise they are
// removed. Sums and means accumulate in double and round once to y's dtype.
// The mean over zero elements is NaN and the max over an empty axis is an
// error. Max propagates NaN. Deterministic: each output element is reduced
// in an order fixed by the shapes (no atomics), though not the CPU's order.
Status reduce(ReduceOp op, const TensorView &x,
              const std::vector<int64_t> &axes, bool keepDims,
              const TensorView &y);

} // namespace hetc::runtime::cuda

#endif // HETC_RUNTIME_CUDA_REDUCE_H
