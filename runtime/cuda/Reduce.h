//===- Reduce.h - sum, mean and max over axes on CUDA -----------*- C++ -*-===//

#ifndef HETC_RUNTIME_CUDA_REDUCE_H
#define HETC_RUNTIME_CUDA_REDUCE_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"
#include "runtime/cuda/Stream.h"

// The kernel of runtime/cpu/Reduce.h on the current stream (Stream.h), with
// device pointers.

namespace hetc::runtime::cuda {

#include "runtime/kernels/Reduce.inc"

} // namespace hetc::runtime::cuda

#endif // HETC_RUNTIME_CUDA_REDUCE_H
