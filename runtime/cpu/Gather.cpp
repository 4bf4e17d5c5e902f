//===- Gather.cpp ---------------------------------------------------------===//
//
// data is viewed as [outer, dim, inner] around the axis and indices as a flat
// list of `count`; out is [outer, count, inner].
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Gather.h"

#include "runtime/base/GatherShape.h"
#include "runtime/cpu/internal/Parallel.h"

#include <algorithm>
#include <cstring>

namespace hetc::runtime::cpu {
namespace {

using internal::parallelFor;

constexpr int64_t kColChunk = 64;

// The layout with every index normalized to [0, dim).
struct GatherIndex {
  GatherLayout layout;
  std::vector<int64_t> index;
};

// Checks shapes (GatherShape.h) and every index value.
Status prepare(const char *name, const TensorView &data,
               const TensorView &indices, int64_t axis, const TensorView &out,
               GatherIndex *gi) {
  HETC_RETURN_IF_ERROR(planGather(name, data, indices, axis, out, &gi->layout));
  const GatherLayout &l = gi->layout;
  gi->index.resize(l.count);
  for (int64_t i = 0; i < l.count; ++i) {
    int64_t v = indices.dtype == DType::kI64 ? indices.as<int64_t>()[i]
                                             : indices.as<int32_t>()[i];
    if (v < -l.dim || v >= l.dim)
      return outOfRange(name, ": index ", v, " at position ", i,
                        " is out of range for axis ", l.axis, " of size ",
                        l.dim);
    gi->index[i] = v < 0 ? v + l.dim : v;
  }
  return okStatus();
}

} // namespace

Status gather(const TensorView &data, const TensorView &indices, int64_t axis,
              const TensorView &out) {
  GatherIndex gi;
  HETC_RETURN_IF_ERROR(prepare("gather", data, indices, axis, out, &gi));
  const GatherLayout &l = gi.layout;
  size_t rowBytes = static_cast<size_t>(l.inner) * dtypeSize(data.dtype);
  const char *src = static_cast<const char *>(data.data);
  char *dst = static_cast<char *>(out.data);
  int64_t grain = std::max<int64_t>(1, 65536 / std::max<size_t>(rowBytes, 1));
  parallelFor(l.outer * l.count, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      int64_t o = r / l.count, i = r % l.count;
      std::memcpy(dst + r * rowBytes,
                  src + (o * l.dim + gi.index[i]) * rowBytes, rowBytes);
    }
  });
  return okStatus();
}

Status gatherBackward(const TensorView &dout, const TensorView &indices,
                      int64_t axis, const TensorView &ddata, bool accumulate) {
  const char *name = "gather_backward";
  HETC_RETURN_IF_ERROR(checkDType(ddata, DType::kF32, "ddata"), name);
  GatherIndex gi;
  HETC_RETURN_IF_ERROR(prepare(name, ddata, indices, axis, dout, &gi));
  const GatherLayout &l = gi.layout;
  const float *g = dout.as<float>();
  float *d = ddata.as<float>();
  if (!accumulate)
    std::memset(d, 0, ddata.byteSize());
  // Work items are (outer, column chunk); each adds the gathered rows in
  // index order, so repeated indices sum in a fixed order.
  int64_t chunks = (l.inner + kColChunk - 1) / kColChunk;
  int64_t grain = std::max<int64_t>(1, 1024 / std::max<int64_t>(l.count, 1));
  parallelFor(l.outer * chunks, grain, [&](int64_t b, int64_t e) {
    for (int64_t w = b; w < e; ++w) {
      int64_t o = w / chunks;
      int64_t c0 = (w % chunks) * kColChunk;
      int64_t cn = std::min(kColChunk, l.inner - c0);
      for (int64_t i = 0; i < l.count; ++i) {
        const float *src = g + (o * l.count + i) * l.inner + c0;
        float *dst = d + (o * l.dim + gi.index[i]) * l.inner + c0;
        for (int64_t c = 0; c < cn; ++c)
          dst[c] += src[c];
      }
    }
  });
  return okStatus();
}

namespace {

template <typename T> T combine(ScatterReduction reduction, T target, T update) {
  switch (reduction) {
  case ScatterReduction::kNone: return update;
  case ScatterReduction::kAdd: return target + update;
  case ScatterReduction::kMul: return target * update;
  case ScatterReduction::kMax: return std::max(target, update);
  case ScatterReduction::kMin: return std::min(target, update);
  }
  return update;
}

// Each slice element takes its updates in index order; elements are
// independent, so they run in parallel.
template <typename T>
void scatterCombine(const TensorView &updates, ScatterReduction reduction,
                    const std::vector<int64_t> &offsets, int64_t slice,
                    const TensorView &out) {
  const T *u = updates.as<T>();
  T *o = out.as<T>();
  parallelFor(slice, 4096, [&](int64_t b, int64_t e) {
    for (size_t t = 0; t < offsets.size(); ++t)
      for (int64_t k = b; k < e; ++k)
        o[offsets[t] + k] = combine(reduction, o[offsets[t] + k],
                                    u[static_cast<int64_t>(t) * slice + k]);
  });
}

} // namespace

Status scatterND(const TensorView &data, const TensorView &indices,
                 const TensorView &updates, ScatterReduction reduction,
                 const TensorView &out) {
  const char *name = "scatter_nd";
  ScatterNDLayout l;
  HETC_RETURN_IF_ERROR(
      planScatterND(name, data, indices, updates, out, &l));
  // Element offsets of each tuple's slice in out.
  std::vector<int64_t> offsets(static_cast<size_t>(l.tuples));
  for (int64_t t = 0; t < l.tuples; ++t) {
    int64_t offset = 0;
    for (int64_t j = 0; j < l.depth; ++j) {
      int64_t i = t * l.depth + j;
      int64_t v = indices.dtype == DType::kI64 ? indices.as<int64_t>()[i]
                                               : indices.as<int32_t>()[i];
      if (v < -l.dims[j] || v >= l.dims[j])
        return outOfRange(name, ": index ", v, " of tuple ", t,
                          " is out of range for dimension ", j, " of size ",
                          l.dims[j]);
      offset = offset * l.dims[j] + (v < 0 ? v + l.dims[j] : v);
    }
    offsets[t] = offset * l.slice;
  }
  if (out.data != data.data)
    std::memcpy(out.data, data.data, data.byteSize());
  if (reduction == ScatterReduction::kNone) {
    size_t bytes = static_cast<size_t>(l.slice) * dtypeSize(data.dtype);
    char *o = static_cast<char *>(out.data);
    const char *u = static_cast<const char *>(updates.data);
    for (int64_t t = 0; t < l.tuples; ++t)
      std::memcpy(o + offsets[t] * dtypeSize(data.dtype), u + t * bytes, bytes);
    return okStatus();
  }
  switch (data.dtype) {
  case DType::kF32:
    scatterCombine<float>(updates, reduction, offsets, l.slice, out);
    return okStatus();
  case DType::kF64:
    scatterCombine<double>(updates, reduction, offsets, l.slice, out);
    return okStatus();
  case DType::kI64:
    scatterCombine<int64_t>(updates, reduction, offsets, l.slice, out);
    return okStatus();
  case DType::kI32:
    scatterCombine<int32_t>(updates, reduction, offsets, l.slice, out);
    return okStatus();
  default:
    return invalidArgument(name, ": a reduction needs f32, f64, i64 or i32 "
                                 "data, got ",
                           data.describe());
  }
}

namespace {

// The same check gather makes, worded for token ids.
Status checkTokenIds(const char *name, const TensorView &table,
                     const TensorView &ids) {
  HETC_RETURN_IF_ERROR(checkTokenIdsShape(name, table, ids));
  int64_t vocab = table.shape[0];
  for (int64_t i = 0, n = ids.numel(); i < n; ++i) {
    int64_t v = ids.dtype == DType::kI64 ? ids.as<int64_t>()[i]
                                         : ids.as<int32_t>()[i];
    if (v < -vocab || v >= vocab)
      return outOfRange(name, ": token id ", v, " at position ", i,
                        " is out of range for a vocabulary of ", vocab);
  }
  return okStatus();
}

} // namespace

Status embedding(const TensorView &table, const TensorView &ids,
                 const TensorView &out) {
  HETC_RETURN_IF_ERROR(checkTokenIds("embedding", table, ids));
  return gather(table, ids, 0, out);
}

Status embeddingBackward(const TensorView &dout, const TensorView &ids,
                         const TensorView &dtable, bool accumulate) {
  HETC_RETURN_IF_ERROR(checkTokenIds("embedding_backward", dtable, ids));
  return gatherBackward(dout, ids, 0, dtable, accumulate);
}

} // namespace hetc::runtime::cpu
