//===- Attention.h - scaled dot-product attention (CUDA) --------*- C++ -*-===//

#ifndef HETC_RUNTIME_CUDA_ATTENTION_H
#define HETC_RUNTIME_CUDA_ATTENTION_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"
#include "runtime/cuda/Stream.h"

// The kernels of runtime/cpu/Attention.h on the current stream (Stream.h),
// with device pointers. q, k, v, out, dout, dq, dk and dv are f32, bf16 or
// f16, all the same dtype; lse is f32 and the mask f32 or bool as on the
// CPU. Scores, softmax statistics and accumulators are f32; bf16/f16 with
// head dimensions that are multiples of 8 run on tensor cores, whose
// products round the probabilities (and dS) to the input dtype, as
// FlashAttention does. Head dimensions (D and Dv) above 128 are
// INVALID_ARGUMENT. The backward writes every gradient element once (no
// atomics: deterministic) and keeps its row terms in a per-thread device
// scratch buffer that is allocated on the first call and grows only when
// a later call needs more, so capture CUDA graphs after a first step.

namespace hetc::runtime::cuda {

#include "runtime/kernels/Attention.inc"

} // namespace hetc::runtime::cuda

#endif // HETC_RUNTIME_CUDA_ATTENTION_H
