//===- DataMovement.h - transpose, slice, concat, broadcast, ... *- C++ -*-===//
//
// Kernels that move elements without arithmetic work on any dtype unless
// noted; the output's dtype must equal the input's.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CPU_DATAMOVEMENT_H
#define HETC_RUNTIME_CPU_DATAMOVEMENT_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/SliceParams.h"
#include "runtime/base/Tensor.h"

namespace hetc::runtime::cpu {

#include "runtime/kernels/DataMovement.inc"

} // namespace hetc::runtime::cpu

#endif // HETC_RUNTIME_CPU_DATAMOVEMENT_H
