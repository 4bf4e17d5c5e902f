//===- SliceParams.cpp ----------------------------------------------------===//

#include "runtime/base/SliceParams.h"

#include <algorithm>
#include <limits>

namespace hetc::runtime {

Status resolveSlice(const Shape &in, const SliceParams &p,
                    ResolvedSlice *slice) {
  size_t rank = in.size();
  size_t n = p.starts.size();
  if (p.ends.size() != n || (!p.axes.empty() && p.axes.size() != n) ||
      (!p.steps.empty() && p.steps.size() != n))
    return invalidArgument("starts, ends, axes and steps must have one entry "
                           "each per sliced axis, got ",
                           p.starts.size(), ", ", p.ends.size(), ", ",
                           p.axes.size(), ", ", p.steps.size());
  if (p.axes.empty() && n > rank)
    return invalidArgument(n, " slice bounds for rank ", rank);
  slice->start.assign(rank, 0);
  slice->step.assign(rank, 1);
  slice->count = in;
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < n; ++i) {
    int64_t axis = static_cast<int64_t>(i);
    if (!p.axes.empty())
      HETC_RETURN_IF_ERROR(normalizeAxis(p.axes[i], rank, &axis));
    if (seen[axis])
      return invalidArgument("axis ", axis, " is sliced twice");
    seen[axis] = true;
    int64_t d = in[axis];
    int64_t t = p.steps.empty() ? 1 : p.steps[i];
    if (t == 0)
      return invalidArgument("slice step of axis ", axis, " is 0");
    int64_t s = p.starts[i], e = p.ends[i];
    if (s < 0)
      s += d;
    if (e < 0)
      e += d;
    int64_t c;
    if (t > 0) {
      s = std::clamp<int64_t>(s, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
      c = e > s ? (e - s - 1) / t + 1 : 0; // no overflow for huge steps
    } else {
      s = std::clamp<int64_t>(s, 0, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
      if (s <= e)
        c = 0;
      else
        c = t == std::numeric_limits<int64_t>::min() ? 1
                                                     : (s - e - 1) / -t + 1;
    }
    slice->start[axis] = s;
    slice->step[axis] = t;
    slice->count[axis] = c;
  }
  return okStatus();
}

Status sliceShape(const Shape &input, const SliceParams &params, Shape *out) {
  ResolvedSlice slice;
  HETC_RETURN_IF_ERROR(resolveSlice(input, params, &slice));
  *out = slice.count;
  return okStatus();
}

StridedLayout sliceLayout(const Shape &in, const ResolvedSlice &slice) {
  StridedLayout view;
  view.dims = slice.count;
  std::vector<int64_t> s = contiguousStrides(in);
  view.strides.resize(in.size());
  for (size_t k = 0; k < in.size(); ++k) {
    view.base += slice.start[k] * s[k];
    // A dimension read once needs no stride (and a huge step could overflow).
    view.strides[k] = slice.count[k] > 1 ? slice.step[k] * s[k] : 0;
  }
  return view;
}

} // namespace hetc::runtime
