//===- OptimizersTest.cpp - CUDA Optimizers against the CPU backend ---===//

#include "test/runtime/cuda/CudaTestUtil.h"
