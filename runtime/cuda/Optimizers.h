//===- Optimizers.h - SGD, AdamW and the global norm on the GPU -*- C++ -*-===//
//
// The updates of runtime/cpu/Optimizers.h that the executor calls (sgd,
// adamw, global_norm), with the same signatures, on device pointers and the
// current stream (Stream.h). The CPU's host-returning helpers
// (sumOfSquares, clipCoefficient, scaleTensors, clipGradNorm) are left out:
// they hand a value back to the host, which would need a synchronization.
//
// Nothing here reads device memory on the host: AdamW's step count is read
// by the kernel, and its bias corrections are computed there in double as
// the CPU computes them, so a captured CUDA graph replays later steps
// correctly. f32 results equal the CPU's to the last bit (the device's pow
// may differ from the host's by a double ulp, which can move a rounded
// factor by one float ulp in rare cases).
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CUDA_OPTIMIZERS_H
#define HETC_RUNTIME_CUDA_OPTIMIZERS_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"
#include "runtime/cuda/Stream.h"

#include <vector>

namespace hetc::runtime::cuda {

using runtime::SgdOptions;
using runtime::AdamWOptions;

// torch.optim.SGD without momentum: p -= lr * (g + weightDecay * p).
// param and grad are f32, bf16 or f16 (each its own), of one shape; a 16-bit
// param is updated in f32 and rounded once.
Status sgdStep(const TensorView &param, const TensorView &grad,
               const SgdOptions &options);

// One torch.optim.AdamW step (amsgrad off) at step count `step` >= 1, a 0-D
// (or one-element) tensor of any numeric dtype holding a whole number:
//   p *= 1 - lr * wd                       (if applyWeightDecay)
//   m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
//   p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
// param, m (exp_avg) and v (exp_avg_sq) are f32 (master weights) of one
// shape; grad is f32, bf16 or f16 of that shape. m and v start at zero.
// `step` stays on the device: the host checks only that it has one element;
// a step count that is not a whole number >= 1 (the CPU's error) makes the
// kernel write NaN into param, since it cannot return an error.
Status adamwStep(const TensorView &param, const TensorView &grad,
                 const TensorView &m, const TensorView &v,
                 const TensorView &step, const AdamWOptions &options);

// out (0-D f32 or f64) = the L2 norm of all the tensors (f32, bf16 or f16):
// hetg.global_norm, what clip_grad_norm_ computes before clipping. Squares
// are summed in double in an order fixed by the tensors' sizes alone (per
// chunk, then the chunks in order), so the result is deterministic.
Status globalNorm(const std::vector<TensorView> &grads, const TensorView &out);

// CUDA only: AdamW over many tensors with one launch per 64 tensors (the
// multi_tensor_apply of apex and torch's fused AdamW). Each element of
// `tensors` is checked as adamwStep checks its operands; the tensors must
// not overlap. Every tensor gets the same step count and options (group
// tensors with and without weight decay into separate calls).
struct AdamWTensors {
  TensorView param, grad, m, v;
};
Status multiTensorAdamW(const std::vector<AdamWTensors> &tensors,
                        const TensorView &step, const AdamWOptions &options);

} // namespace hetc::runtime::cuda

#endif // HETC_RUNTIME_CUDA_OPTIMIZERS_H
