//===- DataMovement.cu ---------------------------------------------------------===//

#include "runtime/cuda/DataMovement.h"
