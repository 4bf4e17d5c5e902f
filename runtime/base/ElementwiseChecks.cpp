//===- ElementwiseChecks.cpp ----------------------------------------------===//

#include "runtime/base/ElementwiseChecks.h"

namespace hetc::runtime {

Status checkUnaryOperands(const char *name, const TensorView &x,
                          const TensorView &y) {
  HETC_RETURN_IF_ERROR(checkData(x, "x"), name);
  HETC_RETURN_IF_ERROR(checkData(y, "y"), name);
  if (y.dtype != x.dtype)
    return invalidArgument(name, ": y must have x's dtype ",
                           dtypeName(x.dtype), ", got ", y.describe());
  HETC_RETURN_IF_ERROR(checkShape(y, x.shape, "y"), name);
  return okStatus();
}

Status checkUnaryBackwardOperands(const char *name, const TensorView &x,
                                  const TensorView &dy, const TensorView &dx) {
  HETC_RETURN_IF_ERROR(checkData(x, "x"), name);
  HETC_RETURN_IF_ERROR(checkData(dy, "dy"), name);
  HETC_RETURN_IF_ERROR(checkData(dx, "dx"), name);
  HETC_RETURN_IF_ERROR(checkShape(dy, x.shape, "dy"), name);
  HETC_RETURN_IF_ERROR(checkShape(dx, x.shape, "dx"), name);
  return okStatus();
}

Status checkBinaryOperands(const char *name, const TensorView &a,
                           const TensorView &b, const TensorView &out) {
  HETC_RETURN_IF_ERROR(checkData(a, "a"), name);
  HETC_RETURN_IF_ERROR(checkData(b, "b"), name);
  HETC_RETURN_IF_ERROR(checkData(out, "out"), name);
  if (a.dtype != b.dtype || out.dtype != a.dtype)
    return invalidArgument(name, ": operands must share a dtype, got a ",
                           a.describe(), ", b ", b.describe(), ", out ",
                           out.describe());
  return okStatus();
}

Status binaryOutputShape(const char *name, const TensorView &a,
                         const TensorView &b, const TensorView &out,
                         Shape *shape) {
  HETC_RETURN_IF_ERROR(broadcastShapes(a.shape, b.shape, shape), name);
  HETC_RETURN_IF_ERROR(checkShape(out, *shape, "out"), name);
  return okStatus();
}

Status checkEqualOperands(const TensorView &a, const TensorView &b,
                          const TensorView &out, Shape *shape) {
  HETC_RETURN_IF_ERROR(checkData(a, "a"), "equal");
  HETC_RETURN_IF_ERROR(checkData(b, "b"), "equal");
  HETC_RETURN_IF_ERROR(checkData(out, "out"), "equal");
  if (a.dtype != b.dtype)
    return invalidArgument("equal: operands must share a dtype, got a ",
                           a.describe(), ", b ", b.describe());
  HETC_RETURN_IF_ERROR(checkDType(out, DType::kBool, "out"), "equal");
  return binaryOutputShape("equal", a, b, out, shape);
}

Status checkWhereOperands(const TensorView &cond, const TensorView &onTrue,
                          const TensorView &onFalse, const TensorView &out,
                          Shape *shape) {
  HETC_RETURN_IF_ERROR(checkData(cond, "cond"), "where");
  HETC_RETURN_IF_ERROR(checkData(onTrue, "on_true"), "where");
  HETC_RETURN_IF_ERROR(checkData(onFalse, "on_false"), "where");
  HETC_RETURN_IF_ERROR(checkData(out, "out"), "where");
  HETC_RETURN_IF_ERROR(checkDType(cond, DType::kBool, "cond"), "where");
  if (onTrue.dtype != onFalse.dtype || out.dtype != onTrue.dtype)
    return invalidArgument("where: on_true, on_false and out must share a "
                           "dtype, got ",
                           onTrue.describe(), ", ", onFalse.describe(), ", ",
                           out.describe());
  Shape condTrue;
  HETC_RETURN_IF_ERROR(broadcastShapes(cond.shape, onTrue.shape, &condTrue),
                       "where");
  HETC_RETURN_IF_ERROR(broadcastShapes(condTrue, onFalse.shape, shape),
                       "where");
  HETC_RETURN_IF_ERROR(checkShape(out, *shape, "out"), "where");
  return okStatus();
}

Status checkCastOperands(const TensorView &in, const TensorView &out) {
  HETC_RETURN_IF_ERROR(checkData(in, "in"), "cast");
  HETC_RETURN_IF_ERROR(checkData(out, "out"), "cast");
  HETC_RETURN_IF_ERROR(checkShape(out, in.shape, "out"), "cast");
  return okStatus();
}

} // namespace hetc::runtime
