//===- AttentionBench.cpp -------------------------------------------------===//

#include "bench/cuda/KernelBench.h"

namespace hetc::bench {

void benchAttention() {}

} // namespace hetc::bench
