//===- Blas.cpp -----------------------------------------------------------===//

#include "runtime/cpu/internal/Blas.h"

#include <cblas.h>

namespace hetc::runtime::cpu::internal {

void sgemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
           float alpha, const float *a, int64_t lda, const float *b,
           int64_t ldb, float beta, float *c, int64_t ldc) {
  static const bool singleThreaded = (openblas_set_num_threads(1), true);
  (void)singleThreaded;
  if (m == 0 || n == 0)
    return;
  // BLAS wants leading dimensions >= 1 even where a dimension is empty.
  auto ld = [](int64_t v) { return static_cast<int>(v < 1 ? 1 : v); };
  cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
              transB ? CblasTrans : CblasNoTrans, static_cast<int>(m),
              static_cast<int>(n), static_cast<int>(k), alpha, a, ld(lda), b,
              ld(ldb), beta, c, ld(ldc));
}

} // namespace hetc::runtime::cpu::internal
