//===- Attention.h - scaled dot-product attention ---------------*- C++ -*-===//

#ifndef HETC_RUNTIME_CPU_ATTENTION_H
#define HETC_RUNTIME_CPU_ATTENTION_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"

namespace hetc::runtime::cpu {

using runtime::AttentionOptions;

// out = softmax(q @ k^T * scale + mask) @ v over the last two dimensions.
// q [..., Tq, D], k [..., Tk, D], v [..., Tk, Dv], out [..., Tq, Dv]; the
// leading dimensions (batch, heads, ...) are equal. mask (may be null) is f32
// (added to the scores) or bool (false excludes the key) and broadcasts to
// [..., Tq, Tk]. lse (may be null; backward needs it) is [..., Tq]: the
// log-sum-exp of each row of scores. All f32. Rows are processed in blocks
// with an online softmax, so no [Tq, Tk] matrix is ever held. A row whose
// keys are all excluded gives NaN, like softmax.
Status attention(const TensorView &q, const TensorView &k, const TensorView &v,
                 const TensorView *mask, const AttentionOptions &options,
                 const TensorView &out, const TensorView *lse);

// dq, dk, dv from the forward's inputs, out and lse and the output gradient
// dout. The mask gets no gradient.
Status attentionBackward(const TensorView &q, const TensorView &k,
                         const TensorView &v, const TensorView *mask,
                         const AttentionOptions &options,
                         const TensorView &out, const TensorView &lse,
                         const TensorView &dout, const TensorView &dq,
                         const TensorView &dk, const TensorView &dv);

} // namespace hetc::runtime::cpu

#endif // HETC_RUNTIME_CPU_ATTENTION_H
