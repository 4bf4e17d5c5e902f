//===- Tensor.cpp ---------------------------------------------------------===//

#include "runtime/base/Tensor.h"

#include <algorithm>

namespace hetc::runtime {

size_t dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::kF32:
    return 4;
  case DType::kF64:
    return 8;
  case DType::kI64:
    return 8;
  case DType::kI32:
    return 4;
  case DType::kBool:
    return 1;
  case DType::kBF16:
  case DType::kF16:
    return 2;
  }
  return 0;
}

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::kF32:
    return "f32";
  case DType::kF64:
    return "f64";
  case DType::kI64:
    return "i64";
  case DType::kI32:
    return "i32";
  case DType::kBool:
    return "bool";
  case DType::kBF16:
    return "bf16";
  case DType::kF16:
    return "f16";
  }
  return "?";
}

bool isFloatDType(DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kF64 ||
         dtype == DType::kBF16 || dtype == DType::kF16;
}

int64_t numElements(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string shapeToString(const Shape &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string TensorView::describe() const {
  return std::string(dtypeName(dtype)) + shapeToString(shape);
}

Status checkDType(const TensorView &t, DType expected, const char *what) {
  if (t.dtype != expected)
    return invalidArgument(what, " must be ", dtypeName(expected), ", got ",
                           t.describe());
  return okStatus();
}

Status checkShape(const TensorView &t, const Shape &expected,
                  const char *what) {
  if (t.shape != expected)
    return invalidArgument(what, " must have shape ", shapeToString(expected),
                           ", got ", shapeToString(t.shape));
  return okStatus();
}

Status checkData(const TensorView &t, const char *what) {
  for (int64_t d : t.shape)
    if (d < 0)
      return invalidArgument(what, " has a negative dimension: ",
                             shapeToString(t.shape));
  if (t.data == nullptr && t.numel() > 0)
    return invalidArgument(what, " has no data");
  return okStatus();
}

Status normalizeAxis(int64_t axis, int64_t rank, int64_t *normalized) {
  if (axis < -rank || axis >= rank)
    return invalidArgument("axis ", axis, " is out of range for rank ", rank);
  *normalized = axis < 0 ? axis + rank : axis;
  return okStatus();
}

Status broadcastShapes(const Shape &a, const Shape &b, Shape *result) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return invalidArgument("shapes ", shapeToString(a), " and ",
                             shapeToString(b), " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  *result = std::move(out);
  return okStatus();
}

} // namespace hetc::runtime
