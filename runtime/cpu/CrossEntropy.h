//===- CrossEntropy.h - softmax cross-entropy -------------------*- C++ -*-===//

#ifndef HETC_RUNTIME_CPU_CROSSENTROPY_H
#define HETC_RUNTIME_CPU_CROSSENTROPY_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"

namespace hetc::runtime::cpu {

using runtime::LossReduction;
using runtime::CrossEntropyOptions;

// loss of logits (f32) against class labels (i64 or i32), in the ONNX
// SoftmaxCrossEntropyLoss layout: logits [N, C, d...] with classes on
// dimension 1 (usually [N, C]), labels [N, d...]. loss is labels-shaped for
// kNone (0 at ignored labels), a single element otherwise; kMean divides by
// the number of labels not ignored (NaN when there are none, as in torch).
// lse (optional, labels-shaped) receives each row's log-sum-exp for the
// backward pass. A label outside [0, C) that is not ignoreIndex is an error.
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

} // namespace hetc::runtime::cpu

#endif // HETC_RUNTIME_CPU_CROSSENTROPY_H
