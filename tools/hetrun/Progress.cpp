//===- Progress.cpp - hetrun's step lines and metrics ---------------------===//

#include "tools/hetrun/Progress.h"

#include <algorithm>
#include <cerrno>
#include <cmath>

namespace hetc::hetrun {

namespace {

// A NaN's sign says nothing and depends on which instructions produced it:
// every NaN prints as "nan".
double unsignedNan(double x) { return std::isnan(x) ? std::fabs(x) : x; }

} // namespace

ProgressReporter::ProgressReporter(const hetc::pkg::Manifest &manifest,
                                   int64_t totalSteps, int64_t logEvery,
                                   double peakTflops, FILE *out, FILE *metrics)
    : totalSteps(totalSteps), logEvery(logEvery),
      tokensPerStep(manifest.global_batch() * manifest.seq_len()), out(out),
      metrics(metrics) {
  bool peaksKnown = true;
  for (const hetc::pkg::RankInfo &rank : manifest.ranks()) {
    stepFlops += static_cast<double>(rank.model_flops());
    double peak = rank.device_peak_tflops() > 0 ? rank.device_peak_tflops()
                                                : peakTflops;
    peaksKnown &= peak > 0;
    peakFlops += peak * 1e12;
  }
  if (!peaksKnown || stepFlops <= 0)
    peakFlops = 0.0;
  const hetc::pkg::Optimizer &optimizer = manifest.optimizer();
  if (optimizer.kind() == "none")
    return;
  peakLr = optimizer.lr();
  // An empty name is a package from before schedules: constant.
  if (!optimizer.lr_schedule().empty())
    runtime::parseLrScheduleKind(optimizer.lr_schedule(), &schedule.kind);
  schedule.warmupSteps = optimizer.warmup_steps();
  schedule.decaySteps = optimizer.decay_steps();
  schedule.minFactor = optimizer.lr() > 0 ? optimizer.min_lr() / optimizer.lr()
                                          : 0.0;
}

std::optional<double> ProgressReporter::learningRate(int64_t index) const {
  if (!peakLr)
    return std::nullopt;
  return *peakLr * runtime::lrFactorAt(schedule, index);
}

std::optional<double> ProgressReporter::mfu(double seconds) const {
  if (peakFlops <= 0 || seconds <= 0)
    return std::nullopt;
  return stepFlops / seconds / peakFlops;
}

runtime::Status ProgressReporter::report(const StepRecord &record) {
  double rate = record.seconds > 0
                    ? static_cast<double>(tokensPerStep) / record.seconds
                    : 0.0;
  std::optional<double> lr = learningRate(record.step - 1);
  std::optional<double> utilization = mfu(record.seconds);
  int64_t peakMemory = 0;
  for (int64_t bytes : record.peakMemoryBytes)
    peakMemory = std::max(peakMemory, bytes);
  bool last = record.step == totalSteps;
  if (out && (record.step % logEvery == 0 || last || record.valLoss)) {
    std::fprintf(out, "step %lld/%lld: loss %.6f, ",
                 static_cast<long long>(record.step),
                 static_cast<long long>(totalSteps), unsignedNan(record.loss));
    if (record.valLoss)
      std::fprintf(out, "val loss %.6f, ", unsignedNan(*record.valLoss));
    if (lr)
      std::fprintf(out, "lr %.4g, ", *lr);
    std::fprintf(out, "%.0f tokens/s, ", rate);
    if (utilization)
      std::fprintf(out, "mfu %.3g%%, ", *utilization * 100);
    std::fprintf(out,
                 "mem %.1f MiB, %.2f ms, elapsed %.2f s, eta %.0f s\n",
                 static_cast<double>(peakMemory) / (1 << 20),
                 record.seconds * 1e3, record.elapsed, record.eta);
    std::fflush(out);
  }
  if (!metrics)
    return runtime::okStatus();
  std::fprintf(metrics, "{\"step\": %lld, ",
               static_cast<long long>(record.step));
  if (std::isfinite(record.loss))
    std::fprintf(metrics, "\"loss\": %.9g, ", record.loss);
  else
    std::fprintf(metrics, "\"loss\": null, ");
  if (record.valLoss)
    std::fprintf(metrics, std::isfinite(*record.valLoss)
                              ? "\"val_loss\": %.9g, "
                              : "\"val_loss\": null, ",
                 *record.valLoss);
  if (lr)
    std::fprintf(metrics, "\"lr\": %.17g, ", *lr);
  std::fprintf(metrics, "\"tokens_per_s\": %.3f, ", rate);
  if (utilization)
    std::fprintf(metrics, "\"mfu\": %.6f, ", *utilization);
  std::fprintf(metrics, "\"peak_mem_bytes\": [");
  for (size_t i = 0; i < record.peakMemoryBytes.size(); ++i)
    std::fprintf(metrics, "%s%lld", i ? ", " : "",
                 static_cast<long long>(record.peakMemoryBytes[i]));
  std::fprintf(metrics,
               "], \"step_ms\": %.4f, \"elapsed_s\": %.6f, \"eta_s\": "
               "%.3f}\n",
               record.seconds * 1e3, record.elapsed, record.eta);
  return flushMetrics();
}

runtime::Status ProgressReporter::reportValidation(int64_t step,
                                                   double valLoss) {
  if (out) {
    std::fprintf(out, "step %lld/%lld: val loss %.6f\n",
                 static_cast<long long>(step),
                 static_cast<long long>(totalSteps), unsignedNan(valLoss));
    std::fflush(out);
  }
  if (!metrics)
    return runtime::okStatus();
  std::fprintf(metrics,
               std::isfinite(valLoss) ? "{\"step\": %lld, \"val_loss\": %.9g}\n"
                                      : "{\"step\": %lld, \"val_loss\": null}\n",
               static_cast<long long>(step), valLoss);
  return flushMetrics();
}

runtime::Status ProgressReporter::flushMetrics() {
  if (std::fflush(metrics) != 0 || std::ferror(metrics))
    return runtime::errnoStatus(errno, "cannot write the metrics file");
  return runtime::okStatus();
}

} // namespace hetc::hetrun
