//===- CpuFeatures.cpp ----------------------------------------------------===//

#include "runtime/base/CpuFeatures.h"

#include <string>

#ifndef HETC_CPU_ARCH
#define HETC_CPU_ARCH ""
#endif

namespace hetc::runtime {

const char *cpuKernelArch() { return HETC_CPU_ARCH; }

Status checkCpuFeatures() {
  std::string missing;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // x86-64-v3's features that the compilers use in vectorized loops.
  if (std::string(HETC_CPU_ARCH) == "x86-64-v3") {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2"))
      missing += " avx2";
    if (!__builtin_cpu_supports("fma"))
      missing += " fma";
    if (!__builtin_cpu_supports("f16c"))
      missing += " f16c";
    if (!__builtin_cpu_supports("bmi2"))
      missing += " bmi2";
  }
#endif
  if (missing.empty())
    return okStatus();
  return failedPrecondition(
      "the CPU kernels were built for ", HETC_CPU_ARCH,
      " but this processor lacks:", missing,
      "; rebuild with -DHETC_CPU_ARCH=x86-64 (slower kernels) to run here");
}

} // namespace hetc::runtime
