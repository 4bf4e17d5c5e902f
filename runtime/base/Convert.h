//===- Convert.h - element conversion rules of cast -------------*- C++ -*-===//
//
// One definition for the CPU kernels and the CUDA kernels (host and device
// code alike); plain C++ when no CUDA compiler reads it.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_BASE_CONVERT_H
#define HETC_RUNTIME_BASE_CONVERT_H

#include <cstdint>
#include <limits>
#include <type_traits>

#include "runtime/base/HostDevice.h"

namespace hetc::runtime {

// To bool (uint8_t): non-zero is 1. From bool: 0 or 1. Float to integer:
// truncation toward zero, saturating at the integer's range, NaN to 0.
// Otherwise a plain conversion (integers narrow by wrapping).
template <typename To, typename From> HETC_HOST_DEVICE To convertValue(From v) {
  if constexpr (std::is_same_v<To, uint8_t>) {
    return v != From(0) ? 1 : 0;
  } else if constexpr (std::is_same_v<From, uint8_t>) {
    return v != 0 ? To(1) : To(0);
  } else if constexpr (std::is_floating_point_v<From> &&
                       std::is_integral_v<To>) {
    if (v != v) // NaN (std::isnan is not available in device code)
      return 0;
    if (v >= static_cast<From>(std::numeric_limits<To>::max()))
      return std::numeric_limits<To>::max();
    if (v <= static_cast<From>(std::numeric_limits<To>::min()))
      return std::numeric_limits<To>::min();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

} // namespace hetc::runtime

#endif // HETC_RUNTIME_BASE_CONVERT_H
