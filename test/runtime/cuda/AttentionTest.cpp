//===- AttentionTest.cpp - CUDA Attention against the CPU backend ---===//

#include "test/runtime/cuda/CudaTestUtil.h"
