//===- ElementwiseChecks.h - operand checks of elementwise kernels -*- C++ -*-===//
//
// The host-side checks runtime/cpu and runtime/cuda make alike on unary,
// binary, equal, where and cast operands. Each backend adds its own dtype
// rules (the GPU also takes bf16 and f16).
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_BASE_ELEMENTWISECHECKS_H
#define HETC_RUNTIME_BASE_ELEMENTWISECHECKS_H

#include "runtime/base/Tensor.h"

namespace hetc::runtime {

/// x and y have data, and y has x's dtype and shape.
Status checkUnaryOperands(const char *name, const TensorView &x,
                          const TensorView &y);

/// x, dy and dx have data, and dy and dx have x's shape (dtypes are the
/// caller's).
Status checkUnaryBackwardOperands(const char *name, const TensorView &x,
                                  const TensorView &dy, const TensorView &dx);

/// a, b and out have data and share a dtype.
Status checkBinaryOperands(const char *name, const TensorView &a,
                           const TensorView &b, const TensorView &out);

/// *shape = a and b broadcast together, which must be out's shape.
Status binaryOutputShape(const char *name, const TensorView &a,
                         const TensorView &b, const TensorView &out,
                         Shape *shape);

/// equal's checks: a and b share a dtype, out is bool of their broadcast
/// shape, returned in *shape.
Status checkEqualOperands(const TensorView &a, const TensorView &b,
                          const TensorView &out, Shape *shape);

/// where's checks: cond is bool, onTrue, onFalse and out share a dtype, out
/// has the broadcast shape of the three, returned in *shape.
Status checkWhereOperands(const TensorView &cond, const TensorView &onTrue,
                          const TensorView &onFalse, const TensorView &out,
                          Shape *shape);

/// cast's checks: in and out have data and one shape.
Status checkCastOperands(const TensorView &in, const TensorView &out);

} // namespace hetc::runtime

#endif // HETC_RUNTIME_BASE_ELEMENTWISECHECKS_H
