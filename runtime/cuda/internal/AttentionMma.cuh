//===- AttentionMma.cuh - bf16/f16 attention, tensor cores -----*- CUDA -*-===//
//
// FlashAttention-2 with mma.sync (AttentionMmaOps.cuh). Blocks of 4 warps;
// each warp owns 16 rows of the score tile and keeps its accumulators in
// registers in the C layout, which is also the A layout of the next
// product: probabilities (and dS) feed it straight from registers, rounded
// to the input type as in FlashAttention. The streamed tiles are double
// buffered: the copy of tile t+1 (cp.async) runs during the math of tile t.
//
//   forward  per (head, 64 queries): key tiles of 64 in order, online
//            softmax per row.
//   dk, dv   per (head, 64 keys): the warps own keys; query tiles in order;
//            S^T, P^T, dP^T and dS^T are computed key-major.
//   dq       per (head, 64 queries): key tiles in order.
//
// Needs head dimensions that are multiples of 8 and 16-byte aligned
// tensors (rows are copied 16 bytes at a time).
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CUDA_INTERNAL_ATTENTIONMMA_CUH
#define HETC_RUNTIME_CUDA_INTERNAL_ATTENTIONMMA_CUH

#include "runtime/cuda/internal/AttentionMmaOps.cuh"

namespace hetc::runtime::cuda::internal {

// Shared bytes: two K and two V tiles (the first K buffer stages Q).
template <typename T, int DMAX> constexpr int mmaForwardBytes() {
  return 4 * kMmaBlock * mmaLd<DMAX>() * int(sizeof(T));
}
// K and V tiles, two Q and two dO tiles, two lse and delta rows.
template <typename T, int DMAX> constexpr int mmaKeysBytes() {
  return (2 * kMmaBlock + 4 * mmaKeysBq<DMAX>()) * mmaLd<DMAX>() *
             int(sizeof(T)) +
         4 * mmaKeysBq<DMAX>() * int(sizeof(float));
}
// Q and dO tiles, two K and two V tiles.
template <typename T, int DMAX> constexpr int mmaQueriesBytes() {
  return 6 * kMmaBlock * mmaLd<DMAX>() * int(sizeof(T));
}

template <typename T, int DMAX>
__global__ void __launch_bounds__(kMmaThreads)
    attentionForwardMma(const T *q, const T *k, const T *v, AttentionMask mask,
                        AttentionShape g, int qBlocks, T *out, float *lse) {
  constexpr int LD = mmaLd<DMAX>();
  constexpr int KSTEPS = DMAX / 16;
  constexpr int TILE = kMmaBlock * LD;
  extern __shared__ uint4 mmaSmem[];
  T *ks = reinterpret_cast<T *>(mmaSmem); // [2][64][LD]
  T *vs = ks + 2 * TILE;                  // [2][64][LD]
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t head = blockIdx.x / qBlocks;
  // Last query blocks first: under causality they have the most keys.
  const int i0 = (qBlocks - 1 - int(blockIdx.x % qBlocks)) * kMmaBlock;
  const int warpRow0 = i0 + warp * 16;
  const int rowOf[2] = {warpRow0 + lane / 4, warpRow0 + lane / 4 + 8};
  const T *kh = k + head * g.tk * g.d;
  const T *vh = v + head * g.tk * g.dv;
  const int64_t maskBase = mask.headBase(head);
  const int kSteps = (g.d + 15) / 16;
  const int vPairs = (g.dv + 15) / 16; // pairs of 8-wide output tiles
  const int kEnd = g.causal ? min(g.tk, i0 + kMmaBlock) : g.tk;
  const int tiles = (kEnd + kMmaBlock - 1) / kMmaBlock;

  // Q goes through the second K buffer, which tile 1 needs only later.
  loadMmaTileAsync<kMmaBlock, DMAX>(ks + TILE, q + head * g.tq * g.d, i0, g.tq,
                                    g.d);
  cpAsyncCommit();
  if (tiles > 0) {
    loadMmaTileAsync<kMmaBlock, DMAX>(ks, kh, 0, g.tk, g.d);
    loadMmaTileAsync<kMmaBlock, DMAX>(vs, vh, 0, g.tk, g.dv);
  }
  cpAsyncCommit();
  cpAsyncWait<1>();
  __syncthreads(); // Q landed
  uint32_t qa[KSTEPS][4];
#pragma unroll
  for (int kk = 0; kk < KSTEPS; ++kk)
    loadA<LD>(ks + TILE, warp * 16, kk * 16, lane, qa[kk]);
  __syncthreads(); // every warp holds its Q fragments: the buffer is free

  float o[DMAX / 8][4] = {};
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
  for (int t = 0; t < tiles; ++t) {
    const int j0 = t * kMmaBlock;
    const T *kt = ks + (t % 2) * TILE, *vt = vs + (t % 2) * TILE;
    if (t + 1 < tiles) {
      loadMmaTileAsync<kMmaBlock, DMAX>(ks + (1 - t % 2) * TILE, kh,
                                        j0 + kMmaBlock, g.tk, g.d);
      loadMmaTileAsync<kMmaBlock, DMAX>(vs + (1 - t % 2) * TILE, vh,
                                        j0 + kMmaBlock, g.tk, g.dv);
    }
    cpAsyncCommit();
    cpAsyncWait<1>();
    __syncthreads(); // tile t landed

    // Skipped when every key of the tile is after this warp's queries.
    if (!g.causal || j0 <= warpRow0 + 15) {
      float s[kMmaBlock / 8][4] = {};
#pragma unroll
      for (int nt = 0; nt < kMmaBlock / 8; ++nt)
#pragma unroll
        for (int kk = 0; kk < KSTEPS; ++kk)
          if (kk < kSteps) {
            uint32_t b0, b1;
            loadBRows<LD>(kt, nt * 8, kk * 16, lane, b0, b1);
            mma16816<T>(s[nt], qa[kk], b0, b1);
          }

      scoresLog2<false>(
          s, warpRow0, j0,
          plainTile(warpRow0, warpRow0 + 16, j0, j0 + kMmaBlock, g, mask), g,
          mask, maskBase, lane);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        // The 4 threads of a row are lanes 4g..4g+3.
        float tileMax = rowMax(s, h);
        tileMax = maxNaN(tileMax, __shfl_xor_sync(0xffffffffu, tileMax, 1));
        tileMax = maxNaN(tileMax, __shfl_xor_sync(0xffffffffu, tileMax, 2));
        float mNew = maxNaN(m[h], tileMax);
        if (mNew == -INFINITY) {
#pragma unroll
          for (int nt = 0; nt < kMmaBlock / 8; ++nt)
            s[nt][2 * h] = s[nt][2 * h + 1] = 0.0f; // every key so far excluded
          continue;
        }
        // Always rescaled (by 1 where the max stayed): no divergent branch.
        float alpha = exp2Ftz(m[h] - mNew);
        l[h] *= alpha;
#pragma unroll
        for (int nt = 0; nt < DMAX / 8; ++nt) {
          o[nt][2 * h] *= alpha;
          o[nt][2 * h + 1] *= alpha;
        }
        m[h] = mNew;
#pragma unroll
        for (int nt = 0; nt < kMmaBlock / 8; ++nt)
#pragma unroll
          for (int e = 2 * h; e < 2 * h + 2; ++e)
            s[nt][e] = exp2Ftz(s[nt][e] - mNew);
        l[h] += rowSum(s, h);
      }

#pragma unroll
      for (int kk = 0; kk < kMmaBlock / 16; ++kk) {
        uint32_t pa[4];
        accToA<T>(s[2 * kk], s[2 * kk + 1], pa);
#pragma unroll
        for (int np = 0; np < DMAX / 16; ++np)
          if (np < vPairs) {
            uint32_t b[4];
            loadBCols<LD>(vt, kk * 16, np * 16, lane, b);
            mma16816<T>(o[2 * np], pa, b[0], b[1]);
            mma16816<T>(o[2 * np + 1], pa, b[2], b[3]);
          }
      }
    }
    __syncthreads(); // every warp is done with tile t before t+2 replaces it
  }
  cpAsyncWait<0>();

#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float total = l[h];
    total += __shfl_xor_sync(0xffffffffu, total, 1);
    total += __shfl_xor_sync(0xffffffffu, total, 2);
    float inv = total == 0.0f ? __int_as_float(0x7fc00000) : 1.0f / total;
#pragma unroll
    for (int nt = 0; nt < DMAX / 8; ++nt) {
      o[nt][2 * h] *= inv;
      o[nt][2 * h + 1] *= inv;
    }
    if (lse && lane % 4 == 0 && rowOf[h] < g.tq)
      lse[head * g.tq + rowOf[h]] = (m[h] + log2f(total)) * kLn2;
  }
  storeMmaRows<DMAX>(out + head * g.tq * g.dv, o, warpRow0, g.tq, g.dv, lane);
}

template <typename T, int DMAX>
__global__ void __launch_bounds__(kMmaThreads)
    attentionBackwardKeysMma(const T *q, const T *k, const T *v, const T *dout,
                             const float *lse, const float *delta,
                             AttentionMask mask, AttentionShape g, int kBlocks,
                             T *dk, T *dv) {
  constexpr int LD = mmaLd<DMAX>();
  constexpr int BQ = mmaKeysBq<DMAX>();
  constexpr int KSTEPS = DMAX / 16;
  constexpr int QTILE = BQ * LD;
  extern __shared__ uint4 mmaSmem[];
  T *ks = reinterpret_cast<T *>(mmaSmem);                      // [64][LD]
  T *vs = ks + kMmaBlock * LD;                                 // [64][LD]
  T *qs = vs + kMmaBlock * LD;                                 // [2][BQ][LD]
  T *dos = qs + 2 * QTILE;                                     // [2][BQ][LD]
  float *colLse2 = reinterpret_cast<float *>(dos + 2 * QTILE); // [2][BQ]
  float *colDelta = colLse2 + 2 * BQ;                          // [2][BQ]
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t head = blockIdx.x / kBlocks;
  const int j0 = int(blockIdx.x % kBlocks) * kMmaBlock;
  const int warpKey0 = j0 + warp * 16;
  const T *qh = q + head * g.tq * g.d;
  const T *doh = dout + head * g.tq * g.dv;
  const float *lseh = lse + head * g.tq;
  const float *deltah = delta + head * g.tq;
  const int64_t maskBase = mask.headBase(head);
  const int kSteps = (g.d + 15) / 16, vSteps = (g.dv + 15) / 16;
  // Under causality query tiles that end before key j0 see none of its keys.
  const int iStart = g.causal ? (j0 / BQ) * BQ : 0;
  const int tiles = g.tq > iStart ? (g.tq - iStart + BQ - 1) / BQ : 0;

  // lse (log2 units) and delta of query i0 + threadIdx.x, for threads < BQ.
  auto rowTerms = [&](int i0, float &l2, float &d) {
    int i = i0 + int(threadIdx.x);
    bool in = threadIdx.x < BQ && i < g.tq;
    l2 = in ? lseh[i] * kLog2e : 0.0f;
    d = in ? deltah[i] : 0.0f;
  };
  loadMmaTileAsync<kMmaBlock, DMAX>(ks, k + head * g.tk * g.d, j0, g.tk, g.d);
  loadMmaTileAsync<kMmaBlock, DMAX>(vs, v + head * g.tk * g.dv, j0, g.tk, g.dv);
  if (tiles > 0) {
    loadMmaTileAsync<BQ, DMAX>(qs, qh, iStart, g.tq, g.d);
    loadMmaTileAsync<BQ, DMAX>(dos, doh, iStart, g.tq, g.dv);
    float l2, d;
    rowTerms(iStart, l2, d);
    if (threadIdx.x < BQ) {
      colLse2[threadIdx.x] = l2;
      colDelta[threadIdx.x] = d;
    }
  }
  cpAsyncCommit();

  float dkAcc[DMAX / 8][4] = {}, dvAcc[DMAX / 8][4] = {};
  for (int t = 0; t < tiles; ++t) {
    const int i0 = iStart + t * BQ, buf = t % 2;
    const T *qt = qs + buf * QTILE, *dot = dos + buf * QTILE;
    const float *tLse2 = colLse2 + buf * BQ, *tDelta = colDelta + buf * BQ;
    float nextLse2 = 0.0f, nextDelta = 0.0f;
    if (t + 1 < tiles) {
      loadMmaTileAsync<BQ, DMAX>(qs + (1 - buf) * QTILE, qh, i0 + BQ, g.tq,
                                 g.d);
      loadMmaTileAsync<BQ, DMAX>(dos + (1 - buf) * QTILE, doh, i0 + BQ, g.tq,
                                 g.dv);
      rowTerms(i0 + BQ, nextLse2, nextDelta);
    }
    cpAsyncCommit();
    cpAsyncWait<1>();
    __syncthreads(); // tile t (and on the first pass K and V) landed

    // Skipped when every query of the tile is before this warp's keys.
    if (!g.causal || warpKey0 <= i0 + BQ - 1) {
      // S^T = K Q^T and dP^T = V dO^T: rows are this warp's keys.
      float st[BQ / 8][4] = {}, dpt[BQ / 8][4] = {};
#pragma unroll
      for (int kk = 0; kk < KSTEPS; ++kk)
        if (kk < kSteps) {
          uint32_t a[4];
          loadA<LD>(ks, warp * 16, kk * 16, lane, a);
#pragma unroll
          for (int nt = 0; nt < BQ / 8; ++nt) {
            uint32_t b0, b1;
            loadBRows<LD>(qt, nt * 8, kk * 16, lane, b0, b1);
            mma16816<T>(st[nt], a, b0, b1);
          }
        }
#pragma unroll
      for (int kk = 0; kk < KSTEPS; ++kk)
        if (kk < vSteps) {
          uint32_t a[4];
          loadA<LD>(vs, warp * 16, kk * 16, lane, a);
#pragma unroll
          for (int nt = 0; nt < BQ / 8; ++nt) {
            uint32_t b0, b1;
            loadBRows<LD>(dot, nt * 8, kk * 16, lane, b0, b1);
            mma16816<T>(dpt[nt], a, b0, b1);
          }
        }

      // P^T = exp(S^T - lse) and dS^T = P^T (dP^T - delta) scale, in place.
      scoresLog2<true>(st, warpKey0, i0,
                       plainTile(i0, i0 + BQ, warpKey0, warpKey0 + 16, g, mask),
                       g, mask, maskBase, lane);
#pragma unroll
      for (int nt = 0; nt < BQ / 8; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          int col = nt * 8 + 2 * (lane % 4) + e % 2;
          float p = exp2Ftz(st[nt][e] - tLse2[col]);
          st[nt][e] = p;
          dpt[nt][e] =
              p == 0.0f ? 0.0f : p * (dpt[nt][e] - tDelta[col]) * g.scale;
        }

        // dV += P^T dO and dK += dS^T Q, contracted over the tile's queries.
#pragma unroll
      for (int kk = 0; kk < BQ / 16; ++kk) {
        uint32_t pa[4], dsa[4];
        accToA<T>(st[2 * kk], st[2 * kk + 1], pa);
        accToA<T>(dpt[2 * kk], dpt[2 * kk + 1], dsa);
#pragma unroll
        for (int np = 0; np < DMAX / 16; ++np) {
          if (np < vSteps) {
            uint32_t b[4];
            loadBCols<LD>(dot, kk * 16, np * 16, lane, b);
            mma16816<T>(dvAcc[2 * np], pa, b[0], b[1]);
            mma16816<T>(dvAcc[2 * np + 1], pa, b[2], b[3]);
          }
          if (np < kSteps) {
            uint32_t b[4];
            loadBCols<LD>(qt, kk * 16, np * 16, lane, b);
            mma16816<T>(dkAcc[2 * np], dsa, b[0], b[1]);
            mma16816<T>(dkAcc[2 * np + 1], dsa, b[2], b[3]);
          }
        }
      }
    }
    // The other row-term buffer was last read in tile t-1.
    if (t + 1 < tiles && threadIdx.x < BQ) {
      colLse2[(1 - buf) * BQ + threadIdx.x] = nextLse2;
      colDelta[(1 - buf) * BQ + threadIdx.x] = nextDelta;
    }
    __syncthreads(); // every warp is done with tile t before t+2 replaces it
  }
  cpAsyncWait<0>();
  storeMmaRows<DMAX>(dk + head * g.tk * g.d, dkAcc, warpKey0, g.tk, g.d, lane);
  storeMmaRows<DMAX>(dv + head * g.tk * g.dv, dvAcc, warpKey0, g.tk, g.dv,
                     lane);
}

template <typename T, int DMAX>
__global__ void __launch_bounds__(kMmaThreads)
    attentionBackwardQueriesMma(const T *q, const T *k, const T *v,
                                const T *dout, const float *lse,
                                const float *delta, AttentionMask mask,
                                AttentionShape g, int qBlocks, T *dq) {
  constexpr int LD = mmaLd<DMAX>();
  constexpr int KSTEPS = DMAX / 16;
  constexpr int TILE = kMmaBlock * LD;
  extern __shared__ uint4 mmaSmem[];
  T *qs = reinterpret_cast<T *>(mmaSmem); // [64][LD]
  T *dos = qs + TILE;                     // [64][LD]
  T *ks = dos + TILE;                     // [2][64][LD]
  T *vs = ks + 2 * TILE;                  // [2][64][LD]
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t head = blockIdx.x / qBlocks;
  const int i0 = (qBlocks - 1 - int(blockIdx.x % qBlocks)) * kMmaBlock;
  const int warpRow0 = i0 + warp * 16;
  const int rowOf[2] = {warpRow0 + lane / 4, warpRow0 + lane / 4 + 8};
  const T *kh = k + head * g.tk * g.d;
  const T *vh = v + head * g.tk * g.dv;
  const int64_t maskBase = mask.headBase(head);
  const int kSteps = (g.d + 15) / 16, vSteps = (g.dv + 15) / 16;
  const int kEnd = g.causal ? min(g.tk, i0 + kMmaBlock) : g.tk;
  const int tiles = (kEnd + kMmaBlock - 1) / kMmaBlock;
  float rowLse2[2], rowDelta[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    bool in = rowOf[h] < g.tq;
    rowLse2[h] = in ? lse[head * g.tq + rowOf[h]] * kLog2e : 0.0f;
    rowDelta[h] = in ? delta[head * g.tq + rowOf[h]] : 0.0f;
  }

  loadMmaTileAsync<kMmaBlock, DMAX>(qs, q + head * g.tq * g.d, i0, g.tq, g.d);
  loadMmaTileAsync<kMmaBlock, DMAX>(dos, dout + head * g.tq * g.dv, i0, g.tq,
                                    g.dv);
  if (tiles > 0) {
    loadMmaTileAsync<kMmaBlock, DMAX>(ks, kh, 0, g.tk, g.d);
    loadMmaTileAsync<kMmaBlock, DMAX>(vs, vh, 0, g.tk, g.dv);
  }
  cpAsyncCommit();
  float dqAcc[DMAX / 8][4] = {};
  for (int t = 0; t < tiles; ++t) {
    const int j0 = t * kMmaBlock;
    const T *kt = ks + (t % 2) * TILE, *vt = vs + (t % 2) * TILE;
    if (t + 1 < tiles) {
      loadMmaTileAsync<kMmaBlock, DMAX>(ks + (1 - t % 2) * TILE, kh,
                                        j0 + kMmaBlock, g.tk, g.d);
      loadMmaTileAsync<kMmaBlock, DMAX>(vs + (1 - t % 2) * TILE, vh,
                                        j0 + kMmaBlock, g.tk, g.dv);
    }
    cpAsyncCommit();
    cpAsyncWait<1>();
    __syncthreads(); // tile t (and on the first pass Q and dO) landed

    // Skipped when every key of the tile is after this warp's queries.
    if (!g.causal || j0 <= warpRow0 + 15) {
      // S = Q K^T and dP = dO V^T.
      float s[kMmaBlock / 8][4] = {}, dp[kMmaBlock / 8][4] = {};
#pragma unroll
      for (int kk = 0; kk < KSTEPS; ++kk)
        if (kk < kSteps) {
          uint32_t a[4];
          loadA<LD>(qs, warp * 16, kk * 16, lane, a);
#pragma unroll
          for (int nt = 0; nt < kMmaBlock / 8; ++nt) {
            uint32_t b0, b1;
            loadBRows<LD>(kt, nt * 8, kk * 16, lane, b0, b1);
            mma16816<T>(s[nt], a, b0, b1);
          }
        }
#pragma unroll
      for (int kk = 0; kk < KSTEPS; ++kk)
        if (kk < vSteps) {
          uint32_t a[4];
          loadA<LD>(dos, warp * 16, kk * 16, lane, a);
#pragma unroll
          for (int nt = 0; nt < kMmaBlock / 8; ++nt) {
            uint32_t b0, b1;
            loadBRows<LD>(vt, nt * 8, kk * 16, lane, b0, b1);
            mma16816<T>(dp[nt], a, b0, b1);
          }
        }

      // dS = P (dP - delta) scale, in place of dP.
      scoresLog2<false>(
          s, warpRow0, j0,
          plainTile(warpRow0, warpRow0 + 16, j0, j0 + kMmaBlock, g, mask), g,
          mask, maskBase, lane);
#pragma unroll
      for (int nt = 0; nt < kMmaBlock / 8; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          float p = exp2Ftz(s[nt][e] - rowLse2[e / 2]);
          dp[nt][e] =
              p == 0.0f ? 0.0f : p * (dp[nt][e] - rowDelta[e / 2]) * g.scale;
        }

        // dQ += dS K, contracted over the tile's keys.
#pragma unroll
      for (int kk = 0; kk < kMmaBlock / 16; ++kk) {
        uint32_t dsa[4];
        accToA<T>(dp[2 * kk], dp[2 * kk + 1], dsa);
#pragma unroll
        for (int np = 0; np < DMAX / 16; ++np)
          if (np < kSteps) {
            uint32_t b[4];
            loadBCols<LD>(kt, kk * 16, np * 16, lane, b);
            mma16816<T>(dqAcc[2 * np], dsa, b[0], b[1]);
            mma16816<T>(dqAcc[2 * np + 1], dsa, b[2], b[3]);
          }
      }
    }
    __syncthreads(); // every warp is done with tile t before t+2 replaces it
  }
  cpAsyncWait<0>();
  storeMmaRows<DMAX>(dq + head * g.tq * g.d, dqAcc, warpRow0, g.tq, g.d, lane);
}

} // namespace hetc::runtime::cuda::internal

#endif // HETC_RUNTIME_CUDA_INTERNAL_ATTENTIONMMA_CUH
