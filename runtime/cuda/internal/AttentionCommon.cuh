//===- AttentionCommon.cuh - shared parts of attention ---------*- CUDA -*-===//
//
// The problem description every attention kernel takes by value, the
// (broadcast) mask reader, the masked score of one (query, key) pair, and
// the small kernel of the backward's row term delta = rowsum(dout * out).
// Scores are kept in log2 units (score * log2(e)) so that exponentials are
// exp2f; lse is stored in natural units like the CPU kernel's.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CUDA_INTERNAL_ATTENTIONCOMMON_CUH
#define HETC_RUNTIME_CUDA_INTERNAL_ATTENTIONCOMMON_CUH

#include "runtime/cuda/internal/DeviceFloat.cuh"

#include <cstdint>

namespace hetc::runtime::cuda::internal {

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

// One attention problem: `heads` independent (Tq, Tk) problems, contiguous.
struct AttentionShape {
  int tq = 0, tk = 0, d = 0, dv = 0;
  float scale = 1.0f;
  bool causal = false;
};

// The mask operand broadcast to [lead..., Tq, Tk]: element (head, i, j) is
// at headBase(head) + i * strideQ + j * strideK. Leading dimensions of size
// one are dropped and contiguous neighbours merged on the host, so a few
// suffice.
struct AttentionMask {
  static constexpr int kMaxLead = 8;
  const float *additive = nullptr; // f32: added to the scaled score
  const uint8_t *keep = nullptr;   // bool: false excludes the key
  int leadRank = 0;
  int64_t leadDims[kMaxLead] = {};
  int64_t leadStrides[kMaxLead] = {};
  int64_t strideQ = 0, strideK = 0;

  __device__ __forceinline__ int64_t headBase(int64_t head) const {
    int64_t offset = 0;
    for (int k = leadRank - 1; k >= 0; --k) {
      offset += (head % leadDims[k]) * leadStrides[k];
      head /= leadDims[k];
    }
    return offset;
  }
};

// NaN-propagating max: a NaN score makes the row NaN, as on the CPU.
__device__ __forceinline__ float nanMax(float a, float b) {
  return (a > b || a != a) ? a : b;
}

// (q.k * scale + mask) * log2(e) for query i < Tq and key j < Tk, -inf
// where the mask or causality excludes the key.
__device__ __forceinline__ float maskedScoreLog2(float dot, int i, int j,
                                                 const AttentionShape &g,
                                                 const AttentionMask &mask,
                                                 int64_t maskBase) {
  float x = dot * g.scale;
  int64_t at = maskBase + i * mask.strideQ + j * mask.strideK;
  if (mask.additive)
    x += mask.additive[at];
  else if (mask.keep)
    x += mask.keep[at] ? 0.0f : -INFINITY;
  if (g.causal && j > i)
    x = -INFINITY;
  return x * kLog2e;
}

// Whether every (query, key) pair of queries [qBegin, qEnd) and keys
// [kBegin, kEnd) is in range, unmasked and causally visible: the scores of
// such a tile are the scaled products alone.
__device__ __forceinline__ bool plainTile(int qBegin, int qEnd, int kBegin,
                                          int kEnd, const AttentionShape &g,
                                          const AttentionMask &mask) {
  return !mask.additive && !mask.keep && qEnd <= g.tq && kEnd <= g.tk &&
         (!g.causal || kEnd - 1 <= qBegin);
}

// delta[row] = sum_t dout[row, t] * out[row, t]; one warp per row.
template <typename T>
__global__ void attentionDeltaKernel(const T *out, const T *dout, int64_t rows,
                                     int dv, float *delta) {
  int64_t row = int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (row >= rows)
    return; // whole warp
  const T *o = out + row * dv;
  const T *g = dout + row * dv;
  float sum = 0.0f;
  for (int t = lane; t < dv; t += 32)
    sum += load(o[t]) * load(g[t]);
  for (int offset = 16; offset > 0; offset /= 2)
    sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (lane == 0)
    delta[row] = sum;
}

} // namespace hetc::runtime::cuda::internal

#endif // HETC_RUNTIME_CUDA_INTERNAL_ATTENTIONCOMMON_CUH
