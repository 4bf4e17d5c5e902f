//===- Broadcast.cpp ------------------------------------------------------===//

#include "runtime/cpu/internal/Broadcast.h"

namespace hetc::runtime::cpu::internal {

Status broadcastStrides(const Shape &in, const Shape &out,
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
  if (inputs.size() > kMaxBroadcastInputs)
    return internalError("makeBroadcastLoop: too many inputs");
  loop->numInputs = static_cast<int>(inputs.size());
  std::vector<int64_t> full[kMaxBroadcastInputs];
  int n = 0;
  for (const Shape *in : inputs)
    HETC_RETURN_IF_ERROR(broadcastStrides(*in, out, &full[n++]));

  loop->dims.clear();
  for (int i = 0; i < loop->numInputs; ++i)
    loop->strides[i].clear();
  for (size_t k = 0; k < out.size(); ++k) {
    if (out[k] == 1)
      continue;
    bool merge = !loop->dims.empty();
    for (int i = 0; merge && i < loop->numInputs; ++i)
      merge = loop->strides[i].back() == full[i][k] * out[k];
    if (merge) {
      loop->dims.back() *= out[k];
      for (int i = 0; i < loop->numInputs; ++i)
        loop->strides[i].back() = full[i][k];
      continue;
    }
    loop->dims.push_back(out[k]);
    for (int i = 0; i < loop->numInputs; ++i)
      loop->strides[i].push_back(full[i][k]);
  }
  if (loop->dims.empty()) {
    loop->dims.push_back(1);
    for (int i = 0; i < loop->numInputs; ++i)
      loop->strides[i].push_back(0);
  }
  return okStatus();
}

} // namespace hetc::runtime::cpu::internal
