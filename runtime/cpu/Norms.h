//===- Norms.h - layer norm and RMS norm ------------------------*- C++ -*-===//

#ifndef HETC_RUNTIME_CPU_NORMS_H
#define HETC_RUNTIME_CPU_NORMS_H

#include "runtime/base/Tensor.h"

namespace hetc::runtime::cpu {

#include "runtime/kernels/Norms.inc"

} // namespace hetc::runtime::cpu

#endif // HETC_RUNTIME_CPU_NORMS_H
