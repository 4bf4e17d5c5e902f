//===- OptimizerChecks.h - operand checks of the optimizers -----*- C++ -*-===//

#ifndef HETC_RUNTIME_BASE_OPTIMIZERCHECKS_H
#define HETC_RUNTIME_BASE_OPTIMIZERCHECKS_H

#include "runtime/base/LearningRate.h"
#include "runtime/base/Tensor.h"

namespace hetc::runtime {

/// global_norm's output is a 0-D f32 or f64 tensor with data.
Status checkGlobalNormOut(const TensorView &out);

/// lr_schedule's operands: a one-element i64 or i32 step index and a 0-D
/// f64 factor, both with data; warmup >= 0, a decay past the warmup (but
/// for constant schedules) and a minimum factor >= 0.
Status checkLrSchedule(const TensorView &step, const LrSchedule &schedule,
                       const TensorView &factor);

} // namespace hetc::runtime

#endif // HETC_RUNTIME_BASE_OPTIMIZERCHECKS_H
