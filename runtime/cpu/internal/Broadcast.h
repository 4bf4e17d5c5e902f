//===- Broadcast.h - iterating numpy-broadcast operands ---------*- C++ -*-===//
//
// A BroadcastLoop walks an output and up to three inputs broadcast to it
// (runtime/base/BroadcastShape.h's merged dimensions) by rows: the last
// merged dimension is the inner loop; in it each input's stride is 0
// (broadcast) or 1 (contiguous).
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CPU_INTERNAL_BROADCAST_H
#define HETC_RUNTIME_CPU_INTERNAL_BROADCAST_H

#include "runtime/base/BroadcastShape.h"
#include "runtime/cpu/internal/Parallel.h"

#include <initializer_list>

namespace hetc::runtime::cpu::internal {

using runtime::broadcastStrides;
using runtime::kMaxBroadcastInputs;

// The merged dimensions of runtime/base/BroadcastShape.h, walked by rows.
struct BroadcastLoop : BroadcastShape {
  int64_t cols() const { return dims.back(); }
  int64_t rows() const;
  int64_t colStride(int input) const { return strides[input].back(); }
  // Offset of the first element of output row `row` in each input.
  void rowOffsets(int64_t row, int64_t *offsets) const;
};

Status makeBroadcastLoop(const Shape &out,
                         std::initializer_list<const Shape *> inputs,
                         BroadcastLoop *loop);

// Runs body(outOffset, inputOffsets, count) over runs of `count` consecutive
// output elements, in parallel over rows.
template <typename Body>
void forEachBroadcastRun(const BroadcastLoop &loop, const Body &body) {
  int64_t cols = loop.cols();
  int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(cols, 1));
  parallelFor(loop.rows(), grain, [&](int64_t begin, int64_t end) {
    int64_t offsets[kMaxBroadcastInputs] = {0, 0, 0};
    for (int64_t row = begin; row < end; ++row) {
      loop.rowOffsets(row, offsets);
      body(row * cols, static_cast<const int64_t *>(offsets), cols);
    }
  });
}

} // namespace hetc::runtime::cpu::internal

#endif // HETC_RUNTIME_CPU_INTERNAL_BROADCAST_H
