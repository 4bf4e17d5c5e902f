//===- Gather.cu - gather, embeddings and their gradients -----------------===//
//
// data is viewed as [outer, dim, inner] around the axis and indices as a
// flat list of `count`; out is [outer, count, inner].
//
// gather copies rows of inner elements as raw units of up to 16 bytes (any
// dtype), one thread per unit.
//
// gatherBackward must sum the dout rows of repeated indices in a fixed order.
// It sorts (index, position) pairs with CUB's stable radix sort, so the
// positions of each index are consecutive and ascending; then a block per
// sorted position that starts a run of equal indices sums the run's dout
// rows in order, in f32, and adds the sum to its ddata row once. Each ddata
// row has one owner: no atomics, the same bits on every run, and any number
// of repeats (an embedding of 50257 rows for 8192 tokens) costs one pass
// over dout.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/Gather.h"

#include "runtime/base/GatherShape.h"
#include "runtime/cuda/internal/DeviceFloat.cuh"
#include "runtime/cuda/internal/RowReduce.cuh"
#include "runtime/cuda/internal/RowScratch.h"

#include <cub/device/device_radix_sort.cuh>

#include <climits>

namespace hetc::runtime::cuda {
namespace {

using namespace internal;

constexpr int kCopyThreads = 256;
constexpr int64_t kMaxCopyBlocks = int64_t(1) << 20;
constexpr int kMaxScatterThreads = 256;

// ---- kernels

// out[o, i, k] = data[o, index[i], k] over units U; a zero row for an index
// out of range.
template <typename U, typename I>
__global__ void gatherKernel(const U *data, const I *indices, U *out,
                             int64_t outer, int64_t dim, int64_t count,
                             int64_t unitsPerRow) {
  const int64_t total = outer * count * unitsPerRow;
  for (int64_t u = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       u < total; u += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t row = u / unitsPerRow, k = u - row * unitsPerRow;
    const int64_t o = row / count, i = row - o * count;
    int64_t v = static_cast<int64_t>(indices[i]);
    if (v < 0)
      v += dim;
    if (v < 0 || v >= dim)
      out[u] = U{};
    else
      out[u] = data[(o * dim + v) * unitsPerRow + k];
  }
}

// keys[i] = the index normalized to [0, dim), or dim (sorted last and
// skipped) when out of range; positions[i] = i.
template <typename I>
__global__ void sortKeysKernel(const I *indices, int64_t count, int64_t dim,
                               uint32_t *keys, uint32_t *positions) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < count; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t v = static_cast<int64_t>(indices[i]);
    if (v < 0)
      v += dim;
    keys[i] = static_cast<uint32_t>(v < 0 || v >= dim ? dim : v);
    positions[i] = static_cast<uint32_t>(i);
  }
}

// Block b handles sorted position p = b % count of slice o = b / count when
// p starts a run of equal keys: ddata[o, key, :] (+)= the sum of
// dout[o, positions[q], :] over the run, in order. Columns go in packs of N
// (inner % N == 0 and both arrays 16-byte aligned when N > 1).
template <typename T, int N>
__global__ void scatterRunsKernel(const T *dout, const uint32_t *keys,
                                  const uint32_t *positions, T *ddata,
                                  int64_t outer, int64_t dim, int64_t count,
                                  int64_t inner, bool accumulate) {
  const int64_t items = outer * count;
  for (int64_t b = blockIdx.x; b < items; b += gridDim.x) {
    const int64_t o = b / count, p = b - o * count;
    const uint32_t key = keys[p];
    if (key >= dim || (p > 0 && keys[p - 1] == key))
      continue; // out of range, or not the first of its run
    const T *src = dout + o * count * inner;
    T *dst = ddata + (o * dim + key) * inner;
    for (int64_t k = static_cast<int64_t>(threadIdx.x) * N; k < inner;
         k += static_cast<int64_t>(blockDim.x) * N) {
      float acc[N] = {};
      for (int64_t q = p; q < count && keys[q] == key; ++q) {
        float v[N];
        loadPack<N>(src + static_cast<int64_t>(positions[q]) * inner + k, v);
#pragma unroll
        for (int i = 0; i < N; ++i)
          acc[i] += v[i];
      }
      if (accumulate) {
        float d[N];
        loadPack<N>(dst + k, d);
#pragma unroll
        for (int i = 0; i < N; ++i)
          acc[i] = d[i] + acc[i];
      }
      storePack<N>(dst + k, acc);
    }
  }
}

// Dimensions a ScatterND tuple indexes, passed by value.
constexpr int kMaxScatterDepth = 8;
struct ScatterDims {
  int64_t size[kMaxScatterDepth];
};

template <typename T>
__device__ T combineScatter(ScatterReduction reduction, T target, T update) {
  switch (reduction) {
  case ScatterReduction::kAdd: return target + update;
  case ScatterReduction::kMul: return target * update;
  case ScatterReduction::kMax: return target < update ? update : target;
  case ScatterReduction::kMin: return update < target ? update : target;
  default: return update;
  }
}

// Thread k owns element k of every slice and applies the tuples' updates
// to it in index order; a tuple with an index out of range is skipped.
template <typename T, typename I>
__global__ void scatterNDKernel(const I *indices, const T *updates, T *out,
                                ScatterDims dims, int depth, int64_t tuples,
                                int64_t slice, ScatterReduction reduction) {
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       k < slice; k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t offset = 0;
      bool inRange = true;
      for (int j = 0; j < depth; ++j) {
        int64_t v = static_cast<int64_t>(indices[t * depth + j]);
        if (v < 0)
          v += dims.size[j];
        inRange &= v >= 0 && v < dims.size[j];
        offset = offset * dims.size[j] + v;
      }
      if (inRange) {
        T &target = out[offset * slice + k];
        target = combineScatter(reduction, target, updates[t * slice + k]);
      }
    }
  }
}

// ---- host side (shape checks: runtime/base/GatherShape.h; index values stay
// on the device)

// Calls body(I{}) with I the index type.
template <typename Body> void dispatchIndices(DType dtype, Body &&body) {
  if (dtype == DType::kI64)
    body(int64_t{});
  else
    body(int32_t{});
}

// The widest unit (16, 8, 4, 2 or 1 bytes) that divides the row and both
// base addresses.
size_t copyUnit(size_t rowBytes, const void *a, const void *b) {
  uintptr_t bits = rowBytes | reinterpret_cast<uintptr_t>(a) |
                   reinterpret_cast<uintptr_t>(b);
  size_t unit = 16;
  while (unit > 1 && bits % unit != 0)
    unit /= 2;
  return unit;
}

template <typename U>
void launchGather(const TensorView &data, const TensorView &indices,
                  const TensorView &out, const GatherLayout &l,
                  int64_t unitsPerRow, cudaStream_t stream) {
  int64_t total = l.outer * l.count * unitsPerRow;
  unsigned blocks = static_cast<unsigned>(
      std::min<int64_t>(blocksFor(total, kCopyThreads), kMaxCopyBlocks));
  dispatchIndices(indices.dtype, [&](auto i) {
    using I = decltype(i);
    gatherKernel<U, I><<<blocks, kCopyThreads, 0, stream>>>(
        static_cast<const U *>(data.data), indices.as<I>(),
        static_cast<U *>(out.data), l.outer, l.dim, l.count, unitsPerRow);
  });
}

} // namespace

Status gather(const TensorView &data, const TensorView &indices, int64_t axis,
              const TensorView &out) {
  const char *name = "gather";
  GatherLayout l;
  HETC_RETURN_IF_ERROR(planGather(name, data, indices, axis, out, &l));
  size_t rowBytes = static_cast<size_t>(l.inner) * dtypeSize(data.dtype);
  if (out.numel() == 0 || rowBytes == 0)
    return okStatus();
  size_t unit = copyUnit(rowBytes, data.data, out.data);
  int64_t unitsPerRow = static_cast<int64_t>(rowBytes / unit);
  cudaStream_t stream = currentStream();
  switch (unit) {
  case 16:
    launchGather<uint4>(data, indices, out, l, unitsPerRow, stream);
    break;
  case 8:
    launchGather<uint2>(data, indices, out, l, unitsPerRow, stream);
    break;
  case 4:
    launchGather<uint32_t>(data, indices, out, l, unitsPerRow, stream);
    break;
  case 2:
    launchGather<uint16_t>(data, indices, out, l, unitsPerRow, stream);
    break;
  default:
    launchGather<uint8_t>(data, indices, out, l, unitsPerRow, stream);
    break;
  }
  return launchStatus(name);
}

Status gatherBackward(const TensorView &dout, const TensorView &indices,
                      int64_t axis, const TensorView &ddata, bool accumulate) {
  const char *name = "gather_backward";
  HETC_RETURN_IF_ERROR(checkDeviceFloat(ddata, "ddata"), name);
  GatherLayout l;
  HETC_RETURN_IF_ERROR(planGather(name, ddata, indices, axis, dout, &l));
  if (l.count > INT_MAX || l.dim >= int64_t(UINT32_MAX))
    return unimplemented(name, ": at most ", INT_MAX, " indices into a ",
                         "dimension below ", UINT32_MAX, " are supported, got ",
                         indices.describe(), " into ", ddata.describe());
  cudaStream_t stream = currentStream();
  if (!accumulate && ddata.byteSize() > 0)
    HETC_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(ddata.data, 0, ddata.byteSize(), stream));
  if (dout.numel() == 0)
    return okStatus();

  // Sort (key, position) pairs on the key's bits only.
  const int count = static_cast<int>(l.count);
  int endBit = 1;
  while (endBit < 32 && (int64_t(1) << endBit) <= l.dim)
    ++endBit;
  size_t sortBytes = 0;
  HETC_CUDA_RETURN_IF_ERROR(cub::DeviceRadixSort::SortPairs(
      nullptr, sortBytes, static_cast<const uint32_t *>(nullptr),
      static_cast<uint32_t *>(nullptr), static_cast<const uint32_t *>(nullptr),
      static_cast<uint32_t *>(nullptr), count, 0, endBit, stream));
  size_t pairBytes = static_cast<size_t>(count) * sizeof(uint32_t);
  ScratchLayout layout;
  size_t keysAt = layout.add(pairBytes), sortedKeysAt = layout.add(pairBytes);
  size_t positionsAt = layout.add(pairBytes);
  size_t sortedPositionsAt = layout.add(pairBytes);
  size_t sortAt = layout.add(sortBytes);
  void *scratch = nullptr;
  HETC_RETURN_IF_ERROR(rowScratch(layout.bytes(), &scratch), name);
  uint32_t *keys = scratchAt<uint32_t>(scratch, keysAt);
  uint32_t *sortedKeys = scratchAt<uint32_t>(scratch, sortedKeysAt);
  uint32_t *positions = scratchAt<uint32_t>(scratch, positionsAt);
  uint32_t *sortedPositions = scratchAt<uint32_t>(scratch, sortedPositionsAt);

  dispatchIndices(indices.dtype, [&](auto i) {
    using I = decltype(i);
    sortKeysKernel<I>
        <<<blocksFor(l.count, kCopyThreads), kCopyThreads, 0, stream>>>(
            indices.as<I>(), l.count, l.dim, keys, positions);
  });
  HETC_RETURN_IF_ERROR(launchStatus(name));
  HETC_CUDA_RETURN_IF_ERROR(cub::DeviceRadixSort::SortPairs(
      scratchAt<void>(scratch, sortAt), sortBytes,
      static_cast<const uint32_t *>(keys), sortedKeys,
      static_cast<const uint32_t *>(positions), sortedPositions, count, 0,
      endBit, stream));

  unsigned blocks = rowBlocks(l.outer * l.count);
  dispatchFloat(ddata.dtype, [&](auto t) {
    using T = decltype(t);
    constexpr int kWidth = kPackWidth<T>;
    bool packed = l.inner % kWidth == 0 &&
                  sameAlignment({dout.data, ddata.data}) &&
                  reinterpret_cast<uintptr_t>(dout.data) % 16 == 0;
    int64_t lanes = packed ? l.inner / kWidth : l.inner;
    unsigned threads = static_cast<unsigned>(
        std::clamp<int64_t>((lanes + 31) / 32 * 32, 32, kMaxScatterThreads));
    auto args = [&](auto kernel) {
      kernel<<<blocks, threads, 0, stream>>>(
          dout.as<T>(), sortedKeys, sortedPositions, ddata.as<T>(), l.outer,
          l.dim, l.count, l.inner, accumulate);
    };
    if (packed)
      args(scatterRunsKernel<T, kWidth>);
    else
      args(scatterRunsKernel<T, 1>);
  });
  return launchStatus(name);
}

Status scatterND(const TensorView &data, const TensorView &indices,
                 const TensorView &updates, ScatterReduction reduction,
                 const TensorView &out) {
  const char *name = "scatter_nd";
  ScatterNDLayout l;
  HETC_RETURN_IF_ERROR(planScatterND(name, data, indices, updates, out, &l));
  if (l.depth > kMaxScatterDepth)
    return unimplemented(name, ": index tuples of at most ", kMaxScatterDepth,
                         " entries are supported, got ", indices.describe());
  cudaStream_t stream = currentStream();
  if (out.data != data.data && data.byteSize() > 0)
    HETC_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(out.data, data.data,
                                              data.byteSize(),
                                              cudaMemcpyDeviceToDevice, stream));
  if (l.tuples == 0 || l.slice == 0)
    return okStatus();
  ScatterDims dims{};
  for (int64_t j = 0; j < l.depth; ++j)
    dims.size[j] = l.dims[j];
  auto launch = [&](auto element) {
    using T = decltype(element);
    dispatchIndices(indices.dtype, [&](auto i) {
      using I = decltype(i);
      scatterNDKernel<T, I>
          <<<std::min<int64_t>(blocksFor(l.slice, kCopyThreads),
                               kMaxCopyBlocks),
             kCopyThreads, 0, stream>>>(
              static_cast<const I *>(indices.data),
              static_cast<const T *>(updates.data), static_cast<T *>(out.data),
              dims, static_cast<int>(l.depth), l.tuples, l.slice, reduction);
    });
  };
  if (reduction == ScatterReduction::kNone) {
    // Replacing moves bits: one unsigned type per element width.
    switch (dtypeSize(data.dtype)) {
    case 8: launch(uint64_t{}); break;
    case 4: launch(uint32_t{}); break;
    case 2: launch(uint16_t{}); break;
    default: launch(uint8_t{}); break;
    }
    return launchStatus(name);
  }
  switch (data.dtype) {
  case DType::kF32: launch(float{}); break;
  case DType::kF64: launch(double{}); break;
  case DType::kI64: launch(int64_t{}); break;
  case DType::kI32: launch(int32_t{}); break;
  default:
    return invalidArgument(name, ": a reduction needs f32, f64, i64 or i32 "
                                 "data, got ",
                           data.describe());
  }
  return launchStatus(name);
}

Status embedding(const TensorView &table, const TensorView &ids,
                 const TensorView &out) {
  HETC_RETURN_IF_ERROR(checkTokenIdsShape("embedding", table, ids));
  return gather(table, ids, 0, out);
}

Status embeddingBackward(const TensorView &dout, const TensorView &ids,
                         const TensorView &dtable, bool accumulate) {
  HETC_RETURN_IF_ERROR(checkTokenIdsShape("embedding_backward", dtable, ids));
  return gatherBackward(dout, ids, 0, dtable, accumulate);
}

} // namespace hetc::runtime::cuda
