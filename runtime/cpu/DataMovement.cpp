//===- DataMovement.cpp ---------------------------------------------------===//
//
// transpose, slice and broadcast are one strided gather: each output
// dimension reads the input with some stride (0 for broadcast), starting at
// a base offset.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/DataMovement.h"

#include "runtime/base/Convert.h"
#include "runtime/base/DataMovementChecks.h"
#include "runtime/base/Half.h"
#include "runtime/base/SliceParams.h"

#include "runtime/cpu/internal/Dispatch.h"
#include "runtime/cpu/internal/Parallel.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace hetc::runtime::cpu {
namespace {

using internal::parallelFor;

// A StridedLayout with the row walk of the CPU kernels: rows of the last
// dimension, each starting at rowOffset(row).
struct StridedView : StridedLayout {
  explicit StridedView(StridedLayout layout)
      : StridedLayout(std::move(layout)) {}

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

} // namespace

Status transpose(const TensorView &x, const std::vector<int64_t> &perm,
                 const TensorView &y) {
  StridedLayout view;
  HETC_RETURN_IF_ERROR(planTranspose(x, perm, y, &view));
  stridedGather(x, StridedView(std::move(view)), y);
  return okStatus();
}

Status slice(const TensorView &x, const SliceParams &params,
             const TensorView &y) {
  StridedLayout view;
  HETC_RETURN_IF_ERROR(planSlice(x, params, y, &view));
  stridedGather(x, StridedView(std::move(view)), y);
  return okStatus();
}

Status sliceBackward(const TensorView &dy, const SliceParams &params,
                     const TensorView &dx, bool accumulate) {
  const char *name = "slice_backward";
  HETC_RETURN_IF_ERROR(checkDType(dy, DType::kF32, "dy"), name);
  HETC_RETURN_IF_ERROR(checkDType(dx, DType::kF32, "dx"), name);
  HETC_RETURN_IF_ERROR(checkData(dy, "dy"), name);
  HETC_RETURN_IF_ERROR(checkData(dx, "dx"), name);
  ResolvedSlice s;
  HETC_RETURN_IF_ERROR(resolveSlice(dx.shape, params, &s), name);
  HETC_RETURN_IF_ERROR(checkShape(dy, s.count, "dy"), name);
  float *d = dx.as<float>();
  const float *g = dy.as<float>();
  if (!accumulate)
    std::memset(d, 0, dx.byteSize());
  StridedView view(sliceLayout(dx.shape, s));
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
  int64_t a;
  HETC_RETURN_IF_ERROR(checkConcat(inputs, axis, out, &a));
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
  StridedLayout view;
  HETC_RETURN_IF_ERROR(planBroadcastTo(x, out, &view));
  stridedGather(x, StridedView(std::move(view)), out);
  return okStatus();
}

Status trilu(const TensorView &x, int64_t k, bool upper, const TensorView &y) {
  HETC_RETURN_IF_ERROR(checkTrilu(x, y));
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
  HETC_RETURN_IF_ERROR(
      checkRange(start, limit, delta, out, "f32, f64, i64 or i32"));
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
    T v = convertValue<T, double>(value);
    T *d = out.as<T>();
    parallelFor(n, 65536, [&](int64_t b, int64_t e) {
      std::fill(d + b, d + e, v);
    });
    return 0;
  });
  return okStatus();
}

Status copy(const TensorView &x, const TensorView &y) {
  HETC_RETURN_IF_ERROR(checkCopy(x, y));
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
