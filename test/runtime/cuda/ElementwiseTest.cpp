//===- ElementwiseTest.cpp - CUDA Elementwise against the CPU backend ---===//

#include "runtime/cpu/Elementwise.h"
#include "runtime/cuda/Elementwise.h"

#include "test/runtime/cuda/CudaTestUtil.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

namespace hetc::runtime::cuda::test {
namespace {

constexpr DType kFloatDTypes[] = {DType::kF32, DType::kBF16, DType::kF16};
constexpr DType kAllDTypes[] = {DType::kF32, DType::kF64,  DType::kI64,
                                DType::kI32, DType::kBool, DType::kBF16,
                                DType::kF16};
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::string caseName(const std::string &what, DType dtype, const Shape &a,
                     const Shape &b = {}) {
  return what + " " + dtypeName(dtype) + " " + shapeToString(a) + " " +
         shapeToString(b);
}

/// expectClose where NaN matches NaN and an infinity matches itself.
void expectNear(const std::vector<float> &got, const std::vector<float> &want,
                double rtol, double atol, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int misses = 0;
  for (size_t i = 0; i < got.size() && misses < 5; ++i) {
    if (std::isnan(want[i]) && std::isnan(got[i]))
      continue;
    if (std::isinf(want[i]) && got[i] == want[i])
      continue;
    double tol = atol + rtol * std::fabs(want[i]);
    if (!(std::fabs(double(got[i]) - double(want[i])) <= tol)) {
      ADD_FAILURE() << what << " [" << i << "]: got " << got[i] << ", want "
                    << want[i] << " (tolerance " << tol << ")";
      ++misses;
    }
  }
}

template <typename T>
std::unique_ptr<DeviceTensor> deviceOf(DType dtype, const Shape &shape,
                                       const std::vector<T> &values) {
  auto t = std::make_unique<DeviceTensor>(dtype, shape);
  if constexpr (std::is_same_v<T, float>)
    if (dtype != DType::kF32) {
      t->writeFloats(values);
      return t;
    }
  t->write(values);
  return t;
}

/// A view of `t` starting `offset` elements in: with an odd offset, 16-byte
/// packs cannot be used.
TensorView offsetView(const DeviceTensor &t, int64_t offset, Shape shape) {
  TensorView v = t.view();
  return TensorView(static_cast<char *>(v.data) + offset * dtypeSize(v.dtype),
                    v.dtype, std::move(shape));
}

std::vector<float> slice(const std::vector<float> &v, int64_t from) {
  return std::vector<float>(v.begin() + from, v.end());
}

//===----------------------------------------------------------------------===//
// unary, unaryBackward
//===----------------------------------------------------------------------===//

struct UnaryCase {
  UnaryOp op;
  float lo, hi; // the domain tested
};

constexpr UnaryCase kUnaryCases[] = {
    {UnaryOp::kNeg, -3, 3},         {UnaryOp::kSqrt, 0.1f, 4},
    {UnaryOp::kReciprocal, 0.25f, 2}, {UnaryOp::kExp, -3, 3},
    {UnaryOp::kLog, 0.1f, 4},       {UnaryOp::kTanh, -3, 3},
    {UnaryOp::kCos, -6, 6},         {UnaryOp::kSin, -6, 6},
    {UnaryOp::kErf, -3, 3},         {UnaryOp::kSigmoid, -6, 6},
    {UnaryOp::kRelu, -3, 3},        {UnaryOp::kGeluErf, -4, 4},
    {UnaryOp::kGeluTanh, -4, 4},    {UnaryOp::kSilu, -6, 6},
};

// Scalars, a pack-sized run, odd lengths (a short last pack), a large one.
const Shape kUnaryShapes[] = {{}, {8}, {7}, {3, 1027}, {65536}};

std::vector<float> cpuUnary(UnaryOp op, std::vector<float> x,
                            const Shape &shape) {
  std::vector<float> y(x.size());
  Status s = cpu::unary(op, makeView(x.data(), shape), makeView(y.data(), shape));
  EXPECT_TRUE(s.ok()) << s.toString();
  return y;
}

std::vector<float> cpuUnaryBackward(UnaryOp op, std::vector<float> x,
                                    std::vector<float> dy, const Shape &shape) {
  std::vector<float> dx(x.size());
  Status s = cpu::unaryBackward(op, makeView(x.data(), shape),
                                makeView(dy.data(), shape),
                                makeView(dx.data(), shape));
  EXPECT_TRUE(s.ok()) << s.toString();
  return dx;
}

TEST(CudaElementwiseTest, UnaryMatchesCpu) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kFloatDTypes)
    for (const UnaryCase &c : kUnaryCases)
      for (const Shape &shape : kUnaryShapes) {
        std::string name = caseName(unaryOpName(c.op), dtype, shape);
        std::vector<float> x = randomValues(numElements(shape), dtype, c.lo, c.hi);
        DeviceTensor dx(dtype, shape, x), dy(dtype, shape);
        HETC_EXPECT_CUDA_OK(unary(c.op, dx.view(), dy.view()));
        expectNear(dy.readFloats(), cpuUnary(c.op, x, shape),
                   storageTolerance(dtype), 1e-6, name);
      }
}

TEST(CudaElementwiseTest, UnaryInPlaceAndMisaligned) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kFloatDTypes) {
    Shape shape = {1031};
    std::vector<float> x = randomValues(1032, dtype, -4, 4);
    std::vector<float> want = cpuUnary(UnaryOp::kGeluTanh, slice(x, 1), shape);
    DeviceTensor buffer(dtype, {1032}, x);
    TensorView view = offsetView(buffer, 1, shape);
    HETC_EXPECT_CUDA_OK(unary(UnaryOp::kGeluTanh, view, view));
    std::vector<float> got = buffer.readFloats();
    EXPECT_EQ(got[0], x[0]) << "the element before the view is untouched";
    expectNear(slice(got, 1), want, storageTolerance(dtype), 1e-6,
               caseName("gelu_tanh in place", dtype, shape));

    // In place on an aligned buffer: the packed path.
    std::vector<float> y = randomValues(4096, dtype, -4, 4);
    DeviceTensor aligned(dtype, {4096}, y);
    HETC_EXPECT_CUDA_OK(unary(UnaryOp::kExp, aligned.view(), aligned.view()));
    expectNear(aligned.readFloats(), cpuUnary(UnaryOp::kExp, y, {4096}),
               storageTolerance(dtype), 1e-6,
               caseName("exp in place", dtype, {4096}));
  }
}

TEST(CudaElementwiseTest, NegOfIntegersWraps) {
  HETC_REQUIRE_CUDA();
  std::vector<int64_t> x64 = {0, 1, -1, 42, -7,
                              std::numeric_limits<int64_t>::max(),
                              std::numeric_limits<int64_t>::min()};
  std::vector<int64_t> want64(x64.size());
  HETC_EXPECT_CUDA_OK(cpu::unary(UnaryOp::kNeg, makeView(x64.data(), {7}),
                                 makeView(want64.data(), {7})));
  auto d64 = deviceOf(DType::kI64, {7}, x64);
  DeviceTensor y64(DType::kI64, {7});
  HETC_EXPECT_CUDA_OK(unary(UnaryOp::kNeg, d64->view(), y64.view()));
  EXPECT_EQ(y64.read<int64_t>(), want64);

  std::vector<int32_t> x32(1029);
  for (size_t i = 0; i < x32.size(); ++i)
    x32[i] = static_cast<int32_t>(i * 2654435761u);
  x32[5] = std::numeric_limits<int32_t>::min();
  std::vector<int32_t> want32(x32.size());
  HETC_EXPECT_CUDA_OK(cpu::unary(UnaryOp::kNeg, makeView(x32.data(), {1029}),
                                 makeView(want32.data(), {1029})));
  auto d32 = deviceOf(DType::kI32, {1029}, x32);
  HETC_EXPECT_CUDA_OK(unary(UnaryOp::kNeg, d32->view(), d32->view()));
  EXPECT_EQ(d32->read<int32_t>(), want32);
}

TEST(CudaElementwiseTest, UnaryBackwardMatchesCpu) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kFloatDTypes)
    for (const UnaryCase &c : kUnaryCases)
      for (const Shape &shape : {Shape{}, Shape{7}, Shape{5, 803}}) {
        std::string name = caseName(std::string(unaryOpName(c.op)) + "_backward",
                                    dtype, shape);
        int64_t n = numElements(shape);
        std::vector<float> x = randomValues(n, dtype, c.lo, c.hi, 11);
        std::vector<float> g = randomValues(n, dtype, -1, 1, 12);
        DeviceTensor dx(dtype, shape, x), ddy(dtype, shape, g), ddx(dtype, shape);
        HETC_EXPECT_CUDA_OK(unaryBackward(c.op, dx.view(), ddy.view(), ddx.view()));
        std::vector<float> want = cpuUnaryBackward(c.op, x, g, shape);
        expectNear(ddx.readFloats(), want, storageTolerance(dtype), 1e-6, name);
        // dx written over dy.
        HETC_EXPECT_CUDA_OK(unaryBackward(c.op, dx.view(), ddy.view(), ddy.view()));
        expectNear(ddy.readFloats(), want, storageTolerance(dtype), 1e-6,
                   name + " in place");
      }
}

TEST(CudaElementwiseTest, UnaryErrors) {
  HETC_REQUIRE_CUDA();
  DeviceTensor f(DType::kF32, {4}), h(DType::kBF16, {4}), f5(DType::kF32, {5});
  DeviceTensor i(DType::kI64, {4}), b(DType::kBool, {4});
  EXPECT_EQ(unary(UnaryOp::kExp, f.view(), h.view()).code(),
            StatusCode::kInvalidArgument); // dtypes differ
  EXPECT_EQ(unary(UnaryOp::kExp, f.view(), f5.view()).code(),
            StatusCode::kInvalidArgument); // shapes differ
  EXPECT_EQ(unary(UnaryOp::kExp, i.view(), i.view()).code(),
            StatusCode::kInvalidArgument); // exp of integers
  EXPECT_EQ(unary(UnaryOp::kNeg, b.view(), b.view()).code(),
            StatusCode::kInvalidArgument);
  TensorView missing(nullptr, DType::kF32, {4});
  EXPECT_EQ(unary(UnaryOp::kExp, missing, f.view()).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(unaryBackward(UnaryOp::kSilu, f.view(), h.view(), f.view()).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(unaryBackward(UnaryOp::kSilu, f.view(), f5.view(), f.view()).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(unaryBackward(UnaryOp::kSilu, i.view(), i.view(), i.view()).code(),
            StatusCode::kInvalidArgument);
  Status s = unary(UnaryOp::kSqrt, i.view(), i.view());
  EXPECT_NE(s.message().find("sqrt"), std::string::npos) << s.toString();
}

//===----------------------------------------------------------------------===//
// binary
//===----------------------------------------------------------------------===//

struct ShapePair {
  Shape a, b;
};

const ShapePair kBroadcastShapes[] = {
    {{4, 1, 5}, {3, 5}},
    {{}, {2, 3}},
    {{2, 3}, {}},
    {{}, {}},
    {{8}, {8}},
    {{1027}, {1027}},          // odd length: a short last pack
    {{64, 32}, {32}},          // a bias: packs per row
    {{5, 7}, {7}},             // rows of 7: one element per thread
    {{5, 7}, {5, 1}},          // a column broadcast
    {{3, 1}, {1, 4}},          // an outer product
    {{8, 1, 6, 1}, {7, 1, 5}}, // numpy's example
    {{2, 3, 4, 5}, {2, 1, 4, 1}},
    {{2, 1, 3, 1, 2, 1, 2, 1}, {1, 2, 1, 3, 1, 2, 1, 2}}, // 8 collapsed dims
    {{0, 3}, {3}},                                        // empty
    {{96, 4096}, {96, 4096}},
};

struct BinaryCase {
  BinaryOp op;
  float aLo, aHi, bLo, bHi;
};

constexpr BinaryCase kBinaryCases[] = {
    {BinaryOp::kAdd, -2, 2, -2, 2},         {BinaryOp::kSub, -2, 2, -2, 2},
    {BinaryOp::kMul, -2, 2, -2, 2},         {BinaryOp::kDiv, -2, 2, 0.5f, 2},
    {BinaryOp::kPow, 0.1f, 2, -2, 2},       {BinaryOp::kMinimum, -2, 2, -2, 2},
    {BinaryOp::kMaximum, -2, 2, -2, 2},
};

std::vector<float> cpuBinary(BinaryOp op, std::vector<float> a, const Shape &sa,
                             std::vector<float> b, const Shape &sb) {
  Shape shape;
  EXPECT_TRUE(broadcastShapes(sa, sb, &shape).ok());
  std::vector<float> out(static_cast<size_t>(numElements(shape)));
  Status s = cpu::binary(op, makeView(a.data(), sa), makeView(b.data(), sb),
                         makeView(out.data(), shape));
  EXPECT_TRUE(s.ok()) << s.toString();
  return out;
}

TEST(CudaElementwiseTest, BinaryMatchesCpu) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kFloatDTypes)
    for (const BinaryCase &c : kBinaryCases)
      for (const ShapePair &p : kBroadcastShapes) {
        std::string name = caseName(binaryOpName(c.op), dtype, p.a, p.b);
        std::vector<float> a =
            randomValues(numElements(p.a), dtype, c.aLo, c.aHi, 21);
        std::vector<float> b =
            randomValues(numElements(p.b), dtype, c.bLo, c.bHi, 22);
        if (c.op == BinaryOp::kMinimum || c.op == BinaryOp::kMaximum) {
          if (a.size() > 3)
            a[3] = kNaN;
          if (b.size() > 2)
            b[b.size() - 2] = kNaN;
        }
        Shape shape;
        ASSERT_TRUE(broadcastShapes(p.a, p.b, &shape).ok());
        DeviceTensor da(dtype, p.a, a), db(dtype, p.b, b), out(dtype, shape);
        HETC_EXPECT_CUDA_OK(binary(c.op, da.view(), db.view(), out.view()));
        expectNear(out.readFloats(), cpuBinary(c.op, a, p.a, b, p.b),
                   storageTolerance(dtype), 1e-6, name);
      }
}

TEST(CudaElementwiseTest, BinaryInPlaceAndMisaligned) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kFloatDTypes) {
    // out over a, b broadcast along rows (packed path).
    std::vector<float> a = randomValues(64 * 32, dtype, -2, 2, 31);
    std::vector<float> b = randomValues(32, dtype, -2, 2, 32);
    DeviceTensor da(dtype, {64, 32}, a), db(dtype, {32}, b);
    HETC_EXPECT_CUDA_OK(binary(BinaryOp::kAdd, da.view(), db.view(), da.view()));
    expectNear(da.readFloats(), cpuBinary(BinaryOp::kAdd, a, {64, 32}, b, {32}),
               storageTolerance(dtype), 1e-6, caseName("add over a", dtype, {64, 32}));

    // out over b, a a scalar.
    std::vector<float> s = {1.5f};
    std::vector<float> c = randomValues(1027, dtype, 0.5f, 2, 33);
    DeviceTensor ds(dtype, {}, s), dc(dtype, {1027}, c);
    HETC_EXPECT_CUDA_OK(binary(BinaryOp::kDiv, ds.view(), dc.view(), dc.view()));
    expectNear(dc.readFloats(), cpuBinary(BinaryOp::kDiv, s, {}, c, {1027}),
               storageTolerance(dtype), 1e-6, caseName("div over b", dtype, {1027}));

    // Views at an odd element offset, written in place.
    std::vector<float> x = randomValues(1 + 6 * 40, dtype, -2, 2, 34);
    std::vector<float> y = randomValues(1 + 40, dtype, -2, 2, 35);
    DeviceTensor dx(dtype, {1 + 6 * 40}, x), dy(dtype, {1 + 40}, y);
    TensorView vx = offsetView(dx, 1, {6, 40}), vy = offsetView(dy, 1, {40});
    HETC_EXPECT_CUDA_OK(binary(BinaryOp::kMul, vx, vy, vx));
    std::vector<float> got = dx.readFloats();
    EXPECT_EQ(got[0], x[0]);
    expectNear(slice(got, 1),
               cpuBinary(BinaryOp::kMul, slice(x, 1), {6, 40}, slice(y, 1), {40}),
               storageTolerance(dtype), 1e-6, caseName("mul misaligned", dtype, {6, 40}));
  }
}

template <typename T> void checkIntegerBinary(DType dtype) {
  constexpr T kMax = std::numeric_limits<T>::max();
  constexpr T kMin = std::numeric_limits<T>::min();
  for (BinaryOp op : {BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kMul,
                      BinaryOp::kPow, BinaryOp::kMinimum, BinaryOp::kMaximum})
    for (const ShapePair &p : kBroadcastShapes) {
      std::mt19937 gen(41);
      bool pow = op == BinaryOp::kPow;
      std::uniform_int_distribution<int> base(pow ? -3 : -1000, pow ? 3 : 1000);
      std::uniform_int_distribution<int> exponent(-3, 40);
      std::vector<T> a(static_cast<size_t>(numElements(p.a)));
      std::vector<T> b(static_cast<size_t>(numElements(p.b)));
      for (T &v : a)
        v = static_cast<T>(base(gen));
      for (T &v : b)
        v = static_cast<T>(pow ? exponent(gen) : base(gen));
      if (!pow && a.size() > 2 && b.size() > 2) { // overflow wraps
        a[0] = kMax;
        a[1] = kMin;
        b[b.size() - 1] = kMax;
      }
      Shape shape;
      ASSERT_TRUE(broadcastShapes(p.a, p.b, &shape).ok());
      std::vector<T> want(static_cast<size_t>(numElements(shape)));
      HETC_EXPECT_CUDA_OK(cpu::binary(op, makeView(a.data(), p.a),
                                      makeView(b.data(), p.b),
                                      makeView(want.data(), shape)));
      auto da = deviceOf(dtype, p.a, a);
      auto db = deviceOf(dtype, p.b, b);
      DeviceTensor out(dtype, shape);
      HETC_EXPECT_CUDA_OK(binary(op, da->view(), db->view(), out.view()));
      EXPECT_EQ(out.read<T>(), want) << caseName(binaryOpName(op), dtype, p.a, p.b);
    }
}

TEST(CudaElementwiseTest, IntegerBinaryMatchesCpu) {
  HETC_REQUIRE_CUDA();
  checkIntegerBinary<int64_t>(DType::kI64);
  checkIntegerBinary<int32_t>(DType::kI32);
}

TEST(CudaElementwiseTest, BinaryErrors) {
  HETC_REQUIRE_CUDA();
  DeviceTensor f(DType::kF32, {3, 5}), h(DType::kBF16, {3, 5});
  DeviceTensor f4(DType::kF32, {4, 5}), big(DType::kF32, {4, 3, 5});
  DeviceTensor i(DType::kI64, {3, 5}), d(DType::kF64, {3, 5});
  DeviceTensor b(DType::kBool, {3, 5});
  EXPECT_EQ(binary(BinaryOp::kAdd, f.view(), h.view(), f.view()).code(),
            StatusCode::kInvalidArgument); // mixed dtypes
  EXPECT_EQ(binary(BinaryOp::kAdd, f.view(), f4.view(), f.view()).code(),
            StatusCode::kInvalidArgument); // no broadcast
  EXPECT_EQ(binary(BinaryOp::kAdd, f.view(), f.view(), big.view()).code(),
            StatusCode::kInvalidArgument); // out of the wrong shape
  EXPECT_EQ(binary(BinaryOp::kDiv, i.view(), i.view(), i.view()).code(),
            StatusCode::kInvalidArgument); // integer division
  EXPECT_EQ(binary(BinaryOp::kAdd, d.view(), d.view(), d.view()).code(),
            StatusCode::kInvalidArgument); // f64
  EXPECT_EQ(binary(BinaryOp::kAdd, b.view(), b.view(), b.view()).code(),
            StatusCode::kInvalidArgument); // bool
  // Nine alternating broadcast dims do not collapse below nine.
  Shape s9a = {2, 1, 2, 1, 2, 1, 2, 1, 2}, s9b = {1, 2, 1, 2, 1, 2, 1, 2, 1};
  DeviceTensor a9(DType::kF32, s9a), b9(DType::kF32, s9b);
  DeviceTensor o9(DType::kF32, {2, 2, 2, 2, 2, 2, 2, 2, 2});
  EXPECT_EQ(binary(BinaryOp::kAdd, a9.view(), b9.view(), o9.view()).code(),
            StatusCode::kUnimplemented);
}

//===----------------------------------------------------------------------===//
// equal, where
//===----------------------------------------------------------------------===//

// Few distinct values, so that many pairs are equal; NaN, -0 and +0 in the
// float dtypes.
template <typename T> std::vector<T> fewValues(int64_t n, unsigned seed, bool specials) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(-2, 2);
  std::vector<T> v(static_cast<size_t>(n));
  for (T &x : v)
    x = static_cast<T>(std::is_same_v<T, uint8_t> ? dist(gen) & 1 : dist(gen));
  if constexpr (std::is_floating_point_v<T>)
    if (specials && n > 4) {
      v[1] = std::numeric_limits<T>::quiet_NaN();
      v[2] = T(-0.0);
      v[3] = T(0.0);
    }
  return v;
}

template <typename T> void checkEqual(DType dtype, const ShapePair &p) {
  std::vector<T> a = fewValues<T>(numElements(p.a), 51, true);
  std::vector<T> b = fewValues<T>(numElements(p.b), 52, true);
  Shape shape;
  ASSERT_TRUE(broadcastShapes(p.a, p.b, &shape).ok());
  std::vector<uint8_t> want(static_cast<size_t>(numElements(shape)));
  HETC_EXPECT_CUDA_OK(cpu::equal(makeView(a.data(), p.a), makeView(b.data(), p.b),
                                 makeView(want.data(), shape)));
  auto da = deviceOf(dtype, p.a, a);
  auto db = deviceOf(dtype, p.b, b);
  DeviceTensor out(DType::kBool, shape);
  HETC_EXPECT_CUDA_OK(equal(da->view(), db->view(), out.view()));
  EXPECT_EQ(out.read<uint8_t>(), want) << caseName("equal", dtype, p.a, p.b);
}

// bf16 and f16 against a host comparison of the values they hold.
void checkEqualHalf(DType dtype, const ShapePair &p) {
  std::vector<float> a = fewValues<float>(numElements(p.a), 53, true);
  std::vector<float> b = fewValues<float>(numElements(p.b), 54, true);
  Shape shape;
  ASSERT_TRUE(broadcastShapes(p.a, p.b, &shape).ok());
  // The CPU kernel on f32 copies: the values are exact in bf16 and f16.
  std::vector<uint8_t> want(static_cast<size_t>(numElements(shape)));
  HETC_EXPECT_CUDA_OK(cpu::equal(makeView(a.data(), p.a), makeView(b.data(), p.b),
                                 makeView(want.data(), shape)));
  DeviceTensor da(dtype, p.a, a), db(dtype, p.b, b), out(DType::kBool, shape);
  HETC_EXPECT_CUDA_OK(equal(da.view(), db.view(), out.view()));
  EXPECT_EQ(out.read<uint8_t>(), want) << caseName("equal", dtype, p.a, p.b);
}

TEST(CudaElementwiseTest, EqualMatchesCpu) {
  HETC_REQUIRE_CUDA();
  for (const ShapePair &p : kBroadcastShapes) {
    checkEqual<float>(DType::kF32, p);
    checkEqual<double>(DType::kF64, p);
    checkEqual<int64_t>(DType::kI64, p);
    checkEqual<int32_t>(DType::kI32, p);
    checkEqual<uint8_t>(DType::kBool, p);
    checkEqualHalf(DType::kBF16, p);
    checkEqualHalf(DType::kF16, p);
  }
  DeviceTensor f(DType::kF32, {3}), i(DType::kI32, {3}), o(DType::kBool, {3});
  DeviceTensor of(DType::kF32, {3}), o4(DType::kBool, {4});
  EXPECT_EQ(equal(f.view(), i.view(), o.view()).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(equal(f.view(), f.view(), of.view()).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(equal(f.view(), f.view(), o4.view()).code(), StatusCode::kInvalidArgument);
}

struct WhereShapes {
  Shape cond, onTrue, onFalse;
};

const WhereShapes kWhereShapes[] = {
    {{4, 1, 5}, {3, 5}, {}},
    {{1027}, {1027}, {1027}},
    {{64, 1}, {64, 32}, {32}},
    {{}, {2, 3}, {2, 3}},
    {{2, 1, 3}, {1, 4, 1}, {2, 4, 3}},
    {{}, {}, {}},
};

/// where on random bit patterns of the width of `dtype`.
template <typename U> void checkWhere(DType dtype, const WhereShapes &w) {
  std::mt19937_64 gen(61);
  auto bits = [&](const Shape &s) {
    std::vector<U> v(static_cast<size_t>(numElements(s)));
    for (U &x : v)
      x = dtype == DType::kBool ? static_cast<U>(gen() & 1) : static_cast<U>(gen());
    return v;
  };
  std::vector<uint8_t> cond(static_cast<size_t>(numElements(w.cond)));
  for (uint8_t &c : cond)
    c = static_cast<uint8_t>(gen() & 1);
  std::vector<U> t = bits(w.onTrue), f = bits(w.onFalse);
  Shape tmp, shape;
  ASSERT_TRUE(broadcastShapes(w.cond, w.onTrue, &tmp).ok());
  ASSERT_TRUE(broadcastShapes(tmp, w.onFalse, &shape).ok());
  std::vector<U> want(static_cast<size_t>(numElements(shape)));
  HETC_EXPECT_CUDA_OK(cpu::where(makeView(cond.data(), w.cond),
                                 TensorView(t.data(), dtype, w.onTrue),
                                 TensorView(f.data(), dtype, w.onFalse),
                                 TensorView(want.data(), dtype, shape)));
  auto dc = deviceOf(DType::kBool, w.cond, cond);
  auto dt = deviceOf(dtype, w.onTrue, t);
  auto df = deviceOf(dtype, w.onFalse, f);
  DeviceTensor out(dtype, shape);
  HETC_EXPECT_CUDA_OK(where(dc->view(), dt->view(), df->view(), out.view()));
  EXPECT_EQ(out.read<U>(), want) << caseName("where", dtype, w.cond, w.onTrue);
  if (w.onTrue == shape) { // out over on_true
    HETC_EXPECT_CUDA_OK(where(dc->view(), dt->view(), df->view(), dt->view()));
    EXPECT_EQ(dt->template read<U>(), want) << caseName("where in place", dtype, w.cond, w.onTrue);
  }
}

TEST(CudaElementwiseTest, WhereMatchesCpu) {
  HETC_REQUIRE_CUDA();
  for (const WhereShapes &w : kWhereShapes) {
    checkWhere<uint32_t>(DType::kF32, w);
    checkWhere<uint64_t>(DType::kF64, w);
    checkWhere<uint64_t>(DType::kI64, w);
    checkWhere<uint32_t>(DType::kI32, w);
    checkWhere<uint8_t>(DType::kBool, w);
    checkWhere<uint16_t>(DType::kBF16, w);
    checkWhere<uint16_t>(DType::kF16, w);
  }
  DeviceTensor c(DType::kBool, {3}), f(DType::kF32, {3}), h(DType::kBF16, {3});
  DeviceTensor f4(DType::kF32, {4}), cf(DType::kF32, {3});
  EXPECT_EQ(where(cf.view(), f.view(), f.view(), f.view()).code(),
            StatusCode::kInvalidArgument); // cond not bool
  EXPECT_EQ(where(c.view(), f.view(), h.view(), f.view()).code(),
            StatusCode::kInvalidArgument); // dtypes differ
  EXPECT_EQ(where(c.view(), f4.view(), f.view(), f4.view()).code(),
            StatusCode::kInvalidArgument); // no broadcast
  EXPECT_EQ(where(c.view(), f.view(), f.view(), f4.view()).code(),
            StatusCode::kInvalidArgument); // out's shape
}

//===----------------------------------------------------------------------===//
// reduceToShape
//===----------------------------------------------------------------------===//

struct ReduceCase {
  Shape grad, out;
};

const ReduceCase kReduceCases[] = {
    {{4, 3, 5}, {3, 5}},       {{4, 3, 5}, {1, 5}},     {{4, 3, 5}, {4, 1, 1}},
    {{4, 3, 5}, {5}},          {{4, 3, 5}, {}},         {{4, 3, 5}, {4, 3, 5}},
    {{4, 3, 5}, {1, 3, 1}},    {{256, 768}, {768}},     // a bias: column tiles
    {{8, 128, 96}, {96}},      {{64, 5, 33}, {5, 33}},  // column tiles
    {{64, 3, 4, 5}, {3, 1, 5}},                         // tiles, two reduced groups
    {{300, 40}, {300, 1}},     // row sums, a block per row
    {{2048, 64}, {2048, 1}},   // row sums, a warp per row
    {{2, 3, 300}, {1, 3, 1}},  // row sums over two groups
    {{40, 3, 50}, {3, 1}},
    {{8, 7, 3}, {8, 1, 3}},    // few terms: a thread per output
    {{2, 131072}, {131072}},   // many outputs: a thread per output
    {{0, 5}, {5}},             // no terms: zeros (or out unchanged)
    {{1, 1}, {1}},
};

TEST(CudaElementwiseTest, ReduceToShapeMatchesCpu) {
  HETC_REQUIRE_CUDA();
  const std::pair<DType, DType> kDTypes[] = {{DType::kF32, DType::kF32},
                                             {DType::kBF16, DType::kBF16},
                                             {DType::kF16, DType::kF16},
                                             {DType::kBF16, DType::kF32}};
  for (auto [gradType, outType] : kDTypes)
    for (const ReduceCase &c : kReduceCases)
      for (bool accumulate : {false, true}) {
        std::string name = caseName(std::string("reduce_to_shape ") +
                                        dtypeName(outType) +
                                        (accumulate ? " accumulate" : ""),
                                    gradType, c.grad, c.out);
        int64_t n = numElements(c.grad), m = numElements(c.out);
        std::vector<float> g = randomValues(n, gradType, -1, 1, 71);
        std::vector<float> o = randomValues(m, outType, -1, 1, 72);
        std::vector<float> want = o;
        HETC_EXPECT_CUDA_OK(cpu::reduceToShape(makeView(g.data(), c.grad),
                                               makeView(want.data(), c.out),
                                               accumulate));
        DeviceTensor dg(gradType, c.grad, g), dout(outType, c.out, o);
        HETC_EXPECT_CUDA_OK(reduceToShape(dg.view(), dout.view(), accumulate));
        double terms = m == 0 ? 0.0 : double(n) / double(m);
        expectNear(dout.readFloats(), want, storageTolerance(outType),
                   1e-6 * (terms + 1), name);
      }
}

TEST(CudaElementwiseTest, ReduceToShapeIsDeterministic) {
  HETC_REQUIRE_CUDA();
  for (const ReduceCase &c : {ReduceCase{{8192, 768}, {768}},
                              ReduceCase{{4096, 512}, {4096, 1}},
                              ReduceCase{{3, 100000}, {}}}) {
    std::vector<float> g = randomValues(numElements(c.grad), DType::kF32, -1, 1, 81);
    DeviceTensor dg(DType::kF32, c.grad, g), first(DType::kF32, c.out),
        second(DType::kF32, c.out);
    HETC_EXPECT_CUDA_OK(reduceToShape(dg.view(), first.view(), false));
    HETC_EXPECT_CUDA_OK(reduceToShape(dg.view(), second.view(), false));
    std::vector<float> a = first.readFloats(), b = second.readFloats();
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)))
        << shapeToString(c.grad);
  }
}

TEST(CudaElementwiseTest, ReduceToShapeErrors) {
  HETC_REQUIRE_CUDA();
  DeviceTensor g(DType::kF32, {3, 5}), o4(DType::kF32, {4});
  DeviceTensor big(DType::kF32, {2, 3, 5}), i(DType::kI64, {5}), d(DType::kF64, {5});
  EXPECT_EQ(reduceToShape(g.view(), o4.view(), false).code(),
            StatusCode::kInvalidArgument); // [4] does not broadcast to [3,5]
  EXPECT_EQ(reduceToShape(g.view(), big.view(), false).code(),
            StatusCode::kInvalidArgument); // out of higher rank
  EXPECT_EQ(reduceToShape(g.view(), i.view(), false).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(reduceToShape(g.view(), d.view(), true).code(),
            StatusCode::kInvalidArgument);
}

//===----------------------------------------------------------------------===//
// cast
//===----------------------------------------------------------------------===//

/// Values as `dtype` stores them (raw bytes): fractions, ties, signed zeros,
/// values past each integer range, infinities, NaN and subnormals for the
/// floats; extremes for the integers; 0 and 1 for bool.
std::vector<uint8_t> castInputs(DType dtype, int64_t *count) {
  const double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> floats = {
      0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999997, 100.75,
      -100.75, 255.0, 256.0, 1.0 / 3.0, 3e9, -3e9, 5e9, 1e20, -1e20,
      2147483647.0, -2147483648.0, 2147483648.0, -2147483649.0, 9.3e18,
      -9.3e18, 9.223372036854775807e18, kInf, -kInf,
      std::numeric_limits<double>::quiet_NaN(), 1e-40, -1e-42, 1e-310, 65504.0,
      65519.0, 65520.0, 70000.0, 3.3895313892515355e38, 1.0000001, 16777217.0};
  std::mt19937 gen(91);
  std::uniform_real_distribution<double> dist(-300.0, 300.0);
  for (int i = 0; i < 1000; ++i)
    floats.push_back(dist(gen));
  std::vector<int64_t> ints = {0, 1, -1, 7, -7, 255, 256, 123456789,
                               (int64_t(1) << 40) + 1, (int64_t(1) << 53) + 1,
                               (int64_t(1) << 24) + 1, 2147483647, -2147483648LL,
                               2147483648LL,
                               std::numeric_limits<int64_t>::max(),
                               std::numeric_limits<int64_t>::min()};
  for (int i = 0; i < 1000; ++i)
    ints.push_back(static_cast<int64_t>(gen()) - (int64_t(1) << 31));
  std::vector<uint8_t> bytes;
  auto append = [&](const auto &v) {
    const auto *p = reinterpret_cast<const uint8_t *>(&v);
    bytes.insert(bytes.end(), p, p + sizeof(v));
  };
  switch (dtype) {
  case DType::kF32:
    for (double v : floats)
      append(static_cast<float>(v));
    *count = static_cast<int64_t>(floats.size());
    break;
  case DType::kF64:
    for (double v : floats)
      append(v);
    *count = static_cast<int64_t>(floats.size());
    break;
  case DType::kBF16:
    for (double v : floats)
      append(floatToBf16(static_cast<float>(v)));
    *count = static_cast<int64_t>(floats.size());
    break;
  case DType::kF16:
    for (double v : floats)
      append(floatToF16(static_cast<float>(v)));
    *count = static_cast<int64_t>(floats.size());
    break;
  case DType::kI64:
    for (int64_t v : ints)
      append(v);
    *count = static_cast<int64_t>(ints.size());
    break;
  case DType::kI32:
    for (int64_t v : ints)
      append(static_cast<int32_t>(v));
    *count = static_cast<int64_t>(ints.size());
    break;
  case DType::kBool:
    for (int i = 0; i < 1029; ++i)
      append(static_cast<uint8_t>(gen() % 3 == 0));
    *count = 1029;
    break;
  }
  return bytes;
}

bool isNaNElement(DType dtype, const uint8_t *p) {
  switch (dtype) {
  case DType::kF32: {
    float v;
    std::memcpy(&v, p, 4);
    return std::isnan(v);
  }
  case DType::kF64: {
    double v;
    std::memcpy(&v, p, 8);
    return std::isnan(v);
  }
  case DType::kBF16:
  case DType::kF16: {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return dtype == DType::kBF16 ? std::isnan(bf16ToFloat(bits))
                                 : std::isnan(f16ToFloat(bits));
  }
  default:
    return false;
  }
}

TEST(CudaElementwiseTest, CastMatchesCpuForEveryPair) {
  HETC_REQUIRE_CUDA();
  for (DType from : kAllDTypes)
    for (DType to : kAllDTypes) {
      int64_t n = 0;
      std::vector<uint8_t> in = castInputs(from, &n);
      std::vector<uint8_t> want(static_cast<size_t>(n) * dtypeSize(to));
      HETC_EXPECT_CUDA_OK(cpu::cast(TensorView(in.data(), from, {n}),
                                    TensorView(want.data(), to, {n})));
      DeviceTensor din(from, {n}), dout(to, {n});
      din.write(in);
      HETC_EXPECT_CUDA_OK(cast(din.view(), dout.view()));
      std::vector<uint8_t> got = dout.read<uint8_t>();
      size_t width = dtypeSize(to);
      int misses = 0;
      for (int64_t i = 0; i < n && misses < 5; ++i) {
        const uint8_t *g = &got[i * width], *w = &want[i * width];
        if (std::memcmp(g, w, width) == 0 ||
            (isNaNElement(to, g) && isNaNElement(to, w)))
          continue;
        ADD_FAILURE() << "cast " << dtypeName(from) << " -> " << dtypeName(to)
                      << " element " << i << " differs from the CPU's";
        ++misses;
      }
    }
}

TEST(CudaElementwiseTest, CastMisalignedAndOddLength) {
  HETC_REQUIRE_CUDA();
  std::vector<float> x = randomValues(1 + 1027, DType::kF32, -100, 100, 92);
  DeviceTensor din(DType::kF32, {1028}, x), dout(DType::kBF16, {1028});
  HETC_EXPECT_CUDA_OK(cast(offsetView(din, 1, {1027}), offsetView(dout, 1, {1027})));
  std::vector<uint16_t> got = dout.read<uint16_t>();
  EXPECT_EQ(got[0], 0) << "the element before the view is untouched";
  for (size_t i = 1; i < got.size(); ++i)
    ASSERT_EQ(got[i], floatToBf16(x[i])) << i;
}

TEST(CudaElementwiseTest, CastErrors) {
  HETC_REQUIRE_CUDA();
  DeviceTensor a(DType::kF32, {3}), b(DType::kBF16, {4});
  EXPECT_EQ(cast(a.view(), b.view()).code(), StatusCode::kInvalidArgument);
  TensorView missing(nullptr, DType::kF32, {3});
  EXPECT_EQ(cast(missing, a.view()).code(), StatusCode::kInvalidArgument);
}

} // namespace
} // namespace hetc::runtime::cuda::test
