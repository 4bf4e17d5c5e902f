//===- Parallel.h - the one parallel loop the CPU kernels use ---*- C++ -*-===//
//
// parallelFor splits [0, n) into contiguous chunks run on OpenMP threads.
// Kernels only use it for loops whose iterations write disjoint outputs and
// compute each of them in an order fixed by the iteration index alone, so the
// chunking (and thus the thread count) never changes a result bit.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CPU_INTERNAL_PARALLEL_H
#define HETC_RUNTIME_CPU_INTERNAL_PARALLEL_H

#include <algorithm>
#include <cstdint>
#ifdef _OPENMP
#include <omp.h>
#endif

namespace hetc::runtime::cpu::internal {

// Calls body(begin, end) over chunks of [0, n); `grain` is the smallest
// number of iterations worth giving a thread.
template <typename Body>
void parallelFor(int64_t n, int64_t grain, const Body &body) {
  if (n <= 0)
    return;
#ifdef _OPENMP
  int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  grain = std::max<int64_t>(grain, 1);
  if (threads > 1 && n > grain) {
    int64_t chunks = std::min<int64_t>((n + grain - 1) / grain,
                                       static_cast<int64_t>(threads) * 4);
    int64_t size = (n + chunks - 1) / chunks;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int64_t c = 0; c < chunks; ++c) {
      int64_t begin = c * size;
      int64_t end = std::min(n, begin + size);
      if (begin < end)
        body(begin, end);
    }
    return;
  }
#else
  (void)grain;
#endif
  body(0, n);
}

} // namespace hetc::runtime::cpu::internal

#endif // HETC_RUNTIME_CPU_INTERNAL_PARALLEL_H
