//===- Reduce.cu ---------------------------------------------------------===//

#include "runtime/cuda/Reduce.h"
