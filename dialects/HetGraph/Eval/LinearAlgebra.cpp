//===- LinearAlgebra.cpp - batched matrix products ------------------------===//

#include "dialects/HetGraph/ConstantEval.h"
#include "dialects/HetGraph/Eval/Eval.h"

namespace hetc::hetg::eval {

namespace {

/// Rows and columns of the matrix a `[..., r, c]` operand stands for.
std::pair<int64_t, int64_t> matrixSize(llvm::ArrayRef<int64_t> shape,
                                       bool transposed) {
  int64_t rows = shape[shape.size() - 2], cols = shape.back();
  return transposed ? std::make_pair(cols, rows) : std::make_pair(rows, cols);
}

} // namespace

int64_t matmulWork(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs) {
  if (lhs.size() < 2 || rhs.size() < 2)
    return 0;
  llvm::FailureOr<Shape> batch =
      broadcastShapes(lhs.drop_back(2), rhs.drop_back(2));
  if (mlir::failed(batch))
    return 0;
  return elementCount(*batch) * lhs[lhs.size() - 2] * lhs.back() * rhs.back();
}

std::optional<Array> matmul(const Array &lhs, const Array &rhs,
                            const Array *bias, bool transposeLhs,
                            bool transposeRhs) {
  if (lhs.rank() < 2 || rhs.rank() < 2)
    return std::nullopt;
  auto [m, k] = matrixSize(lhs.shape, transposeLhs);
  auto [k2, n] = matrixSize(rhs.shape, transposeRhs);
  llvm::ArrayRef<int64_t> lhsBatch = llvm::ArrayRef(lhs.shape).drop_back(2);
  llvm::ArrayRef<int64_t> rhsBatch = llvm::ArrayRef(rhs.shape).drop_back(2);
  llvm::FailureOr<Shape> batch = broadcastShapes(lhsBatch, rhsBatch);
  if (k != k2 || mlir::failed(batch) ||
      (bias && (bias->rank() != 1 || bias->shape[0] != n)))
    return std::nullopt;
  std::vector<int64_t> lhsMatrices = broadcastSourceIndices(lhsBatch, *batch);
  std::vector<int64_t> rhsMatrices = broadcastSourceIndices(rhsBatch, *batch);
  Shape shape(*batch);
  shape.append({m, n});
  Array out(shape);
  // Element (i, j) of op(x) lives at i * rowStride + j * colStride.
  int64_t lhsRow = transposeLhs ? 1 : k, lhsCol = transposeLhs ? m : 1;
  int64_t rhsRow = transposeRhs ? 1 : n, rhsCol = transposeRhs ? k : 1;
  for (size_t b = 0; b < lhsMatrices.size(); ++b) {
    const double *a = &lhs.data[lhsMatrices[b] * m * k];
    const double *w = &rhs.data[rhsMatrices[b] * k * n];
    double *c = &out.data[b * m * n];
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = bias ? bias->data[j] : 0.0;
        for (int64_t p = 0; p < k; ++p)
          sum += a[i * lhsRow + p * lhsCol] * w[p * rhsRow + j * rhsCol];
        c[i * n + j] = sum;
      }
    }
  }
  return out;
}

} // namespace hetc::hetg::eval
