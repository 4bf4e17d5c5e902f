//===- SoftmaxTest.cpp - CUDA Softmax against the CPU backend ---===//

#include "test/runtime/cuda/CudaTestUtil.h"
