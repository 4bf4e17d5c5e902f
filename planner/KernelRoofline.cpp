//===- KernelRoofline.cpp - the roofline per op and its fit ---------------===//

#include "planner/KernelRoofline.h"
#include "planner/Minimize.h"

#include <algorithm>
#include <cmath>

namespace hetc::planner {

double peakFlopsIn(const GpuSpec &gpu, Precision precision) {
  switch (precision) {
  case Precision::BF16:
    if (gpu.bf16Tflops > 0)
      return gpu.bf16Tflops * 1e12;
    break;
  case Precision::F16:
    if (gpu.fp16Tflops > gpu.fp32Tflops)
      return gpu.fp16Tflops * 1e12;
    break;
  case Precision::F32:
    break;
  }
  return gpu.fp32Tflops * 1e12;
}

double KernelRoofline::seconds(const GpuSpec &gpu, Precision precision,
                               double flops, double bytes,
                               int64_t launches) const {
  double computeTime = flops / (peakFlopsIn(gpu, precision) * efficiency);
  double memoryTime = bytes / (gpu.memoryBandwidthGBps * 1e9);
  return static_cast<double>(launches) * launchSeconds +
         std::max(computeTime, memoryTime);
}

KernelRoofline fitKernelRoofline(const GpuSpec &gpu,
                                 llvm::ArrayRef<MeasuredKernel> kernels) {
  KernelRoofline defaults;
  bool anyFlops = false, anyTime = false;
  for (const MeasuredKernel &kernel : kernels) {
    anyTime |= kernel.seconds > 0 && kernel.launches > 0;
    anyFlops |= kernel.seconds > 0 && kernel.flops > 0;
  }
  if (!anyTime || peakFlopsIn(gpu, Precision::F32) <= 0 ||
      gpu.memoryBandwidthGBps <= 0)
    return defaults;
  auto error = [&](const KernelRoofline &roofline) {
    double sum = 0;
    for (const MeasuredKernel &kernel : kernels) {
      if (kernel.seconds <= 0 || kernel.launches <= 0)
        continue;
      double residual = roofline.seconds(gpu, kernel.precision, kernel.flops,
                                         kernel.bytes, kernel.launches) /
                            kernel.seconds -
                        1;
      sum += residual * residual;
    }
    return sum;
  };
  // The best efficiency for a launch time (left as it is where no kernel
  // counts FLOPs), then the launch time on a log scale: a scan of 1 ns to
  // 10 ms, refined around the best.
  auto fitted = [&](double logLaunch) {
    KernelRoofline roofline = defaults;
    roofline.launchSeconds = std::exp(logLaunch);
    if (anyFlops)
      roofline.efficiency = goldenMinimum(1e-3, 1, [&](double efficiency) {
        KernelRoofline trial = roofline;
        trial.efficiency = efficiency;
        return error(trial);
      });
    return roofline;
  };
  return fitted(
      scanThenRefine(std::log(1e-9), std::log(1e-2), 70, [&](double logLaunch) {
        return error(fitted(logLaunch));
      }));
}

} // namespace hetc::planner
