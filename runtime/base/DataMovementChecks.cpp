//===- DataMovementChecks.cpp ---------------------------------------------===//

#include "runtime/base/DataMovementChecks.h"

#include "runtime/base/BroadcastShape.h"
#include "runtime/base/SliceParams.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace hetc::runtime {

Status checkSameDType(const char *name, const TensorView &x,
                      const TensorView &y) {
  HETC_RETURN_IF_ERROR(checkData(x, "x"), name);
  HETC_RETURN_IF_ERROR(checkData(y, "y"), name);
  if (x.dtype != y.dtype)
    return invalidArgument(name, ": y must have x's dtype ",
                           dtypeName(x.dtype), ", got ", y.describe());
  return okStatus();
}

Status planTranspose(const TensorView &x, const std::vector<int64_t> &perm,
                     const TensorView &y, StridedLayout *view) {
  HETC_RETURN_IF_ERROR(checkSameDType("transpose", x, y));
  if (perm.size() != x.shape.size())
    return invalidArgument("transpose: permutation has ", perm.size(),
                           " entries for ", x.describe());
  std::vector<bool> seen(perm.size(), false);
  Shape expected(perm.size());
  std::vector<int64_t> xs = contiguousStrides(x.shape);
  *view = StridedLayout();
  view->strides.resize(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    int64_t p = perm[i];
    if (p < 0 || p >= x.rank() || seen[p])
      return invalidArgument("transpose: [", [&] {
        std::string s;
        for (size_t j = 0; j < perm.size(); ++j)
          s += (j ? "," : "") + std::to_string(perm[j]);
        return s;
      }(), "] is not a permutation of rank ", x.rank());
    seen[p] = true;
    expected[i] = x.shape[p];
    view->strides[i] = xs[p];
  }
  HETC_RETURN_IF_ERROR(checkShape(y, expected, "y"), "transpose");
  view->dims = expected;
  return okStatus();
}

Status planSlice(const TensorView &x, const SliceParams &params,
                 const TensorView &y, StridedLayout *view) {
  HETC_RETURN_IF_ERROR(checkSameDType("slice", x, y));
  ResolvedSlice s;
  HETC_RETURN_IF_ERROR(resolveSlice(x.shape, params, &s), "slice");
  HETC_RETURN_IF_ERROR(checkShape(y, s.count, "y"), "slice");
  *view = sliceLayout(x.shape, s);
  return okStatus();
}

Status planBroadcastTo(const TensorView &x, const TensorView &out,
                       StridedLayout *view) {
  HETC_RETURN_IF_ERROR(checkSameDType("broadcast", x, out));
  *view = StridedLayout();
  view->dims = out.shape;
  HETC_RETURN_IF_ERROR(broadcastStrides(x.shape, out.shape, &view->strides),
                       "broadcast");
  return okStatus();
}

Status checkConcat(const std::vector<TensorView> &inputs, int64_t axis,
                   const TensorView &out, int64_t *normalizedAxis) {
  HETC_RETURN_IF_ERROR(checkData(out, "out"), "concat");
  if (inputs.empty())
    return invalidArgument("concat: no inputs");
  if (out.rank() == 0)
    return invalidArgument("concat: out must have rank >= 1");
  int64_t a;
  HETC_RETURN_IF_ERROR(normalizeAxis(axis, out.rank(), &a), "concat");
  int64_t total = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorView &in = inputs[i];
    HETC_RETURN_IF_ERROR(checkData(in, "input"), "concat");
    bool ok = in.dtype == out.dtype && in.rank() == out.rank();
    for (int64_t k = 0; ok && k < out.rank(); ++k)
      ok = k == a || in.shape[k] == out.shape[k];
    if (!ok)
      return invalidArgument("concat: input ", i, " ", in.describe(),
                             " does not fit ", out.describe(), " along axis ",
                             a);
    total += in.shape[a];
  }
  if (total != out.shape[a])
    return invalidArgument("concat: inputs add up to ", total,
                           " along axis ", a, ", out has ", out.shape[a]);
  *normalizedAxis = a;
  return okStatus();
}

Status checkTrilu(const TensorView &x, const TensorView &y) {
  HETC_RETURN_IF_ERROR(checkSameDType("trilu", x, y));
  if (x.rank() < 2)
    return invalidArgument("trilu: x must have rank >= 2, got ",
                           x.describe());
  HETC_RETURN_IF_ERROR(checkShape(y, x.shape, "y"), "trilu");
  return okStatus();
}

Status checkCopy(const TensorView &x, const TensorView &y) {
  HETC_RETURN_IF_ERROR(checkSameDType("copy", x, y));
  if (x.numel() != y.numel())
    return invalidArgument("copy: element counts differ: ", x.describe(),
                           " and ", y.describe());
  return okStatus();
}

Status checkRange(double start, double limit, double delta,
                  const TensorView &out, const char *dtypes) {
  HETC_RETURN_IF_ERROR(checkData(out, "out"), "range");
  if (out.rank() != 1)
    return invalidArgument("range: out must have rank 1, got ",
                           out.describe());
  if (out.dtype == DType::kBool)
    return invalidArgument("range: out must be ", dtypes, ", got ",
                           out.describe());
  if (delta == 0.0 || !std::isfinite(delta) || !std::isfinite(start) ||
      !std::isfinite(limit))
    return invalidArgument("range: start, limit and delta must be finite and "
                           "delta non-zero, got ",
                           start, ", ", limit, ", ", delta);
  bool integral = out.dtype == DType::kI64 || out.dtype == DType::kI32;
  if (integral && (std::trunc(start) != start || std::trunc(limit) != limit ||
                   std::trunc(delta) != delta))
    return invalidArgument("range: start, limit and delta must be integers "
                           "for ",
                           out.describe(), ", got ", start, ", ", limit, ", ",
                           delta);
  double n = std::max(0.0, std::ceil((limit - start) / delta));
  if (n != static_cast<double>(out.shape[0]))
    return invalidArgument("range: [", start, ", ", limit, ") by ", delta,
                           " has ", static_cast<int64_t>(n),
                           " elements, out has ", out.shape[0]);
  return okStatus();
}

} // namespace hetc::runtime
