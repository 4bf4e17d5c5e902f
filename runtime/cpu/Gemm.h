//===- Gemm.h - batched matrix products (OpenBLAS) --------------*- C++ -*-===//

#ifndef HETC_RUNTIME_CPU_GEMM_H
#define HETC_RUNTIME_CPU_GEMM_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"

namespace hetc::runtime::cpu {

#include "runtime/kernels/Gemm.inc"

} // namespace hetc::runtime::cpu

#endif // HETC_RUNTIME_CPU_GEMM_H
