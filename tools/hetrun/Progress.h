//===- Progress.h - hetrun's step lines and metrics -------------*- C++ -*-===//
//
// What hetrun reports per step: a line on stdout (every --log-every steps
// and the last) and a JSON object per step in the --metrics file, both from
// one record so that they always agree.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_TOOLS_HETRUN_PROGRESS_H
#define HETC_TOOLS_HETRUN_PROGRESS_H

#include "runtime/base/LearningRate.h"
#include "runtime/base/Status.h"
#include "runtime/package/Package.h"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <vector>

namespace hetc::hetrun {

/// One finished step.
struct StepRecord {
  int64_t step = 0; // counted from 1
  float loss = 0.0f;
  double seconds = 0.0, elapsed = 0.0, eta = 0.0;
  /// The most memory each local rank's device allocated so far.
  std::vector<int64_t> peakMemoryBytes;
  /// The validation loss after this step, when one was computed.
  std::optional<double> valLoss;
};

class ProgressReporter {
public:
  /// `metrics` may be null (no --metrics); it stays open for the caller.
  /// `peakTflops` (> 0) is the peak of every rank's device where the
  /// package names none.
  ProgressReporter(const hetc::pkg::Manifest &manifest, int64_t totalSteps,
                   int64_t logEvery, double peakTflops, FILE *out,
                   FILE *metrics);

  /// The step line (when due) and the metrics record. An error when the
  /// metrics file cannot be written.
  runtime::Status report(const StepRecord &record);

  /// The validation loss of the weights a run starts with (before step
  /// `step` + 1): a line "step S/K: val loss V" and a metrics record with
  /// no loss.
  runtime::Status reportValidation(int64_t step, double valLoss);

  /// The learning rate step `index` (0-based) applies; nullopt for a
  /// forward-only package.
  std::optional<double> learningRate(int64_t index) const;

  /// The model FLOPs of a step over all ranks per second of `seconds`,
  /// as a fraction of the ranks' peaks summed; nullopt when a rank's
  /// peak is unknown.
  std::optional<double> mfu(double seconds) const;

private:
  runtime::Status flushMetrics();

  int64_t totalSteps, logEvery, tokensPerStep;
  double stepFlops = 0.0, peakFlops = 0.0; // peakFlops 0: unknown
  FILE *out, *metrics;
  std::optional<double> peakLr;
  runtime::LrSchedule schedule;
};

} // namespace hetc::hetrun

#endif // HETC_TOOLS_HETRUN_PROGRESS_H
