//===- Elementwise.cpp ----------------------------------------------------===//

#include "runtime/cpu/Elementwise.h"

#include "runtime/base/ElementwiseChecks.h"
#include "runtime/base/Half.h"
#include "runtime/cpu/internal/Broadcast.h"
#include "runtime/cpu/internal/Convert.h"
#include "runtime/cpu/internal/Dispatch.h"
#include "runtime/cpu/internal/Parallel.h"
#include "runtime/cpu/internal/Reduction.h"
#include "runtime/cpu/internal/VectorMath.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace hetc::runtime::cpu {
namespace {

using internal::parallelFor;

constexpr int64_t kElementGrain = 16384;
constexpr float kInvSqrt2Pi = 0.39894228040143267794f;   // 1/sqrt(2 pi)
constexpr float kTwoOverSqrtPi = 1.12837916709551257390f; // 2/sqrt(pi)
constexpr float kSqrt2OverPi = 0.79788456080286535588f;   // sqrt(2/pi)
constexpr float kGeluCubic = 0.044715f;

float sigmoidOf(float x) { return 1.0f / (1.0f + internal::fastExp(-x)); }

/// Calls f with `op` as a compile-time constant, so that the loop inside f is
/// compiled once per op with nothing to switch on per element.
template <typename F> void visitUnaryOp(UnaryOp op, const F &f) {
#define HETC_UNARY_CASE(NAME)                                                  \
  case UnaryOp::NAME:                                                          \
    return f(std::integral_constant<UnaryOp, UnaryOp::NAME>{});
  switch (op) {
    HETC_UNARY_CASE(kNeg)
    HETC_UNARY_CASE(kSqrt)
    HETC_UNARY_CASE(kReciprocal)
    HETC_UNARY_CASE(kExp)
    HETC_UNARY_CASE(kLog)
    HETC_UNARY_CASE(kTanh)
    HETC_UNARY_CASE(kCos)
    HETC_UNARY_CASE(kSin)
    HETC_UNARY_CASE(kErf)
    HETC_UNARY_CASE(kSigmoid)
    HETC_UNARY_CASE(kRelu)
    HETC_UNARY_CASE(kGeluErf)
    HETC_UNARY_CASE(kGeluTanh)
    HETC_UNARY_CASE(kSilu)
  }
#undef HETC_UNARY_CASE
}

template <UnaryOp Op> float applyUnary(float x) {
  if constexpr (Op == UnaryOp::kNeg)
    return -x;
  else if constexpr (Op == UnaryOp::kSqrt)
    return std::sqrt(x);
  else if constexpr (Op == UnaryOp::kReciprocal)
    return 1.0f / x;
  else if constexpr (Op == UnaryOp::kExp)
    return internal::fastExp(x);
  else if constexpr (Op == UnaryOp::kLog)
    return std::log(x);
  else if constexpr (Op == UnaryOp::kTanh)
    return std::tanh(x);
  else if constexpr (Op == UnaryOp::kCos)
    return std::cos(x);
  else if constexpr (Op == UnaryOp::kSin)
    return std::sin(x);
  else if constexpr (Op == UnaryOp::kErf)
    return internal::fastErf(x);
  else if constexpr (Op == UnaryOp::kSigmoid)
    return sigmoidOf(x);
  else if constexpr (Op == UnaryOp::kRelu)
    return x < 0.0f ? 0.0f : x; // NaN stays NaN, as in torch
  else if constexpr (Op == UnaryOp::kGeluErf)
    return x * internal::fastNormalCdf(x);
  else if constexpr (Op == UnaryOp::kGeluTanh)
    return 0.5f * x *
           (1.0f + std::tanh(kSqrt2OverPi * (x + kGeluCubic * x * x * x)));
  else
    return x * sigmoidOf(x); // kSilu
}

// f'(x).
template <UnaryOp Op> float unaryDerivative(float x) {
  if constexpr (Op == UnaryOp::kNeg) {
    return -1.0f;
  } else if constexpr (Op == UnaryOp::kSqrt) {
    return 0.5f / std::sqrt(x);
  } else if constexpr (Op == UnaryOp::kReciprocal) {
    return -1.0f / (x * x);
  } else if constexpr (Op == UnaryOp::kExp) {
    return internal::fastExp(x);
  } else if constexpr (Op == UnaryOp::kLog) {
    return 1.0f / x;
  } else if constexpr (Op == UnaryOp::kTanh) {
    float t = std::tanh(x);
    return 1.0f - t * t;
  } else if constexpr (Op == UnaryOp::kCos) {
    return -std::sin(x);
  } else if constexpr (Op == UnaryOp::kSin) {
    return std::cos(x);
  } else if constexpr (Op == UnaryOp::kErf) {
    return kTwoOverSqrtPi * internal::fastExp(-x * x);
  } else if constexpr (Op == UnaryOp::kSigmoid) {
    float s = sigmoidOf(x);
    return s * (1.0f - s);
  } else if constexpr (Op == UnaryOp::kRelu) {
    return x > 0.0f ? 1.0f : 0.0f;
  } else if constexpr (Op == UnaryOp::kGeluErf) {
    float cdf = internal::fastNormalCdf(x);
    float pdf = kInvSqrt2Pi * internal::fastExp(-0.5f * x * x);
    return cdf + x * pdf;
  } else if constexpr (Op == UnaryOp::kGeluTanh) {
    float x2 = x * x;
    float t = std::tanh(kSqrt2OverPi * (x + kGeluCubic * x2 * x));
    return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * kSqrt2OverPi *
                                   (1.0f + 3.0f * kGeluCubic * x2);
  } else { // kSilu
    float s = sigmoidOf(x);
    return s * (1.0f + x * (1.0f - s));
  }
}

// y[i] = f(x[i]) and dx[i] = dy[i] f'(x[i]) over [begin, end).
template <UnaryOp Op>
HETC_WIDE_VECTOR_CLONES void unaryRange(const float *x, float *y, int64_t begin,
                                        int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    y[i] = applyUnary<Op>(x[i]);
}
template <UnaryOp Op>
HETC_WIDE_VECTOR_CLONES void unaryBackwardRange(const float *x, const float *dy,
                                                float *dx, int64_t begin,
                                                int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    dx[i] = dy[i] * unaryDerivative<Op>(x[i]);
}

template <typename T, typename Op>
void binaryRun(const T *a, int64_t sa, const T *b, int64_t sb, T *out,
               int64_t n, Op op) {
  if (sa == 1 && sb == 1)
    for (int64_t i = 0; i < n; ++i)
      out[i] = op(a[i], b[i]);
  else if (sa == 1)
    for (int64_t i = 0; i < n; ++i)
      out[i] = op(a[i], b[0]);
  else if (sb == 1)
    for (int64_t i = 0; i < n; ++i)
      out[i] = op(a[0], b[i]);
  else
    for (int64_t i = 0; i < n; ++i)
      out[i] = op(a[0], b[0]);
}

template <typename T, typename Op>
void runBinary(const internal::BroadcastLoop &loop, const TensorView &a,
               const TensorView &b, const TensorView &out, Op op) {
  const T *ap = a.as<T>();
  const T *bp = b.as<T>();
  T *op_ = out.as<T>();
  int64_t sa = loop.colStride(0), sb = loop.colStride(1);
  internal::forEachBroadcastRun(
      loop, [&](int64_t o, const int64_t *offs, int64_t n) {
        binaryRun(ap + offs[0], sa, bp + offs[1], sb, op_ + o, n, op);
      });
}

// Integers wrap on overflow (two's complement), floats follow IEEE.
template <typename T, bool = std::is_integral_v<T>> struct Arith {
  using type = T;
};
template <typename T> struct Arith<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <typename T> using ArithType = typename Arith<T>::type;

/// Integer x^y by squaring, wrapping like the other integer ops (numpy's
/// power). A negative exponent gives the real power truncated toward zero:
/// 1 for x == 1, +-1 for x == -1, 0 otherwise (also for x == 0).
template <typename T> T integerPow(T x, T y) {
  using A = ArithType<T>;
  if (y < 0)
    return x == 1 ? T(1) : x == -1 ? (y % 2 == 0 ? T(1) : T(-1)) : T(0);
  A result = 1, base = static_cast<A>(x);
  for (A e = static_cast<A>(y); e != 0; e >>= 1) {
    if (e & 1)
      result = static_cast<A>(result * base);
    base = static_cast<A>(base * base);
  }
  return static_cast<T>(result);
}

/// x mod y: with the sign of y (`floor`) or of x (C's fmod); an integer
/// remainder by 0 (or of the most negative value by -1) is 0.
template <typename T> T remainderOf(T x, T y, bool floor) {
  T r;
  if constexpr (std::is_integral_v<T>)
    r = (y == 0 || y == T(-1)) ? T(0) : T(x % y);
  else
    r = std::fmod(x, y);
  if (floor && r != 0 && ((r < 0) != (y < 0)))
    r = static_cast<T>(r + y);
  return r;
}

template <typename T>
void binaryTyped(BinaryOp op, const internal::BroadcastLoop &loop,
                 const TensorView &a, const TensorView &b,
                 const TensorView &out) {
  using A = ArithType<T>;
  switch (op) {
  case BinaryOp::kAdd:
    return runBinary<T>(loop, a, b, out,
                        [](T x, T y) { return static_cast<T>(A(x) + A(y)); });
  case BinaryOp::kSub:
    return runBinary<T>(loop, a, b, out,
                        [](T x, T y) { return static_cast<T>(A(x) - A(y)); });
  case BinaryOp::kMul:
    return runBinary<T>(loop, a, b, out,
                        [](T x, T y) { return static_cast<T>(A(x) * A(y)); });
  case BinaryOp::kDiv:
    return runBinary<T>(loop, a, b, out, [](T x, T y) { return x / y; });
  case BinaryOp::kPow:
    if constexpr (std::is_integral_v<T>)
      return runBinary<T>(loop, a, b, out, integerPow<T>);
    else
      return runBinary<T>(loop, a, b, out, [](T x, T y) {
        return static_cast<T>(std::pow(x, y));
      });
  case BinaryOp::kMinimum:
    return runBinary<T>(loop, a, b, out, [](T x, T y) {
      if constexpr (std::is_floating_point_v<T>)
        if (std::isnan(x) || std::isnan(y))
          return std::numeric_limits<T>::quiet_NaN();
      return y < x ? y : x;
    });
  case BinaryOp::kMaximum:
    return runBinary<T>(loop, a, b, out, [](T x, T y) {
      if constexpr (std::is_floating_point_v<T>)
        if (std::isnan(x) || std::isnan(y))
          return std::numeric_limits<T>::quiet_NaN();
      return x < y ? y : x;
    });
  case BinaryOp::kMod:
    return runBinary<T>(loop, a, b, out,
                        [](T x, T y) { return remainderOf(x, y, true); });
  case BinaryOp::kFmod:
    return runBinary<T>(loop, a, b, out,
                        [](T x, T y) { return remainderOf(x, y, false); });
  }
}

} // namespace

Status unary(UnaryOp op, const TensorView &x, const TensorView &y) {
  const char *name = unaryOpName(op);
  HETC_RETURN_IF_ERROR(checkUnaryOperands(name, x, y));
  int64_t n = x.numel();
  if (op == UnaryOp::kNeg && (x.dtype == DType::kI64 || x.dtype == DType::kI32)) {
    auto negate = [&](auto tag) {
      using T = decltype(tag);
      const T *xp = x.as<T>();
      T *yp = y.as<T>();
      parallelFor(n, kElementGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i)
          yp[i] = static_cast<T>(0u - static_cast<std::make_unsigned_t<T>>(xp[i]));
      });
    };
    if (x.dtype == DType::kI64)
      negate(int64_t{});
    else
      negate(int32_t{});
    return okStatus();
  }
  HETC_RETURN_IF_ERROR(checkDType(x, DType::kF32, "x"), name);
  const float *xp = x.as<float>();
  float *yp = y.as<float>();
  visitUnaryOp(op, [&](auto opTag) {
    parallelFor(n, kElementGrain, [&](int64_t b, int64_t e) {
      unaryRange<opTag()>(xp, yp, b, e);
    });
  });
  return okStatus();
}

Status unaryBackward(UnaryOp op, const TensorView &x, const TensorView &dy,
                     const TensorView &dx) {
  std::string name = std::string(unaryOpName(op)) + "_backward";
  HETC_RETURN_IF_ERROR(checkDType(x, DType::kF32, "x"), name);
  HETC_RETURN_IF_ERROR(checkDType(dy, DType::kF32, "dy"), name);
  HETC_RETURN_IF_ERROR(checkDType(dx, DType::kF32, "dx"), name);
  HETC_RETURN_IF_ERROR(
      checkUnaryBackwardOperands(name.c_str(), x, dy, dx));
  const float *xp = x.as<float>();
  const float *dyp = dy.as<float>();
  float *dxp = dx.as<float>();
  visitUnaryOp(op, [&](auto opTag) {
    parallelFor(x.numel(), kElementGrain, [&](int64_t b, int64_t e) {
      unaryBackwardRange<opTag()>(xp, dyp, dxp, b, e);
    });
  });
  return okStatus();
}

Status binary(BinaryOp op, const TensorView &a, const TensorView &b,
              const TensorView &out) {
  const char *name = binaryOpName(op);
  HETC_RETURN_IF_ERROR(checkBinaryOperands(name, a, b, out));
  bool isFloat = a.dtype == DType::kF32 || a.dtype == DType::kF64;
  bool isInt = a.dtype == DType::kI64 || a.dtype == DType::kI32;
  bool intOk = op != BinaryOp::kDiv;
  if (!isFloat && !(isInt && intOk))
    return invalidArgument(name, ": unsupported dtype ", dtypeName(a.dtype),
                           " (f32 or f64, or i64/i32 for every op but div)");
  Shape shape;
  HETC_RETURN_IF_ERROR(binaryOutputShape(name, a, b, out, &shape));
  internal::BroadcastLoop loop;
  HETC_RETURN_IF_ERROR(
      internal::makeBroadcastLoop(shape, {&a.shape, &b.shape}, &loop), name);
  if (a.dtype == DType::kF32)
    binaryTyped<float>(op, loop, a, b, out);
  else if (a.dtype == DType::kF64)
    binaryTyped<double>(op, loop, a, b, out);
  else if (a.dtype == DType::kI64)
    binaryTyped<int64_t>(op, loop, a, b, out);
  else
    binaryTyped<int32_t>(op, loop, a, b, out);
  return okStatus();
}

Status equal(const TensorView &a, const TensorView &b, const TensorView &out) {
  Shape shape;
  HETC_RETURN_IF_ERROR(checkEqualOperands(a, b, out, &shape));
  internal::BroadcastLoop loop;
  HETC_RETURN_IF_ERROR(
      internal::makeBroadcastLoop(shape, {&a.shape, &b.shape}, &loop), "equal");
  uint8_t *op = out.as<uint8_t>();
  int64_t sa = loop.colStride(0), sb = loop.colStride(1);
  internal::visitDType(a.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *ap = a.as<T>();
    const T *bp = b.as<T>();
    internal::forEachBroadcastRun(
        loop, [&](int64_t o, const int64_t *offs, int64_t n) {
          for (int64_t i = 0; i < n; ++i)
            op[o + i] = ap[offs[0] + i * sa] == bp[offs[1] + i * sb];
        });
    return 0;
  });
  return okStatus();
}

Status where(const TensorView &cond, const TensorView &onTrue,
             const TensorView &onFalse, const TensorView &out) {
  Shape shape;
  HETC_RETURN_IF_ERROR(checkWhereOperands(cond, onTrue, onFalse, out, &shape));
  internal::BroadcastLoop loop;
  HETC_RETURN_IF_ERROR(
      internal::makeBroadcastLoop(
          shape, {&cond.shape, &onTrue.shape, &onFalse.shape}, &loop),
      "where");
  const uint8_t *cp = cond.as<uint8_t>();
  int64_t sc = loop.colStride(0), st = loop.colStride(1),
          sf = loop.colStride(2);
  internal::visitWidth(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *tp = onTrue.as<T>();
    const T *fp = onFalse.as<T>();
    T *op = out.as<T>();
    internal::forEachBroadcastRun(
        loop, [&](int64_t o, const int64_t *offs, int64_t n) {
          for (int64_t i = 0; i < n; ++i)
            op[o + i] = cp[offs[0] + i * sc] ? tp[offs[1] + i * st]
                                             : fp[offs[2] + i * sf];
        });
    return 0;
  });
  return okStatus();
}

Status reduceToShape(const TensorView &grad, const TensorView &out,
                     bool accumulate) {
  HETC_RETURN_IF_ERROR(checkDType(grad, DType::kF32, "grad"),
                       "reduce_to_shape");
  HETC_RETURN_IF_ERROR(checkDType(out, DType::kF32, "out"), "reduce_to_shape");
  HETC_RETURN_IF_ERROR(checkData(grad, "grad"), "reduce_to_shape");
  HETC_RETURN_IF_ERROR(checkData(out, "out"), "reduce_to_shape");
  std::vector<int64_t> strides;
  HETC_RETURN_IF_ERROR(
      internal::broadcastStrides(out.shape, grad.shape, &strides),
      "reduce_to_shape");
  size_t lead = grad.shape.size() - out.shape.size();
  std::vector<bool> reduced(grad.shape.size(), false);
  for (size_t k = 0; k < grad.shape.size(); ++k)
    reduced[k] = k < lead || out.shape[k - lead] == 1;
  internal::reduceDims(internal::ReduceKind::kSum, grad.as<float>(),
                       grad.shape, reduced, out.as<float>(), accumulate, 1.0);
  return okStatus();
}

namespace {

bool isHalf(DType dtype) {
  return dtype == DType::kBF16 || dtype == DType::kF16;
}

/// Elements [b, e) of `in` as f32: bf16 and f16 exactly, others by the
/// conversion rules of cast.
void readAsFloat(const TensorView &in, int64_t b, int64_t e, float *values) {
  const uint16_t *bits = in.as<uint16_t>();
  if (in.dtype == DType::kBF16) {
    for (int64_t i = b; i < e; ++i)
      values[i - b] = bf16ToFloat(bits[i]);
  } else if (in.dtype == DType::kF16) {
    for (int64_t i = b; i < e; ++i)
      values[i - b] = f16ToFloat(bits[i]);
  } else {
    internal::visitDType(in.dtype, [&](auto tag) {
      using From = decltype(tag);
      const From *src = in.as<From>();
      for (int64_t i = b; i < e; ++i)
        values[i - b] = internal::convertValue<float, From>(src[i]);
      return 0;
    });
  }
}

/// Writes f32 `values` to elements [b, e) of `out`: rounded to nearest even
/// for bf16 and f16, by the conversion rules of cast otherwise.
void writeFromFloat(const float *values, int64_t b, int64_t e,
                    const TensorView &out) {
  uint16_t *bits = out.as<uint16_t>();
  if (out.dtype == DType::kBF16) {
    for (int64_t i = b; i < e; ++i)
      bits[i] = floatToBf16(values[i - b]);
  } else if (out.dtype == DType::kF16) {
    for (int64_t i = b; i < e; ++i)
      bits[i] = floatToF16(values[i - b]);
  } else {
    internal::visitDType(out.dtype, [&](auto tag) {
      using To = decltype(tag);
      To *dst = out.as<To>();
      for (int64_t i = b; i < e; ++i)
        dst[i] = internal::convertValue<To, float>(values[i - b]);
      return 0;
    });
  }
}

/// A cast from or to bf16 or f16 goes through f32, as the GPU's does: the
/// 16-bit values widen exactly and narrowing rounds once (an f64 or a large
/// integer is first rounded to f32).
void castThroughFloat(const TensorView &in, const TensorView &out) {
  constexpr int64_t kChunk = 1024;
  parallelFor(in.numel(), kElementGrain, [&](int64_t b, int64_t e) {
    float values[kChunk];
    for (int64_t first = b; first < e; first += kChunk) {
      int64_t end = std::min(e, first + kChunk);
      readAsFloat(in, first, end, values);
      writeFromFloat(values, first, end, out);
    }
  });
}

} // namespace

Status cast(const TensorView &in, const TensorView &out) {
  HETC_RETURN_IF_ERROR(checkCastOperands(in, out));
  if (isHalf(in.dtype) || isHalf(out.dtype)) {
    castThroughFloat(in, out);
    return okStatus();
  }
  int64_t n = in.numel();
  internal::visitDType(in.dtype, [&](auto fromTag) {
    using From = decltype(fromTag);
    return internal::visitDType(out.dtype, [&](auto toTag) {
      using To = decltype(toTag);
      const From *src = in.as<From>();
      To *dst = out.as<To>();
      parallelFor(n, kElementGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i)
          dst[i] = internal::convertValue<To, From>(src[i]);
      });
      return 0;
    });
  });
  return okStatus();
}

} // namespace hetc::runtime::cpu
