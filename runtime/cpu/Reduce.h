//===- Reduce.h - sum, mean and max over axes -------------------*- C++ -*-===//

#ifndef HETC_RUNTIME_CPU_REDUCE_H
#define HETC_RUNTIME_CPU_REDUCE_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"

namespace hetc::runtime::cpu {

#include "runtime/kernels/Reduce.inc"

} // namespace hetc::runtime::cpu

#endif // HETC_RUNTIME_CPU_REDUCE_H
