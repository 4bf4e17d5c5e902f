//===- CrossEntropyTest.cpp - CUDA CrossEntropy against the CPU backend ---===//

#include "test/runtime/cuda/CudaTestUtil.h"
