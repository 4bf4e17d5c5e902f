//===- Broadcast.h - numpy broadcasting for CUDA kernels --------*- C++ -*-===//
//
// A BroadcastPlan describes an output and up to three inputs broadcast to it
// as at most kMaxBroadcastDims collapsed dimensions, merged by
// runtime/base/BroadcastShape.h as for runtime/cpu's BroadcastLoop. In the
// last (inner) collapsed dimension each input's stride is 0 (broadcast) or
// 1 (contiguous). The plan
// is built on the host and handed to kernels by value (Broadcast.cuh), so no
// device memory holds shapes and launches stay graph-capturable.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CUDA_INTERNAL_BROADCAST_H
#define HETC_RUNTIME_CUDA_INTERNAL_BROADCAST_H

#include "runtime/base/BroadcastShape.h"

#include <initializer_list>
#include <vector>

namespace hetc::runtime::cuda::internal {

// Eight collapsed dimensions cover any broadcast that alternates between
// operands up to eight times, far beyond what models produce.
constexpr int kMaxBroadcastDims = 8;
using runtime::kMaxBroadcastInputs;

struct BroadcastPlan {
  int rank = 1; // collapsed output dims, 1..kMaxBroadcastDims
  int numInputs = 0;
  int64_t numel = 0; // of the output
  int64_t dims[kMaxBroadcastDims] = {};
  int64_t strides[kMaxBroadcastInputs][kMaxBroadcastDims] = {};

  int64_t cols() const { return dims[rank - 1]; }
  int64_t innerStride(int input) const { return strides[input][rank - 1]; }
};

using runtime::broadcastStrides;

inline Status makeBroadcastPlan(const Shape &out,
                                std::initializer_list<const Shape *> inputs,
                                BroadcastPlan *plan) {
  BroadcastShape merged;
  HETC_RETURN_IF_ERROR(mergeBroadcastDims(out, inputs, &merged));
  int rank = static_cast<int>(merged.dims.size());
  if (rank > kMaxBroadcastDims)
    return unimplemented("broadcasting ", shapeToString(out), " needs more "
                         "than ", kMaxBroadcastDims,
                         " dimensions after merging contiguous ones");
  *plan = BroadcastPlan();
  plan->rank = rank;
  plan->numInputs = merged.numInputs;
  plan->numel = numElements(out);
  for (int k = 0; k < rank; ++k) {
    plan->dims[k] = merged.dims[k];
    for (int i = 0; i < merged.numInputs; ++i)
      plan->strides[i][k] = merged.strides[i][k];
  }
  return okStatus();
}

// Inputs of the output's shape: one contiguous dimension.
inline BroadcastPlan sameShapePlan(int64_t numel, int numInputs) {
  BroadcastPlan plan;
  plan.numInputs = numInputs;
  plan.numel = numel;
  plan.dims[0] = numel;
  for (int i = 0; i < numInputs; ++i)
    plan.strides[i][0] = 1;
  return plan;
}

} // namespace hetc::runtime::cuda::internal

#endif // HETC_RUNTIME_CUDA_INTERNAL_BROADCAST_H
