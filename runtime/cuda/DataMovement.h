//===- DataMovement.h - transpose, slice, concat, ... on CUDA ---*- C++ -*-===//
//
// The kernels of runtime/cpu/DataMovement.h on the current stream (Stream.h),
// with device pointers. Kernels that move elements without arithmetic work
// on every dtype (bf16 and f16 included); the output's dtype must equal the
// input's. Exceptions are noted. transpose, slice, slice_backward and
// broadcast return UNIMPLEMENTED for a view that keeps more than 8
// dimensions once size-1 and contiguous neighbours are merged.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CUDA_DATAMOVEMENT_H
#define HETC_RUNTIME_CUDA_DATAMOVEMENT_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/SliceParams.h"
#include "runtime/base/Tensor.h"
#include "runtime/cuda/Stream.h"

namespace hetc::runtime::cuda {

// y = x with dimensions permuted: y.shape[i] = x.shape[perm[i]].
Status transpose(const TensorView &x, const std::vector<int64_t> &perm,
                 const TensorView &y);

using runtime::SliceParams;

// The result shape of slicing `input` (also validates the parameters).
using runtime::sliceShape;

Status slice(const TensorView &x, const SliceParams &params,
             const TensorView &y);

// dx (+)= dy placed at the sliced positions, zero elsewhere (without
// `accumulate` dx is zeroed first). f32, bf16 or f16 (dx of dy's dtype;
// added in f32, rounded once).
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
// (at least 0) that out (rank 1, f32, f64, i64, i32, bf16 or f16) must hold.
// delta != 0; for integer outputs the three values must be integers. Float
// elements are computed in double and rounded once.
Status range(double start, double limit, double delta, const TensorView &out);

// Every element of out = value, converted as cast() does (bf16 and f16
// round the double once).
Status fill(const TensorView &out, double value);

// y = x element by element (same dtype and element count, any shapes: a
// reshape into another buffer).
Status copy(const TensorView &x, const TensorView &y);

// *value = the one element of `t` (0-D or one element), any dtype: the
// scalar operands the host needs (range's bounds). Unlike every other kernel
// here it copies the element to the host and waits for the current stream
// (cudaStreamSynchronize), so it must never run inside a captured step;
// kernels that only need a scalar on the device read it there instead.
Status readScalar(const TensorView &t, const char *what, double *value);

} // namespace hetc::runtime::cuda

#endif // HETC_RUNTIME_CUDA_DATAMOVEMENT_H
