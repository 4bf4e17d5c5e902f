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
#include "runtime/base/LearningRate.h"
#include "runtime/base/Tensor.h"

namespace hetc::runtime::cpu {

#include "runtime/kernels/Optimizers.inc"

// CPU only: the pieces of gradient clipping the executor composes.

// *sumSquares = sum of g^2 over all the tensors (f32), in double, in an order
// fixed by the tensors alone. A sharded run sums the shards' values (an
// all-reduce) before clipping.
Status sumOfSquares(const std::vector<TensorView> &grads, double *sumSquares);

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
