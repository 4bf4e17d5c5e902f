//===- Elementwise.h - unary, binary, select, cast --------------*- C++ -*-===//

#ifndef HETC_RUNTIME_CPU_ELEMENTWISE_H
#define HETC_RUNTIME_CPU_ELEMENTWISE_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"

namespace hetc::runtime::cpu {

using runtime::UnaryOp;
using runtime::unaryOpName;
using runtime::BinaryOp;
using runtime::binaryOpName;

// y = f(x); x and y have the same shape. f32, and i64/i32 for kNeg.
Status unary(UnaryOp op, const TensorView &x, const TensorView &y);

// dx = dy * f'(x), all f32 of one shape.
Status unaryBackward(UnaryOp op, const TensorView &x, const TensorView &dy,
                     const TensorView &dx);

// out = a op b with numpy broadcasting; out has the broadcast shape. f32 and
// f64 for every op; i64 and i32 for every op but div.
// minimum and maximum give NaN when either operand is NaN
// (torch.minimum/maximum). out may be a (or b) when that operand has out's
// shape: each element is read before it is written.
Status binary(BinaryOp op, const TensorView &a, const TensorView &b,
              const TensorView &out);

// out (bool) = a == b with broadcasting; a and b of one dtype.
Status equal(const TensorView &a, const TensorView &b, const TensorView &out);

// out = cond ? onTrue : onFalse, the three broadcast to out's shape; cond is
// bool, onTrue, onFalse and out share a dtype.
Status where(const TensorView &cond, const TensorView &onTrue,
             const TensorView &onFalse, const TensorView &out);

// The gradient of an operand that was broadcast: out (+)= grad summed over
// the dimensions where out's shape (right-aligned) is 1 or missing. out's
// shape must broadcast to grad's. f32.
Status reduceToShape(const TensorView &grad, const TensorView &out,
                     bool accumulate);

// out = in converted to out's dtype (same shape). Float to integer truncates
// toward zero and saturates at the integer's range (NaN gives 0); anything to
// bool tests for non-zero; bool is 0 or 1. Casts from or to bf16 and f16 go
// through f32: 16-bit values widen exactly, and narrowing to them rounds to
// nearest even (overflow gives infinity).
Status cast(const TensorView &in, const TensorView &out);

} // namespace hetc::runtime::cpu

#endif // HETC_RUNTIME_CPU_ELEMENTWISE_H
