//===- Kernels.h - every kernel of the CPU backend --------------*- C++ -*-===//

#ifndef HETC_RUNTIME_CPU_KERNELS_H
#define HETC_RUNTIME_CPU_KERNELS_H

#include "runtime/cpu/Attention.h"
#include "runtime/cpu/CrossEntropy.h"
#include "runtime/cpu/DataMovement.h"
#include "runtime/cpu/Elementwise.h"
#include "runtime/cpu/Gather.h"
#include "runtime/cpu/Gemm.h"
#include "runtime/cpu/Norms.h"
#include "runtime/cpu/Optimizers.h"
#include "runtime/cpu/Reduce.h"
#include "runtime/cpu/Softmax.h"

#endif // HETC_RUNTIME_CPU_KERNELS_H
