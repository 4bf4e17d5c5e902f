//===- NormShape.cpp ------------------------------------------------------===//

#include "runtime/base/NormShape.h"

namespace hetc::runtime {

Status splitNormRows(const TensorView &x, int64_t axis, int64_t *rows,
                     int64_t *cols, Shape *paramShape) {
  if (x.rank() == 0)
    return invalidArgument("x must have rank >= 1");
  int64_t a;
  HETC_RETURN_IF_ERROR(normalizeAxis(axis, x.rank(), &a));
  *paramShape = Shape(x.shape.begin() + a, x.shape.end());
  *cols = numElements(*paramShape);
  *rows = numElements(Shape(x.shape.begin(), x.shape.begin() + a));
  if (*cols == 0)
    return invalidArgument("the normalized dimensions of x ", x.describe(),
                           " are empty");
  return okStatus();
}

Status checkRowStat(const TensorView *t, int64_t rows, const char *what) {
  if (!t)
    return okStatus();
  HETC_RETURN_IF_ERROR(checkDType(*t, DType::kF32, what));
  HETC_RETURN_IF_ERROR(checkData(*t, what));
  if (t->numel() != rows)
    return invalidArgument(what, " must have ", rows, " elements (one per ",
                           "normalized row), got ", t->describe());
  return okStatus();
}

} // namespace hetc::runtime
