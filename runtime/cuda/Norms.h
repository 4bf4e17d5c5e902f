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

// x is viewed as [rows, cols] with cols = prod(shape[axis:]).
// y = (x - mean) * rstd * scale + bias, rstd = 1 / sqrt(var + epsilon) with
// the biased variance. scale and bias (either may be null) have shape
// x.shape[axis:]; mean and rstd (either may be null; backward needs both) have
// `rows` elements in any shape (ONNX keeps them as [..., 1, 1]).
Status layerNorm(const TensorView &x, const TensorView *scale,
                 const TensorView *bias, int64_t axis, float epsilon,
                 const TensorView &y, const TensorView *mean,
                 const TensorView *rstd);

// dx from the saved mean and rstd; dscale and dbias (optional; null when the
// forward had none) are summed over rows, added to their contents with
// `accumulateParamGrads`. scale may be null (as 1).
Status layerNormBackward(const TensorView &x, const TensorView *scale,
                         const TensorView &mean, const TensorView &rstd,
                         const TensorView &dy, int64_t axis,
                         const TensorView &dx, const TensorView *dscale,
                         const TensorView *dbias, bool accumulateParamGrads);

// Over the last dimension: y = x * rstd * scale, rstd = 1 / sqrt(mean(x^2) +
// epsilon). scale is [cols] or null; rstd (optional) has `rows` elements.
Status rmsNorm(const TensorView &x, const TensorView *scale, float epsilon,
               const TensorView &y, const TensorView *rstd);

Status rmsNormBackward(const TensorView &x, const TensorView *scale,
                       const TensorView &rstd, const TensorView &dy,
                       const TensorView &dx, const TensorView *dscale,
                       bool accumulateParamGrads);

} // namespace hetc::runtime::cuda

#endif // HETC_RUNTIME_CUDA_NORMS_H
