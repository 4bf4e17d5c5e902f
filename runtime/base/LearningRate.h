//===- LearningRate.h - learning-rate schedules -----------------*- C++ -*-===//
//
// nanoGPT's get_lr as a factor of the peak learning rate, the form of
// torch's LambdaLR: the lr_schedule kernels of both backends compute it on
// the step index the step reads (on the device for CUDA, so a replayed CUDA
// graph sees each step's index), and hetrun prints the same rate.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_BASE_LEARNINGRATE_H
#define HETC_RUNTIME_BASE_LEARNINGRATE_H

#include "runtime/base/HostDevice.h"

#include <cmath>
#include <cstdint>
#include <string_view>

namespace hetc::runtime {

enum class LrScheduleKind { kConstant, kCosine, kLinear };

/// Linear warmup over `warmupSteps` steps, then constant, or a cosine or
/// linear decay to `minFactor` (min_lr / lr) at step `decaySteps`
/// (> warmupSteps), constant after.
struct LrSchedule {
  LrScheduleKind kind = LrScheduleKind::kConstant;
  int64_t warmupSteps = 0;
  int64_t decaySteps = 0;
  double minFactor = 0.0;
};

/// "constant", "cosine" or "linear" (hetg.lr_schedule's `kind`); false
/// for any other name.
bool parseLrScheduleKind(std::string_view name, LrScheduleKind *kind);

/// The factor of step `it` (0-based): get_lr(it) / lr.
HETC_HOST_DEVICE inline double lrFactorAt(const LrSchedule &schedule,
                                          int64_t it) {
  if (it < schedule.warmupSteps)
    return static_cast<double>(it + 1) /
           static_cast<double>(schedule.warmupSteps + 1);
  if (schedule.kind == LrScheduleKind::kConstant)
    return 1.0;
  if (it > schedule.decaySteps)
    return schedule.minFactor;
  double ratio = static_cast<double>(it - schedule.warmupSteps) /
                 static_cast<double>(schedule.decaySteps - schedule.warmupSteps);
  double coefficient = schedule.kind == LrScheduleKind::kCosine
                           ? 0.5 * (1.0 + cos(3.14159265358979323846 * ratio))
                           : 1.0 - ratio;
  return schedule.minFactor + coefficient * (1.0 - schedule.minFactor);
}

} // namespace hetc::runtime

#endif // HETC_RUNTIME_BASE_LEARNINGRATE_H
