//===- StridedLayout.h - a strided read of a contiguous buffer --*- C++ -*-===//
//
// transpose, slice and broadcast all read their input as a strided view; the
// CPU and CUDA kernels build the view here and differ only in how they walk
// it.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_BASE_STRIDEDLAYOUT_H
#define HETC_RUNTIME_BASE_STRIDEDLAYOUT_H

#include "runtime/base/Tensor.h"

#include <vector>

namespace hetc::runtime {

// An output of shape `dims` whose element at index (i0, i1, ...) lives at
// base + sum(ik * strides[k]) in the source (element units).
struct StridedLayout {
  Shape dims;
  std::vector<int64_t> strides;
  int64_t base = 0;
};

// Row-major element strides of a contiguous tensor of shape `shape`.
std::vector<int64_t> contiguousStrides(const Shape &shape);

} // namespace hetc::runtime

#endif // HETC_RUNTIME_BASE_STRIDEDLAYOUT_H
