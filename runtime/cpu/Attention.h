//===- Attention.h - scaled dot-product attention ---------------*- C++ -*-===//

#ifndef HETC_RUNTIME_CPU_ATTENTION_H
#define HETC_RUNTIME_CPU_ATTENTION_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"

namespace hetc::runtime::cpu {

#include "runtime/kernels/Attention.inc"

} // namespace hetc::runtime::cpu

#endif // HETC_RUNTIME_CPU_ATTENTION_H
