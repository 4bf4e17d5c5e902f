//===- Reduce.cu ----------------------------------------------------------===//
//
// Deterministic reductions without atomics: every output element is reduced
// by a fixed set of threads in a fixed order (a function of the shapes
// only), so repeated runs give the same bits.
//
// The host collapses x into alternating kept and reduced dimension groups
// (as runtime/cpu does). When the innermost group is kept and wide, a block
// of C x BY threads covers C adjacent outputs (C = 32, or down to 32 bytes
// per row when outputs are few): reads stay coalesced along the kept
// dimension and the BY thread rows split the reduced elements
// (reduceColumnsKernel). Otherwise G threads (a power of two up to 512)
// share each output, striding over its reduced elements, and combine
// through warp shuffles and shared memory (reduceGroupsKernel); when the
// reduced axes are the innermost ones, the G threads read one contiguous run.
// Column sums of a row-major [R, C] matrix (bias gradients) read 16 bytes
// per thread and split R into slices reduced side by side into partials,
// which a second kernel combines in slice order (columnSlicesKernel).
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/Reduce.h"

#include "runtime/base/ReduceShape.h"
#include "runtime/cuda/internal/CublasLt.h"
#include "runtime/cuda/internal/DeviceFloat.cuh"
#include "runtime/cuda/internal/StridedIndex.cuh"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hetc::runtime::cuda {
namespace {

using internal::StridedIndex;
using internal::StridedLayout;

// Sums accumulate in double like runtime/cpu: the fp64 adds cost far less
// than the memory traffic. The max accumulates in f32 (it is exact).
template <bool kMax> struct Reduction;

template <> struct Reduction<false> {
  using Acc = double;
  static __device__ __forceinline__ double init() { return 0.0; }
  template <typename T> static __device__ __forceinline__ double load(T v) {
    return static_cast<double>(internal::load(v));
  }
  static __device__ __forceinline__ double combine(double a, double b) {
    return a + b;
  }
  template <typename T>
  static __device__ __forceinline__ T finish(double acc, double scale) {
    return internal::store<T>(static_cast<float>(acc * scale));
  }
};

template <> struct Reduction<true> {
  using Acc = float;
  static __device__ __forceinline__ float init() { return -INFINITY; }
  template <typename T> static __device__ __forceinline__ float load(T v) {
    return internal::load(v);
  }
  // NaN wins, as in runtime/cpu: once a NaN is taken nothing replaces it.
  static __device__ __forceinline__ float combine(float a, float b) {
    return (b > a || isnan(b)) ? b : a;
  }
  template <typename T>
  static __device__ __forceinline__ T finish(float acc, double) {
    return internal::store<T>(acc);
  }
};

/// Combines `v` over the G consecutive threadIdx.x lanes of an output group;
/// the result is valid in lane 0. G is a power of two; `partials` holds one
/// slot per warp of the block. Every thread of the block must call it.
template <typename R>
__device__ typename R::Acc groupReduce(typename R::Acc v, int G,
                                       typename R::Acc *partials) {
  int width = G < 32 ? G : 32;
  for (int off = width / 2; off > 0; off /= 2)
    v = R::combine(v, __shfl_down_sync(0xffffffffu, v, off, width));
  if (G <= 32)
    return v;
  // G > 32: the group is G / 32 whole warps (threadIdx.y picks the group).
  int perGroup = G / 32;
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  typename R::Acc *mine = partials + threadIdx.y * perGroup;
  if (lane == 0)
    mine[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < perGroup ? mine[lane] : R::init();
    for (int off = 16; off > 0; off /= 2)
      v = R::combine(v, __shfl_down_sync(0xffffffffu, v, off));
  }
  __syncthreads(); // `partials` is reused for the next outputs
  return v;
}

/// blockDim = (G, Y): G lanes per output, Y outputs per block (G * Y <=
/// 1024, a multiple of 32). Output o reduces x[kept.offset(o) +
/// red.offset(r)] for r in [0, reduceCount).
template <typename T, typename I, bool kMax>
__global__ void __launch_bounds__(512) reduceGroupsKernel(const T *x, T *y, StridedIndex<I> kept,
                                   StridedIndex<I> red, int64_t numOutputs,
                                   int64_t reduceCount, double scale) {
  using R = Reduction<kMax>;
  using Acc = typename R::Acc;
  __shared__ Acc partials[32]; // one per warp
  const int G = blockDim.x, lane = threadIdx.x;
  const int64_t step = int64_t(gridDim.x) * blockDim.y;
  // The loop bound depends on the block only: all threads reach the
  // shuffles and barriers of groupReduce together.
  for (int64_t first = int64_t(blockIdx.x) * blockDim.y; first < numOutputs;
       first += step) {
    int64_t o = first + threadIdx.y;
    Acc acc = R::init();
    if (o < numOutputs) {
      I base = kept.offset(static_cast<I>(o));
      for (int64_t r = lane; r < reduceCount; r += G)
        acc = R::combine(acc,
                         R::load(x[base + red.offset(static_cast<I>(r))]));
    }
    acc = groupReduce<R>(acc, G, partials);
    if (o < numOutputs && lane == 0)
      y[o] = R::template finish<T>(acc, scale);
  }
}

/// blockDim = (C, BY), C * BY <= 1024: threadIdx.x picks one of C adjacent
/// outputs along the innermost kept group (stride 1 in x), threadIdx.y
/// strides over the reduced elements. Output (o, c) reduces
/// x[outer.offset(o) + c + red.offset(r)].
template <typename T, typename I, bool kMax>
__global__ void __launch_bounds__(1024)
    reduceColumnsKernel(const T *x, T *y, StridedIndex<I> outer,
                        StridedIndex<I> red, int64_t numOuter, int64_t inner,
                        int64_t reduceCount, double scale) {
  using R = Reduction<kMax>;
  using Acc = typename R::Acc;
  __shared__ Acc partials[1024]; // [threadIdx.y][threadIdx.x]
  const int C = blockDim.x;
  const int64_t colTiles = (inner + C - 1) / C;
  const int64_t numTiles = numOuter * colTiles;
  for (int64_t t = blockIdx.x; t < numTiles; t += gridDim.x) {
    int64_t o = t / colTiles;
    int64_t c = (t - o * colTiles) * C + threadIdx.x;
    Acc acc = R::init();
    if (c < inner) {
      I base = outer.offset(static_cast<I>(o)) + static_cast<I>(c);
      for (int64_t r = threadIdx.y; r < reduceCount; r += blockDim.y)
        acc = R::combine(acc,
                         R::load(x[base + red.offset(static_cast<I>(r))]));
    }
    partials[threadIdx.y * C + threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && c < inner) {
      for (unsigned k = 1; k < blockDim.y; ++k)
        acc = R::combine(acc, partials[k * C + threadIdx.x]);
      y[o * inner + c] = R::template finish<T>(acc, scale);
    }
    __syncthreads(); // `partials` is reused for the next tile
  }
}

/// x is a row-major [rows, cols] matrix, 16-byte aligned, cols a multiple
/// of V (V elements are 16 bytes). blockDim = (32, kSliceRowGroups):
/// threadIdx.x picks V adjacent columns, threadIdx.y a row residue within
/// the slice blockIdx.y of `sliceRows` rows. One slice writes y; several
/// write partial[slice][col] for combineSlicesKernel.
constexpr int kSliceRowGroups = 8;

template <typename T, int V, bool kMax>
__global__ void __launch_bounds__(32 * kSliceRowGroups)
    columnSlicesKernel(const T *x, T *y, typename Reduction<kMax>::Acc *partial,
                       int64_t rows, int64_t cols, int64_t sliceRows,
                       double scale) {
  using R = Reduction<kMax>;
  using Acc = typename R::Acc;
  __shared__ Acc sums[kSliceRowGroups][32 * V];
  int64_t col = (int64_t(blockIdx.x) * 32 + threadIdx.x) * V;
  int64_t begin = int64_t(blockIdx.y) * sliceRows;
  int64_t end = min(rows, begin + sliceRows);
  Acc acc[V];
  for (int v = 0; v < V; ++v)
    acc[v] = R::init();
  if (col < cols) {
#pragma unroll 4
    for (int64_t r = begin + threadIdx.y; r < end; r += kSliceRowGroups) {
      uint4 bits = *reinterpret_cast<const uint4 *>(x + r * cols + col);
      const T *values = reinterpret_cast<const T *>(&bits);
      for (int v = 0; v < V; ++v)
        acc[v] = R::combine(acc[v], R::load(values[v]));
    }
  }
  for (int v = 0; v < V; ++v)
    sums[threadIdx.y][threadIdx.x * V + v] = acc[v];
  __syncthreads();
  if (threadIdx.y != 0 || col >= cols)
    return;
  for (int v = 0; v < V; ++v) {
    Acc total = sums[0][threadIdx.x * V + v];
    for (int g = 1; g < kSliceRowGroups; ++g)
      total = R::combine(total, sums[g][threadIdx.x * V + v]);
    if (gridDim.y == 1)
      y[col + v] = R::template finish<T>(total, scale);
    else
      partial[int64_t(blockIdx.y) * cols + col + v] = total;
  }
}

/// y[c] = the slices' partial[s][c] combined: one warp per column, whose
/// lanes stride over the slices and meet in a fixed shuffle tree (a fixed
/// order for given shapes). blockDim = (32, columns per block).
template <typename T, bool kMax>
__global__ void
combineSlicesKernel(const typename Reduction<kMax>::Acc *partial, int slices,
                    int64_t cols, T *y, double scale) {
  using R = Reduction<kMax>;
  int64_t c = int64_t(blockIdx.x) * blockDim.y + threadIdx.y;
  if (c >= cols)
    return; // the whole warp
  typename R::Acc total = R::init();
  for (int s = threadIdx.x; s < slices; s += 32)
    total = R::combine(total, partial[int64_t(s) * cols + c]);
  for (int offset = 16; offset > 0; offset /= 2)
    total = R::combine(total, __shfl_xor_sync(0xffffffffu, total, offset));
  if (threadIdx.x == 0)
    y[c] = R::template finish<T>(total, scale);
}

// Innermost kept groups at least this wide use reduceColumnsKernel.
constexpr int64_t kMinColumns = 16;
// About the threads an H100 keeps resident; more only lengthens the tail.
constexpr int64_t kFillThreads = int64_t(1) << 18;
// Fewer blocks than this leave SMs idle.
constexpr int64_t kFewBlocks = 264;

struct ReducePlan {
  StridedLayout kept;  // output index -> x offset (all kept groups)
  StridedLayout outer; // kept groups but the innermost one
  StridedLayout red;   // reduced element index -> x offset
  int64_t inner = 1;   // size of the innermost group when it is kept
  bool columns = false;
  int64_t reduceCount = 1;
};

// Collapse as runtime/cpu does: size-1 dims vanish, neighbours of the same
// kind merge; group strides are those of contiguous x.
ReducePlan planReduce(const Shape &shape, const std::vector<bool> &reduced) {
  struct Group {
    int64_t size, stride;
    bool reduced;
  };
  std::vector<Group> groups;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 1)
      continue;
    if (!groups.empty() && groups.back().reduced == reduced[k])
      groups.back().size *= shape[k];
    else
      groups.push_back({shape[k], 0, reduced[k]});
  }
  int64_t stride = 1;
  for (size_t g = groups.size(); g-- > 0;) {
    groups[g].stride = stride;
    stride *= groups[g].size;
  }
  ReducePlan plan;
  bool lastKept = !groups.empty() && !groups.back().reduced;
  for (size_t g = 0; g < groups.size(); ++g) {
    StridedLayout &to = groups[g].reduced ? plan.red : plan.kept;
    to.dims.push_back(groups[g].size);
    to.strides.push_back(groups[g].stride);
    if (!groups[g].reduced && !(lastKept && g + 1 == groups.size())) {
      plan.outer.dims.push_back(groups[g].size);
      plan.outer.strides.push_back(groups[g].stride);
    }
  }
  plan.inner = lastKept ? groups.back().size : 1;
  plan.columns = lastKept && plan.inner >= kMinColumns;
  plan.reduceCount = numElements(plan.red.dims);
  return plan;
}

// Whether `plan` sums the rows of a row-major [R, C] matrix whose rows can
// be read 16 bytes at a time (columnSlicesKernel).
template <typename T> bool isColumnSlices(const ReducePlan &plan, const T *x) {
  constexpr int64_t kVector = 16 / sizeof(T);
  return plan.columns && plan.outer.dims.empty() && plan.red.dims.size() == 1 &&
         plan.red.strides[0] == plan.inner && plan.inner % kVector == 0 &&
         reinterpret_cast<uintptr_t>(x) % 16 == 0;
}

// Slices of at least kMinSliceRows rows, enough of them to fill the GPU
// about 8 blocks deep, their partials within the thread's workspace.
template <typename T, bool kMax>
Status launchColumnSlices(const ReducePlan &plan, const T *x, T *y,
                          double scale, const char *name) {
  using Acc = typename Reduction<kMax>::Acc;
  constexpr int kVector = 16 / sizeof(T);
  constexpr int64_t kMinSliceRows = 8 * kSliceRowGroups;
  void *workspace = nullptr;
  size_t workspaceBytes = 0;
  int multiprocessors = 0;
  HETC_RETURN_IF_ERROR(
      internal::threadWorkspace(&workspace, &workspaceBytes, &multiprocessors),
      name);
  int64_t rows = plan.reduceCount, cols = plan.inner;
  int64_t colBlocks = (cols / kVector + 31) / 32;
  int64_t slices = std::min(
      {(int64_t(multiprocessors) * 8 + colBlocks - 1) / colBlocks,
       (rows + kMinSliceRows - 1) / kMinSliceRows,
       int64_t(workspaceBytes / (sizeof(Acc) * cols)), int64_t(65535)});
  slices = std::max<int64_t>(slices, 1);
  int64_t sliceRows = std::max<int64_t>(1, (rows + slices - 1) / slices);
  slices = std::max<int64_t>(1, (rows + sliceRows - 1) / sliceRows);
  Acc *partial = static_cast<Acc *>(workspace);
  cudaStream_t stream = currentStream();
  columnSlicesKernel<T, kVector, kMax>
      <<<dim3(static_cast<unsigned>(colBlocks), static_cast<unsigned>(slices)),
         dim3(32, kSliceRowGroups), 0, stream>>>(x, y, partial, rows, cols,
                                                 sliceRows, scale);
  if (slices > 1)
    combineSlicesKernel<T, kMax>
        <<<internal::blocksFor(cols, 8), dim3(32, 8), 0, stream>>>(
            partial, static_cast<int>(slices), cols, y, scale);
  return launchStatus(name);
}

template <typename T, typename I, bool kMax>
Status launchReduce(const ReducePlan &plan, const T *x, T *y,
                    int64_t numOutputs, double scale, const char *name) {
  StridedIndex<I> red, outer;
  if (!internal::makeIndex(plan.red, &red) ||
      !internal::makeIndex(plan.columns ? plan.outer : plan.kept, &outer))
    return unimplemented(name, ": x has more than ",
                         internal::kMaxStridedDims,
                         " alternating kept and reduced dimension groups");
  cudaStream_t stream = currentStream();
  if (plan.columns) {
    int64_t numOuter = numElements(plan.outer.dims);
    // 32 columns per block; fewer (down to one 32-byte sector per row)
    // when that leaves too few blocks, e.g. a bias gradient [B*T, C] -> [C].
    int64_t cols = 32, minCols = std::max<int64_t>(1, 32 / sizeof(T));
    auto tilesOf = [&](int64_t c) {
      return numOuter * ((plan.inner + c - 1) / c);
    };
    while (cols > minCols && tilesOf(cols) < kFewBlocks)
      cols /= 2;
    int64_t tiles = tilesOf(cols);
    int64_t rows = 1;
    while (cols * rows < 1024 && rows < plan.reduceCount &&
           tiles * cols * rows < kFillThreads)
      rows *= 2;
    reduceColumnsKernel<T, I, kMax>
        <<<internal::gridFor(tiles, 1),
           dim3(static_cast<unsigned>(cols), static_cast<unsigned>(rows)), 0,
           stream>>>(x, y, outer, red, numOuter, plan.inner,
                     plan.reduceCount, scale);
  } else {
    // About 4 or more reduced elements per lane.
    int lanes = 1;
    while (lanes < 512 && lanes * int64_t(4) < plan.reduceCount)
      lanes *= 2;
    int perBlock = lanes >= 256 ? 1 : 256 / lanes;
    reduceGroupsKernel<T, I, kMax>
        <<<internal::gridFor(numOutputs, perBlock), dim3(lanes, perBlock), 0,
           stream>>>(x, y, outer, red, numOutputs, plan.reduceCount, scale);
  }
  return launchStatus(name);
}

template <typename T>
Status reduceAs(ReduceOp op, const ReducePlan &plan, const TensorView &x,
                const TensorView &y, double scale, bool small,
                const char *name) {
  const T *in = x.as<T>();
  T *out = y.as<T>();
  int64_t n = y.numel();
  if (isColumnSlices(plan, in))
    return op == ReduceOp::kMax
               ? launchColumnSlices<T, true>(plan, in, out, scale, name)
               : launchColumnSlices<T, false>(plan, in, out, scale, name);
  if (op == ReduceOp::kMax)
    return small ? launchReduce<T, int32_t, true>(plan, in, out, n, scale, name)
                 : launchReduce<T, int64_t, true>(plan, in, out, n, scale, name);
  return small ? launchReduce<T, int32_t, false>(plan, in, out, n, scale, name)
               : launchReduce<T, int64_t, false>(plan, in, out, n, scale, name);
}

} // namespace

Status reduce(ReduceOp op, const TensorView &x,
              const std::vector<int64_t> &axes, bool keepDims,
              const TensorView &y) {
  const char *name = reduceOpName(op);
  if (x.dtype != DType::kF32 && x.dtype != DType::kBF16 &&
      x.dtype != DType::kF16)
    return invalidArgument(name, ": x must be f32, bf16 or f16, got ",
                           x.describe());
  HETC_RETURN_IF_ERROR(checkData(x, "x"), name);
  HETC_RETURN_IF_ERROR(checkDType(y, x.dtype, "y"), name);
  HETC_RETURN_IF_ERROR(checkData(y, "y"), name);
  ReducedAxes dims;
  HETC_RETURN_IF_ERROR(planReducedAxes(name, op, x, axes, keepDims, y, &dims));
  int64_t numOutputs = y.numel();
  if (numOutputs == 0)
    return okStatus();
  ReducePlan plan = planReduce(x.shape, dims.reduced);
  // Every offset is below x's element count; output indices below y's.
  bool small = std::max(x.numel(), numOutputs) <=
               std::numeric_limits<int32_t>::max();
  switch (x.dtype) {
  case DType::kBF16:
    return reduceAs<__nv_bfloat16>(op, plan, x, y, dims.scale, small, name);
  case DType::kF16:
    return reduceAs<__half>(op, plan, x, y, dims.scale, small, name);
  default:
    return reduceAs<float>(op, plan, x, y, dims.scale, small, name);
  }
}

} // namespace hetc::runtime::cuda
