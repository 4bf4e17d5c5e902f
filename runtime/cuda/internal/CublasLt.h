//===- CublasLt.h - the thread's cuBLASLt handle and plans ------*- C++ -*-===//
//
// A thread owns, per device, a cuBLASLt handle and a 32 MiB workspace,
// created on its first matrix product there and freed when the thread
// exits. Each distinct problem (types, shape, strides, epilogue, pointer
// alignments) is planned once: descriptors built and an algorithm chosen by
// cublasLtMatmulAlgoGetHeuristic, kept in a thread_local map. Later calls
// only update the pointers of the cached descriptor and launch, so they
// neither allocate nor synchronize and can be captured in a CUDA graph.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CUDA_INTERNAL_CUBLASLT_H
#define HETC_RUNTIME_CUDA_INTERNAL_CUBLASLT_H

#include "runtime/base/Status.h"

#include <cublasLt.h>

#include <cstddef>
#include <cstdint>

namespace hetc::runtime::cuda::internal {

/// OK for CUBLAS_STATUS_SUCCESS; otherwise "<call>: <name>: <description>"
/// (RESOURCE_EXHAUSTED for allocation failures, UNIMPLEMENTED for
/// CUBLAS_STATUS_NOT_SUPPORTED, INTERNAL otherwise).
Status cublasStatus(cublasStatus_t status, const char *call);

/// One column-major cuBLASLt product, in place (C is D):
///   D = epilogue(alpha * op(A) @ op(B) + beta * D)
/// op(A) is m x k, op(B) is k x n, D is m x n, all of `type`, computed in
/// f32. batchCount > 1 runs strided batches (a stride of 0 reuses one
/// matrix for every batch; the bias is shared by all batches).
struct LtMatmul {
  cudaDataType_t type = CUDA_R_32F;
  bool transA = false, transB = false;
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0, ldd = 0;
  int64_t batchCount = 1;
  int64_t strideA = 0, strideB = 0, strideD = 0; // elements
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  int64_t auxLd = 0, auxStride = 0; // elements; GELU aux epilogues only
  float alpha = 1.0f, beta = 0.0f;
  const void *a = nullptr;
  const void *b = nullptr;
  void *d = nullptr;
  void *bias = nullptr; // bias (read) or bias gradient (written), or null
  void *aux = nullptr;  // GELU input, written or read, or null
};

/// Enqueues `problem` on `stream` with the calling thread's handle and
/// workspace for the current device. UNIMPLEMENTED when cuBLASLt has no
/// algorithm for it.
Status ltMatmul(const LtMatmul &problem, cudaStream_t stream);

/// The calling thread's workspace on the current device (created on first
/// use) and the device's multiprocessor count. Kernels on the same stream
/// may use it as scratch between matrix products.
Status threadWorkspace(void **data, size_t *bytes, int *multiprocessors);

} // namespace hetc::runtime::cuda::internal

#endif // HETC_RUNTIME_CUDA_INTERNAL_CUBLASLT_H
