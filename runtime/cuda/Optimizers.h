//===- Optimizers.h - SGD, AdamW and the global norm on the GPU -*- C++ -*-===//
//
// The updates of runtime/cpu/Optimizers.h that the executor calls (sgd,
// adamw, global_norm), with the same signatures, on device pointers and the
// current stream (Stream.h). The CPU's host-returning helpers
// (sumOfSquares, clipCoefficient, scaleTensors, clipGradNorm) are left out:
// they hand a value back to the host, which would need a synchronization.
//
// Nothing here reads device memory on the host: AdamW's step count, the
// learning-rate factor and lr_schedule's step index are read by the
// kernels, and AdamW's bias corrections are computed there in double as
// the CPU computes them, so a captured CUDA graph replays later steps
// correctly. f32 results equal the CPU's to the last bit (the device's pow
// may differ from the host's by a double ulp, which can move a rounded
// factor by one float ulp in rare cases).
//
// Dtypes beyond the CPU's: sgdStep's param and grad may each be bf16 or f16
// (a 16-bit param is updated in f32 and rounded once); adamwStep's grad may
// be bf16 or f16 (param, m and v are the f32 master weights and state);
// globalNorm reads f32, bf16 or f16 and sums per chunk, then the chunks in
// order. AdamW's `step` stays on the device: the host checks only that it
// has one element, and a count that is not a whole number >= 1 (the CPU's
// error) makes the kernel write NaN into param.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CUDA_OPTIMIZERS_H
#define HETC_RUNTIME_CUDA_OPTIMIZERS_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/LearningRate.h"
#include "runtime/base/Tensor.h"
#include "runtime/cuda/Stream.h"

#include <vector>

namespace hetc::runtime::cuda {

#include "runtime/kernels/Optimizers.inc"

// CUDA only: AdamW over many tensors with one launch per 64 tensors (the
// multi_tensor_apply of apex and torch's fused AdamW). Each element of
// `tensors` is checked as adamwStep checks its operands; the tensors must
// not overlap. Every tensor gets the same step count and options (group
// tensors with and without weight decay into separate calls).
struct AdamWTensors {
  TensorView param, grad, m, v;
};
Status multiTensorAdamW(const std::vector<AdamWTensors> &tensors,
                        const TensorView &step, const AdamWOptions &options,
                        const TensorView *lrFactor = nullptr);

} // namespace hetc::runtime::cuda

#endif // HETC_RUNTIME_CUDA_OPTIMIZERS_H
