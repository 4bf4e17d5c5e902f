//===- Softmax.cu ---------------------------------------------------------===//

#include "runtime/cuda/Softmax.h"
