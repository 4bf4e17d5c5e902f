//===- GemmBench.cpp -------------------------------------------------===//

#include "bench/cuda/KernelBench.h"

namespace hetc::bench {

void benchGemm() {}

} // namespace hetc::bench
