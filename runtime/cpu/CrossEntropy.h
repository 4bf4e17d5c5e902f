//===- CrossEntropy.h - softmax cross-entropy -------------------*- C++ -*-===//

#ifndef HETC_RUNTIME_CPU_CROSSENTROPY_H
#define HETC_RUNTIME_CPU_CROSSENTROPY_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"

namespace hetc::runtime::cpu {

#include "runtime/kernels/CrossEntropy.inc"

} // namespace hetc::runtime::cpu

#endif // HETC_RUNTIME_CPU_CROSSENTROPY_H
