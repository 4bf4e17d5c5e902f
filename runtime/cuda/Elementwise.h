//===- Elementwise.h - unary, binary, select, cast (CUDA) -------*- C++ -*-===//
//
// The kernels of runtime/cpu/Elementwise.h with the same semantics, on device
// pointers and the current stream (Stream.h). Where the CPU takes f32, these
// take f32, bf16 or f16 (computed in f32, rounded once to nearest even on
// store); integer and bool operands as the CPU takes them. Each comment
// below gives the dtypes.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CUDA_ELEMENTWISE_H
#define HETC_RUNTIME_CUDA_ELEMENTWISE_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"
#include "runtime/cuda/Stream.h"

namespace hetc::runtime::cuda {

using runtime::UnaryOp;
using runtime::unaryOpName;
using runtime::BinaryOp;
using runtime::binaryOpName;

// y = f(x); x and y have the same shape and dtype. f32, bf16, f16, and
// i64/i32 for kNeg (wrapping). y may be x.
Status unary(UnaryOp op, const TensorView &x, const TensorView &y);

// dx = dy * f'(x), all of one shape and one dtype: f32, bf16 or f16. dx may
// be x or dy.
Status unaryBackward(UnaryOp op, const TensorView &x, const TensorView &dy,
                     const TensorView &dx);

// out = a op b with numpy broadcasting; out has the broadcast shape. f32,
// bf16 and f16 for every op; i64 and i32 (wrapping) for every op but div.
// minimum and maximum give NaN when either operand is NaN
// (torch.minimum/maximum). out may be a (or b) when that operand has out's
// shape: each element is read before it is written. Broadcasting here, in
// equal and in where handles up to 8 dimensions after merging neighbours
// that broadcast alike (UNIMPLEMENTED beyond).
Status binary(BinaryOp op, const TensorView &a, const TensorView &b,
              const TensorView &out);

// out (bool) = a == b with broadcasting; a and b of one dtype, any dtype
// (bf16 and f16 compare as floats: NaN != NaN, -0 == +0).
Status equal(const TensorView &a, const TensorView &b, const TensorView &out);

// out = cond ? onTrue : onFalse, the three broadcast to out's shape; cond is
// bool, onTrue, onFalse and out share a dtype, any dtype.
Status where(const TensorView &cond, const TensorView &onTrue,
             const TensorView &onFalse, const TensorView &out);

// The gradient of an operand that was broadcast: out (+)= grad summed over
// the dimensions where out's shape (right-aligned) is 1 or missing. out's
// shape must broadcast to grad's. grad and out each f32, bf16 or f16; sums
// in f32 in a fixed order (no atomics), so results are deterministic.
Status reduceToShape(const TensorView &grad, const TensorView &out,
                     bool accumulate);

// out = in converted to out's dtype (same shape). Float to integer truncates
// toward zero and saturates at the integer's range (NaN gives 0); anything to
// bool tests for non-zero; bool is 0 or 1. Any pair of dtypes; bf16 and f16
// convert through f32 (to them: to f32 first, then round to nearest even).
Status cast(const TensorView &in, const TensorView &out);

} // namespace hetc::runtime::cuda

#endif // HETC_RUNTIME_CUDA_ELEMENTWISE_H
