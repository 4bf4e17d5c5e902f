//===- GemmKernels.cu -----------------------------------------------------===//

#include "runtime/cuda/internal/GemmKernels.h"

#include "runtime/cuda/Stream.h"
#include "runtime/cuda/internal/DeviceFloat.cuh"

#include <algorithm>

namespace hetc::runtime::cuda::internal {
namespace {

// ---------------------------------------------------------------------------
// Kernels

// Grid-stride over the rows x cols elements of c.
template <typename T>
__global__ void addBiasRowsKernel(T *c, const T *bias, int64_t total,
                                  int64_t cols, bool accumulate) {
  int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < total; i += step) {
    float value = load(bias[i % cols]);
    if (accumulate)
      value += load(c[i]);
    c[i] = store<T>(value);
  }
}

// A block sums kSplitCols columns over one split of rows: threadIdx.x picks
// the column (a warp reads 32 neighbours of one row: coalesced),
// threadIdx.y the row residue mod kSplitRowGroups; the row groups are then
// added in order through shared memory. With `direct` (one split) the
// block finishes dbias itself, otherwise it writes its f32 partial sums to
// partial[split, col].
constexpr int kSplitCols = 32;
constexpr int kSplitRowGroups = 8;

template <typename T>
__global__ void biasGradSplitKernel(const T *dy, int64_t rows, int64_t cols,
                                    int64_t rowsPerSplit, float *partial,
                                    T *dbias, bool direct, bool accumulate) {
  __shared__ float sums[kSplitRowGroups][kSplitCols];
  int64_t col = static_cast<int64_t>(blockIdx.x) * kSplitCols + threadIdx.x;
  int64_t begin = static_cast<int64_t>(blockIdx.y) * rowsPerSplit;
  int64_t end = min(rows, begin + rowsPerSplit);
  float sum = 0.0f;
  if (col < cols)
    for (int64_t r = begin + threadIdx.y; r < end; r += kSplitRowGroups)
      sum += load(dy[r * cols + col]);
  sums[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y != 0 || col >= cols)
    return;
  float total = 0.0f;
  for (int g = 0; g < kSplitRowGroups; ++g)
    total += sums[g][threadIdx.x];
  if (direct) {
    float previous = accumulate ? load(dbias[col]) : 0.0f;
    dbias[col] = store<T>(previous + total);
  } else {
    partial[static_cast<int64_t>(blockIdx.y) * cols + col] = total;
  }
}

// One thread per column adds the splits' partial sums in split order.
template <typename T>
__global__ void biasGradFinishKernel(const float *partial, int splits,
                                     int64_t cols, T *dbias, bool accumulate) {
  int64_t col = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (col >= cols)
    return;
  float total = 0.0f;
  for (int s = 0; s < splits; ++s)
    total += partial[static_cast<int64_t>(s) * cols + col];
  float previous = accumulate ? load(dbias[col]) : 0.0f;
  dbias[col] = store<T>(previous + total);
}

// ---------------------------------------------------------------------------
// Launchers

constexpr int kThreads = 256;
constexpr int kMaxSplits = 1024;      // gridDim.y stays well under 65535
constexpr int64_t kMinSplitRows = 64; // 8 rows per row group at least

// Row splits for `colBlocks` column blocks: enough blocks to fill the GPU
// about 8 deep, no split under kMinSplitRows rows, partials within scratch.
int chooseSplits(int64_t rows, int64_t cols, int64_t colBlocks,
                 size_t scratchBytes, int multiprocessors) {
  int64_t want =
      (static_cast<int64_t>(multiprocessors) * 8 + colBlocks - 1) / colBlocks;
  int64_t byRows = (rows + kMinSplitRows - 1) / kMinSplitRows;
  int64_t byScratch =
      static_cast<int64_t>(scratchBytes / (sizeof(float) * cols));
  int64_t splits = std::min({want, byRows, byScratch, int64_t(kMaxSplits)});
  return static_cast<int>(std::max<int64_t>(splits, 1));
}

} // namespace

Status launchAddBiasRows(DType dtype, void *c, const void *bias, int64_t rows,
                         int64_t cols, bool accumulate, cudaStream_t stream) {
  int64_t total = rows * cols;
  if (total == 0)
    return okStatus();
  unsigned blocks = std::min(blocksFor(total, kThreads), 4096u);
  bool known = dispatchFloat(dtype, [&](auto zero) {
    using T = decltype(zero);
    addBiasRowsKernel<T><<<blocks, kThreads, 0, stream>>>(
        static_cast<T *>(c), static_cast<const T *>(bias), total, cols,
        accumulate);
  });
  if (!known)
    return invalidArgument("gemm: unsupported dtype ", dtypeName(dtype));
  return launchStatus("gemm");
}

Status launchBiasGrad(DType dtype, const void *dy, int64_t rows, int64_t cols,
                      void *dbias, bool accumulate, void *scratch,
                      size_t scratchBytes, int multiprocessors,
                      cudaStream_t stream) {
  if (cols == 0)
    return okStatus();
  int64_t colBlocks = (cols + kSplitCols - 1) / kSplitCols;
  int splits =
      chooseSplits(rows, cols, colBlocks, scratchBytes, multiprocessors);
  // Equal splits that each hold at least one row (rows == 0: one empty).
  int64_t rowsPerSplit = std::max<int64_t>(1, (rows + splits - 1) / splits);
  splits = static_cast<int>(
      std::max<int64_t>(1, (rows + rowsPerSplit - 1) / rowsPerSplit));
  bool direct = splits == 1;
  float *partial = static_cast<float *>(scratch);
  dim3 grid(static_cast<unsigned>(colBlocks), static_cast<unsigned>(splits));
  dim3 block(kSplitCols, kSplitRowGroups);
  bool known = dispatchFloat(dtype, [&](auto zero) {
    using T = decltype(zero);
    biasGradSplitKernel<T><<<grid, block, 0, stream>>>(
        static_cast<const T *>(dy), rows, cols, rowsPerSplit, partial,
        static_cast<T *>(dbias), direct, accumulate);
    if (!direct)
      biasGradFinishKernel<T>
          <<<blocksFor(cols, kThreads), kThreads, 0, stream>>>(
              partial, splits, cols, static_cast<T *>(dbias), accumulate);
  });
  if (!known)
    return invalidArgument("bias_grad: unsupported dtype ", dtypeName(dtype));
  return launchStatus("bias_grad");
}

} // namespace hetc::runtime::cuda::internal
