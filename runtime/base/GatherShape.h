//===- GatherShape.h - shape checks of gather, scatter, embedding *- C++ -*-===//
//
// Gather: data is viewed as [outer, dim, inner] around the axis and indices
// as a flat list of `count`; out is [outer, count, inner]. Index values are
// the backends' to check (the GPU's stay on the device).
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_BASE_GATHERSHAPE_H
#define HETC_RUNTIME_BASE_GATHERSHAPE_H

#include "runtime/base/Tensor.h"

namespace hetc::runtime {

struct GatherLayout {
  int64_t axis = 0; // normalized
  int64_t outer = 1, dim = 0, inner = 1, count = 0;
};

/// Checks data, indices (i64 or i32) and out's dtype and shape; `data` is
/// the table (or its gradient) and `out` the gathered tensor (or its
/// gradient).
Status planGather(const char *name, const TensorView &data,
                  const TensorView &indices, int64_t axis,
                  const TensorView &out, GatherLayout *layout);

/// ScatterND: indices [..., depth] address the first `depth` dimensions of
/// data; each of the `tuples` index tuples writes `slice` elements.
struct ScatterNDLayout {
  int64_t depth = 0, tuples = 0, slice = 1;
  Shape dims; // data's first `depth` dimensions
};

/// Checks data, indices (i64 or i32), updates (indices[:-1] + data[depth:])
/// and out (data's dtype and shape).
Status planScatterND(const char *name, const TensorView &data,
                     const TensorView &indices, const TensorView &updates,
                     const TensorView &out, ScatterNDLayout *layout);

/// Checks the table is [V, E] and the ids are i64 or i32 with data: gather's
/// checks worded for token ids.
Status checkTokenIdsShape(const char *name, const TensorView &table,
                          const TensorView &ids);

} // namespace hetc::runtime

#endif // HETC_RUNTIME_BASE_GATHERSHAPE_H
