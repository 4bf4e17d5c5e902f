//===- Gather.h - ONNX Gather, embeddings, gradients (CUDA) -----*- C++ -*-===//

#ifndef HETC_RUNTIME_CUDA_GATHER_H
#define HETC_RUNTIME_CUDA_GATHER_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"
#include "runtime/cuda/Stream.h"

// The kernels of runtime/cpu/Gather.h on the current stream (Stream.h):
// device pointers; float tensors may be f32, bf16 or f16 (computed in f32).
//
// Indices stay on the device, so they are not checked here: token ids are
// checked against the vocabulary by the executor as it loads them. An index
// outside [-dim, dim) gives a zero row in gather's output and is skipped by
// the backward passes; nothing is read or written out of bounds.

namespace hetc::runtime::cuda {

#include "runtime/kernels/Gather.inc"

} // namespace hetc::runtime::cuda

#endif // HETC_RUNTIME_CUDA_GATHER_H
