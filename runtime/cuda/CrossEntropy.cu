//===- CrossEntropy.cu ---------------------------------------------------------===//

#include "runtime/cuda/CrossEntropy.h"
