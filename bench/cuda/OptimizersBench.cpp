//===- OptimizersBench.cpp -------------------------------------------------===//

#include "bench/cuda/KernelBench.h"

namespace hetc::bench {

void benchOptimizers() {}

} // namespace hetc::bench
