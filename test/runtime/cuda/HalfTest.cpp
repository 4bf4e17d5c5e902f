//===- HalfTest.cpp - device rounding matches runtime/base/Half.h ---------===//

#include "test/runtime/cuda/CudaTestUtil.h"
