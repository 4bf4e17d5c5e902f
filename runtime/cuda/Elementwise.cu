//===- Elementwise.cu - unary, binary, select, cast on the GPU ------------===//
//
// Every kernel here but reduceToShape is a map over the output
// (internal/Broadcast.cuh): one thread per 16-byte pack of output elements,
// broadcast operands addressed through collapsed strides passed by value.
// Float math runs in f32 whatever the storage type and rounds once on store,
// with the same formulas as runtime/cpu/Elementwise.cpp. reduceToShape sums
// each output element in one thread, warp or block, in a fixed order, so
// results do not change from run to run.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/Elementwise.h"

#include "runtime/base/Convert.h"
#include "runtime/base/ElementwiseChecks.h"
#include "runtime/cuda/internal/Broadcast.cuh"
#include "runtime/cuda/internal/Broadcast.h"
#include "runtime/cuda/internal/DeviceFloat.cuh"

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace hetc::runtime::cuda {
namespace {

using internal::load;
using internal::store;

constexpr const uint8_t *kNone = nullptr; // an unused map input

constexpr float kSqrt2 = 1.41421356237309504880f;
constexpr float kInvSqrt2Pi = 0.39894228040143267794f;   // 1/sqrt(2 pi)
constexpr float kTwoOverSqrtPi = 1.12837916709551257390f; // 2/sqrt(pi)
constexpr float kSqrt2OverPi = 0.79788456080286535588f;   // sqrt(2/pi)
constexpr float kGeluCubic = 0.044715f;

//===----------------------------------------------------------------------===//
// Element functions
//===----------------------------------------------------------------------===//

__device__ __forceinline__ float quietNaN() { return __int_as_float(0x7fc00000); }

__device__ __forceinline__ float sigmoidOf(float x) {
  return 1.0f / (1.0f + expf(-x));
}

__device__ float applyUnary(UnaryOp op, float x) {
  switch (op) {
  case UnaryOp::kNeg:
    return -x;
  case UnaryOp::kSqrt:
    return sqrtf(x);
  case UnaryOp::kReciprocal:
    return 1.0f / x;
  case UnaryOp::kExp:
    return expf(x);
  case UnaryOp::kLog:
    return logf(x);
  case UnaryOp::kTanh:
    return tanhf(x);
  case UnaryOp::kCos:
    return cosf(x);
  case UnaryOp::kSin:
    return sinf(x);
  case UnaryOp::kErf:
    return erff(x);
  case UnaryOp::kSigmoid:
    return sigmoidOf(x);
  case UnaryOp::kRelu:
    return x < 0.0f ? 0.0f : x; // NaN stays NaN, as in torch
  case UnaryOp::kGeluErf:
    return 0.5f * x * (1.0f + erff(x / kSqrt2));
  case UnaryOp::kGeluTanh:
    return 0.5f * x * (1.0f + tanhf(kSqrt2OverPi * (x + kGeluCubic * x * x * x)));
  case UnaryOp::kSilu:
    return x * sigmoidOf(x);
  }
  return x;
}

// f'(x).
__device__ float unaryDerivative(UnaryOp op, float x) {
  switch (op) {
  case UnaryOp::kNeg:
    return -1.0f;
  case UnaryOp::kSqrt:
    return 0.5f / sqrtf(x);
  case UnaryOp::kReciprocal:
    return -1.0f / (x * x);
  case UnaryOp::kExp:
    return expf(x);
  case UnaryOp::kLog:
    return 1.0f / x;
  case UnaryOp::kTanh: {
    float t = tanhf(x);
    return 1.0f - t * t;
  }
  case UnaryOp::kCos:
    return -sinf(x);
  case UnaryOp::kSin:
    return cosf(x);
  case UnaryOp::kErf:
    return kTwoOverSqrtPi * expf(-x * x);
  case UnaryOp::kSigmoid: {
    float s = sigmoidOf(x);
    return s * (1.0f - s);
  }
  case UnaryOp::kRelu:
    return x > 0.0f ? 1.0f : 0.0f;
  case UnaryOp::kGeluErf: {
    float cdf = 0.5f * (1.0f + erff(x / kSqrt2));
    float pdf = kInvSqrt2Pi * expf(-0.5f * x * x);
    return cdf + x * pdf;
  }
  case UnaryOp::kGeluTanh: {
    float x2 = x * x;
    float t = tanhf(kSqrt2OverPi * (x + kGeluCubic * x2 * x));
    return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * kSqrt2OverPi *
                                   (1.0f + 3.0f * kGeluCubic * x2);
  }
  case UnaryOp::kSilu: {
    float s = sigmoidOf(x);
    return s * (1.0f + x * (1.0f - s));
  }
  }
  return 0.0f;
}

__device__ float applyBinary(BinaryOp op, float x, float y) {
  switch (op) {
  case BinaryOp::kAdd:
    return x + y;
  case BinaryOp::kSub:
    return x - y;
  case BinaryOp::kMul:
    return x * y;
  case BinaryOp::kDiv:
    return x / y;
  case BinaryOp::kPow:
    return powf(x, y);
  case BinaryOp::kMinimum:
    if (isnan(x) || isnan(y))
      return quietNaN();
    return y < x ? y : x;
  case BinaryOp::kMaximum:
    if (isnan(x) || isnan(y))
      return quietNaN();
    return x < y ? y : x;
  case BinaryOp::kMod: {
    float r = fmodf(x, y);
    return r != 0.0f && ((r < 0.0f) != (y < 0.0f)) ? r + y : r;
  }
  case BinaryOp::kFmod:
    return fmodf(x, y);
  }
  return 0.0f;
}

/// Integer x^y by squaring, wrapping like the other integer ops; a negative
/// exponent truncates the real power toward zero (as runtime/cpu).
template <typename T> __device__ T integerPow(T x, T y) {
  using U = std::make_unsigned_t<T>;
  if (y < 0)
    return x == 1 ? T(1) : x == -1 ? (y % 2 == 0 ? T(1) : T(-1)) : T(0);
  U result = 1, base = static_cast<U>(x);
  for (U e = static_cast<U>(y); e != 0; e >>= 1) {
    if (e & 1)
      result = static_cast<U>(result * base);
    base = static_cast<U>(base * base);
  }
  return static_cast<T>(result);
}

template <typename T> struct FloatUnary {
  UnaryOp op;
  __device__ T operator()(T x) const { return store<T>(applyUnary(op, load(x))); }
};

template <typename T> struct IntNeg { // two's complement wrap for the minimum
  __device__ T operator()(T x) const {
    return static_cast<T>(std::make_unsigned_t<T>(0) -
                          static_cast<std::make_unsigned_t<T>>(x));
  }
};

template <typename T> struct FloatUnaryGrad {
  UnaryOp op;
  __device__ T operator()(T x, T dy) const {
    return store<T>(load(dy) * unaryDerivative(op, load(x)));
  }
};

template <typename T> struct FloatBinary {
  BinaryOp op;
  __device__ T operator()(T a, T b) const {
    return store<T>(applyBinary(op, load(a), load(b)));
  }
};

template <typename T> struct IntBinary {
  BinaryOp op;
  __device__ T operator()(T x, T y) const {
    using U = std::make_unsigned_t<T>; // wraps on overflow
    switch (op) {
    case BinaryOp::kAdd:
      return static_cast<T>(U(x) + U(y));
    case BinaryOp::kSub:
      return static_cast<T>(U(x) - U(y));
    case BinaryOp::kMul:
      return static_cast<T>(U(x) * U(y));
    case BinaryOp::kPow:
      return integerPow(x, y);
    case BinaryOp::kMinimum:
      return y < x ? y : x;
    case BinaryOp::kMaximum:
      return x < y ? y : x;
    case BinaryOp::kMod:
    case BinaryOp::kFmod: {
      if (y == 0 || y == T(-1))
        return 0;
      T r = x % y;
      return op == BinaryOp::kMod && r != 0 && ((r < 0) != (y < 0))
                 ? static_cast<T>(r + y)
                 : r;
    }
    case BinaryOp::kDiv: // rejected on the host
      break;
    }
    return 0;
  }
};

// bf16 and f16 compare and convert as the f32 they hold.
template <typename T> __device__ __forceinline__ T widen(T v) { return v; }
__device__ __forceinline__ float widen(__nv_bfloat16 v) { return load(v); }
__device__ __forceinline__ float widen(__half v) { return load(v); }

template <typename T> struct Equal {
  __device__ uint8_t operator()(T a, T b) const {
    return widen(a) == widen(b) ? 1 : 0;
  }
};

template <typename T> struct Select { // T: an unsigned type of the width
  __device__ T operator()(uint8_t cond, T onTrue, T onFalse) const {
    return cond ? onTrue : onFalse;
  }
};

/// runtime/base/Convert.h's rules between f32, f64, i64, i32 and bool
/// (uint8_t).
using runtime::convertValue;

template <typename T>
constexpr bool kIsHalf =
    std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half>;

/// bf16 and f16 go through f32: widening is exact, and narrowing converts
/// to f32 first, then rounds to nearest even (f64 and i64 sources thus round
/// twice, as torch's conversions do).
template <typename To, typename From> struct Convert {
  __device__ To operator()(From v) const {
    if constexpr (kIsHalf<To>)
      return store<To>(convertValue<float>(widen(v)));
    else
      return convertValue<To>(widen(v));
  }
};

/// Returns body(T{}) with T the device storage type of `dtype`.
template <typename Body> Status visitStorage(DType dtype, Body &&body) {
  switch (dtype) {
  case DType::kF32:
    return body(float{});
  case DType::kF64:
    return body(double{});
  case DType::kI64:
    return body(int64_t{});
  case DType::kI32:
    return body(int32_t{});
  case DType::kBool:
    return body(uint8_t{});
  case DType::kBF16:
    return body(__nv_bfloat16{});
  case DType::kF16:
    return body(__half{});
  }
  return internalError("unknown dtype");
}

/// visitStorage for the float dtypes computed in f32; callers check first.
template <typename Body> Status visitFloat(DType dtype, Body &&body) {
  switch (dtype) {
  case DType::kF32:
    return body(float{});
  case DType::kBF16:
    return body(__nv_bfloat16{});
  case DType::kF16:
    return body(__half{});
  default:
    return internalError("visitFloat: ", dtypeName(dtype), " is no float");
  }
}

bool isDeviceFloat(DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kBF16 || dtype == DType::kF16;
}

Status checkDeviceFloat(const TensorView &t, const char *what) {
  if (!isDeviceFloat(t.dtype))
    return invalidArgument(what, " must be f32, bf16 or f16, got ",
                           t.describe());
  return okStatus();
}

//===----------------------------------------------------------------------===//
// reduceToShape
//===----------------------------------------------------------------------===//

constexpr int kReduceThreads = 256;

/// Grad offsets of a run of collapsed dimensions (outermost first) walked by
/// a flat index.
struct GroupIndex {
  int rank = 0;
  int64_t dims[internal::kMaxBroadcastDims] = {};
  int64_t strides[internal::kMaxBroadcastDims] = {};

  __device__ __forceinline__ int64_t offset(int64_t i) const {
    int64_t off = 0;
#pragma unroll
    for (int k = internal::kMaxBroadcastDims - 1; k >= 0; --k) {
      if (k < rank) {
        int64_t idx = i; // the outermost index needs no modulo
        if (k > 0) {
          idx = i % dims[k];
          i /= dims[k];
        }
        off += idx * strides[k];
      }
    }
    return off;
  }
};

/// grad's non-1 dimensions merged into alternating kept and reduced groups.
/// The output is contiguous over the kept groups in order.
struct ReducePlan {
  GroupIndex kept, reduced;
  int64_t numKept = 1, numReduced = 1; // output elements, terms per element
  bool innerKept = false;              // grad's innermost group is kept
};

Status makeReducePlan(const Shape &grad, const Shape &out, ReducePlan *plan) {
  std::vector<int64_t> unused;
  HETC_RETURN_IF_ERROR(internal::broadcastStrides(out, grad, &unused));
  size_t lead = grad.size() - out.size();
  std::vector<int64_t> gradStrides(grad.size());
  int64_t stride = 1;
  for (size_t k = grad.size(); k-- > 0;) {
    gradStrides[k] = stride;
    stride *= grad[k];
  }
  struct Group {
    bool reduced;
    int64_t dim, stride;
  };
  std::vector<Group> groups;
  for (size_t k = 0; k < grad.size(); ++k) {
    if (grad[k] == 1)
      continue;
    bool reduced = k < lead || out[k - lead] == 1;
    if (!groups.empty() && groups.back().reduced == reduced) {
      groups.back().dim *= grad[k];
      groups.back().stride = gradStrides[k];
    } else {
      groups.push_back({reduced, grad[k], gradStrides[k]});
    }
  }
  *plan = ReducePlan();
  for (const Group &g : groups) {
    GroupIndex &index = g.reduced ? plan->reduced : plan->kept;
    if (index.rank == internal::kMaxBroadcastDims)
      return unimplemented("reducing ", shapeToString(grad), " to ",
                           shapeToString(out), " needs more than ",
                           internal::kMaxBroadcastDims, " groups of dimensions");
    index.dims[index.rank] = g.dim;
    index.strides[index.rank] = g.stride;
    ++index.rank;
    (g.reduced ? plan->numReduced : plan->numKept) *= g.dim;
  }
  plan->innerKept = !groups.empty() && !groups.back().reduced;
  return okStatus();
}

template <typename O>
__device__ __forceinline__ void storeSum(O *out, int64_t o, float sum,
                                         bool accumulate) {
  out[o] = store<O>(accumulate ? load(out[o]) + sum : sum);
}

// One thread per output element: few terms each, or so many outputs that
// neighbouring threads reading neighbouring columns already coalesce. The
// innermost reduced group is walked by increment, dividing once per run.
template <typename G, typename O>
__global__ void reducePerThreadKernel(GroupIndex kept, GroupIndex reduced,
                                      int64_t numKept, int64_t numReduced,
                                      const G *grad, O *out, bool accumulate) {
  int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (o >= numKept)
    return;
  int64_t base = kept.offset(o);
  int64_t run = reduced.rank ? reduced.dims[reduced.rank - 1] : 1;
  int64_t step = reduced.rank ? reduced.strides[reduced.rank - 1] : 0;
  float sum = 0.0f;
  for (int64_t r = 0; r < numReduced; r += run) {
    const G *p = grad + base + reduced.offset(r);
    for (int64_t j = 0; j < run; ++j)
      sum += load(p[j * step]);
  }
  storeSum(out, o, sum, accumulate);
}

// Kept innermost group of `cols` contiguous columns (a bias gradient): a
// block owns `width` columns of one outer kept index; its threads are
// kReduceThreads / width row lanes, each summing every lanes-th term, then
// lane partials are added in lane order. width * sizeof(G) >= 32 bytes where
// cols allows, so each warp reads whole 32-byte sectors.
template <typename G, typename O>
__global__ void reduceColumnsKernel(GroupIndex keptOuter, GroupIndex reduced,
                                    int64_t cols, int64_t tilesPerRow,
                                    int width, int64_t numReduced,
                                    const G *grad, O *out, bool accumulate) {
  __shared__ float partial[kReduceThreads];
  int64_t q = blockIdx.x / tilesPerRow;
  int64_t tile = blockIdx.x - q * tilesPerRow;
  int lane = threadIdx.x % width;
  int rowLane = threadIdx.x / width;
  int lanes = kReduceThreads / width;
  int64_t col = tile * width + lane;
  float sum = 0.0f;
  if (col < cols) {
    const G *p = grad + keptOuter.offset(q) + col;
#pragma unroll 4
    for (int64_t r = rowLane; r < numReduced; r += lanes)
      sum += load(p[reduced.offset(r)]);
  }
  partial[threadIdx.x] = sum; // == partial[rowLane * width + lane]
  __syncthreads();
  if (rowLane == 0 && col < cols) {
    float total = 0.0f;
    for (int l = 0; l < lanes; ++l)
      total += partial[l * width + lane];
    storeSum(out, q * cols + col, total, accumulate);
  }
}

// Reduced innermost group (a row sum): `Group` threads (a warp, or the whole
// block when there are few outputs) per output element, striding over its
// terms, then a butterfly within the warp and, for a block, warp sums in
// warp order.
template <int Group, typename G, typename O>
__global__ void reduceGroupKernel(GroupIndex kept, GroupIndex reduced,
                                  int64_t numKept, int64_t numReduced,
                                  const G *grad, O *out, bool accumulate) {
  static_assert(Group == 32 || Group == kReduceThreads);
  __shared__ float warpSums[kReduceThreads / 32];
  int64_t o = static_cast<int64_t>(blockIdx.x) * (kReduceThreads / Group) +
              threadIdx.x / Group;
  int lane = threadIdx.x % Group;
  float sum = 0.0f;
  if (o < numKept) { // uniform across each warp
    const G *p = grad + kept.offset(o);
    for (int64_t r = lane; r < numReduced; r += Group)
      sum += load(p[reduced.offset(r)]);
  }
#pragma unroll
  for (int s = 16; s > 0; s >>= 1)
    sum += __shfl_xor_sync(0xffffffffu, sum, s);
  if constexpr (Group > 32) {
    if (threadIdx.x % 32 == 0)
      warpSums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
      sum = 0.0f;
      for (int w = 0; w < Group / 32; ++w)
        sum += warpSums[w];
    }
  }
  if (lane == 0 && o < numKept)
    storeSum(out, o, sum, accumulate);
}

// Enough outputs to fill the GPU with one thread each.
constexpr int64_t kManyOutputs = 131072;
// Fewer terms than this: one thread per output.
constexpr int64_t kFewTerms = 32;

template <typename G, typename O>
Status launchReduce(const ReducePlan &plan, const G *grad, O *out,
                    bool accumulate) {
  cudaStream_t stream = currentStream();
  int64_t m = plan.numKept, r = plan.numReduced;
  if (plan.innerKept && r >= kFewTerms && m < kManyOutputs) {
    GroupIndex outer = plan.kept;
    int64_t cols = outer.dims[--outer.rank];
    int width = static_cast<int>(32 / sizeof(G)); // one 32-byte sector
    while (width > 1 && width / 2 >= cols)
      width /= 2;
    int64_t tilesPerRow = (cols + width - 1) / width;
    auto blocks = static_cast<unsigned>((m / cols) * tilesPerRow);
    reduceColumnsKernel<<<blocks, kReduceThreads, 0, stream>>>(
        outer, plan.reduced, cols, tilesPerRow, width, r, grad, out,
        accumulate);
  } else if (!plan.innerKept && r >= kFewTerms && m >= 1024) {
    reduceGroupKernel<32><<<internal::blocksFor(m, kReduceThreads / 32),
                            kReduceThreads, 0, stream>>>(
        plan.kept, plan.reduced, m, r, grad, out, accumulate);
  } else if (!plan.innerKept && r >= kFewTerms) {
    reduceGroupKernel<kReduceThreads>
        <<<static_cast<unsigned>(m), kReduceThreads, 0, stream>>>(
            plan.kept, plan.reduced, m, r, grad, out, accumulate);
  } else {
    reducePerThreadKernel<<<internal::blocksFor(m, kReduceThreads),
                            kReduceThreads, 0, stream>>>(
        plan.kept, plan.reduced, m, r, grad, out, accumulate);
  }
  return launchStatus("reduce_to_shape");
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

Status unary(UnaryOp op, const TensorView &x, const TensorView &y) {
  const char *name = unaryOpName(op);
  HETC_RETURN_IF_ERROR(checkUnaryOperands(name, x, y));
  int64_t n = x.numel();
  if (op == UnaryOp::kNeg && x.dtype == DType::kI64)
    return internal::mapSameShape<1>(name, n, IntNeg<int64_t>{}, y.as<int64_t>(),
                                     x.as<int64_t>(), kNone, kNone);
  if (op == UnaryOp::kNeg && x.dtype == DType::kI32)
    return internal::mapSameShape<1>(name, n, IntNeg<int32_t>{}, y.as<int32_t>(),
                                     x.as<int32_t>(), kNone, kNone);
  if (!isDeviceFloat(x.dtype))
    return invalidArgument(name, ": x must be f32, bf16 or f16",
                           op == UnaryOp::kNeg ? " (or i64, i32)" : "",
                           ", got ", x.describe());
  return visitFloat(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    return internal::mapSameShape<1>(name, n, FloatUnary<T>{op}, y.as<T>(),
                                     x.as<T>(), kNone, kNone);
  });
}

Status unaryBackward(UnaryOp op, const TensorView &x, const TensorView &dy,
                     const TensorView &dx) {
  std::string name = std::string(unaryOpName(op)) + "_backward";
  HETC_RETURN_IF_ERROR(checkDeviceFloat(x, "x"), name);
  if (dy.dtype != x.dtype || dx.dtype != x.dtype)
    return invalidArgument(name, ": x, dy and dx must share a dtype, got ",
                           x.describe(), ", ", dy.describe(), ", ",
                           dx.describe());
  HETC_RETURN_IF_ERROR(
      checkUnaryBackwardOperands(name.c_str(), x, dy, dx));
  return visitFloat(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    return internal::mapSameShape<2>(name.c_str(), x.numel(),
                                     FloatUnaryGrad<T>{op}, dx.as<T>(),
                                     x.as<T>(), dy.as<T>(), kNone);
  });
}

Status binary(BinaryOp op, const TensorView &a, const TensorView &b,
              const TensorView &out) {
  const char *name = binaryOpName(op);
  HETC_RETURN_IF_ERROR(checkBinaryOperands(name, a, b, out));
  bool isInt = a.dtype == DType::kI64 || a.dtype == DType::kI32;
  if (!isDeviceFloat(a.dtype) && !(isInt && op != BinaryOp::kDiv))
    return invalidArgument(name, ": unsupported dtype ", dtypeName(a.dtype),
                           " (f32, bf16, f16, or i64/i32 for add, sub, mul, "
                           "pow, minimum, maximum)");
  Shape shape;
  HETC_RETURN_IF_ERROR(binaryOutputShape(name, a, b, out, &shape));
  internal::BroadcastPlan plan;
  HETC_RETURN_IF_ERROR(
      internal::makeBroadcastPlan(shape, {&a.shape, &b.shape}, &plan), name);
  if (a.dtype == DType::kI64)
    return internal::mapBroadcast<2>(name, plan, IntBinary<int64_t>{op},
                                     out.as<int64_t>(), a.as<int64_t>(),
                                     b.as<int64_t>(), kNone);
  if (a.dtype == DType::kI32)
    return internal::mapBroadcast<2>(name, plan, IntBinary<int32_t>{op},
                                     out.as<int32_t>(), a.as<int32_t>(),
                                     b.as<int32_t>(), kNone);
  return visitFloat(a.dtype, [&](auto tag) {
    using T = decltype(tag);
    return internal::mapBroadcast<2>(name, plan, FloatBinary<T>{op},
                                     out.as<T>(), a.as<T>(), b.as<T>(), kNone);
  });
}

Status equal(const TensorView &a, const TensorView &b, const TensorView &out) {
  Shape shape;
  HETC_RETURN_IF_ERROR(checkEqualOperands(a, b, out, &shape));
  internal::BroadcastPlan plan;
  HETC_RETURN_IF_ERROR(
      internal::makeBroadcastPlan(shape, {&a.shape, &b.shape}, &plan),
      "equal");
  return visitStorage(a.dtype, [&](auto tag) {
    using T = decltype(tag);
    return internal::mapBroadcast<2>("equal", plan, Equal<T>{},
                                     out.as<uint8_t>(), a.as<T>(), b.as<T>(),
                                     kNone);
  });
}

Status where(const TensorView &cond, const TensorView &onTrue,
             const TensorView &onFalse, const TensorView &out) {
  Shape shape;
  HETC_RETURN_IF_ERROR(checkWhereOperands(cond, onTrue, onFalse, out, &shape));
  internal::BroadcastPlan plan;
  HETC_RETURN_IF_ERROR(
      internal::makeBroadcastPlan(
          shape, {&cond.shape, &onTrue.shape, &onFalse.shape}, &plan),
      "where");
  // Selection copies bits: only the element width matters.
  auto select = [&](auto tag) {
    using U = decltype(tag);
    return internal::mapBroadcast<3>("where", plan, Select<U>{}, out.as<U>(),
                                     cond.as<uint8_t>(), onTrue.as<U>(),
                                     onFalse.as<U>());
  };
  switch (dtypeSize(out.dtype)) {
  case 8:
    return select(uint64_t{});
  case 4:
    return select(uint32_t{});
  case 2:
    return select(uint16_t{});
  default:
    return select(uint8_t{});
  }
}

Status reduceToShape(const TensorView &grad, const TensorView &out,
                     bool accumulate) {
  HETC_RETURN_IF_ERROR(checkDeviceFloat(grad, "grad"), "reduce_to_shape");
  HETC_RETURN_IF_ERROR(checkDeviceFloat(out, "out"), "reduce_to_shape");
  HETC_RETURN_IF_ERROR(checkData(grad, "grad"), "reduce_to_shape");
  HETC_RETURN_IF_ERROR(checkData(out, "out"), "reduce_to_shape");
  ReducePlan plan;
  HETC_RETURN_IF_ERROR(makeReducePlan(grad.shape, out.shape, &plan),
                       "reduce_to_shape");
  if (plan.numKept == 0)
    return okStatus();
  return visitFloat(grad.dtype, [&](auto gradTag) {
    using G = decltype(gradTag);
    return visitFloat(out.dtype, [&](auto outTag) {
      using O = decltype(outTag);
      return launchReduce(plan, grad.as<G>(), out.as<O>(), accumulate);
    });
  });
}

Status cast(const TensorView &in, const TensorView &out) {
  HETC_RETURN_IF_ERROR(checkCastOperands(in, out));
  return visitStorage(in.dtype, [&](auto fromTag) {
    using From = decltype(fromTag);
    return visitStorage(out.dtype, [&](auto toTag) {
      using To = decltype(toTag);
      return internal::mapSameShape<1>("cast", in.numel(), Convert<To, From>{},
                                       out.as<To>(), in.as<From>(), kNone,
                                       kNone);
    });
  });
}

} // namespace hetc::runtime::cuda
