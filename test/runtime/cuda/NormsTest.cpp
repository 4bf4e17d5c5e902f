//===- NormsTest.cpp - CUDA Norms against the CPU backend ---===//

#include "test/runtime/cuda/CudaTestUtil.h"
