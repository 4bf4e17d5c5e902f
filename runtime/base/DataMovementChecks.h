//===- DataMovementChecks.h - argument checks of data movement --*- C++ -*-===//
//
// The host-side validation of runtime/cpu/DataMovement.h and
// runtime/cuda/DataMovement.h (same signatures, same error messages),
// written once. Functions that also work out the strided view to read
// (transpose, broadcast) return it.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_BASE_DATAMOVEMENTCHECKS_H
#define HETC_RUNTIME_BASE_DATAMOVEMENTCHECKS_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/StridedLayout.h"

namespace hetc::runtime {

// x and y hold data and y has x's dtype; errors start with "<name>: ".
Status checkSameDType(const char *name, const TensorView &x,
                      const TensorView &y);

// transpose's checks; *view reads y (contiguous) out of x.
Status planTranspose(const TensorView &x, const std::vector<int64_t> &perm,
                     const TensorView &y, StridedLayout *view);

// slice's checks; *view reads y (contiguous) out of x.
Status planSlice(const TensorView &x, const SliceParams &params,
                 const TensorView &y, StridedLayout *view);

// broadcast_to's checks; *view reads out (contiguous) out of x.
Status planBroadcastTo(const TensorView &x, const TensorView &out,
                       StridedLayout *view);

// concat's checks; *normalizedAxis is `axis` made non-negative.
Status checkConcat(const std::vector<TensorView> &inputs, int64_t axis,
                   const TensorView &out, int64_t *normalizedAxis);

Status checkTrilu(const TensorView &x, const TensorView &y);

Status checkCopy(const TensorView &x, const TensorView &y);

// range's checks; out may have any dtype but bool, and `dtypes` names the
// ones the backend supports ("f32, f64, i64 or i32") for the error message.
Status checkRange(double start, double limit, double delta,
                  const TensorView &out, const char *dtypes);

} // namespace hetc::runtime

#endif // HETC_RUNTIME_BASE_DATAMOVEMENTCHECKS_H
