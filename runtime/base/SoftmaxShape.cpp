//===- SoftmaxShape.cpp ---------------------------------------------------===//

#include "runtime/base/SoftmaxShape.h"

namespace hetc::runtime {

Status planSoftmaxAxis(const char *name, const TensorView &in,
                       const char *inName, const TensorView *other,
                       const char *otherName, const TensorView &out,
                       const char *outName, int64_t axis, SoftmaxAxis *view) {
  if (other) {
    HETC_RETURN_IF_ERROR(checkDType(*other, in.dtype, otherName), name);
    HETC_RETURN_IF_ERROR(checkData(*other, otherName), name);
    HETC_RETURN_IF_ERROR(checkShape(*other, in.shape, otherName), name);
  }
  HETC_RETURN_IF_ERROR(checkDType(out, in.dtype, outName), name);
  HETC_RETURN_IF_ERROR(checkData(out, outName), name);
  HETC_RETURN_IF_ERROR(checkShape(out, in.shape, outName), name);
  if (in.rank() == 0)
    return invalidArgument(name, ": ", inName, " must have rank >= 1");
  int64_t a;
  HETC_RETURN_IF_ERROR(normalizeAxis(axis, in.rank(), &a), name);
  view->outer = numElements(Shape(in.shape.begin(), in.shape.begin() + a));
  view->n = in.shape[a];
  view->inner = numElements(Shape(in.shape.begin() + a + 1, in.shape.end()));
  return okStatus();
}

} // namespace hetc::runtime
