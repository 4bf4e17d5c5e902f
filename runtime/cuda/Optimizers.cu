//===- Optimizers.cu ---------------------------------------------------------===//

#include "runtime/cuda/Optimizers.h"
