//===- HalfTest.cpp - device rounding matches runtime/base/Half.h ---------===//
//
// The CPU backend and the tests round with runtime/base/Half.h; the kernels
// round with the GPU's conversions (cuda::cast, and every kernel's store).
// These must agree bit for bit, NaN payloads aside (the GPU returns its
// canonical NaN): checked through cuda::cast on random bit patterns, exact
// ties, subnormals and values that overflow.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/Elementwise.h"

#include "test/runtime/cuda/CudaTestUtil.h"

#include <cstdint>
#include <limits>

namespace hetc::runtime::cuda::test {
namespace {

uint32_t bitsOf(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

float floatOf(uint32_t b) {
  float v;
  std::memcpy(&v, &b, 4);
  return v;
}

/// Casts f32 values (as bit patterns) to `dtype` on the GPU; returns the
/// 16-bit results.
std::vector<uint16_t> castToHalf(const std::vector<uint32_t> &bits, DType dtype) {
  int64_t n = static_cast<int64_t>(bits.size());
  DeviceTensor in(DType::kF32, {n}), out(dtype, {n});
  in.write(bits);
  Status s = cast(in.view(), out.view());
  EXPECT_TRUE(s.ok()) << s.toString();
  return out.read<uint16_t>();
}

bool isHalfNaN(DType dtype, uint16_t bits) {
  return dtype == DType::kBF16 ? std::isnan(bf16ToFloat(bits))
                               : std::isnan(f16ToFloat(bits));
}

void expectRoundsLikeHost(const std::vector<uint32_t> &bits, DType dtype) {
  std::vector<uint16_t> got = castToHalf(bits, dtype);
  ASSERT_EQ(got.size(), bits.size());
  int misses = 0;
  for (size_t i = 0; i < bits.size() && misses < 10; ++i) {
    float v = floatOf(bits[i]);
    uint16_t want = dtype == DType::kBF16 ? floatToBf16(v) : floatToF16(v);
    bool ok = std::isnan(v) ? isHalfNaN(dtype, got[i]) : got[i] == want;
    if (!ok) {
      ADD_FAILURE() << dtypeName(dtype) << " of " << v << " (bits 0x" << std::hex
                    << bits[i] << "): got 0x" << got[i] << ", want 0x" << want
                    << std::dec;
      ++misses;
    }
  }
}

/// Bit patterns every rounding must get right in both formats.
std::vector<uint32_t> specialBits() {
  std::vector<uint32_t> bits = {
      0x00000000, 0x80000000,             // +-0
      0x7f800000, 0xff800000,             // +-inf
      0x7fc00000, 0xffc00000, 0x7f800001, // NaNs, one signalling
      0x7fbfffff, 0x7f7fffff, 0xff7fffff, // the largest finite values
      0x00800000, 0x80800000,             // the smallest normals
      0x00000001, 0x80000001, 0x00008000, 0x00018000, 0x0000ffff,
      0x007fffff, 0x00400000, // f32 subnormals
      0x3f800000, 0x3f808000, 0x3f818000, 0x3f80ffff, 0x3f807fff,
      0x3f808001, // 1 and bf16 ties around it
  };
  return bits;
}

TEST(CudaHalfTest, F32ToBf16RoundsLikeHost) {
  HETC_REQUIRE_CUDA();
  std::vector<uint32_t> bits = specialBits();
  std::mt19937 gen(101);
  for (int i = 0; i < (1 << 18); ++i) {
    uint32_t b = gen();
    bits.push_back(b);
    // Exact ties (odd and even kept bit), and one unit either side.
    uint32_t tie = (b & 0xffff0000u) | 0x8000u;
    bits.push_back(tie);
    bits.push_back(tie - 1);
    bits.push_back(tie + 1);
  }
  expectRoundsLikeHost(bits, DType::kBF16);
}

TEST(CudaHalfTest, F32ToF16RoundsLikeHost) {
  HETC_REQUIRE_CUDA();
  std::vector<uint32_t> bits = specialBits();
  for (float v : {65504.0f, 65519.0f, 65519.996f, 65520.0f, 65536.0f, 1e6f,
                  -65520.0f, 6.103515625e-05f, 6.1035e-05f, 5.9604645e-08f,
                  2.9802322e-08f, 2.9802326e-08f, 8.940697e-08f, 1e-8f, 1e-10f})
    bits.push_back(bitsOf(v));
  // The exact midpoint between every pair of neighbouring finite f16 values
  // (f32 holds it exactly), and one f32 unit either side.
  for (uint32_t h = 0; h < 0x7bff; ++h)
    for (uint32_t sign : {0u, 0x8000u}) {
      double lo = f16ToFloat(static_cast<uint16_t>(sign | h));
      double hi = f16ToFloat(static_cast<uint16_t>(sign | (h + 1)));
      uint32_t mid = bitsOf(static_cast<float>((lo + hi) / 2));
      bits.push_back(mid);
      bits.push_back(mid - 1);
      bits.push_back(mid + 1);
    }
  // Random values over f16's range and beyond, and random bit patterns.
  std::mt19937 gen(102);
  std::uniform_int_distribution<uint32_t> exponent(90, 150);
  for (int i = 0; i < (1 << 18); ++i) {
    uint32_t b = gen();
    bits.push_back(b);
    bits.push_back((b & 0x807fffffu) | (exponent(gen) << 23));
  }
  expectRoundsLikeHost(bits, DType::kF16);
}

/// Every 16-bit pattern widens exactly (NaN to a NaN).
void expectWidensExactly(DType dtype) {
  std::vector<uint16_t> all(1 << 16);
  for (uint32_t i = 0; i < all.size(); ++i)
    all[i] = static_cast<uint16_t>(i);
  int64_t n = static_cast<int64_t>(all.size());
  DeviceTensor in(dtype, {n}), out(DType::kF32, {n});
  in.write(all);
  HETC_EXPECT_CUDA_OK(cast(in.view(), out.view()));
  std::vector<uint32_t> got = out.read<uint32_t>();
  int misses = 0;
  for (uint32_t i = 0; i < all.size() && misses < 10; ++i) {
    float want = dtype == DType::kBF16 ? bf16ToFloat(all[i]) : f16ToFloat(all[i]);
    bool ok = std::isnan(want) ? std::isnan(floatOf(got[i]))
                               : got[i] == bitsOf(want);
    if (!ok) {
      ADD_FAILURE() << dtypeName(dtype) << " 0x" << std::hex << i
                    << " widened to 0x" << got[i] << ", want 0x" << bitsOf(want)
                    << std::dec;
      ++misses;
    }
  }
}

TEST(CudaHalfTest, Bf16ToF32IsExact) {
  HETC_REQUIRE_CUDA();
  expectWidensExactly(DType::kBF16);
}

TEST(CudaHalfTest, F16ToF32IsExact) {
  HETC_REQUIRE_CUDA();
  expectWidensExactly(DType::kF16);
}

// Narrowing f16 <-> bf16 rounds once, from the exact f32 value.
TEST(CudaHalfTest, HalfToHalfRoundsOnce) {
  HETC_REQUIRE_CUDA();
  std::vector<uint16_t> all(1 << 16);
  for (uint32_t i = 0; i < all.size(); ++i)
    all[i] = static_cast<uint16_t>(i);
  int64_t n = static_cast<int64_t>(all.size());
  for (DType from : {DType::kBF16, DType::kF16}) {
    DType to = from == DType::kBF16 ? DType::kF16 : DType::kBF16;
    DeviceTensor in(from, {n}), out(to, {n});
    in.write(all);
    HETC_EXPECT_CUDA_OK(cast(in.view(), out.view()));
    std::vector<uint16_t> got = out.read<uint16_t>();
    int misses = 0;
    for (uint32_t i = 0; i < all.size() && misses < 10; ++i) {
      float v = from == DType::kBF16 ? bf16ToFloat(all[i]) : f16ToFloat(all[i]);
      uint16_t want = to == DType::kBF16 ? floatToBf16(v) : floatToF16(v);
      bool ok = std::isnan(v) ? isHalfNaN(to, got[i]) : got[i] == want;
      if (!ok) {
        ADD_FAILURE() << dtypeName(from) << " 0x" << std::hex << i << " to "
                      << dtypeName(to) << ": got 0x" << got[i] << ", want 0x"
                      << want << std::dec;
        ++misses;
      }
    }
  }
}

} // namespace
} // namespace hetc::runtime::cuda::test
