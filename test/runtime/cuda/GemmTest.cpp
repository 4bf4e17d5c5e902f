//===- GemmTest.cpp - CUDA Gemm against the CPU backend ---===//

#include "test/runtime/cuda/CudaTestUtil.h"
