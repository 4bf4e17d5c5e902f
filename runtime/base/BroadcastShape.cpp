//===- BroadcastShape.cpp -------------------------------------------------===//

#include "runtime/base/BroadcastShape.h"

namespace hetc::runtime {

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

Status mergeBroadcastDims(const Shape &out,
                          std::initializer_list<const Shape *> inputs,
                          BroadcastShape *shape) {
  if (inputs.size() > static_cast<size_t>(kMaxBroadcastInputs))
    return internalError("mergeBroadcastDims: too many inputs");
  shape->numInputs = static_cast<int>(inputs.size());
  std::vector<int64_t> full[kMaxBroadcastInputs];
  int n = 0;
  for (const Shape *in : inputs)
    HETC_RETURN_IF_ERROR(broadcastStrides(*in, out, &full[n++]));

  shape->dims.clear();
  for (std::vector<int64_t> &s : shape->strides)
    s.clear();
  for (size_t k = 0; k < out.size(); ++k) {
    if (out[k] == 1)
      continue;
    bool merge = !shape->dims.empty();
    for (int i = 0; merge && i < shape->numInputs; ++i)
      merge = shape->strides[i].back() == full[i][k] * out[k];
    if (merge) {
      shape->dims.back() *= out[k];
      for (int i = 0; i < shape->numInputs; ++i)
        shape->strides[i].back() = full[i][k];
      continue;
    }
    shape->dims.push_back(out[k]);
    for (int i = 0; i < shape->numInputs; ++i)
      shape->strides[i].push_back(full[i][k]);
  }
  if (shape->dims.empty()) { // a single element
    shape->dims.push_back(1);
    for (int i = 0; i < shape->numInputs; ++i)
      shape->strides[i].push_back(0);
  }
  return okStatus();
}

} // namespace hetc::runtime
