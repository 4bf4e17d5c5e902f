//===- ReduceTest.cpp - CUDA Reduce against the CPU backend ---===//

#include "test/runtime/cuda/CudaTestUtil.h"
