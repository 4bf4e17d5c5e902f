//===- Broadcast.cpp ------------------------------------------------------===//

#include "runtime/cpu/internal/Broadcast.h"

namespace hetc::runtime::cpu::internal {

int64_t BroadcastLoop::rows() const {
  int64_t n = 1;
  for (size_t i = 0; i + 1 < dims.size(); ++i)
    n *= dims[i];
  return n;
}

void BroadcastLoop::rowOffsets(int64_t row, int64_t *offsets) const {
  for (int i = 0; i < numInputs; ++i)
    offsets[i] = 0;
  for (size_t k = dims.size() - 1; k-- > 0;) {
    int64_t idx = row % dims[k];
    row /= dims[k];
    for (int i = 0; i < numInputs; ++i)
      offsets[i] += idx * strides[i][k];
  }
}

Status makeBroadcastLoop(const Shape &out,
                         std::initializer_list<const Shape *> inputs,
                         BroadcastLoop *loop) {
  return mergeBroadcastDims(out, inputs, loop);
}

} // namespace hetc::runtime::cpu::internal
