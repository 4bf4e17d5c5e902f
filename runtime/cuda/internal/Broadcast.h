//===- Broadcast.h - numpy broadcasting for CUDA kernels --------*- C++ -*-===//
//
// A BroadcastPlan describes an output and up to three inputs broadcast to it
// as at most kMaxBroadcastDims collapsed dimensions, as runtime/cpu's
// BroadcastLoop does: size-1 output dimensions are dropped and neighbours
// that are contiguous for every operand merge. In the last (inner) collapsed
// dimension each input's stride is 0 (broadcast) or 1 (contiguous). The plan
// is built on the host and handed to kernels by value (Broadcast.cuh), so no
// device memory holds shapes and launches stay graph-capturable.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CUDA_INTERNAL_BROADCAST_H
#define HETC_RUNTIME_CUDA_INTERNAL_BROADCAST_H

#include "runtime/base/Tensor.h"

#include <initializer_list>
#include <vector>

namespace hetc::runtime::cuda::internal {

// Eight collapsed dimensions cover any broadcast that alternates between
// operands up to eight times, far beyond what models produce.
constexpr int kMaxBroadcastDims = 8;
constexpr int kMaxBroadcastInputs = 3;

struct BroadcastPlan {
  int rank = 1; // collapsed output dims, 1..kMaxBroadcastDims
  int numInputs = 0;
  int64_t numel = 0; // of the output
  int64_t dims[kMaxBroadcastDims] = {};
  int64_t strides[kMaxBroadcastInputs][kMaxBroadcastDims] = {};

  int64_t cols() const { return dims[rank - 1]; }
  int64_t innerStride(int input) const { return strides[input][rank - 1]; }
};

// Element strides of a contiguous tensor of shape `in` read in the index space
// of `out` (right-aligned; 0 where `in` has size 1 or lacks the dimension).
inline Status broadcastStrides(const Shape &in, const Shape &out,
                               std::vector<int64_t> *strides) {
  if (in.size() > out.size())
    return invalidArgument("shape ", shapeToString(in),
                           " does not broadcast to ", shapeToString(out));
  size_t lead = out.size() - in.size();
  strides->assign(out.size(), 0);
  int64_t stride = 1;
  for (size_t i = out.size(); i-- > lead;) {
    int64_t d = in[i - lead];
    if (d != out[i] && d != 1)
      return invalidArgument("shape ", shapeToString(in),
                             " does not broadcast to ", shapeToString(out));
    (*strides)[i] = d == 1 ? 0 : stride;
    stride *= d;
  }
  return okStatus();
}

inline Status makeBroadcastPlan(const Shape &out,
                                std::initializer_list<const Shape *> inputs,
                                BroadcastPlan *plan) {
  if (inputs.size() > static_cast<size_t>(kMaxBroadcastInputs))
    return internalError("makeBroadcastPlan: too many inputs");
  *plan = BroadcastPlan();
  plan->numInputs = static_cast<int>(inputs.size());
  plan->numel = numElements(out);
  std::vector<int64_t> full[kMaxBroadcastInputs];
  int n = 0;
  for (const Shape *in : inputs)
    HETC_RETURN_IF_ERROR(broadcastStrides(*in, out, &full[n++]));

  int rank = 0;
  for (size_t k = 0; k < out.size(); ++k) {
    if (out[k] == 1)
      continue;
    bool merge = rank > 0;
    for (int i = 0; merge && i < plan->numInputs; ++i)
      merge = plan->strides[i][rank - 1] == full[i][k] * out[k];
    if (merge) {
      plan->dims[rank - 1] *= out[k];
      for (int i = 0; i < plan->numInputs; ++i)
        plan->strides[i][rank - 1] = full[i][k];
      continue;
    }
    if (rank == kMaxBroadcastDims)
      return unimplemented("broadcasting ", shapeToString(out), " needs more "
                           "than ", kMaxBroadcastDims,
                           " dimensions after merging contiguous ones");
    plan->dims[rank] = out[k];
    for (int i = 0; i < plan->numInputs; ++i)
      plan->strides[i][rank] = full[i][k];
    ++rank;
  }
  if (rank == 0) { // a single element
    plan->dims[0] = 1;
    rank = 1;
  }
  plan->rank = rank;
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
