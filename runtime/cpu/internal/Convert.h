//===- Convert.h - element conversion rules of cast -------------*- C++ -*-===//
//
// The rules live in runtime/base/Convert.h (shared with runtime/cuda).
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CPU_INTERNAL_CONVERT_H
#define HETC_RUNTIME_CPU_INTERNAL_CONVERT_H

#include "runtime/base/Convert.h"

namespace hetc::runtime::cpu::internal {

using runtime::convertValue;

} // namespace hetc::runtime::cpu::internal

#endif // HETC_RUNTIME_CPU_INTERNAL_CONVERT_H
