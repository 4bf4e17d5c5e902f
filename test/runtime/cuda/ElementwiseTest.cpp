//===- ElementwiseTest.cpp - CUDA Elementwise against the CPU backend ---===//

#include "test/runtime/cuda/CudaTestUtil.h"
