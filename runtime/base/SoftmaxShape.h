//===- SoftmaxShape.h - operand checks and axis view of softmax -*- C++ -*-===//

#ifndef HETC_RUNTIME_BASE_SOFTMAXSHAPE_H
#define HETC_RUNTIME_BASE_SOFTMAXSHAPE_H

#include "runtime/base/Tensor.h"

namespace hetc::runtime {

/// `in` viewed as [outer, n, inner] around the softmax axis.
struct SoftmaxAxis {
  int64_t outer = 1, n = 1, inner = 1;
};

/// Checks that `other` (when given) and `out` have in's dtype, data and
/// shape, and splits `in` at `axis`. in's dtype and data are the caller's.
Status planSoftmaxAxis(const char *name, const TensorView &in,
                       const char *inName, const TensorView *other,
                       const char *otherName, const TensorView &out,
                       const char *outName, int64_t axis, SoftmaxAxis *view);

} // namespace hetc::runtime

#endif // HETC_RUNTIME_BASE_SOFTMAXSHAPE_H
