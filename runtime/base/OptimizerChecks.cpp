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

Status checkLrSchedule(const TensorView &step, const LrSchedule &schedule,
                       const TensorView &factor) {
  if (step.numel() != 1 ||
      (step.dtype != DType::kI64 && step.dtype != DType::kI32))
    return invalidArgument("lr_schedule: step must be one i64 or i32 "
                           "element, got ",
                           step.describe());
  if (factor.rank() != 0 || factor.dtype != DType::kF64)
    return invalidArgument("lr_schedule: factor must be a 0-D f64 tensor, "
                           "got ",
                           factor.describe());
  HETC_RETURN_IF_ERROR(checkData(step, "step"), "lr_schedule");
  HETC_RETURN_IF_ERROR(checkData(factor, "factor"), "lr_schedule");
  bool decays = schedule.kind != LrScheduleKind::kConstant;
  if (schedule.warmupSteps < 0 || !(schedule.minFactor >= 0.0) ||
      (decays && schedule.decaySteps <= schedule.warmupSteps))
    return invalidArgument("lr_schedule: needs warmup_steps >= 0, "
                           "min_factor >= 0 and, unless constant, "
                           "decay_steps > warmup_steps; got warmup ",
                           schedule.warmupSteps, ", decay ",
                           schedule.decaySteps, ", min_factor ",
                           schedule.minFactor);
  return okStatus();
}

} // namespace hetc::runtime
