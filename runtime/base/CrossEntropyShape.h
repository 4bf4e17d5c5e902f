//===- CrossEntropyShape.h - shape checks of cross entropy ------*- C++ -*-===//
//
// Logits are viewed as [N, C, inner]; labels are [N, inner...]. Label values
// are the backends' to check (the GPU's stay on the device).
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_BASE_CROSSENTROPYSHAPE_H
#define HETC_RUNTIME_BASE_CROSSENTROPYSHAPE_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"

namespace hetc::runtime {

struct CrossEntropyLayout {
  int64_t n = 0, classes = 0, inner = 1;
  int64_t rows() const { return n * inner; }
};

/// Checks labels (i64 or i32, logits' shape without the class axis) and
/// that logits are [N, C, d...] with classes where there are rows. The
/// logits' dtype and data are the caller's.
Status planCrossEntropyRows(const char *name, const TensorView &logits,
                            const TensorView &labels,
                            CrossEntropyLayout *layout);

/// The loss (or its gradient) `t` is f32: one per label for kNone, else one
/// element.
Status checkLossShape(const char *name, const TensorView &t, const char *what,
                      const TensorView &labels, LossReduction reduction);

/// A saved log-sum-exp, when given, is f32 with one element per label.
Status checkLse(const char *name, const TensorView *lse,
                const TensorView &labels);

} // namespace hetc::runtime

#endif // HETC_RUNTIME_BASE_CROSSENTROPYSHAPE_H
