//===- DataMovementTest.cpp - CUDA DataMovement against the CPU backend ---===//

#include "test/runtime/cuda/CudaTestUtil.h"
