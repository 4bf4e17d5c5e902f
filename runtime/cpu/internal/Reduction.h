//===- Reduction.h - the reduction loop shared by kernels -------*- C++ -*-===//

#ifndef HETC_RUNTIME_CPU_INTERNAL_REDUCTION_H
#define HETC_RUNTIME_CPU_INTERNAL_REDUCTION_H

#include "runtime/base/Tensor.h"

namespace hetc::runtime::cpu::internal {

enum class ReduceKind { kSum, kMax };

// y = scale * reduce(x over the dims flagged in `reduced`) (kSum), or the
// maximum (kMax, NaN-propagating; `scale` ignored); with `accumulate`,
// y += instead. y holds the kept dims of x in order. Sums accumulate in
// double, each output element in a fixed order, in parallel over outputs.
// No reduced dimension may be empty for kMax.
void reduceDims(ReduceKind kind, const float *x, const Shape &shape,
                const std::vector<bool> &reduced, float *y, bool accumulate,
                double scale);

} // namespace hetc::runtime::cpu::internal

#endif // HETC_RUNTIME_CPU_INTERNAL_REDUCTION_H
