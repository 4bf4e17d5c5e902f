//===- DataMovement.cpp ---------------------------------------------------===//
//
// transpose, slice and broadcast are one strided gather: each output
// dimension reads the input with some stride (0 for broadcast), starting at
// a base offset.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/DataMovement.h"

#include "runtime/base/Half.h"

#include "runtime/cpu/internal/Broadcast.h"
#include "runtime/cpu/internal/Convert.h"
#include "runtime/cpu/internal/Dispatch.h"
#include "runtime/cpu/internal/Parallel.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace hetc::runtime::cpu {
namespace {

using internal::parallelFor;

// An output of shape `dims` whose element at index (i0, i1, ...) lives at
// base + sum(ik * strides[k]) in the source.
struct StridedView {
  Shape dims;
  std::vector<int64_t> strides;
  int64_t base = 0;

  int64_t cols() const { return dims.empty() ? 1 : dims.back(); }
  int64_t colStride() const { return strides.empty() ? 0 : strides.back(); }
  int64_t rows() const {
    int64_t n = 1;
    for (size_t k = 0; k + 1 < dims.size(); ++k)
      n *= dims[k];
    return dims.empty() ? 1 : n;
  }
  int64_t rowOffset(int64_t row) const {
    int64_t off = base;
    for (size_t k = dims.size() - 1; dims.size() > 1 && k-- > 0;) {
      off += (row % dims[k]) * strides[k];
      row /= dims[k];
    }
    return off;
  }
};

std::vector<int64_t> contiguousStrides(const Shape &shape) {
  std::vector<int64_t> s(shape.size());
  int64_t stride = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    s[k] = stride;
    stride *= shape[k];
  }
  return s;
}

// dst (contiguous, view.dims) = src read through `view`.
void stridedGather(const TensorView &src, const StridedView &view,
                   const TensorView &dst) {
  internal::visitWidth(src.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *s = src.as<T>();
    T *d = dst.as<T>();
    int64_t cols = view.cols(), cs = view.colStride();
    int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(cols, 1));
    parallelFor(view.rows(), grain, [&](int64_t b, int64_t e) {
      for (int64_t row = b; row < e; ++row) {
        const T *in = s + view.rowOffset(row);
        T *out = d + row * cols;
        if (cs == 1)
          std::memcpy(out, in, sizeof(T) * cols);
        else
          for (int64_t c = 0; c < cols; ++c)
            out[c] = in[c * cs];
      }
    });
    return 0;
  });
}

Status checkSameDType(const char *name, const TensorView &x,
                      const TensorView &y) {
  HETC_RETURN_IF_ERROR(checkData(x, "x"), name);
  HETC_RETURN_IF_ERROR(checkData(y, "y"), name);
  if (x.dtype != y.dtype)
    return invalidArgument(name, ": y must have x's dtype ",
                           dtypeName(x.dtype), ", got ", y.describe());
  return okStatus();
}

// Start, step and count of every dimension of a slice.
Status resolveSlice(const Shape &in, const SliceParams &p,
                    std::vector<int64_t> *start, std::vector<int64_t> *step,
                    Shape *count) {
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
  start->assign(rank, 0);
  step->assign(rank, 1);
  *count = in;
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
        c = t == std::numeric_limits<int64_t>::min() ? 1 : (s - e - 1) / -t + 1;
    }
    (*start)[axis] = s;
    (*step)[axis] = t;
    (*count)[axis] = c;
  }
  return okStatus();
}

StridedView sliceView(const Shape &in, const std::vector<int64_t> &start,
                      const std::vector<int64_t> &step, const Shape &count) {
  StridedView view;
  view.dims = count;
  std::vector<int64_t> s = contiguousStrides(in);
  view.strides.resize(in.size());
  for (size_t k = 0; k < in.size(); ++k) {
    view.base += start[k] * s[k];
    // A dimension read once needs no stride (and a huge step could overflow).
    view.strides[k] = count[k] > 1 ? step[k] * s[k] : 0;
  }
  return view;
}

} // namespace

Status transpose(const TensorView &x, const std::vector<int64_t> &perm,
                 const TensorView &y) {
  HETC_RETURN_IF_ERROR(checkSameDType("transpose", x, y));
  if (perm.size() != x.shape.size())
    return invalidArgument("transpose: permutation has ", perm.size(),
                           " entries for ", x.describe());
  std::vector<bool> seen(perm.size(), false);
  Shape expected(perm.size());
  std::vector<int64_t> xs = contiguousStrides(x.shape);
  StridedView view;
  view.strides.resize(perm.size());
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
    view.strides[i] = xs[p];
  }
  HETC_RETURN_IF_ERROR(checkShape(y, expected, "y"), "transpose");
  view.dims = expected;
  stridedGather(x, view, y);
  return okStatus();
}

Status sliceShape(const Shape &input, const SliceParams &params, Shape *out) {
  std::vector<int64_t> start, step;
  return resolveSlice(input, params, &start, &step, out);
}

Status slice(const TensorView &x, const SliceParams &params,
             const TensorView &y) {
  HETC_RETURN_IF_ERROR(checkSameDType("slice", x, y));
  std::vector<int64_t> start, step;
  Shape count;
  HETC_RETURN_IF_ERROR(resolveSlice(x.shape, params, &start, &step, &count),
                       "slice");
  HETC_RETURN_IF_ERROR(checkShape(y, count, "y"), "slice");
  stridedGather(x, sliceView(x.shape, start, step, count), y);
  return okStatus();
}

Status sliceBackward(const TensorView &dy, const SliceParams &params,
                     const TensorView &dx, bool accumulate) {
  const char *name = "slice_backward";
  HETC_RETURN_IF_ERROR(checkDType(dy, DType::kF32, "dy"), name);
  HETC_RETURN_IF_ERROR(checkDType(dx, DType::kF32, "dx"), name);
  HETC_RETURN_IF_ERROR(checkData(dy, "dy"), name);
  HETC_RETURN_IF_ERROR(checkData(dx, "dx"), name);
  std::vector<int64_t> start, step;
  Shape count;
  HETC_RETURN_IF_ERROR(resolveSlice(dx.shape, params, &start, &step, &count),
                       name);
  HETC_RETURN_IF_ERROR(checkShape(dy, count, "dy"), name);
  float *d = dx.as<float>();
  const float *g = dy.as<float>();
  if (!accumulate)
    std::memset(d, 0, dx.byteSize());
  StridedView view = sliceView(dx.shape, start, step, count);
  int64_t cols = view.cols(), cs = view.colStride();
  // Distinct output elements map to distinct positions (steps are
  // non-zero), so rows write disjoint elements.
  parallelFor(view.rows(), std::max<int64_t>(1, 16384 / std::max<int64_t>(cols, 1)),
              [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      float *out = d + view.rowOffset(row);
      const float *in = g + row * cols;
      for (int64_t c = 0; c < cols; ++c)
        out[c * cs] += in[c];
    }
  });
  return okStatus();
}

Status concat(const std::vector<TensorView> &inputs, int64_t axis,
              const TensorView &out) {
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
  int64_t outer = numElements(Shape(out.shape.begin(), out.shape.begin() + a));
  int64_t inner = numElements(Shape(out.shape.begin() + a + 1, out.shape.end()));
  size_t elem = dtypeSize(out.dtype);
  char *dst = static_cast<char *>(out.data);
  int64_t offset = 0;
  for (const TensorView &in : inputs) {
    size_t bytes = static_cast<size_t>(in.shape[a] * inner) * elem;
    const char *src = static_cast<const char *>(in.data);
    size_t outRow = static_cast<size_t>(out.shape[a] * inner) * elem;
    size_t at = static_cast<size_t>(offset * inner) * elem;
    parallelFor(outer, std::max<int64_t>(1, 65536 / std::max<size_t>(bytes, 1)),
                [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o)
        std::memcpy(dst + o * outRow + at, src + o * bytes, bytes);
    });
    offset += in.shape[a];
  }
  return okStatus();
}

Status broadcastTo(const TensorView &x, const TensorView &out) {
  HETC_RETURN_IF_ERROR(checkSameDType("broadcast", x, out));
  StridedView view;
  view.dims = out.shape;
  HETC_RETURN_IF_ERROR(
      internal::broadcastStrides(x.shape, out.shape, &view.strides),
      "broadcast");
  stridedGather(x, view, out);
  return okStatus();
}

Status trilu(const TensorView &x, int64_t k, bool upper, const TensorView &y) {
  HETC_RETURN_IF_ERROR(checkSameDType("trilu", x, y));
  if (x.rank() < 2)
    return invalidArgument("trilu: x must have rank >= 2, got ",
                           x.describe());
  HETC_RETURN_IF_ERROR(checkShape(y, x.shape, "y"), "trilu");
  int64_t rows = x.shape[x.rank() - 2], cols = x.shape.back();
  int64_t matrices = x.numel() / std::max<int64_t>(rows * cols, 1);
  internal::visitWidth(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *s = x.as<T>();
    T *d = y.as<T>();
    parallelFor(matrices * rows, std::max<int64_t>(1, 8192 / std::max<int64_t>(cols, 1)),
                [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        int64_t i = r % rows;
        for (int64_t j = 0; j < cols; ++j) {
          bool keep = upper ? j - i >= k : j - i <= k;
          d[r * cols + j] = keep ? s[r * cols + j] : T(0);
        }
      }
    });
    return 0;
  });
  return okStatus();
}

Status range(double start, double limit, double delta, const TensorView &out) {
  HETC_RETURN_IF_ERROR(checkData(out, "out"), "range");
  if (out.rank() != 1)
    return invalidArgument("range: out must have rank 1, got ",
                           out.describe());
  if (out.dtype == DType::kBool)
    return invalidArgument("range: out must be f32, f64, i64 or i32, got ",
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
  int64_t count = out.shape[0];
  internal::visitDType(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    T *d = out.as<T>();
    for (int64_t i = 0; i < count; ++i) {
      if constexpr (std::is_integral_v<T>)
        d[i] = static_cast<T>(static_cast<int64_t>(start) +
                              i * static_cast<int64_t>(delta));
      else
        d[i] = static_cast<T>(start + static_cast<double>(i) * delta);
    }
    return 0;
  });
  return okStatus();
}

Status fill(const TensorView &out, double value) {
  HETC_RETURN_IF_ERROR(checkData(out, "out"), "fill");
  int64_t n = out.numel();
  internal::visitDType(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    T v = internal::convertValue<T, double>(value);
    T *d = out.as<T>();
    parallelFor(n, 65536, [&](int64_t b, int64_t e) {
      std::fill(d + b, d + e, v);
    });
    return 0;
  });
  return okStatus();
}

Status copy(const TensorView &x, const TensorView &y) {
  HETC_RETURN_IF_ERROR(checkSameDType("copy", x, y));
  if (x.numel() != y.numel())
    return invalidArgument("copy: element counts differ: ", x.describe(),
                           " and ", y.describe());
  if (x.numel() > 0 && x.data != y.data)
    std::memcpy(y.data, x.data, x.byteSize());
  return okStatus();
}

Status readScalar(const TensorView &t, const char *what, double *value) {
  if (t.numel() != 1)
    return invalidArgument(what, " must hold one element, got ", t.describe());
  switch (t.dtype) {
  case DType::kF32:
    *value = *t.as<float>();
    break;
  case DType::kF64:
    *value = *t.as<double>();
    break;
  case DType::kI64:
    *value = static_cast<double>(*t.as<int64_t>());
    break;
  case DType::kI32:
    *value = *t.as<int32_t>();
    break;
  case DType::kBool:
    *value = *t.as<uint8_t>() ? 1.0 : 0.0;
    break;
  case DType::kBF16:
    *value = bf16ToFloat(*t.as<uint16_t>());
    break;
  case DType::kF16:
    *value = f16ToFloat(*t.as<uint16_t>());
    break;
  }
  return okStatus();
}

} // namespace hetc::runtime::cpu
