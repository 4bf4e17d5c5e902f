//===- Dispatch.h - calling a template with a DType's C++ type --*- C++ -*-===//

#ifndef HETC_RUNTIME_CPU_INTERNAL_DISPATCH_H
#define HETC_RUNTIME_CPU_INTERNAL_DISPATCH_H

#include "runtime/base/Tensor.h"

namespace hetc::runtime::cpu::internal {

// Returns fn(T{}) where T is dtype's storage type (uint8_t for bool).
template <typename Fn> auto visitDType(DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::kF32:
    return fn(float{});
  case DType::kF64:
    return fn(double{});
  case DType::kI64:
    return fn(int64_t{});
  case DType::kI32:
    return fn(int32_t{});
  case DType::kBool:
    break;
  }
  return fn(uint8_t{});
}

// Element copies only need the width: runs fn(U{}) with an unsigned integer
// type of dtype's size.
template <typename Fn> auto visitWidth(DType dtype, Fn &&fn) {
  switch (dtypeSize(dtype)) {
  case 8:
    return fn(uint64_t{});
  case 4:
    return fn(uint32_t{});
  case 2:
    return fn(uint16_t{});
  default:
    break;
  }
  return fn(uint8_t{});
}

} // namespace hetc::runtime::cpu::internal

#endif // HETC_RUNTIME_CPU_INTERNAL_DISPATCH_H
