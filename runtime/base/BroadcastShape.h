//===- BroadcastShape.h - numpy broadcasting, merged dimensions -*- C++ -*-===//
//
// The host half of broadcasting, shared by runtime/cpu (BroadcastLoop) and
// runtime/cuda (BroadcastPlan): an output and up to three inputs broadcast
// to it as a short list of merged dimensions. Size-1 output dimensions are
// dropped and neighbours that are contiguous for every operand merge. In
// the last merged dimension each input's stride is 0 (broadcast) or 1
// (contiguous).
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_BASE_BROADCASTSHAPE_H
#define HETC_RUNTIME_BASE_BROADCASTSHAPE_H

#include "runtime/base/Tensor.h"

#include <initializer_list>
#include <vector>

namespace hetc::runtime {

constexpr int kMaxBroadcastInputs = 3;

// Element strides of a contiguous tensor of shape `in` read in the index space
// of `out` (right-aligned; 0 where `in` has size 1 or lacks the dimension).
// Fails when `in` does not broadcast to `out`.
Status broadcastStrides(const Shape &in, const Shape &out,
                        std::vector<int64_t> *strides);

struct BroadcastShape {
  int numInputs = 0;
  Shape dims; // merged output dims, never empty
  std::vector<int64_t> strides[kMaxBroadcastInputs];
};

// Fails when an input does not broadcast to `out`.
Status mergeBroadcastDims(const Shape &out,
                          std::initializer_list<const Shape *> inputs,
                          BroadcastShape *shape);

} // namespace hetc::runtime

#endif // HETC_RUNTIME_BASE_BROADCASTSHAPE_H
