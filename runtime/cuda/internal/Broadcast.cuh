//===- Broadcast.cuh - elementwise kernels over broadcast operands -*- CUDA -*-===//
//
// mapBroadcast() runs out[i] = op(in0[.], in1[.], in2[.]) over a
// BroadcastPlan (Broadcast.h). Each thread owns kVec consecutive output
// elements of one row of the inner dimension: contiguous inputs and the
// output move as 16-byte packs when every pointer is aligned and rows hold
// whole packs; broadcast inputs (inner stride 0) are read once and repeated.
// Otherwise one element per thread. A thread reads all of its elements before
// writing any, and no two threads share an output element, so the output may
// be an input of its own shape (in-place).
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CUDA_INTERNAL_BROADCAST_CUH
#define HETC_RUNTIME_CUDA_INTERNAL_BROADCAST_CUH

#include "runtime/cuda/Stream.h"
#include "runtime/cuda/internal/Broadcast.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace hetc::runtime::cuda::internal {

constexpr int kMapThreads = 256;

/// N elements moved by one aligned load or store (N * sizeof(T) <= 16).
template <typename T, int N> struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

/// A BroadcastPlan in the index type of the launch: 32-bit when the output
/// has fewer than 2^31 elements, which makes the divisions cheap.
template <typename Index, int NumIn> struct BroadcastIndex {
  int rank;
  Index numel, cols;
  Index dims[kMaxBroadcastDims];
  Index strides[NumIn][kMaxBroadcastDims];

  explicit BroadcastIndex(const BroadcastPlan &plan) {
    rank = plan.rank;
    numel = static_cast<Index>(plan.numel);
    cols = static_cast<Index>(plan.cols());
    for (int k = 0; k < kMaxBroadcastDims; ++k) {
      dims[k] = static_cast<Index>(plan.dims[k]);
      for (int i = 0; i < NumIn; ++i)
        strides[i][k] = static_cast<Index>(plan.strides[i][k]);
    }
  }

  /// Offsets in each input of the first element of output row `row` (the
  /// rows being all collapsed dims but the inner one).
  __device__ __forceinline__ void rowOffsets(Index row, Index *offsets) const {
#pragma unroll
    for (int i = 0; i < NumIn; ++i)
      offsets[i] = 0;
#pragma unroll
    for (int k = kMaxBroadcastDims - 2; k >= 0; --k) {
      if (k < rank - 1) {
        // The outermost index needs no modulo: row < dims[0] there.
        Index idx = row;
        if (k > 0) {
          idx = row % dims[k];
          row /= dims[k];
        }
#pragma unroll
        for (int i = 0; i < NumIn; ++i)
          offsets[i] += idx * strides[i][k];
      }
    }
  }
};

template <int Vec, typename T, typename Index>
__device__ __forceinline__ Pack<T, Vec> loadRow(const T *p, Index offset,
                                                Index col, Index innerStride) {
  Pack<T, Vec> pack;
  if (innerStride != 0) {
    pack = *reinterpret_cast<const Pack<T, Vec> *>(p + offset + col);
  } else {
    T value = p[offset];
#pragma unroll
    for (int j = 0; j < Vec; ++j)
      pack.v[j] = value;
  }
  return pack;
}

template <int NumIn, typename Op, typename A, typename B, typename C>
__device__ __forceinline__ auto applyOp(const Op &op, A a, B b, C c) {
  if constexpr (NumIn == 1)
    return op(a);
  else if constexpr (NumIn == 2)
    return op(a, b);
  else
    return op(a, b, c);
}

// Unused inputs are null pointers of type uint8_t and are never read.
template <int NumIn, int Vec, typename Index, typename Op, typename Out,
          typename A, typename B, typename C>
__global__ void broadcastMapKernel(BroadcastIndex<Index, NumIn> ix, Op op,
                                   Out *out, const A *a, const B *b,
                                   const C *c) {
  Index start =
      (static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x) * Vec;
  if (start >= ix.numel)
    return;
  Index row = 0, col = start;
  if (ix.rank > 1) {
    row = start / ix.cols;
    col = start - row * ix.cols;
  }
  Index off[NumIn];
  ix.rowOffsets(row, off);
  Index innerA = ix.strides[0][ix.rank - 1];
  Index innerB = NumIn > 1 ? ix.strides[NumIn > 1 ? 1 : 0][ix.rank - 1] : 0;
  Index innerC = NumIn > 2 ? ix.strides[NumIn > 2 ? 2 : 0][ix.rank - 1] : 0;
  Index offB = NumIn > 1 ? off[NumIn > 1 ? 1 : 0] : 0;
  Index offC = NumIn > 2 ? off[NumIn > 2 ? 2 : 0] : 0;

  if (Vec > 1 && start + Vec <= ix.numel) {
    Pack<A, Vec> pa = loadRow<Vec>(a, off[0], col, innerA);
    Pack<B, Vec> pb{};
    Pack<C, Vec> pc{};
    if constexpr (NumIn > 1)
      pb = loadRow<Vec>(b, offB, col, innerB);
    if constexpr (NumIn > 2)
      pc = loadRow<Vec>(c, offC, col, innerC);
    Pack<Out, Vec> po;
#pragma unroll
    for (int j = 0; j < Vec; ++j)
      po.v[j] = applyOp<NumIn>(op, pa.v[j], pb.v[j], pc.v[j]);
    *reinterpret_cast<Pack<Out, Vec> *>(out + start) = po;
    return;
  }
  // One element at a time: the Vec == 1 launches, and the short last pack of
  // a single-row (rank 1) output, where col + j stays in the row.
  for (int j = 0; j < Vec && start + j < ix.numel; ++j) {
    Index cj = col + j;
    A va = a[off[0] + cj * innerA];
    B vb{};
    C vc{};
    if constexpr (NumIn > 1)
      vb = b[offB + cj * innerB];
    if constexpr (NumIn > 2)
      vc = c[offC + cj * innerC];
    out[start + j] = applyOp<NumIn>(op, va, vb, vc);
  }
}

inline bool isAligned(const void *p, size_t bytes) {
  return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}

template <int NumIn, int Vec, typename Index, typename Op, typename Out,
          typename A, typename B, typename C>
void launchMap(const BroadcastPlan &plan, Op op, Out *out, const A *a,
               const B *b, const C *c) {
  int64_t items = (plan.numel + Vec - 1) / Vec;
  unsigned blocks = static_cast<unsigned>((items + kMapThreads - 1) / kMapThreads);
  broadcastMapKernel<NumIn, Vec, Index>
      <<<blocks, kMapThreads, 0, currentStream()>>>(
          BroadcastIndex<Index, NumIn>(plan), op, out, a, b, c);
}

/// Enqueues out[i] = op(a, b, c) over `plan` (NumIn inputs; pass
/// `static_cast<const uint8_t *>(nullptr)` for unused ones) and returns the
/// launch status named `kernel`. Nothing is launched for an empty output.
template <int NumIn, typename Op, typename Out, typename A, typename B,
          typename C>
Status mapBroadcast(const char *kernel, const BroadcastPlan &plan, Op op,
                    Out *out, const A *a, const B *b, const C *c) {
  static_assert(NumIn >= 1 && NumIn <= kMaxBroadcastInputs);
  if (plan.numel == 0)
    return okStatus();
  constexpr size_t widest = std::max(
      {sizeof(Out), sizeof(A), NumIn > 1 ? sizeof(B) : size_t(1),
       NumIn > 2 ? sizeof(C) : size_t(1)});
  constexpr int kVec = static_cast<int>(16 / widest);
  // Packs need whole packs per row (so that a pack never straddles two rows)
  // and every pointer read or written by packs aligned to its pack size.
  bool packed = kVec > 1 && (plan.rank == 1 || plan.cols() % kVec == 0) &&
                isAligned(out, kVec * sizeof(Out)) &&
                (plan.innerStride(0) == 0 || isAligned(a, kVec * sizeof(A)));
  if (NumIn > 1)
    packed = packed &&
             (plan.innerStride(1) == 0 || isAligned(b, kVec * sizeof(B)));
  if (NumIn > 2)
    packed = packed &&
             (plan.innerStride(2) == 0 || isAligned(c, kVec * sizeof(C)));
  bool narrow = plan.numel <= std::numeric_limits<int32_t>::max();
  if (packed && narrow)
    launchMap<NumIn, kVec, uint32_t>(plan, op, out, a, b, c);
  else if (packed)
    launchMap<NumIn, kVec, int64_t>(plan, op, out, a, b, c);
  else if (narrow)
    launchMap<NumIn, 1, uint32_t>(plan, op, out, a, b, c);
  else
    launchMap<NumIn, 1, int64_t>(plan, op, out, a, b, c);
  return launchStatus(kernel);
}

/// mapBroadcast for operands that all have the output's shape, which need no
/// index arithmetic; 64-bit indices only, which halves the instantiations.
template <int NumIn, typename Op, typename Out, typename A, typename B,
          typename C>
Status mapSameShape(const char *kernel, int64_t numel, Op op, Out *out,
                    const A *a, const B *b, const C *c) {
  if (numel == 0)
    return okStatus();
  BroadcastPlan plan = sameShapePlan(numel, NumIn);
  constexpr size_t widest = std::max(
      {sizeof(Out), sizeof(A), NumIn > 1 ? sizeof(B) : size_t(1),
       NumIn > 2 ? sizeof(C) : size_t(1)});
  constexpr int kVec = static_cast<int>(16 / widest);
  bool packed = kVec > 1 && isAligned(out, kVec * sizeof(Out)) &&
                isAligned(a, kVec * sizeof(A)) &&
                (NumIn < 2 || isAligned(b, kVec * sizeof(B))) &&
                (NumIn < 3 || isAligned(c, kVec * sizeof(C)));
  if (packed)
    launchMap<NumIn, kVec, int64_t>(plan, op, out, a, b, c);
  else
    launchMap<NumIn, 1, int64_t>(plan, op, out, a, b, c);
  return launchStatus(kernel);
}

} // namespace hetc::runtime::cuda::internal

#endif // HETC_RUNTIME_CUDA_INTERNAL_BROADCAST_CUH
