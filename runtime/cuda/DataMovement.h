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

#include "runtime/kernels/DataMovement.inc"

} // namespace hetc::runtime::cuda

#endif // HETC_RUNTIME_CUDA_DATAMOVEMENT_H
