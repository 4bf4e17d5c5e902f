//===- CrossEntropyShape.cpp ----------------------------------------------===//

#include "runtime/base/CrossEntropyShape.h"

namespace hetc::runtime {

Status planCrossEntropyRows(const char *name, const TensorView &logits,
                            const TensorView &labels,
                            CrossEntropyLayout *layout) {
  HETC_RETURN_IF_ERROR(checkData(labels, "labels"), name);
  if (labels.dtype != DType::kI64 && labels.dtype != DType::kI32)
    return invalidArgument(name, ": labels must be i64 or i32, got ",
                           labels.describe());
  if (logits.rank() < 2)
    return invalidArgument(name, ": logits must be [N, C, d...], got ",
                           logits.describe());
  Shape expected = logits.shape;
  expected.erase(expected.begin() + 1);
  HETC_RETURN_IF_ERROR(checkShape(labels, expected, "labels"), name);
  layout->n = logits.shape[0];
  layout->classes = logits.shape[1];
  layout->inner =
      numElements(Shape(logits.shape.begin() + 2, logits.shape.end()));
  if (layout->classes == 0 && layout->rows() > 0)
    return invalidArgument(name,
                           ": logits have no classes: ", logits.describe());
  return okStatus();
}

Status checkLossShape(const char *name, const TensorView &t, const char *what,
                      const TensorView &labels, LossReduction reduction) {
  HETC_RETURN_IF_ERROR(checkDType(t, DType::kF32, what), name);
  HETC_RETURN_IF_ERROR(checkData(t, what), name);
  if (reduction == LossReduction::kNone)
    return checkShape(t, labels.shape, what).annotate(name);
  if (t.numel() != 1)
    return invalidArgument(name, ": ", what,
                           " must have one element for a reduced loss, got ",
                           t.describe());
  return okStatus();
}

Status checkLse(const char *name, const TensorView *lse,
                const TensorView &labels) {
  if (!lse)
    return okStatus();
  HETC_RETURN_IF_ERROR(checkDType(*lse, DType::kF32, "lse"), name);
  HETC_RETURN_IF_ERROR(checkData(*lse, "lse"), name);
  return checkShape(*lse, labels.shape, "lse").annotate(name);
}

} // namespace hetc::runtime
