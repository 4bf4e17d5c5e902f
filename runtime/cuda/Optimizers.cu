//===- Optimizers.cu - SGD, AdamW and the global norm ---------------------===//
//
// AdamW and the norm walk lists of tensors as apex's multi_tensor_apply
// does: one launch takes up to kMaxTensors tensors by value in its kernel
// parameters (no host-to-device copy, so a CUDA graph can capture it), cuts
// each tensor into chunks of kChunk elements and gives every chunk a block,
// which finds its tensor by a binary search over the chunk offsets.
//
// The updates use explicitly rounded intrinsics (__fmul_rn, __fadd_rn, ...)
// in the CPU kernel's order: nvcc would otherwise fuse a * b + c into one FMA
// and round differently from the CPU, which rounds every operation.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/Optimizers.h"

#include "runtime/base/OptimizerChecks.h"
#include "runtime/cuda/internal/DeviceFloat.cuh"

#include <climits>
#include <cstdint>

namespace hetc::runtime::cuda {
namespace {

using internal::blocksFor;
using internal::dispatchFloat;
using internal::load;
using internal::store;

constexpr int kMaxTensors = 64;    // per launch; keeps parameters under 4 KB
constexpr int64_t kChunk = 16384;  // elements per block (a multiple of 4)
constexpr int kChunkThreads = 256; // threads of a chunk's block
constexpr int kFinishThreads = 512; // the one block that adds the partials
constexpr int kSgdThreads = 256;
constexpr unsigned kMaxSgdBlocks = 1u << 16; // grid-stride beyond this

//===----------------------------------------------------------------------===//
// Device helpers
//===----------------------------------------------------------------------===//

// The chunks of one launch: tensor i owns blocks [chunkStart[i],
// chunkStart[i + 1]). Empty tensors are never added, so the ranges are
// non-empty and increasing.
struct ChunkTable {
  int count;
  int chunkStart[kMaxTensors + 1];
  int64_t numel[kMaxTensors];
};

// The last tensor whose first chunk is at or before `block`.
__device__ __forceinline__ int tensorOfBlock(const ChunkTable &table,
                                             int block) {
  int lo = 0, hi = table.count - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (table.chunkStart[mid] <= block)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

__device__ __forceinline__ bool alignedTo(const void *p, unsigned bytes) {
  return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}

// Four consecutive elements as f32 in one vector load (16 or 8 bytes; the
// caller checks the alignment). Element 0 is in the low half of a word.
__device__ __forceinline__ void load4(const float *x, float out[4]) {
  float4 f = *reinterpret_cast<const float4 *>(x);
  out[0] = f.x;
  out[1] = f.y;
  out[2] = f.z;
  out[3] = f.w;
}
__device__ __forceinline__ void load4(const __nv_bfloat16 *x, float out[4]) {
  uint2 u = *reinterpret_cast<const uint2 *>(x);
  out[0] = __uint_as_float(u.x << 16); // bf16 is the top half of an f32
  out[1] = __uint_as_float(u.x & 0xffff0000u);
  out[2] = __uint_as_float(u.y << 16);
  out[3] = __uint_as_float(u.y & 0xffff0000u);
}
__device__ __forceinline__ void load4(const __half *x, float out[4]) {
  uint2 u = *reinterpret_cast<const uint2 *>(x);
  out[0] = __half2float(__ushort_as_half(static_cast<unsigned short>(u.x)));
  out[1] = __half2float(__ushort_as_half(static_cast<unsigned short>(u.x >> 16)));
  out[2] = __half2float(__ushort_as_half(static_cast<unsigned short>(u.y)));
  out[3] = __half2float(__ushort_as_half(static_cast<unsigned short>(u.y >> 16)));
}

// The sum over the block, valid in thread 0, added in a fixed tree order.
// Every thread of the block must call it.
template <int kThreads> __device__ double blockSum(double x) {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps");
  __shared__ double warpSums[kThreads / 32];
  for (int offset = 16; offset > 0; offset /= 2)
    x += __shfl_down_sync(0xffffffffu, x, offset);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0)
    warpSums[warp] = x;
  __syncthreads();
  x = 0.0;
  if (warp == 0) {
    x = lane < kThreads / 32 ? warpSums[lane] : 0.0;
    for (int offset = 16; offset > 0; offset /= 2)
      x += __shfl_down_sync(0xffffffffu, x, offset);
  }
  return x;
}

// The learning rate: lr, times the schedule's factor (on the device, f64)
// when there is one, as the CPU computes it.
__device__ __forceinline__ double scheduledLr(double lr, const double *factor) {
  return factor ? __dmul_rn(lr, *factor) : lr;
}

//===----------------------------------------------------------------------===//
// SGD
//===----------------------------------------------------------------------===//

template <typename P, typename G>
__global__ void __launch_bounds__(kSgdThreads)
    sgdKernel(P *param, const G *grad, int64_t n, double lr,
              const double *lrFactor, float wd, bool decay) {
  float negLr = __double2float_rn(-scheduledLr(lr, lrFactor));
  int64_t stride = static_cast<int64_t>(gridDim.x) * kSgdThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kSgdThreads + threadIdx.x;
       i < n; i += stride) {
    float p = load(param[i]);
    float g = load(grad[i]);
    float d = decay ? __fadd_rn(g, __fmul_rn(wd, p)) : g;
    param[i] = store<P>(__fadd_rn(p, __fmul_rn(negLr, d)));
  }
}

//===----------------------------------------------------------------------===//
// AdamW
//===----------------------------------------------------------------------===//

struct AdamWLaunch {
  ChunkTable table;
  float *param[kMaxTensors];
  const void *grad[kMaxTensors]; // of the kernel's grad type
  float *m[kMaxTensors];
  float *v[kMaxTensors];
};

// The CPU kernel's scalar factors that do not depend on the step, rounded
// on the host exactly as it rounds them; the rest comes from the step tensor.
struct AdamWScalars {
  const void *step;
  DType stepDType;
  const double *lrFactor; // null: lr as it is
  bool decay;
  bool lerpLow; // torch's lerp formula for weights below 0.5
  double lr, beta1, beta2, weightDecay;
  float weight1, oneMinusWeight1, beta2f, oneMinusBeta2, eps;
};

// Kernel parameters must fit in 4 KB on every driver.
static_assert(sizeof(AdamWLaunch) + sizeof(AdamWScalars) <= 4096,
              "AdamW launch parameters");

__device__ double readStep(const void *p, DType dtype) {
  switch (dtype) {
  case DType::kF32:
    return *static_cast<const float *>(p);
  case DType::kF64:
    return *static_cast<const double *>(p);
  case DType::kI64:
    return static_cast<double>(*static_cast<const int64_t *>(p));
  case DType::kI32:
    return *static_cast<const int32_t *>(p);
  case DType::kBool:
    return *static_cast<const uint8_t *>(p) ? 1.0 : 0.0;
  case DType::kBF16:
    return __bfloat162float(*static_cast<const __nv_bfloat16 *>(p));
  case DType::kF16:
    return __half2float(*static_cast<const __half *>(p));
  }
  return __longlong_as_double(0x7ff8000000000000ll); // NaN
}

// The factors that depend on the step count and the scheduled lr, as the
// CPU computes them: -lr / (1 - beta1^t), sqrt(1 - beta2^t) and the decay
// 1 - lr * weight_decay, in double, rounded to float. A step count the CPU
// would reject gives NaN.
struct StepFactors {
  float negStepSize, bc2Sqrt, decayFactor;
};

__device__ void stepFactors(const AdamWScalars &s, StepFactors *f) {
  double t = readStep(s.step, s.stepDType);
  double bc1 = 1.0 - pow(s.beta1, t);
  double bc2 = 1.0 - pow(s.beta2, t);
  double lr = scheduledLr(s.lr, s.lrFactor);
  f->negStepSize = __double2float_rn(-__ddiv_rn(lr, bc1));
  f->bc2Sqrt = __double2float_rn(__dsqrt_rn(bc2));
  f->decayFactor = __double2float_rn(__dsub_rn(1.0, __dmul_rn(lr, s.weightDecay)));
  if (!(t >= 1.0 && floor(t) == t && t <= 9.0e15))
    f->negStepSize = __int_as_float(0x7fc00000); // NaN
}

// One element, operation by operation as runtime/cpu's adamwStep.
__device__ __forceinline__ void adamwElement(float &p, float g, float &m,
                                             float &v, const AdamWScalars &s,
                                             const StepFactors &f) {
  float pi = s.decay ? __fmul_rn(p, f.decayFactor) : p;
  float mi = s.lerpLow
                 ? __fadd_rn(m, __fmul_rn(s.weight1, __fsub_rn(g, m)))
                 : __fsub_rn(g, __fmul_rn(__fsub_rn(g, m), s.oneMinusWeight1));
  float vi = __fmul_rn(v, s.beta2f);
  vi = __fadd_rn(vi, __fmul_rn(__fmul_rn(s.oneMinusBeta2, g), g));
  float denom = __fadd_rn(__fdiv_rn(__fsqrt_rn(vi), f.bc2Sqrt), s.eps);
  p = __fadd_rn(pi, __fdiv_rn(__fmul_rn(f.negStepSize, mi), denom));
  m = mi;
  v = vi;
}

template <typename G>
__global__ void __launch_bounds__(kChunkThreads)
    adamwKernel(const __grid_constant__ AdamWLaunch launch,
                const __grid_constant__ AdamWScalars s) {
  // The step and the lr factor live on the device; one thread per block
  // turns them into the step's factors.
  __shared__ StepFactors shared;
  if (threadIdx.x == 0)
    stepFactors(s, &shared);
  __syncthreads();
  StepFactors f = shared;

  int block = blockIdx.x;
  int t = tensorOfBlock(launch.table, block);
  int64_t begin = static_cast<int64_t>(block - launch.table.chunkStart[t]) * kChunk;
  int64_t end = min(launch.table.numel[t], begin + kChunk);
  float *p = launch.param[t];
  const G *g = static_cast<const G *>(launch.grad[t]);
  float *m = launch.m[t];
  float *v = launch.v[t];

  int64_t scalarBegin = begin;
  if (alignedTo(p, 16) && alignedTo(m, 16) && alignedTo(v, 16) &&
      alignedTo(g, 4 * sizeof(G))) {
    // begin is a multiple of 4, so every group of four stays aligned.
    int64_t vecEnd = begin + ((end - begin) & ~int64_t(3));
    for (int64_t i = begin + 4 * threadIdx.x; i < vecEnd; i += 4 * kChunkThreads) {
      float4 pv = *reinterpret_cast<const float4 *>(p + i);
      float4 mv = *reinterpret_cast<const float4 *>(m + i);
      float4 vv = *reinterpret_cast<const float4 *>(v + i);
      float gv[4];
      load4(g + i, gv);
      adamwElement(pv.x, gv[0], mv.x, vv.x, s, f);
      adamwElement(pv.y, gv[1], mv.y, vv.y, s, f);
      adamwElement(pv.z, gv[2], mv.z, vv.z, s, f);
      adamwElement(pv.w, gv[3], mv.w, vv.w, s, f);
      *reinterpret_cast<float4 *>(p + i) = pv;
      *reinterpret_cast<float4 *>(m + i) = mv;
      *reinterpret_cast<float4 *>(v + i) = vv;
    }
    scalarBegin = vecEnd;
  }
  for (int64_t i = scalarBegin + threadIdx.x; i < end; i += kChunkThreads) {
    float pi = p[i], mi = m[i], vi = v[i];
    adamwElement(pi, load(g[i]), mi, vi, s, f);
    p[i] = pi;
    m[i] = mi;
    v[i] = vi;
  }
}

//===----------------------------------------------------------------------===//
// Learning-rate schedule
//===----------------------------------------------------------------------===//

// One thread: the step index is on the device (checked to be i64 or i32).
__global__ void lrScheduleKernel(const void *step, DType stepDType,
                                 LrSchedule schedule, double *factor) {
  int64_t it = stepDType == DType::kI64 ? *static_cast<const int64_t *>(step)
                                        : *static_cast<const int32_t *>(step);
  *factor = lrFactorAt(schedule, it);
}

//===----------------------------------------------------------------------===//
// Sums of squares
//===----------------------------------------------------------------------===//

struct NormLaunch {
  ChunkTable table;
  const void *data[kMaxTensors]; // of the kernel's element type
  int firstPartial;              // where this launch's chunks write
};

static_assert(sizeof(NormLaunch) + sizeof(double *) <= 4096,
              "norm launch parameters");

// partials[firstPartial + block] = the sum of squares of the block's chunk.
template <typename T>
__global__ void __launch_bounds__(kChunkThreads)
    sumSquaresKernel(const __grid_constant__ NormLaunch launch,
                     double *partials) {
  int block = blockIdx.x;
  int t = tensorOfBlock(launch.table, block);
  int64_t begin = static_cast<int64_t>(block - launch.table.chunkStart[t]) * kChunk;
  int64_t end = min(launch.table.numel[t], begin + kChunk);
  const T *x = static_cast<const T *>(launch.data[t]);

  // A float's square is exact in double, so no rounding depends on FMA use.
  double sum = 0.0;
  int64_t scalarBegin = begin;
  if (alignedTo(x, 4 * sizeof(T))) {
    int64_t vecEnd = begin + ((end - begin) & ~int64_t(3));
    for (int64_t i = begin + 4 * threadIdx.x; i < vecEnd; i += 4 * kChunkThreads) {
      float xv[4];
      load4(x + i, xv);
      for (int k = 0; k < 4; ++k)
        sum += static_cast<double>(xv[k]) * xv[k];
    }
    scalarBegin = vecEnd;
  }
  for (int64_t i = scalarBegin + threadIdx.x; i < end; i += kChunkThreads) {
    double xi = load(x[i]);
    sum += xi * xi;
  }
  sum = blockSum<kChunkThreads>(sum);
  if (threadIdx.x == 0)
    partials[launch.firstPartial + block] = sum;
}

// out = sqrt(sum of the partials), added in a fixed order by one block.
__global__ void __launch_bounds__(kFinishThreads)
    finishNormKernel(const double *partials, int count, void *out,
                     bool outF64) {
  double sum = 0.0;
  for (int i = threadIdx.x; i < count; i += kFinishThreads)
    sum += partials[i];
  sum = blockSum<kFinishThreads>(sum);
  if (threadIdx.x == 0) {
    double norm = __dsqrt_rn(sum);
    if (outF64)
      *static_cast<double *>(out) = norm;
    else
      *static_cast<float *>(out) = __double2float_rn(norm);
  }
}

//===----------------------------------------------------------------------===//
// Host side
//===----------------------------------------------------------------------===//

int64_t chunksOf(int64_t numel) { return (numel + kChunk - 1) / kChunk; }

// Adds tensors to a ChunkTable until it is full; the grid is `chunks` blocks.
struct ChunkTableBuilder {
  ChunkTable table{};
  int chunks = 0;

  // Whether a tensor of `numel` (> 0) elements still fits in this launch.
  bool fits(int64_t numel) const {
    return table.count < kMaxTensors && chunksOf(numel) <= INT_MAX - chunks;
  }
  // Appends a tensor and returns its slot.
  int add(int64_t numel) {
    int slot = table.count++;
    table.numel[slot] = numel;
    table.chunkStart[slot] = chunks;
    chunks += static_cast<int>(chunksOf(numel));
    table.chunkStart[slot + 1] = chunks;
    return slot;
  }
  void reset() {
    table.count = 0;
    chunks = 0;
  }
};

// A tensor whose chunks cannot be counted in an int (3.5e13 elements).
bool tooManyChunks(int64_t numel) { return chunksOf(numel) > INT_MAX; }

bool isKernelFloat(DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kBF16 || dtype == DType::kF16;
}

Status checkFloat(const TensorView &t, const char *what) {
  if (!isKernelFloat(t.dtype))
    return invalidArgument(what, " must be f32, bf16 or f16, got ",
                           t.describe());
  return checkData(t, what);
}

// t is f32 with data, of the shape of `like` when given (the CPU's check).
Status checkState(const TensorView &t, const char *what,
                  const TensorView *like = nullptr) {
  HETC_RETURN_IF_ERROR(checkDType(t, DType::kF32, what));
  HETC_RETURN_IF_ERROR(checkData(t, what));
  if (like && t.shape != like->shape)
    return invalidArgument(what, " ", t.describe(), " does not match param ",
                           like->describe());
  return okStatus();
}

Status checkAdamWTensors(const AdamWTensors &t) {
  HETC_RETURN_IF_ERROR(checkState(t.param, "param"));
  HETC_RETURN_IF_ERROR(checkFloat(t.grad, "grad"));
  if (t.grad.shape != t.param.shape)
    return invalidArgument("grad ", t.grad.describe(), " does not match param ",
                           t.param.describe());
  HETC_RETURN_IF_ERROR(checkState(t.m, "m", &t.param));
  HETC_RETURN_IF_ERROR(checkState(t.v, "v", &t.param));
  if (tooManyChunks(t.param.numel()))
    return invalidArgument("param ", t.param.describe(), " is too large");
  return okStatus();
}

// The host can check only the step's size; its value is read on the device.
Status checkAdamWStep(const TensorView &step, const AdamWOptions &options) {
  if (step.numel() != 1)
    return invalidArgument("step must hold one element, got ", step.describe());
  HETC_RETURN_IF_ERROR(checkData(step, "step"));
  if (!(options.beta1 >= 0.0 && options.beta1 < 1.0 && options.beta2 >= 0.0 &&
        options.beta2 < 1.0))
    return invalidArgument("betas must be in [0, 1), got ", options.beta1, ", ",
                           options.beta2);
  return okStatus();
}

// A learning-rate factor is a 0-D f64 tensor on the device.
Status checkLrFactor(const TensorView *factor) {
  if (!factor)
    return okStatus();
  if (factor->numel() != 1 || factor->dtype != DType::kF64)
    return invalidArgument("lr_factor must be one f64 element, got ",
                           factor->describe());
  return checkData(*factor, "lr_factor");
}

const double *lrFactorData(const TensorView *factor) {
  return factor ? factor->as<const double>() : nullptr;
}

AdamWScalars adamwScalars(const TensorView &step, const AdamWOptions &options,
                          const TensorView *lrFactor) {
  AdamWScalars s{};
  s.step = step.data;
  s.stepDType = step.dtype;
  s.lrFactor = lrFactorData(lrFactor);
  s.decay = options.applyWeightDecay && options.weightDecay != 0.0;
  s.lr = options.lr;
  s.beta1 = options.beta1;
  s.beta2 = options.beta2;
  s.weightDecay = options.weightDecay;
  s.weight1 = static_cast<float>(1.0 - options.beta1);
  s.oneMinusWeight1 = 1.0f - s.weight1;
  s.lerpLow = s.weight1 < 0.5f;
  s.beta2f = static_cast<float>(options.beta2);
  s.oneMinusBeta2 = static_cast<float>(1.0 - options.beta2);
  s.eps = static_cast<float>(options.eps);
  return s;
}

// Launches the AdamW kernel over checked tensors, a launch per kMaxTensors
// tensors or per change of grad dtype.
Status launchAdamW(const char *name, const std::vector<AdamWTensors> &tensors,
                   const TensorView &step, const AdamWOptions &options,
                   const TensorView *lrFactor) {
  AdamWScalars scalars = adamwScalars(step, options, lrFactor);
  AdamWLaunch launch{};
  ChunkTableBuilder builder;
  DType gradType = DType::kF32;
  auto flush = [&]() -> Status {
    if (builder.table.count == 0)
      return okStatus();
    launch.table = builder.table;
    dispatchFloat(gradType, [&](auto gradTag) {
      using G = decltype(gradTag);
      adamwKernel<G><<<builder.chunks, kChunkThreads, 0, currentStream()>>>(
          launch, scalars);
    });
    builder.reset();
    return launchStatus(name);
  };
  for (const AdamWTensors &t : tensors) {
    int64_t n = t.param.numel();
    if (n == 0)
      continue;
    if (builder.table.count > 0 && (t.grad.dtype != gradType || !builder.fits(n)))
      HETC_RETURN_IF_ERROR(flush());
    gradType = t.grad.dtype;
    int slot = builder.add(n);
    launch.param[slot] = t.param.as<float>();
    launch.grad[slot] = t.grad.data;
    launch.m[slot] = t.m.as<float>();
    launch.v[slot] = t.v.as<float>();
  }
  return flush();
}

// A device buffer of partial sums per thread and device. It only grows, and
// a replaced buffer is kept until the thread exits, since a CUDA graph
// captured earlier may still use it.
class PartialsScratch {
public:
  ~PartialsScratch() {
    for (void *buffer : owned_)
      cudaFree(buffer); // at exit the runtime may be gone: nothing to report
  }

  Status get(size_t count, double **partials) {
    int device = 0;
    HETC_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device));
    Slot *slot = nullptr;
    for (Slot &s : slots_)
      if (s.device == device)
        slot = &s;
    if (!slot) {
      slots_.push_back(Slot{device, nullptr, 0});
      slot = &slots_.back();
    }
    if (count > slot->capacity) {
      void *buffer = nullptr;
      HETC_CUDA_RETURN_IF_ERROR(cudaMalloc(&buffer, count * sizeof(double)));
      owned_.push_back(buffer);
      slot->data = static_cast<double *>(buffer);
      slot->capacity = count;
    }
    *partials = slot->data;
    return okStatus();
  }

private:
  struct Slot {
    int device;
    double *data;
    size_t capacity;
  };
  std::vector<Slot> slots_;
  std::vector<void *> owned_;
};

thread_local PartialsScratch partialsScratch;

} // namespace

Status sgdStep(const TensorView &param, const TensorView &grad,
               const SgdOptions &options, const TensorView *lrFactor) {
  HETC_RETURN_IF_ERROR(checkFloat(param, "param"), "sgd");
  HETC_RETURN_IF_ERROR(checkFloat(grad, "grad"), "sgd");
  HETC_RETURN_IF_ERROR(checkLrFactor(lrFactor), "sgd");
  if (grad.shape != param.shape)
    return invalidArgument("sgd: grad ", grad.describe(),
                           " does not match param ", param.describe());
  int64_t n = param.numel();
  if (n == 0)
    return okStatus();
  float wd = static_cast<float>(options.weightDecay);
  bool decay = options.weightDecay != 0.0;
  unsigned blocks = blocksFor(n, kSgdThreads);
  if (blocks > kMaxSgdBlocks)
    blocks = kMaxSgdBlocks;
  dispatchFloat(param.dtype, [&](auto paramTag) {
    using P = decltype(paramTag);
    dispatchFloat(grad.dtype, [&](auto gradTag) {
      using G = decltype(gradTag);
      sgdKernel<P, G><<<blocks, kSgdThreads, 0, currentStream()>>>(
          param.as<P>(), grad.as<const G>(), n, options.lr,
          lrFactorData(lrFactor), wd, decay);
    });
  });
  return launchStatus("sgd");
}

Status adamwStep(const TensorView &param, const TensorView &grad,
                 const TensorView &m, const TensorView &v,
                 const TensorView &step, const AdamWOptions &options,
                 const TensorView *lrFactor) {
  AdamWTensors tensors{param, grad, m, v};
  HETC_RETURN_IF_ERROR(checkAdamWTensors(tensors), "adamw");
  HETC_RETURN_IF_ERROR(checkAdamWStep(step, options), "adamw");
  HETC_RETURN_IF_ERROR(checkLrFactor(lrFactor), "adamw");
  return launchAdamW("adamw", {tensors}, step, options, lrFactor);
}

Status multiTensorAdamW(const std::vector<AdamWTensors> &tensors,
                        const TensorView &step, const AdamWOptions &options,
                        const TensorView *lrFactor) {
  const char *name = "multi_tensor_adamw";
  for (size_t i = 0; i < tensors.size(); ++i)
    HETC_RETURN_IF_ERROR(checkAdamWTensors(tensors[i]), name, ": tensor ", i);
  HETC_RETURN_IF_ERROR(checkAdamWStep(step, options), name);
  HETC_RETURN_IF_ERROR(checkLrFactor(lrFactor), name);
  return launchAdamW(name, tensors, step, options, lrFactor);
}

Status lrSchedule(const TensorView &step, const LrSchedule &schedule,
                  const TensorView &factor) {
  HETC_RETURN_IF_ERROR(checkLrSchedule(step, schedule, factor));
  lrScheduleKernel<<<1, 1, 0, currentStream()>>>(step.data, step.dtype,
                                                 schedule, factor.as<double>());
  return launchStatus("lr_schedule");
}

Status globalNorm(const std::vector<TensorView> &grads, const TensorView &out) {
  HETC_RETURN_IF_ERROR(checkGlobalNormOut(out));
  int64_t totalChunks = 0;
  for (size_t i = 0; i < grads.size(); ++i) {
    HETC_RETURN_IF_ERROR(checkFloat(grads[i], "gradient"),
                         "global_norm: tensor ", i);
    totalChunks += chunksOf(grads[i].numel());
  }
  if (totalChunks > INT_MAX)
    return invalidArgument("global_norm: ", totalChunks,
                           " chunks of gradients are too many");

  double *partials = nullptr;
  if (totalChunks > 0)
    HETC_RETURN_IF_ERROR(partialsScratch.get(static_cast<size_t>(totalChunks),
                                             &partials),
                         "global_norm");
  // Pass 1: a partial sum per chunk, in the order of the tensors.
  NormLaunch launch{};
  ChunkTableBuilder builder;
  DType type = DType::kF32;
  int written = 0; // partials of the launches so far
  auto flush = [&]() -> Status {
    if (builder.table.count == 0)
      return okStatus();
    launch.table = builder.table;
    launch.firstPartial = written;
    dispatchFloat(type, [&](auto tag) {
      using T = decltype(tag);
      sumSquaresKernel<T><<<builder.chunks, kChunkThreads, 0, currentStream()>>>(
          launch, partials);
    });
    written += builder.chunks;
    builder.reset();
    return launchStatus("global_norm");
  };
  for (const TensorView &grad : grads) {
    int64_t n = grad.numel();
    if (n == 0)
      continue;
    if (builder.table.count > 0 && (grad.dtype != type || !builder.fits(n)))
      HETC_RETURN_IF_ERROR(flush());
    type = grad.dtype;
    launch.data[builder.add(n)] = grad.data;
  }
  HETC_RETURN_IF_ERROR(flush());

  // Pass 2: one block adds the partials in order (none: the norm is 0).
  finishNormKernel<<<1, kFinishThreads, 0, currentStream()>>>(
      partials, written, out.data, out.dtype == DType::kF64);
  return launchStatus("global_norm");
}

} // namespace hetc::runtime::cuda
