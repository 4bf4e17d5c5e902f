//===- CpuFeatures.cpp ----------------------------------------------------===//

#include "runtime/base/CpuFeatures.h"

#ifndef HETC_CPU_ARCH
#define HETC_CPU_ARCH ""
#endif

namespace hetc::runtime {
namespace {

// x86-64-v3's features that the compilers use in vectorized loops.
constexpr const char *kX86_64V3Features[] = {"avx2", "fma", "f16c", "bmi2"};

// __builtin_cpu_supports wants a literal.
bool processorHas(std::string_view feature) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (feature == "avx2")
    return __builtin_cpu_supports("avx2");
  if (feature == "fma")
    return __builtin_cpu_supports("fma");
  if (feature == "f16c")
    return __builtin_cpu_supports("f16c");
  if (feature == "bmi2")
    return __builtin_cpu_supports("bmi2");
#endif
  return false;
}

} // namespace

const char *cpuKernelArch() { return HETC_CPU_ARCH; }

Status checkCpuFeatures(std::string_view arch,
                        const std::function<bool(std::string_view)> &has) {
  if (arch != "x86-64-v3")
    return okStatus();
  std::string missing;
  for (const char *feature : kX86_64V3Features)
    if (!has(feature))
      missing += std::string(" ") + feature;
  if (missing.empty())
    return okStatus();
  return failedPrecondition(
      "the CPU kernels were built for ", arch,
      " but this processor lacks:", missing,
      "; rebuild with -DHETC_CPU_ARCH=x86-64 (slower kernels) to run here");
}

Status checkCpuFeatures() {
  return checkCpuFeatures(HETC_CPU_ARCH, processorHas);
}

} // namespace hetc::runtime
