//===- NormsAndLossBench.cpp -------------------------------------------------===//

#include "bench/cuda/KernelBench.h"

namespace hetc::bench {

void benchNormsAndLoss() {}

} // namespace hetc::bench
