//===- GemmKernels.h - the hand-written kernels of Gemm.cpp -----*- C++ -*-===//
//
// What cuBLASLt does not do for gemm and biasGrad: the bias-only result of
// a product with K = 0, and column sums. Launchers take checked raw
// pointers (dtype f32, bf16 or f16) and return the launch status.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CUDA_INTERNAL_GEMMKERNELS_H
#define HETC_RUNTIME_CUDA_INTERNAL_GEMMKERNELS_H

#include "runtime/base/Tensor.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace hetc::runtime::cuda::internal {

/// c[r, j] = (accumulate ? c[r, j] : 0) + bias[j] for the `rows` x `cols`
/// row-major c.
Status launchAddBiasRows(DType dtype, void *c, const void *bias, int64_t rows,
                         int64_t cols, bool accumulate, cudaStream_t stream);

/// dbias[j] = (accumulate ? dbias[j] : 0) + sum over r of dy[r, j] for the
/// `rows` x `cols` row-major dy, summed in f32 in a fixed order. Row blocks
/// are summed in parallel into f32 partials in `scratch` (as many blocks as
/// fit in `scratchBytes`), then added up by a second kernel.
Status launchBiasGrad(DType dtype, const void *dy, int64_t rows, int64_t cols,
                      void *dbias, bool accumulate, void *scratch,
                      size_t scratchBytes, int multiprocessors,
                      cudaStream_t stream);

} // namespace hetc::runtime::cuda::internal

#endif // HETC_RUNTIME_CUDA_INTERNAL_GEMMKERNELS_H
