//===- GatherShape.cpp ----------------------------------------------------===//

#include "runtime/base/GatherShape.h"

namespace hetc::runtime {

Status planGather(const char *name, const TensorView &data,
                  const TensorView &indices, int64_t axis,
                  const TensorView &out, GatherLayout *layout) {
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
  layout->axis = a;
  layout->outer =
      numElements(Shape(data.shape.begin(), data.shape.begin() + a));
  layout->dim = data.shape[a];
  layout->inner =
      numElements(Shape(data.shape.begin() + a + 1, data.shape.end()));
  layout->count = indices.numel();
  return okStatus();
}

Status planScatterND(const char *name, const TensorView &data,
                     const TensorView &indices, const TensorView &updates,
                     const TensorView &out, ScatterNDLayout *layout) {
  HETC_RETURN_IF_ERROR(checkData(data, "data"), name);
  HETC_RETURN_IF_ERROR(checkData(indices, "indices"), name);
  HETC_RETURN_IF_ERROR(checkData(updates, "updates"), name);
  HETC_RETURN_IF_ERROR(checkData(out, "out"), name);
  if (indices.dtype != DType::kI64 && indices.dtype != DType::kI32)
    return invalidArgument(name, ": indices must be i64 or i32, got ",
                           indices.describe());
  if (indices.rank() == 0 || indices.shape.back() > data.rank())
    return invalidArgument(name, ": indices ", indices.describe(),
                           " must end in a dimension of at most the rank of ",
                           data.describe());
  int64_t depth = indices.shape.back();
  Shape expected(indices.shape.begin(), indices.shape.end() - 1);
  expected.insert(expected.end(), data.shape.begin() + depth, data.shape.end());
  if (updates.shape != expected || updates.dtype != data.dtype)
    return invalidArgument(name, ": updates must be ", dtypeName(data.dtype),
                           " ", shapeToString(expected), ", got ",
                           updates.describe());
  if (out.shape != data.shape || out.dtype != data.dtype)
    return invalidArgument(name, ": out must be like data ", data.describe(),
                           ", got ", out.describe());
  layout->depth = depth;
  layout->dims.assign(data.shape.begin(), data.shape.begin() + depth);
  layout->tuples =
      numElements(Shape(indices.shape.begin(), indices.shape.end() - 1));
  layout->slice =
      numElements(Shape(data.shape.begin() + depth, data.shape.end()));
  return okStatus();
}

Status checkTokenIdsShape(const char *name, const TensorView &table,
                          const TensorView &ids) {
  if (table.rank() != 2)
    return invalidArgument(name, ": table must be [V, E], got ",
                           table.describe());
  if (ids.dtype != DType::kI64 && ids.dtype != DType::kI32)
    return invalidArgument(name, ": ids must be i64 or i32, got ",
                           ids.describe());
  HETC_RETURN_IF_ERROR(checkData(ids, "ids"), name);
  return okStatus();
}

} // namespace hetc::runtime
