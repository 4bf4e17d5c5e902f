//===- Softmax.h - softmax and log-softmax along an axis --------*- C++ -*-===//

#ifndef HETC_RUNTIME_CPU_SOFTMAX_H
#define HETC_RUNTIME_CPU_SOFTMAX_H

#include "runtime/base/Tensor.h"

namespace hetc::runtime::cpu {

#include "runtime/kernels/Softmax.inc"

} // namespace hetc::runtime::cpu

#endif // HETC_RUNTIME_CPU_SOFTMAX_H
