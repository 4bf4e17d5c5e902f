//===- ElementwiseBench.cpp -------------------------------------------------===//

#include "bench/cuda/KernelBench.h"

namespace hetc::bench {

void benchElementwise() {}

} // namespace hetc::bench
