//===- Elementwise.h - unary, binary, select, cast (CUDA) -------*- C++ -*-===//
//
// The kernels of runtime/cpu/Elementwise.h with the same semantics, on device
// pointers and the current stream (Stream.h). Where the CPU takes f32, these
// take f32, bf16 or f16 (computed in f32, rounded once to nearest even on
// store); integer and bool operands as the CPU takes them. Each comment
// below gives the dtypes.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CUDA_ELEMENTWISE_H
#define HETC_RUNTIME_CUDA_ELEMENTWISE_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"
#include "runtime/cuda/Stream.h"

namespace hetc::runtime::cuda {

#include "runtime/kernels/Elementwise.inc"

} // namespace hetc::runtime::cuda

#endif // HETC_RUNTIME_CUDA_ELEMENTWISE_H
