//===- Gemm.cpp -----------------------------------------------------------===//

#include "runtime/cpu/Gemm.h"

#include "runtime/cpu/internal/Blas.h"
#include "runtime/cpu/internal/Broadcast.h"
#include "runtime/cpu/internal/Parallel.h"
#include "runtime/cpu/internal/Reduction.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

namespace hetc::runtime::cpu {
namespace {

Status checkMatrixOperand(const TensorView &t, const char *what) {
  HETC_RETURN_IF_ERROR(checkDType(t, DType::kF32, what));
  HETC_RETURN_IF_ERROR(checkData(t, what));
  if (t.rank() < 2)
    return invalidArgument(what, " must have rank >= 2, got ", t.describe());
  return okStatus();
}

bool fitsBlasInt(int64_t v) { return v <= INT_MAX; }

/// Each product runs as blocks of C, cut by its shape alone, so the thread
/// count never changes which call computes an element (internal/Blas.h).
/// Every block packs again the operand it shares with the other blocks, so
/// the cut runs along the larger of C's dimensions, which makes that shared
/// operand the smaller one: kMinBlocks blocks for the threads to share, more
/// where a block would span over kMaxBlockSpan rows (or columns). Blocks
/// span whole multiples of kBlockAlign, the BLAS kernels' register tiles.
constexpr int64_t kMinBlocks = 4;
constexpr int64_t kMaxBlockSpan = 1024;
constexpr int64_t kBlockAlign = 16;

/// One product C = alpha op(A) op(B) + beta C, row-major, op(A) [m, k].
struct Product {
  const float *a;
  const float *b;
  float *c;
};

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// How many rows or columns each block of a dimension of `size` spans.
int64_t blockSpan(int64_t size) {
  int64_t blocks = std::max(kMinBlocks, ceilDiv(size, kMaxBlockSpan));
  return std::max(kBlockAlign,
                  ceilDiv(ceilDiv(size, blocks), kBlockAlign) * kBlockAlign);
}

void multiplyInBlocks(const std::vector<Product> &products, bool transA,
                      bool transB, int64_t m, int64_t n, int64_t k,
                      int64_t lda, int64_t ldb, float alpha, float beta) {
  bool byRows = m >= n;
  int64_t span = blockSpan(byRows ? m : n);
  int64_t blocksPerProduct = ceilDiv(byRows ? m : n, span);
  int64_t blocks = blocksPerProduct * static_cast<int64_t>(products.size());
  internal::parallelFor(blocks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t block = begin; block < end; ++block) {
      const Product &p = products[block / blocksPerProduct];
      int64_t first = (block % blocksPerProduct) * span;
      int64_t row = byRows ? first : 0, col = byRows ? 0 : first;
      int64_t rowCount = byRows ? std::min(span, m - row) : m;
      int64_t colCount = byRows ? n : std::min(span, n - col);
      // Row `row` of op(A) is row `row` of A, or column `row` of A^T; the
      // same for column `col` of op(B).
      const float *a = p.a + (transA ? row : row * lda);
      const float *b = p.b + (transB ? col * ldb : col);
      internal::sgemm(transA, transB, rowCount, colCount, k, alpha, a, lda, b,
                      ldb, beta, p.c + row * n + col, n);
    }
  });
}

} // namespace

Status gemm(const TensorView &a, const TensorView &b, const TensorView *bias,
            const TensorView &c, const GemmOptions &options) {
  HETC_RETURN_IF_ERROR(checkMatrixOperand(a, "A"), "gemm");
  HETC_RETURN_IF_ERROR(checkMatrixOperand(b, "B"), "gemm");
  HETC_RETURN_IF_ERROR(checkDType(c, DType::kF32, "C"), "gemm");
  HETC_RETURN_IF_ERROR(checkData(c, "C"), "gemm");

  int64_t ar = a.rank(), br = b.rank();
  int64_t m = options.transA ? a.shape[ar - 1] : a.shape[ar - 2];
  int64_t k = options.transA ? a.shape[ar - 2] : a.shape[ar - 1];
  int64_t kb = options.transB ? b.shape[br - 1] : b.shape[br - 2];
  int64_t n = options.transB ? b.shape[br - 2] : b.shape[br - 1];
  if (k != kb)
    return invalidArgument("gemm: inner dimensions differ: op(A) is [", m, ",",
                           k, "] and op(B) is [", kb, ",", n, "] (A ",
                           a.describe(), options.transA ? " transposed" : "",
                           ", B ", b.describe(),
                           options.transB ? " transposed" : "", ")");
  Shape batchA(a.shape.begin(), a.shape.end() - 2);
  Shape batchB(b.shape.begin(), b.shape.end() - 2);
  Shape batch;
  HETC_RETURN_IF_ERROR(broadcastShapes(batchA, batchB, &batch),
                       "gemm: batch dimensions");
  Shape expected = batch;
  expected.push_back(m);
  expected.push_back(n);
  HETC_RETURN_IF_ERROR(checkShape(c, expected, "C"), "gemm");
  if (bias) {
    HETC_RETURN_IF_ERROR(checkDType(*bias, DType::kF32, "bias"), "gemm");
    HETC_RETURN_IF_ERROR(checkData(*bias, "bias"), "gemm");
    HETC_RETURN_IF_ERROR(checkShape(*bias, {n}, "bias"), "gemm");
  }
  int64_t lda = std::max<int64_t>(1, a.shape[ar - 1]);
  int64_t ldb = std::max<int64_t>(1, b.shape[br - 1]);
  int64_t numBatch = numElements(batch);
  if (!fitsBlasInt(m * numBatch) || !fitsBlasInt(n) || !fitsBlasInt(k) ||
      !fitsBlasInt(lda) || !fitsBlasInt(ldb))
    return invalidArgument("gemm: dimensions exceed the 32-bit BLAS interface");
  if (c.numel() == 0)
    return okStatus();

  float *cp = c.as<float>();
  float beta = options.accumulate ? 1.0f : 0.0f;
  // The bias goes into C first, so the product accumulates onto it.
  if (bias) {
    const float *bp = bias->as<float>();
    int64_t rows = c.numel() / n;
    internal::parallelFor(rows, 64, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        float *row = cp + r * n;
        if (options.accumulate)
          for (int64_t j = 0; j < n; ++j)
            row[j] += bp[j];
        else
          std::memcpy(row, bp, sizeof(float) * n);
      }
    });
    beta = 1.0f;
  }
  if (k == 0) {
    if (beta == 0.0f)
      std::memset(cp, 0, c.byteSize());
    return okStatus();
  }

  const float *ap = a.as<float>();
  const float *bp = b.as<float>();

  // [batch..., M, K] @ [K, N]: one product with the batch folded into M.
  if (numBatch > 1 && numElements(batchB) == 1 && !options.transA &&
      batchA == batch) {
    multiplyInBlocks({{ap, bp, cp}}, options.transA, options.transB,
                        numBatch * m, n, k, lda, ldb, options.alpha, beta);
    return okStatus();
  }

  std::vector<int64_t> strideA, strideB;
  HETC_RETURN_IF_ERROR(internal::broadcastStrides(batchA, batch, &strideA),
                       "gemm");
  HETC_RETURN_IF_ERROR(internal::broadcastStrides(batchB, batch, &strideB),
                       "gemm");
  int64_t matA = a.shape[ar - 2] * a.shape[ar - 1];
  int64_t matB = b.shape[br - 2] * b.shape[br - 1];
  std::vector<Product> products;
  for (int64_t i = 0; i < numBatch; ++i) {
    int64_t offA = 0, offB = 0, rest = i;
    for (size_t d = batch.size(); d-- > 0;) {
      int64_t idx = rest % batch[d];
      rest /= batch[d];
      offA += idx * strideA[d];
      offB += idx * strideB[d];
    }
    products.push_back({ap + offA * matA, bp + offB * matB, cp + i * m * n});
  }
  multiplyInBlocks(products, options.transA, options.transB, m, n, k, lda,
                      ldb, options.alpha, beta);
  return okStatus();
}

Status biasGrad(const TensorView &dy, const TensorView &dbias,
                bool accumulate) {
  HETC_RETURN_IF_ERROR(checkDType(dy, DType::kF32, "dy"), "bias_grad");
  HETC_RETURN_IF_ERROR(checkData(dy, "dy"), "bias_grad");
  HETC_RETURN_IF_ERROR(checkDType(dbias, DType::kF32, "dbias"), "bias_grad");
  HETC_RETURN_IF_ERROR(checkData(dbias, "dbias"), "bias_grad");
  if (dy.rank() < 1)
    return invalidArgument("bias_grad: dy must have rank >= 1, got ",
                           dy.describe());
  HETC_RETURN_IF_ERROR(checkShape(dbias, {dy.shape.back()}, "dbias"),
                       "bias_grad");
  std::vector<bool> reduced(dy.shape.size(), true);
  reduced.back() = false;
  internal::reduceDims(internal::ReduceKind::kSum, dy.as<float>(), dy.shape,
                       reduced, dbias.as<float>(), accumulate, 1.0);
  return okStatus();
}

} // namespace hetc::runtime::cpu
