//===- Gather.cu ---------------------------------------------------------===//

#include "runtime/cuda/Gather.h"
