//===- StridedIndex.cuh - element offsets of strided views ------*- CUDA -*-===//
//
// Transpose, slice, broadcast and reductions read a contiguous tensor
// through a view: an index (i0, i1, ...) over `dims` lives at
// base + sum(ik * strides[k]) elements of the source. The host collapses the
// view (fewer dimensions, fewer divisions), may widen its elements (move up
// to 16 bytes per thread) and picks 32-bit index math when every offset
// fits; the device turns a linear index into an offset.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CUDA_INTERNAL_STRIDEDINDEX_CUH
#define HETC_RUNTIME_CUDA_INTERNAL_STRIDEDINDEX_CUH

#include "runtime/base/StridedLayout.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace hetc::runtime::cuda::internal {

// Dimensions a kernel argument holds; views collapse below this in practice.
constexpr int kMaxStridedDims = 8;

/// A view on the host (runtime/base/StridedLayout.h). Strides may be
/// negative (reversed slices) or 0 (broadcast).
using runtime::StridedLayout;

/// Drops size-1 dimensions and merges neighbours that the source reads
/// contiguously one after the other. The destination is row-major over
/// `dims`, so any merge is valid for it.
inline void collapse(StridedLayout *view) {
  StridedLayout out;
  out.base = view->base;
  for (size_t k = 0; k < view->dims.size(); ++k) {
    int64_t d = view->dims[k], s = view->strides[k];
    if (d == 1)
      continue;
    if (!out.dims.empty() &&
        out.strides.back() == s * d) { // outer step = one full inner run
      out.dims.back() *= d;
      out.strides.back() = s;
      continue;
    }
    out.dims.push_back(d);
    out.strides.push_back(s);
  }
  *view = std::move(out);
}

/// Whether every offset the view reaches (and the element count) fits in
/// int32. Dimensions must be non-zero.
inline bool fitsInt32(const StridedLayout &view) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  int64_t lo = view.base, hi = view.base, count = 1;
  for (size_t k = 0; k < view.dims.size(); ++k) {
    int64_t reach = (view.dims[k] - 1) * view.strides[k];
    (reach < 0 ? lo : hi) += reach;
    count *= view.dims[k];
    if (count > kMax || hi > kMax || lo < 0)
      return false;
  }
  return lo >= 0 && hi <= kMax;
}

/// Regroups the elements of `elemBytes` bytes into wider ones (up to 16
/// bytes) when the innermost dimension is contiguous and every stride, the
/// base and both addresses allow it; returns the element width to move.
/// Only for plain copies (the destination is contiguous over the view).
inline size_t widen(StridedLayout *view, size_t elemBytes, const void *src,
                    const void *dst) {
  if (view->dims.empty() || view->strides.back() != 1)
    return elemBytes;
  auto aligned = [](const void *p, size_t w) {
    return reinterpret_cast<uintptr_t>(p) % w == 0;
  };
  for (size_t width = 16; width > elemBytes; width /= 2) {
    int64_t g = static_cast<int64_t>(width / elemBytes);
    bool ok = view->dims.back() % g == 0 && view->base % g == 0 &&
              aligned(src, width) && aligned(dst, width);
    for (size_t k = 0; ok && k + 1 < view->dims.size(); ++k)
      ok = view->strides[k] % g == 0;
    if (!ok)
      continue;
    view->dims.back() /= g;
    for (size_t k = 0; k + 1 < view->dims.size(); ++k)
      view->strides[k] /= g;
    view->base /= g;
    return width;
  }
  return elemBytes;
}

/// The device side of a StridedLayout, with index type I (int32_t or
/// int64_t). Passed by value as a kernel argument.
template <typename I> struct StridedIndex {
  int rank = 0;
  I base = 0;
  I dims[kMaxStridedDims] = {};
  I strides[kMaxStridedDims] = {};

  /// Offset of the element with row-major index `linear` over dims.
  __device__ __forceinline__ I offset(I linear) const {
    I off = base;
#pragma unroll
    for (int k = kMaxStridedDims - 1; k > 0; --k) {
      if (k < rank) {
        I q = linear / dims[k];
        off += (linear - q * dims[k]) * strides[k];
        linear = q;
      }
    }
    // The outermost index needs no division (linear < dims[0]).
    return rank > 0 ? off + linear * strides[0] : off;
  }
};

/// Fills `index` from `view`; false when the view has too many dimensions.
template <typename I>
bool makeIndex(const StridedLayout &view, StridedIndex<I> *index) {
  if (view.dims.size() > static_cast<size_t>(kMaxStridedDims))
    return false;
  index->rank = static_cast<int>(view.dims.size());
  index->base = static_cast<I>(view.base);
  for (size_t k = 0; k < view.dims.size(); ++k) {
    index->dims[k] = static_cast<I>(view.dims[k]);
    index->strides[k] = static_cast<I>(view.strides[k]);
  }
  return true;
}

/// Calls `body(T{})` with T an element type of `bytes` bytes (1, 2, 4, 8 or
/// 16) for kernels that only move elements; false for other sizes.
template <typename Body> bool dispatchWidth(size_t bytes, Body &&body) {
  switch (bytes) {
  case 1:
    body(uint8_t{});
    return true;
  case 2:
    body(uint16_t{});
    return true;
  case 4:
    body(uint32_t{});
    return true;
  case 8:
    body(uint2{});
    return true;
  case 16:
    body(uint4{});
    return true;
  default:
    return false;
  }
}

/// Blocks for a grid-stride loop over `n` items: enough to fill the GPU,
/// capped so huge tensors loop instead of exceeding grid limits.
inline unsigned gridFor(int64_t n, int threads) {
  constexpr int64_t kMaxBlocks = int64_t(1) << 16;
  int64_t blocks = (n + threads - 1) / threads;
  if (blocks < 1)
    blocks = 1;
  return static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

} // namespace hetc::runtime::cuda::internal

#endif // HETC_RUNTIME_CUDA_INTERNAL_STRIDEDINDEX_CUH
