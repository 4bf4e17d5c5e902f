//===- Elementwise.cu ---------------------------------------------------------===//

#include "runtime/cuda/Elementwise.h"
