//===- SliceParams.h - resolving ONNX slice parameters ----------*- C++ -*-===//
//
// The host half of slice and slice_backward, shared by runtime/cpu and
// runtime/cuda: ONNX starts/ends/axes/steps resolved against a shape, and
// the strided view that reads the slice.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_BASE_SLICEPARAMS_H
#define HETC_RUNTIME_BASE_SLICEPARAMS_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/StridedLayout.h"

namespace hetc::runtime {

// Start, step and element count of every dimension of a slice.
struct ResolvedSlice {
  std::vector<int64_t> start;
  std::vector<int64_t> step;
  Shape count;
};

// Resolves `params` against a tensor of shape `in` (ONNX rules: negative
// bounds count from the end, bounds clamp, axes default to 0..n-1, steps to
// 1).
Status resolveSlice(const Shape &in, const SliceParams &params,
                    ResolvedSlice *slice);

// The result shape of slicing `input` (also validates the parameters).
Status sliceShape(const Shape &input, const SliceParams &params, Shape *out);

// The view of a contiguous tensor of shape `in` that reads `slice`.
StridedLayout sliceLayout(const Shape &in, const ResolvedSlice &slice);

} // namespace hetc::runtime

#endif // HETC_RUNTIME_BASE_SLICEPARAMS_H
