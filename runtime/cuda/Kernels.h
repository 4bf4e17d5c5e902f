//===- Kernels.h - every kernel of the CUDA backend -------------*- C++ -*-===//

#ifndef HETC_RUNTIME_CUDA_KERNELS_H
#define HETC_RUNTIME_CUDA_KERNELS_H

#include "runtime/cuda/Attention.h"
#include "runtime/cuda/CrossEntropy.h"
#include "runtime/cuda/DataMovement.h"
#include "runtime/cuda/Elementwise.h"
#include "runtime/cuda/Gather.h"
#include "runtime/cuda/Gemm.h"
#include "runtime/cuda/Norms.h"
#include "runtime/cuda/Optimizers.h"
#include "runtime/cuda/Reduce.h"
#include "runtime/cuda/Softmax.h"

#endif // HETC_RUNTIME_CUDA_KERNELS_H
