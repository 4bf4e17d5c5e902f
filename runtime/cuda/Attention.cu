//===- Attention.cu ---------------------------------------------------------===//

#include "runtime/cuda/Attention.h"
