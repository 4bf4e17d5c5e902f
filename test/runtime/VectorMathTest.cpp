//===- VectorMathTest.cpp - the kernels' exp, erf and lane reductions ------===//
//
// fastExp and fastErf against libm in double over their whole range, at the
// bounds the header promises; laneSum and rowMax against the order and the
// NaN rule they document; the instruction-set check on this machine.
//
//===----------------------------------------------------------------------===//

#include "runtime/base/CpuFeatures.h"
#include "runtime/cpu/internal/VectorMath.h"

#include "TestUtil.h"

#include <cmath>
#include <limits>

namespace hetc::runtime::test {
namespace {

using cpu::internal::fastErf;
using cpu::internal::fastExp;
using cpu::internal::fastNormalCdf;
using cpu::internal::kReductionLanes;
using cpu::internal::laneSum;
using cpu::internal::rowMax;

constexpr float kInf = std::numeric_limits<float>::infinity();

// |got - want| in units of the last place of want as a float (subnormal
// spacing below the normal range).
double ulpsOff(float got, double want) {
  double spacing = std::fabs(want) < std::numeric_limits<float>::min()
                       ? std::ldexp(1.0, -149)
                       : std::ldexp(1.0, std::ilogb(static_cast<float>(want)) - 23);
  return std::fabs(static_cast<double>(got) - want) / spacing;
}

TEST(VectorMath, ExpIsWithinOneAndAHalfUlpDownToTheSubnormals) {
  double worst = 0.0;
  float at = 0.0f;
  for (double v = -103.9; v < 88.72; v += 7.3e-4) {
    float x = static_cast<float>(v);
    double off = ulpsOff(fastExp(x), std::exp(static_cast<double>(x)));
    if (off > worst) {
      worst = off;
      at = x;
    }
  }
  EXPECT_LE(worst, 1.5) << "at x = " << at;
  EXPECT_EQ(fastExp(0.0f), 1.0f);
  EXPECT_EQ(fastExp(kInf), kInf);
  EXPECT_EQ(fastExp(89.0f), kInf);
  EXPECT_EQ(fastExp(-kInf), 0.0f);
  EXPECT_EQ(fastExp(-104.0f), 0.0f);
  EXPECT_TRUE(std::isnan(fastExp(std::nanf(""))));
}

TEST(VectorMath, ErfIsWithinThreeUlpAndItsAbsoluteBound) {
  double worstUlps = 0.0, worstAbs = 0.0;
  for (double v = -7.0; v < 7.0; v += 3.1e-5) {
    float x = static_cast<float>(v);
    double want = std::erf(static_cast<double>(x));
    worstUlps = std::max(worstUlps, ulpsOff(fastErf(x), want));
    worstAbs = std::max(worstAbs, std::fabs(fastErf(x) - want));
  }
  EXPECT_LE(worstUlps, 3.0);
  EXPECT_LE(worstAbs, 2e-7);
  // Tiny arguments keep full relative precision (erf(x) ~ 2x/sqrt(pi)).
  EXPECT_NEAR(fastErf(1e-30f), 1.1283791670955126e-30, 1e-37);
  EXPECT_EQ(fastErf(kInf), 1.0f);
  EXPECT_EQ(fastErf(-kInf), -1.0f);
  EXPECT_EQ(fastErf(-0.3f), -fastErf(0.3f));
  EXPECT_TRUE(std::isnan(fastErf(std::nanf(""))));
}

// GELU's Phi(x): relative accuracy where it is small (no 1 + erf to cancel;
// the float argument of exp, about -x^2/2, limits it far out), absolute
// where it is near 1.
TEST(VectorMath, NormalCdfIsRelativelyExactInItsLowerTail) {
  double worstRelative = 0.0, worstAbs = 0.0;
  for (double v = -12.0; v < 12.0; v += 1.3e-5) {
    float x = static_cast<float>(v);
    double want = 0.5 * std::erfc(-static_cast<double>(x) / std::sqrt(2.0));
    double err = std::fabs(fastNormalCdf(x) - want);
    if (x < 0.0f)
      worstRelative = std::max(
          worstRelative, err / want / std::max(1.0, 0.5 * v * v));
    else
      worstAbs = std::max(worstAbs, err);
  }
  EXPECT_LE(worstRelative, 6e-7);
  EXPECT_LE(worstAbs, 2.5e-7);
  EXPECT_EQ(fastNormalCdf(kInf), 1.0f);
  EXPECT_EQ(fastNormalCdf(-kInf), 0.0f);
  EXPECT_TRUE(std::isnan(fastNormalCdf(std::nanf(""))));
}

TEST(VectorMath, LaneSumAddsEachLaneInOrderThenTheLanes) {
  for (int64_t n : {0, 1, 7, 8, 9, 23, 64, 1001}) {
    std::vector<double> values(n);
    for (int64_t i = 0; i < n; ++i)
      values[i] = 1.0 / (3.0 + static_cast<double>(i)) * (i % 2 ? -1e8 : 1.0);
    double lanes[kReductionLanes] = {};
    for (int64_t i = 0; i < n; ++i)
      lanes[i % kReductionLanes] += values[i];
    double want = 0.0;
    for (double lane : lanes)
      want += lane;
    double got = laneSum(n, [&](int64_t i) { return values[i]; });
    EXPECT_EQ(got, want) << "n = " << n; // same order, same bits
  }
}

TEST(VectorMath, RowMaxPropagatesNaNAndReadsStrided) {
  std::vector<float> x = {1, -5, 3, 0, 9, 2, -1, 4, 8, 7, 6, 11, 5, -2, 10, 0, 12};
  EXPECT_EQ(rowMax(x.data(), static_cast<int64_t>(x.size()), 1), 12.0f);
  EXPECT_EQ(rowMax(x.data(), 8, 2), 10.0f); // x[0], x[2], ..., x[14]
  EXPECT_EQ(rowMax(x.data(), 0, 1), -kInf);
  for (size_t at : {size_t(0), size_t(5), size_t(16)}) {
    std::vector<float> y = x;
    y[at] = std::nanf("");
    EXPECT_TRUE(std::isnan(rowMax(y.data(), static_cast<int64_t>(y.size()), 1)))
        << "NaN at " << at;
  }
}

TEST(CpuFeatures, ThisMachineRunsTheKernels) {
  HETC_ASSERT_OK(checkCpuFeatures());
}

TEST(CpuFeatures, AProcessorWithoutAvx2IsToldHowToRebuild) {
  auto noAvx2 = [](std::string_view f) { return f != "avx2" && f != "fma"; };
  Status status = checkCpuFeatures("x86-64-v3", noAvx2);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(),
            "the CPU kernels were built for x86-64-v3 but this processor "
            "lacks: avx2 fma; rebuild with -DHETC_CPU_ARCH=x86-64 (slower "
            "kernels) to run here");
  // Kernels built for the baseline run anywhere.
  HETC_ASSERT_OK(checkCpuFeatures("", noAvx2));
}

} // namespace
} // namespace hetc::runtime::test
