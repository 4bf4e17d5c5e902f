//===- AlignedRows.cpp ----------------------------------------------------===//

#include "runtime/cuda/internal/AlignedRows.h"

#include "runtime/cuda/Stream.h"
#include "runtime/cuda/internal/RowScratch.h"

#include <cuda_runtime.h>

#include <algorithm>

namespace hetc::runtime::cuda::internal {
namespace {

constexpr int64_t kElementBytes = 2;
constexpr int64_t kAlignElements = 16 / kElementBytes;
int64_t aligned(int64_t value) {
  return (value + kAlignElements - 1) / kAlignElements * kAlignElements;
}

size_t bytes(int64_t elements) {
  return static_cast<size_t>(elements * kElementBytes);
}

// One column-major matrix of the product: `rows` contiguous elements per
// column, `ld` apart, and its aligned copy's extents.
struct Matrix {
  int64_t rows = 0, cols = 0, ld = 0;
  int64_t paddedRows = 0, paddedCols = 0;
  size_t offset = 0;
  char *staged = nullptr;

  bool needsCopy() const {
    return ld != paddedRows || rows != paddedRows || cols != paddedCols;
  }
};

Matrix matrixOf(bool trans, int64_t rows, int64_t cols, int64_t paddedRows,
                int64_t paddedCols, int64_t ld) {
  Matrix m;
  m.rows = trans ? cols : rows;
  m.cols = trans ? rows : cols;
  m.paddedRows = trans ? paddedCols : paddedRows;
  m.paddedCols = trans ? paddedRows : paddedCols;
  m.ld = ld;
  return m;
}

Status copyColumns(void *dst, int64_t dstLd, const void *src, int64_t srcLd,
                   int64_t rows, int64_t cols, cudaStream_t stream) {
  HETC_CUDA_RETURN_IF_ERROR(cudaMemcpy2DAsync(
      dst, bytes(dstLd), src, bytes(srcLd), bytes(rows),
      static_cast<size_t>(cols), cudaMemcpyDeviceToDevice, stream));
  return okStatus();
}

// The staged copy of an input: its values, zeros in the padding (padded
// terms of the inner dimension must add nothing).
Status stageInput(const Matrix &m, const void *src, cudaStream_t stream) {
  char *dst = m.staged;
  if (m.paddedRows > m.rows)
    HETC_CUDA_RETURN_IF_ERROR(cudaMemset2DAsync(
        dst + bytes(m.rows), bytes(m.paddedRows), 0,
        bytes(m.paddedRows - m.rows), static_cast<size_t>(m.cols), stream));
  if (m.paddedCols > m.cols)
    HETC_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(dst + bytes(m.cols * m.paddedRows), 0,
                        bytes((m.paddedCols - m.cols) * m.paddedRows), stream));
  return copyColumns(dst, m.paddedRows, src, m.ld, m.rows, m.cols, stream);
}

} // namespace

Status alignedLtMatmul(const LtMatmul &problem, cudaStream_t stream) {
  bool halfWidth = problem.type == CUDA_R_16BF || problem.type == CUDA_R_16F;
  bool plainEpilogue = problem.epilogue == CUBLASLT_EPILOGUE_DEFAULT ||
                       problem.epilogue == CUBLASLT_EPILOGUE_BIAS;
  bool rowsAligned = problem.lda % kAlignElements == 0 &&
                     problem.ldb % kAlignElements == 0 &&
                     problem.ldd % kAlignElements == 0;
  if (!halfWidth || !plainEpilogue || problem.batchCount != 1 || rowsAligned ||
      problem.m * problem.n * problem.k < kMinStagedMultiplyAdds)
    return ltMatmul(problem, stream);

  // Every dimension padded to whole 16-byte groups, each matrix copied
  // where its extents or rows change.
  LtMatmul staged = problem;
  staged.m = aligned(problem.m);
  staged.n = aligned(problem.n);
  staged.k = aligned(problem.k);
  Matrix a = matrixOf(problem.transA, problem.m, problem.k, staged.m, staged.k,
                      problem.lda);
  Matrix b = matrixOf(problem.transB, problem.k, problem.n, staged.k, staged.n,
                      problem.ldb);
  Matrix d =
      matrixOf(false, problem.m, problem.n, staged.m, staged.n, problem.ldd);
  bool stageBias = problem.bias && staged.m != problem.m;
  ScratchLayout layout;
  for (Matrix *m : {&a, &b, &d})
    if (m->needsCopy())
      m->offset = layout.add(bytes(m->paddedRows * m->paddedCols));
  size_t biasAt = stageBias ? layout.add(bytes(staged.m)) : 0;
  void *buffer = nullptr;
  HETC_RETURN_IF_ERROR(rowScratch(layout.bytes(), &buffer));
  for (Matrix *m : {&a, &b, &d})
    if (m->needsCopy())
      m->staged = scratchAt<char>(buffer, m->offset);

  if (a.staged) {
    HETC_RETURN_IF_ERROR(stageInput(a, problem.a, stream));
    staged.a = a.staged;
    staged.lda = a.paddedRows;
  }
  if (b.staged) {
    HETC_RETURN_IF_ERROR(stageInput(b, problem.b, stream));
    staged.b = b.staged;
    staged.ldb = b.paddedRows;
  }
  if (d.staged) {
    if (problem.beta != 0.0f)
      HETC_RETURN_IF_ERROR(copyColumns(d.staged, d.paddedRows, problem.d, d.ld,
                                       d.rows, d.cols, stream));
    staged.d = d.staged;
    staged.ldd = d.paddedRows;
  }
  if (stageBias) {
    char *bias = scratchAt<char>(buffer, biasAt);
    HETC_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(bias, problem.bias, bytes(problem.m),
                        cudaMemcpyDeviceToDevice, stream));
    HETC_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(
        bias + bytes(problem.m), 0, bytes(staged.m - problem.m), stream));
    staged.bias = bias;
  }
  HETC_RETURN_IF_ERROR(ltMatmul(staged, stream));
  if (d.staged)
    return copyColumns(problem.d, d.ld, d.staged, d.paddedRows, d.rows, d.cols,
                       stream);
  return okStatus();
}

} // namespace hetc::runtime::cuda::internal
