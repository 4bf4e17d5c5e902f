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

// y = softmax(x) along `axis` (negative counts from the end); y has x's
// shape and dtype. A row that is all -inf gives NaN, as in torch.
Status softmax(const TensorView &x, int64_t axis, const TensorView &y);
// y = x - logsumexp(x) along `axis`.
Status logSoftmax(const TensorView &x, int64_t axis, const TensorView &y);

// From the forward output y: dx = y * (dy - sum(dy * y)).
Status softmaxBackward(const TensorView &y, const TensorView &dy, int64_t axis,
                       const TensorView &dx);
// From the forward output y: dx = dy - exp(y) * sum(dy).
Status logSoftmaxBackward(const TensorView &y, const TensorView &dy,
                          int64_t axis, const TensorView &dx);

} // namespace hetc::runtime::cuda

#endif // HETC_RUNTIME_CUDA_SOFTMAX_H
