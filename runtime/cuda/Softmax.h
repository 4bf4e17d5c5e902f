//===- Softmax.h - softmax and log-softmax along an axis (CUDA) -*- C++ -*-===//

#ifndef HETC_RUNTIME_CUDA_SOFTMAX_H
#define HETC_RUNTIME_CUDA_SOFTMAX_H

#include "runtime/base/Tensor.h"
#include "runtime/cuda/Stream.h"

// The kernels of runtime/cpu/Softmax.h on the current stream (Stream.h):
// device pointers; float tensors may be f32, bf16 or f16 (computed in f32),
// all operands of a call in one dtype. The last axis runs one block per row
// in 16-byte packs; other axes one block per 32 rows, reading across rows.

namespace hetc::runtime::cuda {

#include "runtime/kernels/Softmax.inc"

} // namespace hetc::runtime::cuda

#endif // HETC_RUNTIME_CUDA_SOFTMAX_H
