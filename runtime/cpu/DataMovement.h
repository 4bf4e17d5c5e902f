//===- DataMovement.h - transpose, slice, concat, broadcast, ... *- C++ -*-===//
//
// Kernels that move elements without arithmetic work on any dtype unless
// noted; the output's dtype must equal the input's.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CPU_DATAMOVEMENT_H
#define HETC_RUNTIME_CPU_DATAMOVEMENT_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/SliceParams.h"
#include "runtime/base/Tensor.h"

namespace hetc::runtime::cpu {

// y = x with dimensions permuted: y.shape[i] = x.shape[perm[i]].
Status transpose(const TensorView &x, const std::vector<int64_t> &perm,
                 const TensorView &y);

using runtime::SliceParams;

// The result shape of slicing `input` (also validates the parameters).
using runtime::sliceShape;

Status slice(const TensorView &x, const SliceParams &params,
             const TensorView &y);

// dx (+)= dy placed at the sliced positions, zero elsewhere (without
// `accumulate` dx is zeroed first). f32.
Status sliceBackward(const TensorView &dy, const SliceParams &params,
                     const TensorView &dx, bool accumulate);

// out = the inputs joined along `axis`; all have out's rank and dtype and
// equal dimensions except `axis`.
Status concat(const std::vector<TensorView> &inputs, int64_t axis,
              const TensorView &out);

// out = x broadcast (numpy rules) to out's shape.
Status broadcastTo(const TensorView &x, const TensorView &out);

// Keeps the upper (col - row >= k) or lower (col - row <= k) triangle of the
// last two dimensions; the rest become zero. Rank >= 2.
Status trilu(const TensorView &x, int64_t k, bool upper, const TensorView &y);

// out[i] = start + i * delta for the ceil((limit - start) / delta) elements
// (at least 0) that out (rank 1, f32, f64, i64 or i32) must hold. delta != 0;
// for integer outputs the three values must be integers.
Status range(double start, double limit, double delta, const TensorView &out);

// Every element of out = value, converted as cast() does.
Status fill(const TensorView &out, double value);

// y = x element by element (same dtype and element count, any shapes: a
// reshape into another buffer).
Status copy(const TensorView &x, const TensorView &y);

// *value = the one element of `t` (0-D or one element), any dtype: the
// scalar operands the host needs (range's bounds, adamw's step count).
Status readScalar(const TensorView &t, const char *what, double *value);

} // namespace hetc::runtime::cpu

#endif // HETC_RUNTIME_CPU_DATAMOVEMENT_H
