//===- CrossEntropy.h - softmax cross-entropy (CUDA) ------------*- C++ -*-===//

#ifndef HETC_RUNTIME_CUDA_CROSSENTROPY_H
#define HETC_RUNTIME_CUDA_CROSSENTROPY_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"
#include "runtime/cuda/Stream.h"

// The kernels of runtime/cpu/CrossEntropy.h on the current stream (Stream.h):
// device pointers; float tensors may be f32, bf16 or f16 (computed in f32).
// logits and dlogits share one dtype; loss, lse and dloss are f32. One block
// per row streams over the classes once with an online max and sum; a
// reduced loss is summed in a fixed order (no atomics), bitwise reproducible.
//
// Labels stay on the device, so they are not checked here: they are token
// ids, which the executor checks against the vocabulary as it loads them. A
// label outside [0, C) that is not ignoreIndex gives a NaN loss for its row
// and a zero gradient row; nothing is read out of bounds.

namespace hetc::runtime::cuda {

#include "runtime/kernels/CrossEntropy.inc"

} // namespace hetc::runtime::cuda

#endif // HETC_RUNTIME_CUDA_CROSSENTROPY_H
