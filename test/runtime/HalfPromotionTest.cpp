//===- HalfPromotionTest.cpp - bf16 and f16 launches on the CPU -----------===//
//
// A launch over bf16 or f16 buffers must give what the f32 kernel gives on
// the widened values, rounded once to the 16-bit type: each test runs one
// program with 16-bit buffers and the same program in f32 over the widened
// inputs, and compares the bits.
//
//===----------------------------------------------------------------------===//

#include "runtime/base/Half.h"
#include "runtime/exec/Executor.h"

#include "ProgramBuilder.h"
#include "TestUtil.h"

#include <cstring>

namespace hetc::runtime::test {
namespace {

using exec::RankExecutor;

/// `value` rounded to `dtype` and widened back (f32 stays as it is).
float roundTo(pkg::DType dtype, float value) {
  if (dtype == pkg::BF16)
    return bf16ToFloat(floatToBf16(value));
  if (dtype == pkg::F16)
    return f16ToFloat(floatToF16(value));
  return value;
}

const char *safetensorsName(pkg::DType dtype) {
  return dtype == pkg::BF16 ? "BF16" : dtype == pkg::F16 ? "F16" : "F32";
}

/// One program of float buffers of chosen dtypes: inputs are constants
/// (16-bit ones hold the rounded values), outputs activations.
struct FloatProgram {
  ProgramBuilder b{1, 1, 4};
  std::vector<hetc::package::NamedTensor> constants;
  exec::LoadedPackage package;
  std::unique_ptr<RankExecutor> rank;

  FloatProgram() {
    b.buffer("input_ids", pkg::I64, {1, 1}, pkg::INPUT, pkg::TOKENS);
    b.setLoss(b.f32("loss", {}));
  }
  int input(pkg::DType dtype, const F32 &t) {
    std::string name = "in" + std::to_string(constants.size());
    int id = b.buffer(name, dtype, t.shape, pkg::CONSTANT);
    hetc::package::NamedTensor tensor{
        name, safetensorsName(dtype), t.shape, {}};
    for (float value : t.v) {
      uint8_t bytes[4];
      size_t size = 4;
      if (dtype == pkg::BF16 || dtype == pkg::F16) {
        uint16_t bits =
            dtype == pkg::BF16 ? floatToBf16(value) : floatToF16(value);
        std::memcpy(bytes, &bits, 2);
        size = 2;
      } else {
        std::memcpy(bytes, &value, 4);
      }
      tensor.data.insert(tensor.data.end(), bytes, bytes + size);
    }
    constants.push_back(std::move(tensor));
    return id;
  }
  int output(pkg::DType dtype, Shape shape) {
    return b.buffer("out" + std::to_string(b.program().buffers_size()), dtype,
                    std::move(shape), pkg::ACTIVATION);
  }
  Status run() {
    package = b.package();
    package.constants = constants;
    HETC_RETURN_IF_ERROR(
        RankExecutor::create(package, 0, exec::cpuKernelRegistry(), &rank));
    return rank->runInstructions();
  }
  /// Buffer `id`'s values, widened to f32.
  std::vector<float> values(int id) const {
    const TensorView &v = rank->buffers().view(id);
    std::vector<float> out;
    for (int64_t i = 0; i < v.numel(); ++i) {
      if (v.dtype == DType::kBF16)
        out.push_back(bf16ToFloat(v.as<uint16_t>()[i]));
      else if (v.dtype == DType::kF16)
        out.push_back(f16ToFloat(v.as<uint16_t>()[i]));
      else
        out.push_back(v.as<float>()[i]);
    }
    return out;
  }
};

/// `t` as the 16-bit type holds it.
F32 rounded(pkg::DType dtype, F32 t) {
  for (float &value : t.v)
    value = roundTo(dtype, value);
  return t;
}

std::vector<float> rounded(pkg::DType dtype, std::vector<float> values) {
  for (float &value : values)
    value = roundTo(dtype, value);
  return values;
}

class HalfPromotion : public ::testing::TestWithParam<pkg::DType> {};

TEST_P(HalfPromotion, MatmulIsTheF32KernelRoundedOnce) {
  pkg::DType dtype = GetParam();
  F32 a = rounded(dtype, randomF32({2, 3, 5})),
      w = rounded(dtype, randomF32({4, 5})), bias = randomF32({4});
  auto launch = [&](FloatProgram &p, pkg::DType type) {
    int out = p.output(type, {2, 3, 4});
    pkg::Instruction &inst = p.b.launch(
        "matmul", {p.input(type, a), p.input(type, w), p.input(pkg::F32, bias)},
        {out});
    setBool(inst, "transpose_rhs", true);
    return out;
  };
  FloatProgram half, full;
  int halfOut = launch(half, dtype), fullOut = launch(full, pkg::F32);
  HETC_ASSERT_OK(half.run());
  HETC_ASSERT_OK(full.run());
  EXPECT_EQ(half.values(halfOut), rounded(dtype, full.values(fullOut)));
}

// A 16-bit operand next to an f32 result: the loss stays f32, unrounded.
TEST_P(HalfPromotion, CrossEntropyOfLowPrecisionLogitsIsF32) {
  pkg::DType dtype = GetParam();
  F32 logits = rounded(dtype, randomF32({6, 8}, -3.0f, 3.0f));
  F32 labels({6}, {0, 7, 3, 3, 1, 5});
  auto launch = [&](FloatProgram &p, pkg::DType type) {
    int ids = p.b.buffer("labels", pkg::I64, {6}, pkg::CONSTANT);
    hetc::package::NamedTensor tensor{"labels", "I64", {6}, {}};
    for (float label : labels.v) {
      int64_t value = static_cast<int64_t>(label);
      uint8_t bytes[8];
      std::memcpy(bytes, &value, 8);
      tensor.data.insert(tensor.data.end(), bytes, bytes + 8);
    }
    p.constants.push_back(tensor);
    int out = p.output(pkg::F32, {});
    pkg::Instruction &inst =
        p.b.launch("cross_entropy", {p.input(type, logits), ids}, {out});
    setString(inst, "reduction", "sum");
    return out;
  };
  FloatProgram half, full;
  int halfOut = launch(half, dtype), fullOut = launch(full, pkg::F32);
  HETC_ASSERT_OK(half.run());
  HETC_ASSERT_OK(full.run());
  EXPECT_EQ(half.values(halfOut), full.values(fullOut));
}

// cast is not promoted: it makes the 16-bit values the next launch updates
// in place (its result over its first operand), which must stay in place.
TEST_P(HalfPromotion, InPlaceResultSharesItsOperandsCopy) {
  pkg::DType dtype = GetParam();
  F32 x = randomF32({3, 4}), y = rounded(dtype, randomF32({4}));
  auto build = [&](FloatProgram &p, pkg::DType type) {
    int low = p.output(type, {3, 4});
    pkg::Instruction &cast = p.b.launch("cast", {p.input(pkg::F32, x)}, {low});
    setString(cast, "to", type == pkg::BF16 ? "bf16" : "f16");
    p.b.launch("mul", {low, p.input(type, y)}, {low});
    p.b.launch("add", {low, low}, {low});
    return low;
  };
  FloatProgram half;
  int halfOut = build(half, dtype);
  HETC_ASSERT_OK(half.run());
  // Each launch rounds once: the reference rounds after every step too.
  std::vector<float> expected;
  for (int64_t i = 0; i < x.numel(); ++i) {
    float product = roundTo(dtype, roundTo(dtype, x.v[i]) * y.v[i % 4]);
    expected.push_back(roundTo(dtype, product + product));
  }
  EXPECT_EQ(half.values(halfOut), expected);
}

INSTANTIATE_TEST_SUITE_P(LowPrecision, HalfPromotion,
                         ::testing::Values(pkg::BF16, pkg::F16),
                         [](const auto &info) {
                           return std::string(safetensorsName(info.param));
                         });

// Kernels reached with f32 buffers only run their adapter unchanged.
TEST(HalfPromotionF32, LaunchesWithoutHalfBuffersAreUnchanged) {
  F32 x = randomF32({5});
  FloatProgram p;
  int out = p.output(pkg::F32, {5});
  p.b.launch("tanh", {p.input(pkg::F32, x)}, {out});
  HETC_ASSERT_OK(p.run());
  std::vector<float> expected;
  for (float v : x.v)
    expected.push_back(std::tanh(v));
  std::vector<float> got = p.values(out);
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], expected[i], 1e-6f);
}

} // namespace
} // namespace hetc::runtime::test
