//===- Attention.cu -------------------------------------------------------===//
//
// Host side of the attention kernels: validation (as runtime/cpu's), the
// mask's broadcast strides, and the choice of kernels. bf16 and f16 with
// head dimensions that are multiples of 8 and 16-byte aligned tensors run
// on tensor cores (internal/AttentionMma.cuh); everything else on CUDA
// cores in f32 (internal/AttentionSimt.cuh). Both are templated on a bound
// of the head dimensions, 64 or 128.
//
// Backward: delta = rowsum(dout * out) into a per-thread device scratch,
// then dk, dv (parallel over key blocks) and dq (parallel over query
// blocks, recomputing the scores): every output element has one writer, so
// results are deterministic and no f32 accumulator is needed.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/Attention.h"

#include "runtime/base/BroadcastShape.h"
#include "runtime/cuda/internal/AttentionMma.cuh"
#include "runtime/cuda/internal/AttentionSimt.cuh"

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <type_traits>

namespace hetc::runtime::cuda {
namespace {

using internal::AttentionMask;
using internal::AttentionShape;

constexpr int64_t kMaxHeadDim = 128;

struct Geometry {
  Shape lead;
  int64_t heads = 1;
  AttentionShape shape;
};

Status checkFloat(const TensorView &t, DType dtype, const char *what) {
  HETC_RETURN_IF_ERROR(checkDType(t, dtype, what));
  return checkData(t, what);
}

// Strides of `mask` read as [lead..., Tq, Tk] (numpy broadcasting), with
// leading dimensions of size one dropped and contiguous runs merged.
Status describeMask(const TensorView &mask, const Geometry &g,
                    AttentionMask *out) {
  Shape scores = g.lead;
  scores.push_back(g.shape.tq);
  scores.push_back(g.shape.tk);
  std::vector<int64_t> strides;
  HETC_RETURN_IF_ERROR(broadcastStrides(mask.shape, scores, &strides), "mask");
  out->strideQ = strides[scores.size() - 2];
  out->strideK = strides.back();
  out->leadRank = 0;
  for (size_t i = 0; i < g.lead.size(); ++i) {
    int64_t dim = g.lead[i], st = strides[i];
    if (dim == 1)
      continue;
    int n = out->leadRank;
    // Merge with the previous dimension when one index walks both.
    if (n > 0 && out->leadStrides[n - 1] == st * dim) {
      out->leadDims[n - 1] *= dim;
      out->leadStrides[n - 1] = st;
      continue;
    }
    if (n == AttentionMask::kMaxLead)
      return invalidArgument("mask ", mask.describe(), " has more than ",
                             AttentionMask::kMaxLead,
                             " independent leading dimensions");
    out->leadDims[n] = dim;
    out->leadStrides[n] = st;
    out->leadRank = n + 1;
  }
  if (mask.dtype == DType::kF32)
    out->additive = mask.as<float>();
  else
    out->keep = mask.as<uint8_t>();
  return okStatus();
}

Status prepare(const TensorView &q, const TensorView &k, const TensorView &v,
               const TensorView *mask, Geometry *g, AttentionMask *m) {
  if (q.dtype != DType::kF32 && q.dtype != DType::kBF16 &&
      q.dtype != DType::kF16)
    return invalidArgument("q must be f32, bf16 or f16, got ", q.describe());
  HETC_RETURN_IF_ERROR(checkData(q, "q"));
  HETC_RETURN_IF_ERROR(checkFloat(k, q.dtype, "k"));
  HETC_RETURN_IF_ERROR(checkFloat(v, q.dtype, "v"));
  if (q.rank() < 2 || k.rank() != q.rank() || v.rank() != q.rank())
    return invalidArgument("q, k and v must have one rank >= 2, got q ",
                           q.describe(), ", k ", k.describe(), ", v ",
                           v.describe());
  int64_t r = q.rank();
  g->lead = Shape(q.shape.begin(), q.shape.end() - 2);
  if (Shape(k.shape.begin(), k.shape.end() - 2) != g->lead ||
      Shape(v.shape.begin(), v.shape.end() - 2) != g->lead)
    return invalidArgument("leading dimensions of q, k and v differ: q ",
                           q.describe(), ", k ", k.describe(), ", v ",
                           v.describe());
  int64_t tq = q.shape[r - 2], d = q.shape[r - 1];
  int64_t tk = k.shape[r - 2], dv = v.shape[r - 1];
  if (k.shape[r - 1] != d)
    return invalidArgument("k's last dimension must match q's (", d,
                           "), got k ", k.describe());
  if (v.shape[r - 2] != tk)
    return invalidArgument("v must have as many rows as k (", tk, "), got v ",
                           v.describe());
  if (d > kMaxHeadDim || dv > kMaxHeadDim)
    return invalidArgument("head dimensions above ", kMaxHeadDim,
                           " are not supported, got q ", q.describe(), ", v ",
                           v.describe());
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  if (tq > kIntMax || tk > kIntMax)
    return invalidArgument("sequence lengths above ", kIntMax,
                           " are not supported, got q ", q.describe(), ", k ",
                           k.describe());
  g->heads = numElements(g->lead);
  g->shape.tq = static_cast<int>(tq);
  g->shape.tk = static_cast<int>(tk);
  g->shape.d = static_cast<int>(d);
  g->shape.dv = static_cast<int>(dv);
  if (mask) {
    HETC_RETURN_IF_ERROR(checkData(*mask, "mask"));
    if (mask->dtype != DType::kF32 && mask->dtype != DType::kBool)
      return invalidArgument("mask must be f32 (additive) or bool, got ",
                             mask->describe());
    HETC_RETURN_IF_ERROR(describeMask(*mask, *g, m));
  }
  return okStatus();
}

Shape withLast(const Geometry &g, int64_t rows, int64_t cols) {
  Shape s = g.lead;
  s.push_back(rows);
  if (cols >= 0)
    s.push_back(cols);
  return s;
}

bool aligned16(const TensorView &t) {
  return reinterpret_cast<uintptr_t>(t.data) % 16 == 0;
}

// Tensor cores take bf16/f16 rows of whole 16-byte chunks, on devices with
// mma.sync m16n8k16 and cp.async (compute capability 8.0).
template <typename T>
bool useMma(const Geometry &g, std::initializer_list<const TensorView *> all) {
  if constexpr (std::is_same_v<T, float>) {
    return false;
  } else {
    if (currentComputeCapability() < 80)
      return false;
    if (g.shape.d % 8 != 0 || g.shape.dv % 8 != 0)
      return false;
    for (const TensorView *t : all)
      if (!aligned16(*t))
        return false;
    return true;
  }
}

// Launches `kernel` with `smem` dynamic shared bytes, raising the kernel's
// limit above the default 48 KiB where needed.
template <typename... Params, typename... Args>
Status launch(void (*kernel)(Params...), int64_t blocks, int threads, int smem,
              const char *name, Args... args) {
  if (blocks == 0)
    return okStatus();
  if (blocks > std::numeric_limits<int>::max())
    return invalidArgument(name, ": ", blocks,
                           " thread blocks exceed the grid");
  if (smem > 48 * 1024)
    HETC_CUDA_RETURN_IF_ERROR(cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  kernel<<<static_cast<unsigned>(blocks), threads, smem, currentStream()>>>(
      args...);
  return launchStatus(name);
}

int64_t blocksOf(int64_t n, int64_t block) { return (n + block - 1) / block; }

template <typename T, int DMAX>
Status forward(const Geometry &g, const AttentionMask &mask, const T *q,
               const T *k, const T *v, T *out, float *lse, bool mma) {
  const char *name = "attention";
  if constexpr (!std::is_same_v<T, float>) {
    if (mma) {
      int64_t qBlocks = blocksOf(g.shape.tq, internal::kMmaBlock);
      return launch(internal::attentionForwardMma<T, DMAX>, g.heads * qBlocks,
                    internal::kMmaThreads, internal::mmaForwardBytes<T, DMAX>(),
                    name, q, k, v, mask, g.shape, static_cast<int>(qBlocks),
                    out, lse);
    }
  }
  int64_t qBlocks = blocksOf(g.shape.tq, internal::kSimtBlock);
  return launch(internal::attentionForwardSimt<T, DMAX>, g.heads * qBlocks,
                internal::kSimtThreads,
                internal::simtForwardFloats<DMAX>() * int(sizeof(float)), name,
                q, k, v, mask, g.shape, static_cast<int>(qBlocks), out, lse);
}

template <typename T, int DMAX>
Status backward(const Geometry &g, const AttentionMask &mask, const T *q,
                const T *k, const T *v, const T *out, const float *lse,
                const T *dout, float *delta, T *dq, T *dk, T *dv, bool mma) {
  const char *name = "attention_backward";
  constexpr int kDeltaRowsPerBlock = 8; // one warp per row
  int64_t rows = g.heads * g.shape.tq;
  HETC_RETURN_IF_ERROR(launch(
      internal::attentionDeltaKernel<T>, blocksOf(rows, kDeltaRowsPerBlock),
      kDeltaRowsPerBlock * 32, 0, name, out, dout, rows, g.shape.dv, delta));
  if constexpr (!std::is_same_v<T, float>) {
    if (mma) {
      int64_t kBlocks = blocksOf(g.shape.tk, internal::kMmaBlock);
      int64_t qBlocks = blocksOf(g.shape.tq, internal::kMmaBlock);
      HETC_RETURN_IF_ERROR(
          launch(internal::attentionBackwardKeysMma<T, DMAX>, g.heads * kBlocks,
                 internal::kMmaThreads, internal::mmaKeysBytes<T, DMAX>(), name,
                 q, k, v, dout, lse, static_cast<const float *>(delta), mask,
                 g.shape, static_cast<int>(kBlocks), dk, dv));
      return launch(internal::attentionBackwardQueriesMma<T, DMAX>,
                    g.heads * qBlocks, internal::kMmaThreads,
                    internal::mmaQueriesBytes<T, DMAX>(), name, q, k, v, dout,
                    lse, static_cast<const float *>(delta), mask, g.shape,
                    static_cast<int>(qBlocks), dq);
    }
  }
  int64_t kBlocks = blocksOf(g.shape.tk, internal::kSimtBlock);
  int64_t qBlocks = blocksOf(g.shape.tq, internal::kSimtBlock);
  HETC_RETURN_IF_ERROR(
      launch(internal::attentionBackwardKeysSimt<T, DMAX>, g.heads * kBlocks,
             internal::kSimtThreads,
             internal::simtKeysFloats<DMAX>() * int(sizeof(float)), name, q, k,
             v, dout, lse, static_cast<const float *>(delta), mask, g.shape,
             static_cast<int>(kBlocks), dk, dv));
  return launch(internal::attentionBackwardQueriesSimt<T, DMAX>,
                g.heads * qBlocks, internal::kSimtThreads,
                internal::simtQueriesFloats<DMAX>() * int(sizeof(float)), name,
                q, k, v, dout, lse, static_cast<const float *>(delta), mask,
                g.shape, static_cast<int>(qBlocks), dq);
}

template <typename T>
Status forward(const Geometry &g, const AttentionMask &mask,
               const TensorView &q, const TensorView &k, const TensorView &v,
               const TensorView &out, float *lse) {
  bool mma = useMma<T>(g, {&q, &k, &v, &out});
  auto run = [&](auto dmax) {
    return forward<T, decltype(dmax)::value>(g, mask, q.as<T>(), k.as<T>(),
                                             v.as<T>(), out.as<T>(), lse, mma);
  };
  if (g.shape.d > 64 || g.shape.dv > 64)
    return run(std::integral_constant<int, 128>{});
  return run(std::integral_constant<int, 64>{});
}

template <typename T>
Status backward(const Geometry &g, const AttentionMask &mask,
                const TensorView &q, const TensorView &k, const TensorView &v,
                const TensorView &out, const TensorView &lse,
                const TensorView &dout, float *delta, const TensorView &dq,
                const TensorView &dk, const TensorView &dv) {
  bool mma = useMma<T>(g, {&q, &k, &v, &out, &dout, &dq, &dk, &dv});
  auto run = [&](auto dmax) {
    return backward<T, decltype(dmax)::value>(
        g, mask, q.as<T>(), k.as<T>(), v.as<T>(), out.as<T>(), lse.as<float>(),
        dout.as<T>(), delta, dq.as<T>(), dk.as<T>(), dv.as<T>(), mma);
  };
  if (g.shape.d > 64 || g.shape.dv > 64)
    return run(std::integral_constant<int, 128>{});
  return run(std::integral_constant<int, 64>{});
}

// The backward's delta rows live in a device buffer owned by the calling
// host thread. It grows (cudaFree + cudaMalloc, which synchronize) only
// when a call needs more than any earlier call on this thread and device,
// so steady-state steps, and CUDA graphs captured after a first step,
// never allocate. It is freed when the thread exits.
class DeviceScratch {
public:
  ~DeviceScratch() {
    if (data_)
      cudaFree(data_); // at process exit the runtime may already be gone
  }
  Status get(size_t bytes, void **out) {
    int device = 0;
    HETC_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device));
    if (bytes > bytes_ || device != device_) {
      if (data_)
        HETC_CUDA_RETURN_IF_ERROR(cudaFree(data_));
      data_ = nullptr;
      bytes_ = 0;
      HETC_CUDA_RETURN_IF_ERROR(cudaMalloc(&data_, bytes));
      bytes_ = bytes;
      device_ = device;
    }
    *out = data_;
    return okStatus();
  }

private:
  void *data_ = nullptr;
  size_t bytes_ = 0;
  int device_ = -1;
};

thread_local DeviceScratch deltaScratch;

} // namespace

Status attention(const TensorView &q, const TensorView &k, const TensorView &v,
                 const TensorView *mask, const AttentionOptions &options,
                 const TensorView &out, const TensorView *lse) {
  const char *name = "attention";
  Geometry g;
  AttentionMask m;
  HETC_RETURN_IF_ERROR(prepare(q, k, v, mask, &g, &m), name);
  HETC_RETURN_IF_ERROR(checkFloat(out, q.dtype, "out"), name);
  HETC_RETURN_IF_ERROR(
      checkShape(out, withLast(g, g.shape.tq, g.shape.dv), "out"), name);
  if (lse) {
    HETC_RETURN_IF_ERROR(checkFloat(*lse, DType::kF32, "lse"), name);
    HETC_RETURN_IF_ERROR(checkShape(*lse, withLast(g, g.shape.tq, -1), "lse"),
                         name);
  }
  g.shape.scale = options.scale;
  g.shape.causal = options.causal;
  if (g.heads == 0 || g.shape.tq == 0)
    return okStatus();
  float *lp = lse ? lse->as<float>() : nullptr;
  switch (q.dtype) {
  case DType::kBF16:
    return forward<__nv_bfloat16>(g, m, q, k, v, out, lp);
  case DType::kF16:
    return forward<__half>(g, m, q, k, v, out, lp);
  default:
    return forward<float>(g, m, q, k, v, out, lp);
  }
}

Status attentionBackward(const TensorView &q, const TensorView &k,
                         const TensorView &v, const TensorView *mask,
                         const AttentionOptions &options, const TensorView &out,
                         const TensorView &lse, const TensorView &dout,
                         const TensorView &dq, const TensorView &dk,
                         const TensorView &dv) {
  const char *name = "attention_backward";
  Geometry g;
  AttentionMask m;
  HETC_RETURN_IF_ERROR(prepare(q, k, v, mask, &g, &m), name);
  Shape outShape = withLast(g, g.shape.tq, g.shape.dv);
  HETC_RETURN_IF_ERROR(checkFloat(out, q.dtype, "out"), name);
  HETC_RETURN_IF_ERROR(checkShape(out, outShape, "out"), name);
  HETC_RETURN_IF_ERROR(checkFloat(dout, q.dtype, "dout"), name);
  HETC_RETURN_IF_ERROR(checkShape(dout, outShape, "dout"), name);
  HETC_RETURN_IF_ERROR(checkFloat(lse, DType::kF32, "lse"), name);
  HETC_RETURN_IF_ERROR(checkShape(lse, withLast(g, g.shape.tq, -1), "lse"),
                       name);
  HETC_RETURN_IF_ERROR(checkFloat(dq, q.dtype, "dq"), name);
  HETC_RETURN_IF_ERROR(checkShape(dq, q.shape, "dq"), name);
  HETC_RETURN_IF_ERROR(checkFloat(dk, q.dtype, "dk"), name);
  HETC_RETURN_IF_ERROR(checkShape(dk, k.shape, "dk"), name);
  HETC_RETURN_IF_ERROR(checkFloat(dv, q.dtype, "dv"), name);
  HETC_RETURN_IF_ERROR(checkShape(dv, v.shape, "dv"), name);
  g.shape.scale = options.scale;
  g.shape.causal = options.causal;
  if (g.heads == 0)
    return okStatus();
  if (g.shape.tq == 0) {
    // No query reaches any key: the key gradients are zero.
    if (dk.byteSize() > 0)
      HETC_CUDA_RETURN_IF_ERROR(
          cudaMemsetAsync(dk.data, 0, dk.byteSize(), currentStream()));
    if (dv.byteSize() > 0)
      HETC_CUDA_RETURN_IF_ERROR(
          cudaMemsetAsync(dv.data, 0, dv.byteSize(), currentStream()));
    return okStatus();
  }
  void *delta = nullptr;
  HETC_RETURN_IF_ERROR(
      deltaScratch.get(size_t(g.heads * g.shape.tq) * sizeof(float), &delta),
      name);
  float *deltaData = static_cast<float *>(delta);
  switch (q.dtype) {
  case DType::kBF16:
    return backward<__nv_bfloat16>(g, m, q, k, v, out, lse, dout, deltaData, dq,
                                   dk, dv);
  case DType::kF16:
    return backward<__half>(g, m, q, k, v, out, lse, dout, deltaData, dq, dk,
                            dv);
  default:
    return backward<float>(g, m, q, k, v, out, lse, dout, deltaData, dq, dk,
                           dv);
  }
}

} // namespace hetc::runtime::cuda
