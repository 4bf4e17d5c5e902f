//===- Optimizers.h - SGD, AdamW, gradient clipping -------------*- C++ -*-===//
//
// Each update works on one tensor (or one shard of it: a replica that owns a
// slice of the optimizer state passes views of its slice). Hyperparameters
// are doubles because torch computes its scalar factors in Python floats.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CPU_OPTIMIZERS_H
#define HETC_RUNTIME_CPU_OPTIMIZERS_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"

namespace hetc::runtime::cpu {

using runtime::SgdOptions;
using runtime::AdamWOptions;

// torch.optim.SGD without momentum: p -= lr * (g + weightDecay * p).
Status sgdStep(const TensorView &param, const TensorView &grad,
               const SgdOptions &options);

// One torch.optim.AdamW step (amsgrad off) at step count `step` >= 1, a 0-D
// (or one-element) tensor of any numeric dtype holding a whole number:
//   p *= 1 - lr * wd                       (if applyWeightDecay)
//   m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
//   p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
// param, grad, m (exp_avg) and v (exp_avg_sq) are f32 of one shape; m and v
// start at zero.
Status adamwStep(const TensorView &param, const TensorView &grad,
                 const TensorView &m, const TensorView &v,
                 const TensorView &step, const AdamWOptions &options);

// *sumSquares = sum of g^2 over all the tensors (f32), in double, in an order
// fixed by the tensors alone. A sharded run sums the shards' values (an
// all-reduce) before clipping.
Status sumOfSquares(const std::vector<TensorView> &grads, double *sumSquares);

// out (0-D f32 or f64) = sqrt(sumOfSquares(grads)): hetg.global_norm, the
// L2 norm clip_grad_norm_ computes before clipping.
Status globalNorm(const std::vector<TensorView> &grads, const TensorView &out);

// torch.nn.utils.clip_grad_norm_'s factor: min(1, maxNorm / (norm + 1e-6)).
double clipCoefficient(double totalNorm, double maxNorm);

// Multiplies every tensor by `factor` (f32).
Status scaleTensors(const std::vector<TensorView> &tensors, float factor);

// clip_grad_norm_ (L2) over the tensors: computes the total norm (returned in
// *totalNorm when non-null) and scales all of them by clipCoefficient when
// it is below 1.
Status clipGradNorm(const std::vector<TensorView> &grads, double maxNorm,
                    double *totalNorm);

} // namespace hetc::runtime::cpu

#endif // HETC_RUNTIME_CPU_OPTIMIZERS_H
