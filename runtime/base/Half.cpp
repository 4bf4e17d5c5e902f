//===- Half.cpp -----------------------------------------------------------===//

#include "runtime/base/Half.h"

#include <cmath>
#include <cstring>

namespace hetc::runtime {
namespace {

uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

float bitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

} // namespace

float bf16ToFloat(uint16_t bits) { return bitsToFloat(uint32_t(bits) << 16); }

uint16_t floatToBf16(float value) {
  uint32_t bits = floatBits(value);
  if (std::isnan(value))
    return static_cast<uint16_t>((bits >> 16) | 0x40); // stays a quiet NaN
  uint32_t roundingBias = 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + roundingBias) >> 16);
}

float f16ToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  if (exponent == 0x1f) // inf or NaN
    return bitsToFloat(sign | 0x7f800000 | (mantissa << 13));
  if (exponent == 0) { // zero or subnormal: mantissa * 2^-24
    float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return bitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint16_t floatToF16(float value) {
  uint32_t bits = floatBits(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  float magnitude = std::fabs(value);
  if (std::isnan(value))
    return sign | 0x7e00;
  if (magnitude >= 65520.0f) // rounds past the largest f16, 65504
    return sign | 0x7c00;
  if (magnitude < 6.103515625e-05f) { // subnormal: units of 2^-24
    float units = std::nearbyint(std::ldexp(magnitude, 24)); // ties to even
    return sign | static_cast<uint16_t>(units);
  }
  uint32_t magnitudeBits = floatBits(magnitude);
  uint32_t roundingBias = 0xfff + ((magnitudeBits >> 13) & 1);
  magnitudeBits += roundingBias;
  uint32_t exponent = (magnitudeBits >> 23) - 112;
  return sign | static_cast<uint16_t>((exponent << 10) |
                                      ((magnitudeBits >> 13) & 0x3ff));
}

} // namespace hetc::runtime
