//===- Gather.h - ONNX Gather, ScatterND, embeddings, gradients -*- C++ -*-===//

#ifndef HETC_RUNTIME_CPU_GATHER_H
#define HETC_RUNTIME_CPU_GATHER_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"

namespace hetc::runtime::cpu {

#include "runtime/kernels/Gather.inc"

} // namespace hetc::runtime::cpu

#endif // HETC_RUNTIME_CPU_GATHER_H
