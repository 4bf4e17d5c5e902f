//===- OptimizerChecks.cpp ------------------------------------------------===//

#include "runtime/base/OptimizerChecks.h"

namespace hetc::runtime {

Status checkGlobalNormOut(const TensorView &out) {
  if (out.rank() != 0 || (out.dtype != DType::kF32 && out.dtype != DType::kF64))
    return invalidArgument("global_norm: out must be a 0-D f32 or f64 tensor, "
                           "got ",
                           out.describe());
  HETC_RETURN_IF_ERROR(checkData(out, "out"), "global_norm");
  return okStatus();
}

} // namespace hetc::runtime
