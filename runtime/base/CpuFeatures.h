//===- CpuFeatures.h - the instruction set the CPU kernels need -*- C++ -*-===//
//
// The CPU kernels are compiled for one instruction set (HETC_CPU_ARCH, by
// default x86-64-v3: AVX2 and FMA); this checks, from code compiled for the
// baseline, that the processor at hand runs it, before any kernel does.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_BASE_CPUFEATURES_H
#define HETC_RUNTIME_BASE_CPUFEATURES_H

#include "runtime/base/Status.h"

#include <functional>
#include <string_view>

namespace hetc::runtime {

/// The instruction set the CPU kernels were built for, e.g. "x86-64-v3".
const char *cpuKernelArch();

/// OK when this processor has every feature the CPU kernels were built
/// with; otherwise an error naming the missing ones and the rebuild option.
Status checkCpuFeatures();

/// The same for kernels built for `arch` on a processor that has the
/// features `has` says yes to.
Status checkCpuFeatures(std::string_view arch,
                        const std::function<bool(std::string_view)> &has);

} // namespace hetc::runtime

#endif // HETC_RUNTIME_BASE_CPUFEATURES_H
