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

using runtime::LossReduction;
using runtime::CrossEntropyOptions;

// loss of logits against class labels (i64 or i32), in the ONNX
// SoftmaxCrossEntropyLoss layout: logits [N, C, d...] with classes on
// dimension 1 (usually [N, C]), labels [N, d...]. loss is labels-shaped for
// kNone (0 at ignored labels), a single element otherwise; kMean divides by
// the number of labels not ignored (NaN when there are none, as in torch).
// lse (optional, labels-shaped) receives each row's log-sum-exp for the
// backward pass.
Status crossEntropy(const TensorView &logits, const TensorView &labels,
                    const CrossEntropyOptions &options, const TensorView &loss,
                    const TensorView *lse);

// dlogits = dloss-weighted (softmax(logits) - onehot(label)), zero rows at
// ignored labels. dloss has loss's shape. lse from the forward may be null
// (then it is recomputed).
Status crossEntropyBackward(const TensorView &logits, const TensorView &labels,
                            const CrossEntropyOptions &options,
                            const TensorView &dloss, const TensorView *lse,
                            const TensorView &dlogits);

} // namespace hetc::runtime::cuda

#endif // HETC_RUNTIME_CUDA_CROSSENTROPY_H
