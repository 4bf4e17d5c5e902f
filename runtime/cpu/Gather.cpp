//===- Gather.cpp ---------------------------------------------------------===//
//
// data is viewed as [outer, dim, inner] around the axis and indices as a flat
// list of `count`; out is [outer, count, inner].
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Gather.h"

#include "runtime/cpu/internal/Parallel.h"

#include <cstring>

namespace hetc::runtime::cpu {
namespace {

using internal::parallelFor;

constexpr int64_t kColChunk = 64;

struct GatherLayout {
  int64_t outer = 1, dim = 0, inner = 1, count = 0;
  std::vector<int64_t> index; // normalized to [0, dim)
};

// Checks shapes and normalizes every index; `data` is the table (or its
// gradient) and `out` the gathered tensor (or its gradient).
Status prepare(const char *name, const TensorView &data,
               const TensorView &indices, int64_t axis, const TensorView &out,
               GatherLayout *layout) {
  HETC_RETURN_IF_ERROR(checkData(data, "data"), name);
  HETC_RETURN_IF_ERROR(checkData(indices, "indices"), name);
  HETC_RETURN_IF_ERROR(checkData(out, "out"), name);
  if (indices.dtype != DType::kI64 && indices.dtype != DType::kI32)
    return invalidArgument(name, ": indices must be i64 or i32, got ",
                           indices.describe());
  if (data.rank() == 0)
    return invalidArgument(name, ": data must have rank >= 1");
  int64_t a;
  HETC_RETURN_IF_ERROR(normalizeAxis(axis, data.rank(), &a), name);
  Shape expected(data.shape.begin(), data.shape.begin() + a);
  expected.insert(expected.end(), indices.shape.begin(), indices.shape.end());
  expected.insert(expected.end(), data.shape.begin() + a + 1, data.shape.end());
  if (out.shape != expected)
    return invalidArgument(name, ": gathering ", indices.describe(),
                           " along axis ", a, " of ", data.describe(),
                           " gives shape ", shapeToString(expected), ", not ",
                           shapeToString(out.shape));
  if (out.dtype != data.dtype)
    return invalidArgument(name, ": dtypes differ: ", data.describe(), " and ",
                           out.describe());
  layout->outer = numElements(Shape(data.shape.begin(), data.shape.begin() + a));
  layout->dim = data.shape[a];
  layout->inner = numElements(Shape(data.shape.begin() + a + 1, data.shape.end()));
  layout->count = indices.numel();
  layout->index.resize(layout->count);
  for (int64_t i = 0; i < layout->count; ++i) {
    int64_t v = indices.dtype == DType::kI64 ? indices.as<int64_t>()[i]
                                             : indices.as<int32_t>()[i];
    if (v < -layout->dim || v >= layout->dim)
      return outOfRange(name, ": index ", v, " at position ", i,
                        " is out of range for axis ", a, " of size ",
                        layout->dim);
    layout->index[i] = v < 0 ? v + layout->dim : v;
  }
  return okStatus();
}

} // namespace

Status gather(const TensorView &data, const TensorView &indices, int64_t axis,
              const TensorView &out) {
  GatherLayout l;
  HETC_RETURN_IF_ERROR(prepare("gather", data, indices, axis, out, &l));
  size_t rowBytes = static_cast<size_t>(l.inner) * dtypeSize(data.dtype);
  const char *src = static_cast<const char *>(data.data);
  char *dst = static_cast<char *>(out.data);
  int64_t grain = std::max<int64_t>(1, 65536 / std::max<size_t>(rowBytes, 1));
  parallelFor(l.outer * l.count, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      int64_t o = r / l.count, i = r % l.count;
      std::memcpy(dst + r * rowBytes,
                  src + (o * l.dim + l.index[i]) * rowBytes, rowBytes);
    }
  });
  return okStatus();
}

Status gatherBackward(const TensorView &dout, const TensorView &indices,
                      int64_t axis, const TensorView &ddata, bool accumulate) {
  const char *name = "gather_backward";
  HETC_RETURN_IF_ERROR(checkDType(ddata, DType::kF32, "ddata"), name);
  GatherLayout l;
  HETC_RETURN_IF_ERROR(prepare(name, ddata, indices, axis, dout, &l));
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
        float *dst = d + (o * l.dim + l.index[i]) * l.inner + c0;
        for (int64_t c = 0; c < cn; ++c)
          dst[c] += src[c];
      }
    }
  });
  return okStatus();
}

namespace {

// The same check gather makes, worded for token ids.
Status checkTokenIds(const char *name, const TensorView &table,
                     const TensorView &ids) {
  if (table.rank() != 2)
    return invalidArgument(name, ": table must be [V, E], got ",
                           table.describe());
  if (ids.dtype != DType::kI64 && ids.dtype != DType::kI32)
    return invalidArgument(name, ": ids must be i64 or i32, got ",
                           ids.describe());
  HETC_RETURN_IF_ERROR(checkData(ids, "ids"), name);
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
