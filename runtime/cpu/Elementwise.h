//===- Elementwise.h - unary, binary, select, cast --------------*- C++ -*-===//

#ifndef HETC_RUNTIME_CPU_ELEMENTWISE_H
#define HETC_RUNTIME_CPU_ELEMENTWISE_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"

namespace hetc::runtime::cpu {

#include "runtime/kernels/Elementwise.inc"

} // namespace hetc::runtime::cpu

#endif // HETC_RUNTIME_CPU_ELEMENTWISE_H
