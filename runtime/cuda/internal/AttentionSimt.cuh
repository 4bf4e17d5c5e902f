//===- AttentionSimt.cuh - attention on CUDA cores -------------*- CUDA -*-===//
//
// Flash-attention tiling on CUDA cores: every dtype, every head dimension up
// to DMAX (64 or 128). Tiles of 64 queries x 64 keys are widened to f32 in
// shared memory (rows padded by 4 floats so that float4 reads by 16 rows are
// conflict-free); 256 threads form a 16 x 16 grid and each owns a 4 x 4 block
// of the score tile: rows ty*4+r, keys tx+16c. Accumulators over a head
// dimension are owned as rows (or keys) ty*4+r, columns cc*64+tx*4+e.
//
//   forward  per (head, query block): keys in order, online softmax
//            (running max and sum per row), O rescaled when the max grows.
//   dk, dv   per (head, key block): query blocks in order; P and dS of a
//            tile go through shared memory to be contracted over queries.
//   dq       per (head, query block): key blocks in order; dS through
//            shared memory, contracted over keys.
//
// Fully masked causal tiles are never visited. Rows and keys past Tq / Tk
// are zero in shared memory and excluded from every softmax.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CUDA_INTERNAL_ATTENTIONSIMT_CUH
#define HETC_RUNTIME_CUDA_INTERNAL_ATTENTIONSIMT_CUH

#include "runtime/cuda/internal/AttentionCommon.cuh"

namespace hetc::runtime::cuda::internal {

constexpr int kSimtThreads = 256;
constexpr int kSimtBlock = 64;           // queries and keys per tile
constexpr int kSimtLdp = kSimtBlock + 4; // row stride of P / dS tiles

template <int DMAX> constexpr int simtLd() { return DMAX + 4; }

// Shared floats of each kernel.
template <int DMAX> constexpr int simtForwardFloats() {
  return 2 * kSimtBlock * simtLd<DMAX>() + kSimtBlock * kSimtLdp;
}
template <int DMAX> constexpr int simtKeysFloats() {
  return 4 * kSimtBlock * simtLd<DMAX>() + 2 * kSimtBlock * kSimtLdp +
         2 * kSimtBlock;
}
template <int DMAX> constexpr int simtQueriesFloats() {
  return 4 * kSimtBlock * simtLd<DMAX>() + kSimtBlock * kSimtLdp +
         2 * kSimtBlock;
}

// dst[r * LD + c] = src[(row0 + r) * width + c] in f32 for a 64 x DMAX tile;
// zero past `rows` and `width`.
template <int DMAX, typename T>
__device__ __forceinline__ void loadSimtTile(float *dst, const T *src, int row0,
                                             int rows, int width) {
  constexpr int LD = simtLd<DMAX>();
  for (int idx = threadIdx.x; idx < kSimtBlock * DMAX; idx += kSimtThreads) {
    int r = idx / DMAX, c = idx % DMAX;
    float value = 0.0f;
    if (row0 + r < rows && c < width)
      value = load(src[int64_t(row0 + r) * width + c]);
    dst[r * LD + c] = value;
  }
}

__device__ __forceinline__ float component(const float4 &v, int e) {
  return e == 0 ? v.x : e == 1 ? v.y : e == 2 ? v.z : v.w;
}

// acc[r][c] += a_r . b_c over `width` (a multiple of 4) columns, where a_r
// is row ty*4+r of `a` and b_c row tx+16c of `b` (both with stride LD).
template <int LD>
__device__ __forceinline__ void simtRowDots(const float *a, const float *b,
                                            int width, int tx, int ty,
                                            float (&acc)[4][4]) {
  for (int d = 0; d < width; d += 4) {
    float4 av[4], bv[4];
#pragma unroll
    for (int r = 0; r < 4; ++r)
      av[r] = *reinterpret_cast<const float4 *>(a + (ty * 4 + r) * LD + d);
#pragma unroll
    for (int c = 0; c < 4; ++c)
      bv[c] = *reinterpret_cast<const float4 *>(b + (tx + 16 * c) * LD + d);
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        float s = acc[r][c];
        s = fmaf(av[r].x, bv[c].x, s);
        s = fmaf(av[r].y, bv[c].y, s);
        s = fmaf(av[r].z, bv[c].z, s);
        s = fmaf(av[r].w, bv[c].w, s);
        acc[r][c] = s;
      }
  }
}

// acc[r][cc][e] += sum_x w[ty*4+r][x] * m[x][cc*64+tx*4+e] over the 64
// columns x of w (stride kSimtLdp) and rows of m (stride LD).
template <int DMAX>
__device__ __forceinline__ void
simtRowsTimesTile(const float *w, const float *m, int tx, int ty,
                  float (&acc)[4][DMAX / 64][4]) {
  constexpr int LD = simtLd<DMAX>();
  for (int x = 0; x < kSimtBlock; x += 4) {
    float4 wv[4];
#pragma unroll
    for (int r = 0; r < 4; ++r)
      wv[r] =
          *reinterpret_cast<const float4 *>(w + (ty * 4 + r) * kSimtLdp + x);
#pragma unroll
    for (int e = 0; e < 4; ++e)
#pragma unroll
      for (int cc = 0; cc < DMAX / 64; ++cc) {
        float4 mv = *reinterpret_cast<const float4 *>(m + (x + e) * LD +
                                                      cc * 64 + tx * 4);
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          float we = component(wv[r], e);
          acc[r][cc][0] = fmaf(we, mv.x, acc[r][cc][0]);
          acc[r][cc][1] = fmaf(we, mv.y, acc[r][cc][1]);
          acc[r][cc][2] = fmaf(we, mv.z, acc[r][cc][2]);
          acc[r][cc][3] = fmaf(we, mv.w, acc[r][cc][3]);
        }
      }
  }
}

// Stores rows row0 + ty*4 + r < rows, columns cc*64 + tx*4 + e < width.
template <int DMAX, typename T>
__device__ __forceinline__ void
storeSimtRows(T *dst, const float (&acc)[4][DMAX / 64][4], int row0, int rows,
              int width, int tx, int ty) {
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    int row = row0 + ty * 4 + r;
    if (row >= rows)
      continue;
#pragma unroll
    for (int cc = 0; cc < DMAX / 64; ++cc)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        int col = cc * 64 + tx * 4 + e;
        if (col < width)
          dst[int64_t(row) * width + col] = store<T>(acc[r][cc][e]);
      }
  }
}

template <typename T, int DMAX>
__global__ void __launch_bounds__(kSimtThreads)
    attentionForwardSimt(const T *q, const T *k, const T *v, AttentionMask mask,
                         AttentionShape g, int qBlocks, T *out, float *lse) {
  constexpr int LD = simtLd<DMAX>();
  constexpr int NC = DMAX / 64;
  extern __shared__ float4 simtSmem[];
  float *qs = reinterpret_cast<float *>(simtSmem); // [64][LD]
  float *kv = qs + kSimtBlock * LD;                // [64][LD]: K, then V
  float *ps = kv + kSimtBlock * LD;                // [64][kSimtLdp]
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int64_t head = blockIdx.x / qBlocks;
  // Last query blocks first: under causality they have the most keys.
  const int i0 = (qBlocks - 1 - int(blockIdx.x % qBlocks)) * kSimtBlock;
  const T *kh = k + head * g.tk * g.d;
  const T *vh = v + head * g.tk * g.dv;
  const int64_t maskBase = mask.headBase(head);
  const int dPad = (g.d + 3) & ~3;

  loadSimtTile<DMAX>(qs, q + head * g.tq * g.d, i0, g.tq, g.d);
  float o[4][NC][4] = {};
  float m[4], l[4]; // running max (log2 units) and this thread's partial sum
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    m[r] = -INFINITY;
    l[r] = 0.0f;
  }
  const int kEnd = g.causal ? min(g.tk, i0 + kSimtBlock) : g.tk;
  for (int j0 = 0; j0 < kEnd; j0 += kSimtBlock) {
    loadSimtTile<DMAX>(kv, kh, j0, g.tk, g.d);
    __syncthreads(); // Q and K tiles ready
    float s[4][4] = {};
    simtRowDots<LD>(qs, kv, dPad, tx, ty, s);
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      int i = i0 + ty * 4 + r;
      float tileMax = -INFINITY;
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        int j = j0 + tx + 16 * c;
        s[r][c] = i < g.tq && j < g.tk
                      ? maskedScoreLog2(s[r][c], i, j, g, mask, maskBase)
                      : -INFINITY;
        tileMax = nanMax(tileMax, s[r][c]);
      }
      // The 16 threads of a row are one half-warp.
      for (int offset = 8; offset > 0; offset /= 2)
        tileMax =
            nanMax(tileMax, __shfl_xor_sync(0xffffffffu, tileMax, offset));
      float mNew = nanMax(m[r], tileMax);
      if (mNew == -INFINITY) {
#pragma unroll
        for (int c = 0; c < 4; ++c)
          s[r][c] = 0.0f; // every key so far is excluded
      } else {
        if (m[r] != mNew) {
          float alpha = exp2f(m[r] - mNew);
          l[r] *= alpha;
#pragma unroll
          for (int cc = 0; cc < NC; ++cc)
#pragma unroll
            for (int e = 0; e < 4; ++e)
              o[r][cc][e] *= alpha;
          m[r] = mNew;
        }
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          s[r][c] = exp2f(s[r][c] - mNew);
          l[r] += s[r][c];
        }
      }
#pragma unroll
      for (int c = 0; c < 4; ++c)
        ps[(ty * 4 + r) * kSimtLdp + tx + 16 * c] = s[r][c];
    }
    __syncthreads(); // P written, K no longer read
    loadSimtTile<DMAX>(kv, vh, j0, g.tk, g.dv);
    __syncthreads(); // V ready
    simtRowsTimesTile<DMAX>(ps, kv, tx, ty, o);
    __syncthreads(); // before the next tile overwrites kv and ps
  }
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    float total = l[r];
    for (int offset = 8; offset > 0; offset /= 2)
      total += __shfl_xor_sync(0xffffffffu, total, offset);
    float inv = total == 0.0f ? __int_as_float(0x7fc00000) : 1.0f / total;
#pragma unroll
    for (int cc = 0; cc < NC; ++cc)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        o[r][cc][e] *= inv;
    int i = i0 + ty * 4 + r;
    if (lse && tx == 0 && i < g.tq)
      lse[head * g.tq + i] = (m[r] + log2f(total)) * kLn2;
  }
  storeSimtRows<DMAX>(out + head * g.tq * g.dv, o, i0, g.tq, g.dv, tx, ty);
}

// Scores, P and dS of one (query tile, key tile) pair: thread (ty, tx)
// computes rows ty*4+r, keys tx+16c and writes them to ps (unless null)
// and dss.
template <int DMAX>
__device__ __forceinline__ void
simtGradTile(const float *qs, const float *dos, const float *ks,
             const float *vs, const float *rowLse2, const float *rowDelta,
             int i0, int j0, const AttentionShape &g, const AttentionMask &mask,
             int64_t maskBase, int tx, int ty, float *ps, float *dss) {
  constexpr int LD = simtLd<DMAX>();
  float s[4][4] = {}, dp[4][4] = {};
  simtRowDots<LD>(qs, ks, (g.d + 3) & ~3, tx, ty, s);
  simtRowDots<LD>(dos, vs, (g.dv + 3) & ~3, tx, ty, dp);
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    int row = ty * 4 + r, i = i0 + row;
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      int j = j0 + tx + 16 * c;
      float p = 0.0f;
      if (i < g.tq && j < g.tk)
        p = exp2f(maskedScoreLog2(s[r][c], i, j, g, mask, maskBase) -
                  rowLse2[row]);
      float ds = p == 0.0f ? 0.0f : p * (dp[r][c] - rowDelta[row]) * g.scale;
      if (ps)
        ps[row * kSimtLdp + tx + 16 * c] = p;
      dss[row * kSimtLdp + tx + 16 * c] = ds;
    }
  }
}

template <typename T, int DMAX>
__global__ void __launch_bounds__(kSimtThreads)
    attentionBackwardKeysSimt(const T *q, const T *k, const T *v, const T *dout,
                              const float *lse, const float *delta,
                              AttentionMask mask, AttentionShape g, int kBlocks,
                              T *dk, T *dv) {
  constexpr int LD = simtLd<DMAX>();
  constexpr int NC = DMAX / 64;
  extern __shared__ float4 simtSmem[];
  float *ks = reinterpret_cast<float *>(simtSmem); // [64][LD]
  float *vs = ks + kSimtBlock * LD;
  float *qs = vs + kSimtBlock * LD;
  float *dos = qs + kSimtBlock * LD;
  float *ps = dos + kSimtBlock * LD; // [64][kSimtLdp]
  float *dss = ps + kSimtBlock * kSimtLdp;
  float *rowLse2 = dss + kSimtBlock * kSimtLdp; // [64]
  float *rowDelta = rowLse2 + kSimtBlock;       // [64]
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int64_t head = blockIdx.x / kBlocks;
  const int j0 = int(blockIdx.x % kBlocks) * kSimtBlock;
  const T *qh = q + head * g.tq * g.d;
  const T *doh = dout + head * g.tq * g.dv;
  const int64_t maskBase = mask.headBase(head);

  loadSimtTile<DMAX>(ks, k + head * g.tk * g.d, j0, g.tk, g.d);
  loadSimtTile<DMAX>(vs, v + head * g.tk * g.dv, j0, g.tk, g.dv);
  float dkAcc[4][NC][4] = {}, dvAcc[4][NC][4] = {};
  // Under causality query blocks that end before key j0 see none of its keys.
  const int iStart = g.causal ? (j0 / kSimtBlock) * kSimtBlock : 0;
  for (int i0 = iStart; i0 < g.tq; i0 += kSimtBlock) {
    loadSimtTile<DMAX>(qs, qh, i0, g.tq, g.d);
    loadSimtTile<DMAX>(dos, doh, i0, g.tq, g.dv);
    if (threadIdx.x < kSimtBlock) {
      int i = i0 + threadIdx.x;
      rowLse2[threadIdx.x] = i < g.tq ? lse[head * g.tq + i] * kLog2e : 0.0f;
      rowDelta[threadIdx.x] = i < g.tq ? delta[head * g.tq + i] : 0.0f;
    }
    __syncthreads(); // tiles ready
    simtGradTile<DMAX>(qs, dos, ks, vs, rowLse2, rowDelta, i0, j0, g, mask,
                       maskBase, tx, ty, ps, dss);
    __syncthreads(); // P and dS written
    // dV[key][t] += P[row][key] dO[row][t]; dK[key][t] += dS[row][key]
    // Q[row][t] with this thread's keys ty*4+r.
    for (int row = 0; row < kSimtBlock; ++row) {
      float4 pv =
          *reinterpret_cast<const float4 *>(ps + row * kSimtLdp + ty * 4);
      float4 dsv =
          *reinterpret_cast<const float4 *>(dss + row * kSimtLdp + ty * 4);
#pragma unroll
      for (int cc = 0; cc < NC; ++cc) {
        float4 dov = *reinterpret_cast<const float4 *>(dos + row * LD +
                                                       cc * 64 + tx * 4);
        float4 qv =
            *reinterpret_cast<const float4 *>(qs + row * LD + cc * 64 + tx * 4);
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          float pr = component(pv, r), dr = component(dsv, r);
          dvAcc[r][cc][0] = fmaf(pr, dov.x, dvAcc[r][cc][0]);
          dvAcc[r][cc][1] = fmaf(pr, dov.y, dvAcc[r][cc][1]);
          dvAcc[r][cc][2] = fmaf(pr, dov.z, dvAcc[r][cc][2]);
          dvAcc[r][cc][3] = fmaf(pr, dov.w, dvAcc[r][cc][3]);
          dkAcc[r][cc][0] = fmaf(dr, qv.x, dkAcc[r][cc][0]);
          dkAcc[r][cc][1] = fmaf(dr, qv.y, dkAcc[r][cc][1]);
          dkAcc[r][cc][2] = fmaf(dr, qv.z, dkAcc[r][cc][2]);
          dkAcc[r][cc][3] = fmaf(dr, qv.w, dkAcc[r][cc][3]);
        }
      }
    }
    __syncthreads(); // before the next query tile is loaded
  }
  storeSimtRows<DMAX>(dk + head * g.tk * g.d, dkAcc, j0, g.tk, g.d, tx, ty);
  storeSimtRows<DMAX>(dv + head * g.tk * g.dv, dvAcc, j0, g.tk, g.dv, tx, ty);
}

template <typename T, int DMAX>
__global__ void __launch_bounds__(kSimtThreads)
    attentionBackwardQueriesSimt(const T *q, const T *k, const T *v,
                                 const T *dout, const float *lse,
                                 const float *delta, AttentionMask mask,
                                 AttentionShape g, int qBlocks, T *dq) {
  constexpr int LD = simtLd<DMAX>();
  constexpr int NC = DMAX / 64;
  extern __shared__ float4 simtSmem[];
  float *qs = reinterpret_cast<float *>(simtSmem); // [64][LD]
  float *dos = qs + kSimtBlock * LD;
  float *ks = dos + kSimtBlock * LD;
  float *vs = ks + kSimtBlock * LD;
  float *dss = vs + kSimtBlock * LD;            // [64][kSimtLdp]
  float *rowLse2 = dss + kSimtBlock * kSimtLdp; // [64]
  float *rowDelta = rowLse2 + kSimtBlock;       // [64]
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int64_t head = blockIdx.x / qBlocks;
  const int i0 = (qBlocks - 1 - int(blockIdx.x % qBlocks)) * kSimtBlock;
  const T *kh = k + head * g.tk * g.d;
  const T *vh = v + head * g.tk * g.dv;
  const int64_t maskBase = mask.headBase(head);

  loadSimtTile<DMAX>(qs, q + head * g.tq * g.d, i0, g.tq, g.d);
  loadSimtTile<DMAX>(dos, dout + head * g.tq * g.dv, i0, g.tq, g.dv);
  if (threadIdx.x < kSimtBlock) {
    int i = i0 + threadIdx.x;
    rowLse2[threadIdx.x] = i < g.tq ? lse[head * g.tq + i] * kLog2e : 0.0f;
    rowDelta[threadIdx.x] = i < g.tq ? delta[head * g.tq + i] : 0.0f;
  }
  float dqAcc[4][NC][4] = {};
  const int kEnd = g.causal ? min(g.tk, i0 + kSimtBlock) : g.tk;
  for (int j0 = 0; j0 < kEnd; j0 += kSimtBlock) {
    loadSimtTile<DMAX>(ks, kh, j0, g.tk, g.d);
    loadSimtTile<DMAX>(vs, vh, j0, g.tk, g.dv);
    __syncthreads(); // tiles ready
    simtGradTile<DMAX>(qs, dos, ks, vs, rowLse2, rowDelta, i0, j0, g, mask,
                       maskBase, tx, ty, nullptr, dss);
    __syncthreads(); // dS written
    // dQ[row][t] += dS[row][key] K[key][t]
    simtRowsTimesTile<DMAX>(dss, ks, tx, ty, dqAcc);
    __syncthreads(); // before the next key tile is loaded
  }
  storeSimtRows<DMAX>(dq + head * g.tq * g.d, dqAcc, i0, g.tq, g.d, tx, ty);
}

} // namespace hetc::runtime::cuda::internal

#endif // HETC_RUNTIME_CUDA_INTERNAL_ATTENTIONSIMT_CUH
