//===- Blas.h - single-threaded sgemm for the CPU kernels -------*- C++ -*-===//
//
// OpenBLAS picks its kernel by the product's size and its own thread count,
// and its kernels round differently. So it runs on the calling thread only,
// and kernels parallelize over products (or blocks of one) cut by shape
// alone: every element is computed by the same call whatever the thread
// count.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CPU_INTERNAL_BLAS_H
#define HETC_RUNTIME_CPU_INTERNAL_BLAS_H

#include <cstdint>

namespace hetc::runtime::cpu::internal {

/// C = alpha op(A) op(B) + beta C, row-major, op(A) [m, k], op(B) [k, n];
/// every dimension and leading dimension must fit a 32-bit int.
void sgemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
           float alpha, const float *a, int64_t lda, const float *b,
           int64_t ldb, float beta, float *c, int64_t ldc);

} // namespace hetc::runtime::cpu::internal

#endif // HETC_RUNTIME_CPU_INTERNAL_BLAS_H
