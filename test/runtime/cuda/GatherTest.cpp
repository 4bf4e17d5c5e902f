//===- GatherTest.cpp - CUDA Gather against the CPU backend ---===//

#include "test/runtime/cuda/CudaTestUtil.h"
