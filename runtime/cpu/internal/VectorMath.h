//===- VectorMath.h - exp and erf that loops can vectorize ------*- C++ -*-===//
//
// libm's expf and erff are calls, so a loop over them runs one element at a
// time. These are inline arithmetic and selects only: a loop calling them
// vectorizes (8 lanes with AVX2; the selects need -fno-trapping-math). exp
// is within 1.5 ulp of the true value, subnormal results included; erf within
// 3 ulp and 2e-7 absolute (with or without FMA contraction). Both keep NaN
// and give the IEEE limits at the infinities.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CPU_INTERNAL_VECTORMATH_H
#define HETC_RUNTIME_CPU_INTERNAL_VECTORMATH_H

#include <cstdint>
#include <cstring>
#include <limits>

// A loop function built twice with GCC on x86-64: for the kernels' target
// and for x86-64-v4 (AVX-512), chosen when the program loads by what the CPU
// has. The wider vectors compute each element with the same operations
// (a NaN result's sign may differ: x86 keeps the first operand's NaN, and
// the two builds may order operands differently).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define HETC_WIDE_VECTOR_CLONES                                                \
  __attribute__((target_clones("arch=x86-64-v4", "default")))
#else
#define HETC_WIDE_VECTOR_CLONES
#endif

namespace hetc::runtime::cpu::internal {

inline float floatFromBits(int32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// 2^n for integral n in [-126, 127], exactly.
inline float powerOfTwo(int32_t n) { return floatFromBits((n + 127) << 23); }

/// e^x. x = n ln2 + r with |r| <= ln2/2 (ln2 in two parts, so r is exact to
/// a few ulp); e^r by its Taylor polynomial to degree 7 (error below 5e-9);
/// 2^n in two halves so that results down to the subnormals stay exact.
inline float fastExp(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693145751953125f;
  constexpr float kLn2Lo = 1.428606765330187045e-06f;
  constexpr float kRoundMagic = 12582912.0f; // 1.5 * 2^23
  constexpr float kOverflow = 88.72283935546875f;
  constexpr float kUnderflow = -103.972084045410156f;
  float clamped = x < kUnderflow ? kUnderflow : (x > kOverflow ? kOverflow : x);
  float n = (clamped * kLog2e + kRoundMagic) - kRoundMagic;
  float r = clamped - n * kLn2Hi;
  r = r - n * kLn2Lo;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  int32_t ni = static_cast<int32_t>(n);
  int32_t half = ni / 2;
  float result = p * powerOfTwo(half) * powerOfTwo(ni - half);
  result = x > kOverflow ? std::numeric_limits<float>::infinity() : result;
  result = x < kUnderflow ? 0.0f : result;
  return x != x ? x : result;
}

/// erfc(a) for a >= 0: the Chebyshev fit of Numerical Recipes, relative
/// error below 1.2e-7 (before float rounding).
inline float fastErfcNonNegative(float a) {
  float t = 1.0f / (1.0f + 0.5f * a);
  float c = 0.17087277f;
  c = c * t - 0.82215223f;
  c = c * t + 1.48851587f;
  c = c * t - 1.13520398f;
  c = c * t + 0.27886807f;
  c = c * t - 0.18628806f;
  c = c * t + 0.09678418f;
  c = c * t + 0.37409196f;
  c = c * t + 1.00002368f;
  c = c * t - 1.26551223f;
  return t * fastExp(c - a * a);
}

/// erf(x). |x| < 1: x times its Taylor series in x^2 to x^22 (the terms past
/// it are below 1e-10). Else 1 - erfc(|x|) (erfc <= 0.16, so its error is
/// below 2e-8 absolute), with the sign of x.
inline float fastErf(float x) {
  float a = x < 0.0f ? -x : x;
  float x2 = x * x;
  float s = -1.0f / 918086400.0f;              // 1 / (11! 23)
  s = s * x2 + 1.0f / 76204800.0f;             // 1 / (10! 21)
  s = s * x2 - 1.0f / 6894720.0f;              // 1 / (9! 19)
  s = s * x2 + 1.0f / 685440.0f;               // 1 / (8! 17)
  s = s * x2 - 1.0f / 75600.0f;                // 1 / (7! 15)
  s = s * x2 + 1.0f / 9360.0f;                 // 1 / (6! 13)
  s = s * x2 - 1.0f / 1320.0f;                 // 1 / (5! 11)
  s = s * x2 + 1.0f / 216.0f;                  // 1 / (4! 9)
  s = s * x2 - 1.0f / 42.0f;                   // 1 / (3! 7)
  s = s * x2 + 1.0f / 10.0f;                   // 1 / (2! 5)
  s = s * x2 - 1.0f / 3.0f;                    // 1 / (1! 3)
  s = s * x2 + 1.0f;
  float small = 1.12837916709551257390f * x * s; // 2 / sqrt(pi)
  float large = 1.0f - fastErfcNonNegative(a);
  large = x < 0.0f ? -large : large;
  return a < 1.0f ? small : (x != x ? x : large);
}

/// The standard normal CDF, Phi(x) = erfc(-x / sqrt(2)) / 2, by one erfc
/// (half of fastErf's work). Where x < 0 its relative error is below
/// 6e-7 max(1, x^2 / 2): no cancellation in 1 + erf, only the rounding of
/// exp's argument (about -x^2 / 2) far out. Where x >= 0 its absolute error
/// is below 2.5e-7.
inline float fastNormalCdf(float x) {
  constexpr float kInvSqrt2 = 0.70710678118654752440f;
  float half = 0.5f * fastErfcNonNegative((x < 0.0f ? -x : x) * kInvSqrt2);
  return x < 0.0f ? half : 1.0f - half;
}

/// Lanes of the row reductions below. Each lane accumulates its own elements
/// in order and the lanes then add up in a fixed order: the loop vectorizes
/// and the result depends on the row alone, never on the thread count.
constexpr int kReductionLanes = 8;

/// The sum of value(j) for j in [0, n), in double.
template <typename Value> double laneSum(int64_t n, const Value &value) {
  double lanes[kReductionLanes] = {};
  int64_t j = 0;
  for (; j + kReductionLanes <= n; j += kReductionLanes)
    for (int lane = 0; lane < kReductionLanes; ++lane)
      lanes[lane] += value(j + lane);
  for (int lane = 0; j < n; ++j, ++lane)
    lanes[lane] += value(j);
  double sum = 0.0;
  for (double lane : lanes)
    sum += lane;
  return sum;
}

/// The largest of x[j * stride] for j in [0, n): NaN if one is NaN, -inf
/// for an empty row.
inline float rowMax(const float *x, int64_t n, int64_t stride) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  float lanes[kReductionLanes];
  for (float &lane : lanes)
    lane = kNegInf;
  int64_t j = 0;
  for (; j + kReductionLanes <= n; j += kReductionLanes)
    for (int lane = 0; lane < kReductionLanes; ++lane) {
      float v = x[(j + lane) * stride];
      lanes[lane] = (v > lanes[lane] || v != v) ? v : lanes[lane];
    }
  for (int lane = 0; j < n; ++j, ++lane) {
    float v = x[j * stride];
    lanes[lane] = (v > lanes[lane] || v != v) ? v : lanes[lane];
  }
  float m = kNegInf;
  for (float lane : lanes)
    m = (lane > m || lane != lane) ? lane : m;
  return m;
}

} // namespace hetc::runtime::cpu::internal

#endif // HETC_RUNTIME_CPU_INTERNAL_VECTORMATH_H
