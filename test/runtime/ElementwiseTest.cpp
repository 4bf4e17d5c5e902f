//===- ElementwiseTest.cpp - unary, binary, where, cast --------------------===//

#include "runtime/base/Half.h"
#include "runtime/cpu/Elementwise.h"

#include "TestUtil.h"

#include <limits>

namespace hetc::runtime::test {
namespace {

using cpu::BinaryOp;
using cpu::UnaryOp;

double referenceUnary(UnaryOp op, double x) {
  const double pi = 3.14159265358979323846;
  switch (op) {
  case UnaryOp::kNeg:
    return -x;
  case UnaryOp::kSqrt:
    return std::sqrt(x);
  case UnaryOp::kReciprocal:
    return 1 / x;
  case UnaryOp::kExp:
    return std::exp(x);
  case UnaryOp::kLog:
    return std::log(x);
  case UnaryOp::kTanh:
    return std::tanh(x);
  case UnaryOp::kCos:
    return std::cos(x);
  case UnaryOp::kSin:
    return std::sin(x);
  case UnaryOp::kErf:
    return std::erf(x);
  case UnaryOp::kSigmoid:
    return 1 / (1 + std::exp(-x));
  case UnaryOp::kRelu:
    return x > 0 ? x : 0;
  case UnaryOp::kGeluErf:
    return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  case UnaryOp::kGeluTanh:
    return 0.5 * x *
           (1 + std::tanh(std::sqrt(2 / pi) * (x + 0.044715 * x * x * x)));
  case UnaryOp::kSilu:
    return x / (1 + std::exp(-x));
  }
  return 0;
}

const UnaryOp kAllUnary[] = {
    UnaryOp::kNeg,     UnaryOp::kSqrt,    UnaryOp::kReciprocal,
    UnaryOp::kExp,     UnaryOp::kLog,     UnaryOp::kTanh,
    UnaryOp::kCos,     UnaryOp::kSin,     UnaryOp::kErf,     UnaryOp::kSigmoid, UnaryOp::kRelu,
    UnaryOp::kGeluErf, UnaryOp::kGeluTanh, UnaryOp::kSilu};

// Inputs inside the op's domain and away from relu's kink.
F32 unaryInput(UnaryOp op, Shape shape) {
  bool positive = op == UnaryOp::kSqrt || op == UnaryOp::kLog ||
                  op == UnaryOp::kReciprocal;
  F32 x = positive ? randomF32(std::move(shape), 0.3f, 3.0f)
                   : randomF32(std::move(shape), -3.0f, 3.0f);
  for (float &v : x.v)
    if (std::fabs(v) < 0.05f)
      v = 0.5f;
  return x;
}

class UnaryOps : public ::testing::TestWithParam<UnaryOp> {};

TEST_P(UnaryOps, ForwardMatchesReference) {
  UnaryOp op = GetParam();
  F32 x = unaryInput(op, {3, 37});
  F32 y(x.shape);
  HETC_ASSERT_OK(cpu::unary(op, x.view(), y.view()));
  std::vector<double> want(x.v.size());
  for (size_t i = 0; i < want.size(); ++i)
    want[i] = referenceUnary(op, x.v[i]);
  EXPECT_TRUE(allClose(y.v, want, 1e-6, 1e-6)) << cpu::unaryOpName(op);
}

TEST_P(UnaryOps, BackwardMatchesFiniteDifferences) {
  UnaryOp op = GetParam();
  F32 x = unaryInput(op, {2, 19});
  F32 dy = randomF32(x.shape), dx(x.shape);
  HETC_ASSERT_OK(cpu::unaryBackward(op, x.view(), dy.view(), dx.view()));
  std::vector<double> w = dy.asDouble();
  std::vector<double> want = numericGrad(
      [&](const std::vector<double> &xv) {
        double s = 0;
        for (size_t i = 0; i < xv.size(); ++i)
          s += w[i] * referenceUnary(op, xv[i]);
        return s;
      },
      x.asDouble());
  EXPECT_TRUE(allClose(dx.v, want, 1e-5, 1e-5)) << cpu::unaryOpName(op);
}

INSTANTIATE_TEST_SUITE_P(Elementwise, UnaryOps, ::testing::ValuesIn(kAllUnary),
                         [](const auto &info) {
                           return std::string(cpu::unaryOpName(info.param));
                         });

TEST(Unary, HandComputedValues) {
  F32 x({3}, {-1.0f, 0.0f, 1.0f}), y({3});
  HETC_ASSERT_OK(cpu::unary(UnaryOp::kGeluErf, x.view(), y.view()));
  EXPECT_TRUE(allClose(y.v, std::vector<double>{-0.15865525393145707, 0.0,
                                                0.8413447460685429},
                       1e-7, 1e-6));
  HETC_ASSERT_OK(cpu::unary(UnaryOp::kGeluTanh, x.view(), y.view()));
  EXPECT_TRUE(allClose(y.v, std::vector<double>{-0.15880800939172324, 0.0,
                                                0.8411919906082768},
                       1e-7, 1e-6));
  HETC_ASSERT_OK(cpu::unary(UnaryOp::kSilu, x.view(), y.view()));
  EXPECT_TRUE(allClose(
      y.v, std::vector<double>{-0.2689414213699951, 0.0, 0.7310585786300049},
      1e-7, 1e-6));
  HETC_ASSERT_OK(cpu::unary(UnaryOp::kSigmoid, x.view(), y.view()));
  EXPECT_FLOAT_EQ(y.v[1], 0.5f);
}

TEST(Unary, NegOnIntegers) {
  I64 x({3}, {1, -5, 7}), y({3});
  HETC_ASSERT_OK(cpu::unary(UnaryOp::kNeg, x.view(), y.view()));
  EXPECT_EQ(y.v, (std::vector<int64_t>{-1, 5, -7}));
}

TEST(Unary, Errors) {
  I64 xi({3}), yi({3});
  EXPECT_TRUE(isError(cpu::unary(UnaryOp::kExp, xi.view(), yi.view()),
                      StatusCode::kInvalidArgument,
                      "exp: x must be f32, got i64[3]"));
  F32 x({3}), y({4});
  EXPECT_TRUE(isError(cpu::unary(UnaryOp::kTanh, x.view(), y.view()),
                      StatusCode::kInvalidArgument,
                      "tanh: y must have shape [3], got [4]"));
  EXPECT_TRUE(isError(
      cpu::unaryBackward(UnaryOp::kSilu, x.view(), x.view(), y.view()),
      StatusCode::kInvalidArgument, "silu_backward: dx must have shape [3]"));
}

double referenceBinary(BinaryOp op, double a, double b) {
  switch (op) {
  case BinaryOp::kAdd:
    return a + b;
  case BinaryOp::kSub:
    return a - b;
  case BinaryOp::kMul:
    return a * b;
  case BinaryOp::kDiv:
    return a / b;
  case BinaryOp::kPow:
    return std::pow(a, b);
  case BinaryOp::kMinimum:
    return std::min(a, b);
  case BinaryOp::kMaximum:
    return std::max(a, b);
  case BinaryOp::kMod:
    return a - b * std::floor(a / b);
  case BinaryOp::kFmod:
    return std::fmod(a, b);
  }
  return 0;
}

struct BinaryCase {
  BinaryOp op;
  Shape a, b;
};

void PrintTo(const BinaryCase &c, std::ostream *os) {
  *os << cpu::binaryOpName(c.op) << " " << shapeToString(c.a) << ", "
      << shapeToString(c.b);
}

class BinaryOps : public ::testing::TestWithParam<BinaryCase> {};

TEST_P(BinaryOps, BroadcastMatchesReference) {
  const BinaryCase &p = GetParam();
  // Positive bases keep pow real.
  F32 a = randomF32(p.a, 0.5f, 2.0f), b = randomF32(p.b, 0.5f, 2.0f);
  Shape os = broadcastShape(p.a, p.b);
  F32 out(os);
  HETC_ASSERT_OK(cpu::binary(p.op, a.view(), b.view(), out.view()));
  std::vector<double> want(out.v.size());
  for (int64_t i = 0; i < out.numel(); ++i) {
    std::vector<int64_t> idx = unravel(i, os);
    want[i] = referenceBinary(p.op, a.v[broadcastFlat(idx, p.a)],
                              b.v[broadcastFlat(idx, p.b)]);
  }
  EXPECT_TRUE(allClose(out.v, want, 1e-6, 1e-6)) << cpu::binaryOpName(p.op);
}

INSTANTIATE_TEST_SUITE_P(
    Elementwise, BinaryOps,
    ::testing::Values(BinaryCase{BinaryOp::kAdd, {2, 3, 4}, {2, 3, 4}},
                      BinaryCase{BinaryOp::kAdd, {2, 1, 4}, {3, 1}},
                      BinaryCase{BinaryOp::kSub, {4}, {2, 3, 4}},
                      BinaryCase{BinaryOp::kSub, {}, {2, 3}},
                      BinaryCase{BinaryOp::kMul, {2, 3, 1}, {1, 3, 5}},
                      BinaryCase{BinaryOp::kMul, {5, 1, 1, 3}, {2, 1}},
                      BinaryCase{BinaryOp::kDiv, {2, 3}, {}},
                      BinaryCase{BinaryOp::kDiv, {1, 70}, {64, 1}},
                      BinaryCase{BinaryOp::kPow, {3, 4}, {4}},
                      BinaryCase{BinaryOp::kPow, {3, 1}, {3, 4}},
                      BinaryCase{BinaryOp::kMinimum, {2, 3, 4}, {3, 1}},
                      BinaryCase{BinaryOp::kMinimum, {}, {5}},
                      BinaryCase{BinaryOp::kMaximum, {2, 5}, {2, 5}},
                      BinaryCase{BinaryOp::kMaximum, {4, 1}, {1, 6}},
                      BinaryCase{BinaryOp::kMod, {2, 3}, {3}},
                      BinaryCase{BinaryOp::kFmod, {4, 1}, {1, 6}}));

// mod takes the divisor's sign, fmod the dividend's; integers by 0 give 0.
TEST(Binary, ModSigns) {
  F32 a({4}, {5.5f, -5.5f, 5.5f, -5.5f}), b({4}, {2.0f, 2.0f, -2.0f, -2.0f});
  F32 mod({4}), fmod({4});
  HETC_ASSERT_OK(cpu::binary(BinaryOp::kMod, a.view(), b.view(), mod.view()));
  HETC_ASSERT_OK(cpu::binary(BinaryOp::kFmod, a.view(), b.view(), fmod.view()));
  EXPECT_EQ(mod.v, (std::vector<float>{1.5f, 0.5f, -0.5f, -1.5f}));
  EXPECT_EQ(fmod.v, (std::vector<float>{1.5f, -1.5f, 1.5f, -1.5f}));
  I64 ia({5}, {7, -7, 7, -7, 7}), ib({5}, {3, 3, -3, -3, 0}), io({5});
  HETC_ASSERT_OK(cpu::binary(BinaryOp::kMod, ia.view(), ib.view(), io.view()));
  EXPECT_EQ(io.v, (std::vector<int64_t>{1, 2, -2, -1, 0}));
  HETC_ASSERT_OK(cpu::binary(BinaryOp::kFmod, ia.view(), ib.view(), io.view()));
  EXPECT_EQ(io.v, (std::vector<int64_t>{1, -1, 1, -1, 0}));
}

TEST(Binary, MinimumMaximumValues) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  F32 a({4}, {1.0f, -2.0f, nan, 3.0f}), b({4}, {0.5f, -1.0f, 0.0f, nan});
  F32 lo({4}), hi({4});
  HETC_ASSERT_OK(cpu::binary(BinaryOp::kMinimum, a.view(), b.view(), lo.view()));
  HETC_ASSERT_OK(cpu::binary(BinaryOp::kMaximum, a.view(), b.view(), hi.view()));
  EXPECT_EQ(lo.v[0], 0.5f);
  EXPECT_EQ(lo.v[1], -2.0f);
  EXPECT_TRUE(std::isnan(lo.v[2]) && std::isnan(lo.v[3]));
  EXPECT_EQ(hi.v[0], 1.0f);
  EXPECT_EQ(hi.v[1], -1.0f);
  EXPECT_TRUE(std::isnan(hi.v[2]) && std::isnan(hi.v[3]));
  I64 ia({3}, {4, -7, 2}), ib({1}, {0}), io({3});
  HETC_ASSERT_OK(cpu::binary(BinaryOp::kMaximum, ia.view(), ib.view(), io.view()));
  EXPECT_EQ(io.v, (std::vector<int64_t>{4, 0, 2}));
  HETC_ASSERT_OK(cpu::binary(BinaryOp::kMinimum, ia.view(), ib.view(), io.view()));
  EXPECT_EQ(io.v, (std::vector<int64_t>{0, -7, 0}));
}

// The executor writes results over same-shaped operands (in-place parameter
// and state updates): every element is read before it is written.
TEST(Binary, InPlaceOverOperand) {
  F32 a({2, 3}, {1, 2, 3, 4, 5, 6}), b({3}, {10, 20, 30});
  HETC_ASSERT_OK(cpu::binary(BinaryOp::kSub, a.view(), b.view(), a.view()));
  EXPECT_EQ(a.v, (std::vector<float>{-9, -18, -27, -6, -15, -24}));
  F32 c({3}, {1, 50, 3}), d({2, 3}, {2, 2, 2, 40, 40, 40});
  HETC_ASSERT_OK(cpu::binary(BinaryOp::kMaximum, c.view(), d.view(), d.view()));
  EXPECT_EQ(d.v, (std::vector<float>{2, 50, 3, 40, 50, 40}));
}

TEST(Binary, IntegerArithmetic) {
  I64 a({2, 2}, {1, 2, 3, 4}), b({2}, {10, -20}), out({2, 2});
  HETC_ASSERT_OK(cpu::binary(BinaryOp::kAdd, a.view(), b.view(), out.view()));
  EXPECT_EQ(out.v, (std::vector<int64_t>{11, -18, 13, -16}));
  HETC_ASSERT_OK(cpu::binary(BinaryOp::kMul, a.view(), b.view(), out.view()));
  EXPECT_EQ(out.v, (std::vector<int64_t>{10, -40, 30, -80}));
  I32 c({2}, {5, 6}), d({1}, {2}), e({2});
  HETC_ASSERT_OK(cpu::binary(BinaryOp::kSub, c.view(), d.view(), e.view()));
  EXPECT_EQ(e.v, (std::vector<int32_t>{3, 4}));
}

// Regression: hetg.pow accepts integers and the lowering emits them (ONNX
// Pow over int32/int64), but the kernel rejected them at run time. Exact
// powers, beyond what a double round trip keeps for i64.
TEST(Binary, IntegerPow) {
  I64 a({5}, {3, -2, 7, 1, -1}), b({5}, {4, 3, 0, -5, -3}), out({5});
  HETC_ASSERT_OK(cpu::binary(BinaryOp::kPow, a.view(), b.view(), out.view()));
  EXPECT_EQ(out.v, (std::vector<int64_t>{81, -8, 1, 1, -1}));
  I64 big({1}, {3}), e39({1}, {39}), p({1});
  HETC_ASSERT_OK(cpu::binary(BinaryOp::kPow, big.view(), e39.view(), p.view()));
  EXPECT_EQ(p.v[0], 4052555153018976267LL); // 3^39, not representable as double
  I32 c({3}, {2, 5, 2}), d({3}, {10, -1, 31}), f({3});
  HETC_ASSERT_OK(cpu::binary(BinaryOp::kPow, c.view(), d.view(), f.view()));
  EXPECT_EQ(f.v, (std::vector<int32_t>{1024, 0, static_cast<int32_t>(0x80000000u)}));
}

TEST(Binary, Errors) {
  F32 a({2, 3}), b({4}), out({2, 3});
  EXPECT_TRUE(isError(cpu::binary(BinaryOp::kAdd, a.view(), b.view(), out.view()),
                      StatusCode::kInvalidArgument,
                      "add: shapes [2,3] and [4] do not broadcast"));
  F32 b2({3}), wrong({3, 2});
  EXPECT_TRUE(isError(
      cpu::binary(BinaryOp::kMul, a.view(), b2.view(), wrong.view()),
      StatusCode::kInvalidArgument, "mul: out must have shape [2,3]"));
  I64 ia({2}), ib({2}), io({2});
  EXPECT_TRUE(isError(cpu::binary(BinaryOp::kDiv, ia.view(), ib.view(), io.view()),
                      StatusCode::kInvalidArgument,
                      "div: unsupported dtype i64"));
  EXPECT_TRUE(isError(cpu::binary(BinaryOp::kAdd, a.view(), ia.view(), out.view()),
                      StatusCode::kInvalidArgument,
                      "add: operands must share a dtype"));
}

TEST(Equal, FloatAndIntegerWithBroadcast) {
  F32 a({2, 3}, {1, 2, 3, 4, 5, 6}), b({3}, {1, 5, 6});
  Bool out({2, 3});
  HETC_ASSERT_OK(cpu::equal(a.view(), b.view(), out.view()));
  EXPECT_EQ(out.v, (std::vector<uint8_t>{1, 0, 0, 0, 1, 1}));
  I64 c({3, 1}, {0, 1, 2}), d({1, 3}, {2, 1, 0});
  Bool eq({3, 3});
  HETC_ASSERT_OK(cpu::equal(c.view(), d.view(), eq.view()));
  EXPECT_EQ(eq.v, (std::vector<uint8_t>{0, 0, 1, 0, 1, 0, 1, 0, 0}));
  F32 wrongOut({2, 3});
  EXPECT_TRUE(isError(cpu::equal(a.view(), b.view(), wrongOut.view()),
                      StatusCode::kInvalidArgument,
                      "equal: out must be bool, got f32[2,3]"));
}

TEST(Where, ThreeWayBroadcast) {
  Bool cond({2, 1}, {1, 0});
  F32 t = randomF32({3}), f = randomF32({2, 3});
  F32 out({2, 3});
  HETC_ASSERT_OK(cpu::where(cond.view(), t.view(), f.view(), out.view()));
  std::vector<float> want = {t.v[0], t.v[1], t.v[2], f.v[3], f.v[4], f.v[5]};
  EXPECT_EQ(out.v, want);
  // An additive causal mask: where(tril, 0, -inf) on i64 works the same.
  Bool tri({2, 2}, {1, 0, 1, 1});
  I64 zero({}, {0}), big({}, {-9}), mask({2, 2});
  HETC_ASSERT_OK(cpu::where(tri.view(), zero.view(), big.view(), mask.view()));
  EXPECT_EQ(mask.v, (std::vector<int64_t>{0, -9, 0, 0}));
}

TEST(Where, Errors) {
  F32 c({2}), a({2}), out({2});
  EXPECT_TRUE(isError(cpu::where(c.view(), a.view(), a.view(), out.view()),
                      StatusCode::kInvalidArgument,
                      "where: cond must be bool, got f32[2]"));
  Bool cb({2});
  I64 ai({2});
  EXPECT_TRUE(isError(cpu::where(cb.view(), a.view(), ai.view(), out.view()),
                      StatusCode::kInvalidArgument, "must share a dtype"));
}

struct ReduceToCase {
  Shape grad, target;
};

void PrintTo(const ReduceToCase &c, std::ostream *os) {
  *os << shapeToString(c.grad) << " to " << shapeToString(c.target);
}

class ReduceToShape : public ::testing::TestWithParam<ReduceToCase> {};

TEST_P(ReduceToShape, SumsBroadcastDimensions) {
  const ReduceToCase &p = GetParam();
  F32 grad = randomF32(p.grad);
  std::vector<double> want(numElements(p.target), 0.0);
  for (int64_t i = 0; i < grad.numel(); ++i)
    want[broadcastFlat(unravel(i, p.grad), p.target)] += grad.v[i];
  F32 out(p.target);
  HETC_ASSERT_OK(cpu::reduceToShape(grad.view(), out.view(), false));
  EXPECT_TRUE(allClose(out.v, want, 1e-6, 1e-6));
  HETC_ASSERT_OK(cpu::reduceToShape(grad.view(), out.view(), true));
  for (double &w : want)
    w *= 2;
  EXPECT_TRUE(allClose(out.v, want, 1e-6, 1e-6));
}

INSTANTIATE_TEST_SUITE_P(
    Elementwise, ReduceToShape,
    ::testing::Values(ReduceToCase{{2, 3, 4}, {3, 1}}, ReduceToCase{{2, 3, 4}, {4}},
                      ReduceToCase{{2, 3, 4}, {}}, ReduceToCase{{2, 3, 4}, {2, 3, 4}},
                      ReduceToCase{{2, 3, 4}, {2, 1, 4}},
                      ReduceToCase{{5, 1, 70}, {1, 1, 70}},
                      ReduceToCase{{3, 130}, {3, 1}}));

TEST(ReduceToShape, IncompatibleShape) {
  F32 grad({2, 3}), out({2});
  EXPECT_TRUE(isError(cpu::reduceToShape(grad.view(), out.view(), false),
                      StatusCode::kInvalidArgument,
                      "reduce_to_shape: shape [2] does not broadcast to [2,3]"));
}

TEST(Cast, FloatToIntegerTruncatesAndSaturates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  F32 x({6}, {-1.7f, 2.9f, 0.0f, nan, 1e30f, -1e30f});
  I64 y({6});
  HETC_ASSERT_OK(cpu::cast(x.view(), y.view()));
  EXPECT_EQ(y.v, (std::vector<int64_t>{-1, 2, 0, 0,
                                       std::numeric_limits<int64_t>::max(),
                                       std::numeric_limits<int64_t>::min()}));
  I32 z({6});
  HETC_ASSERT_OK(cpu::cast(x.view(), z.view()));
  EXPECT_EQ(z.v[4], std::numeric_limits<int32_t>::max());
  Bool b({6});
  HETC_ASSERT_OK(cpu::cast(x.view(), b.view()));
  EXPECT_EQ(b.v, (std::vector<uint8_t>{1, 1, 0, 1, 1, 1}));
}

TEST(Cast, BetweenIntegersBoolAndFloat) {
  Bool b({3}, {0, 1, 1});
  F32 f({3});
  HETC_ASSERT_OK(cpu::cast(b.view(), f.view()));
  EXPECT_EQ(f.v, (std::vector<float>{0, 1, 1}));
  I64 i({3}, {-3, 0, 1LL << 40});
  I32 j({3});
  HETC_ASSERT_OK(cpu::cast(i.view(), j.view()));
  EXPECT_EQ(j.v, (std::vector<int32_t>{-3, 0, 0})); // narrowing wraps
  HETC_ASSERT_OK(cpu::cast(i.view(), f.view()));
  EXPECT_EQ(f.v, (std::vector<float>{-3.0f, 0.0f, 1099511627776.0f}));
  Owned<double> d({3});
  HETC_ASSERT_OK(cpu::cast(f.view(), d.view()));
  EXPECT_EQ(d.v[2], 1099511627776.0);
  F32 wrong({2});
  EXPECT_TRUE(isError(cpu::cast(i.view(), wrong.view()),
                      StatusCode::kInvalidArgument,
                      "cast: out must have shape [3], got [2]"));
}

// 16-bit tensors hold bit patterns; views over uint16_t storage.
TensorView halfView(std::vector<uint16_t> &bits, DType dtype) {
  return TensorView(bits.data(), dtype, {static_cast<int64_t>(bits.size())});
}

TEST(Cast, ToBf16AndF16RoundsToNearestEven) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Halfway cases go to the even neighbour; -2.5 is exact.
  F32 x({4}, {1.0f + 0x1p-8f, 1.0f + 0x3p-8f, -2.5f, nan});
  std::vector<uint16_t> bf16(4);
  HETC_ASSERT_OK(cpu::cast(x.view(), halfView(bf16, DType::kBF16)));
  EXPECT_EQ(bf16[0], 0x3F80);
  EXPECT_EQ(bf16[1], 0x3F82);
  EXPECT_EQ(bf16[2], 0xC020);
  EXPECT_TRUE(std::isnan(bf16ToFloat(bf16[3])));
  // f16: the largest finite value, overflow to infinity, a value below half
  // the smallest subnormal, the smallest subnormal, a halfway case.
  F32 y({5}, {65504.0f, 65520.0f, 1e-8f, 0x1p-24f, 1.0f + 0x1p-11f});
  std::vector<uint16_t> f16(5);
  HETC_ASSERT_OK(cpu::cast(y.view(), halfView(f16, DType::kF16)));
  EXPECT_EQ(f16, (std::vector<uint16_t>{0x7BFF, 0x7C00, 0x0000, 0x0001, 0x3C00}));
  // From integers and bool, through f32.
  I64 i({2}, {3, -1});
  std::vector<uint16_t> fromInt(2);
  HETC_ASSERT_OK(cpu::cast(i.view(), halfView(fromInt, DType::kF16)));
  EXPECT_EQ(fromInt, (std::vector<uint16_t>{0x4200, 0xBC00}));
  Bool b({2}, {1, 0});
  std::vector<uint16_t> fromBool(2);
  HETC_ASSERT_OK(cpu::cast(b.view(), halfView(fromBool, DType::kBF16)));
  EXPECT_EQ(fromBool, (std::vector<uint16_t>{0x3F80, 0x0000}));
}

TEST(Cast, FromBf16AndF16WidensExactly) {
  std::vector<uint16_t> bf16 = {0x3F81, 0xC020, 0x0001}; // 1+2^-7, -2.5, tiny
  F32 f({3});
  HETC_ASSERT_OK(cpu::cast(halfView(bf16, DType::kBF16), f.view()));
  EXPECT_EQ(f.v, (std::vector<float>{1.0f + 0x1p-7f, -2.5f, 0x1p-133f}));
  std::vector<uint16_t> f16 = {0x3C01, 0x8000, 0x7C00}; // 1+2^-10, -0, inf
  Owned<double> d({3});
  HETC_ASSERT_OK(cpu::cast(halfView(f16, DType::kF16), d.view()));
  EXPECT_EQ(d.v[0], 1.0 + 0x1p-10);
  EXPECT_EQ(d.v[1], 0.0);
  EXPECT_TRUE(std::isinf(d.v[2]));
  // To integers truncating, to bool testing for non-zero (-0 is zero).
  I64 i({3});
  HETC_ASSERT_OK(cpu::cast(halfView(bf16, DType::kBF16), i.view()));
  EXPECT_EQ(i.v, (std::vector<int64_t>{1, -2, 0}));
  Bool b({3});
  HETC_ASSERT_OK(cpu::cast(halfView(f16, DType::kF16), b.view()));
  EXPECT_EQ(b.v, (std::vector<uint8_t>{1, 0, 1}));
  // Between the 16-bit types: 1+2^-7 is exact in f16.
  std::vector<uint16_t> between(3);
  HETC_ASSERT_OK(
      cpu::cast(halfView(bf16, DType::kBF16), halfView(between, DType::kF16)));
  EXPECT_EQ(between[0], 0x3C08);
  EXPECT_EQ(between[1], 0xC100);
}

} // namespace
} // namespace hetc::runtime::test
