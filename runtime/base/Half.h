//===- Half.h - bf16 and f16 bit patterns on the host -----------*- C++ -*-===//
//
// bf16 and f16 tensors hold 16-bit patterns. These convert them to and from
// f32 on the host, rounding to nearest even as the GPU's conversions do, so
// that the CPU backend and the tests round exactly like the CUDA kernels.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_BASE_HALF_H
#define HETC_RUNTIME_BASE_HALF_H

#include <cstdint>

namespace hetc::runtime {

float bf16ToFloat(uint16_t bits);
uint16_t floatToBf16(float value);
float f16ToFloat(uint16_t bits);
uint16_t floatToF16(float value);

} // namespace hetc::runtime

#endif // HETC_RUNTIME_BASE_HALF_H
