//===- Threading.cpp ------------------------------------------------------===//

#include "runtime/cpu/Threading.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace hetc::runtime::cpu {

Status setNumThreads(int n) {
  if (n < 1)
    return invalidArgument("setNumThreads: the thread count must be >= 1, got ",
                           n);
#ifdef _OPENMP
  omp_set_num_threads(n);
#endif
  return okStatus();
}

int numThreads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

} // namespace hetc::runtime::cpu
