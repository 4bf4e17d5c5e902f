//===- Threading.h - thread count of the CPU kernels ------------*- C++ -*-===//
//
// CPU kernels split their outer loops over OpenMP threads. Every kernel gives
// bit-identical results for any thread count: each output element is
// produced by one thread in a fixed order (no atomics, no per-thread partial
// sums whose grouping depends on the thread count).
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CPU_THREADING_H
#define HETC_RUNTIME_CPU_THREADING_H

#include "runtime/base/Status.h"

namespace hetc::runtime::cpu {

// Sets the number of threads for kernels called later from the calling thread
// (OpenMP's per-thread setting, so ranks running as threads of one process
// can each have their own). n >= 1.
Status setNumThreads(int n);

// The number of threads kernels called from this thread will use.
int numThreads();

} // namespace hetc::runtime::cpu

#endif // HETC_RUNTIME_CPU_THREADING_H
