//===- Gemm.h - batched matrix products (OpenBLAS) --------------*- C++ -*-===//

#ifndef HETC_RUNTIME_CPU_GEMM_H
#define HETC_RUNTIME_CPU_GEMM_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"

namespace hetc::runtime::cpu {

using runtime::GemmOptions;

// C = alpha * op(A) @ op(B) (+ bias), all f32, operands of rank >= 2.
// op(A) is [..., M, K], op(B) is [..., K, N]; the leading (batch) dimensions
// broadcast as in numpy and C is [broadcast batch..., M, N]. `bias` (may be
// null) is [N] and is added to every row. C must not alias A, B or bias.
Status gemm(const TensorView &a, const TensorView &b, const TensorView *bias,
            const TensorView &c, const GemmOptions &options);

// dbias[n] (+)= sum of dy over every dimension but the last. dy: [..., N],
// dbias: [N], both f32.
Status biasGrad(const TensorView &dy, const TensorView &dbias,
                bool accumulate);

} // namespace hetc::runtime::cpu

#endif // HETC_RUNTIME_CPU_GEMM_H
