//===- Norms.h - layer norm and RMS norm (CUDA) -----------------*- C++ -*-===//

#ifndef HETC_RUNTIME_CUDA_NORMS_H
#define HETC_RUNTIME_CUDA_NORMS_H

#include "runtime/base/Tensor.h"
#include "runtime/cuda/Stream.h"

// The kernels of runtime/cpu/Norms.h on the current stream (Stream.h):
// device pointers; float tensors may be f32, bf16 or f16 (computed in f32).
// x, y, dy and dx share one dtype; scale, bias, dscale and dbias share one
// (it may differ from x's: f32 parameters with bf16 activations); mean and
// rstd are f32. The parameter gradients are summed in a fixed order (no
// atomics): the results are bitwise reproducible.

namespace hetc::runtime::cuda {

#include "runtime/kernels/Norms.inc"

} // namespace hetc::runtime::cuda

#endif // HETC_RUNTIME_CUDA_NORMS_H
