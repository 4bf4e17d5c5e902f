//===- AttentionMmaOps.cuh - tensor-core building blocks -------*- CUDA -*-===//
//
// The pieces the tensor-core attention kernels are made of: mma.sync
// m16n8k16 (bf16 or f16 inputs, f32 accumulators), fragment loads from
// row-major shared tiles (32-bit loads, or ldmatrix.trans where the
// contraction runs down the tile's rows), cp.async tile copies, and the
// per-element steps of the softmax (scores, one-instruction max and exp2,
// row trees).
//
// Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k16"), with
// g = lane / 4 and t = lane % 4:
//   A 16x16: a0 (g, 2t..2t+1), a1 (g+8, 2t..), a2 (g, 2t+8..), a3 (g+8, 2t+8..)
//   B 16x8:  b0 (k = 2t..2t+1, n = g), b1 (k = 2t+8.., n = g)
//   C 16x8:  c0, c1 (g, 2t..2t+1), c2, c3 (g+8, 2t..2t+1)
// Pairs are packed with the lower column in the low half. Shared tiles
// have rows of DMAX + 8 elements, which makes the 32-bit fragment reads
// and ldmatrix conflict-free.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CUDA_INTERNAL_ATTENTIONMMAOPS_CUH
#define HETC_RUNTIME_CUDA_INTERNAL_ATTENTIONMMAOPS_CUH

#include "runtime/cuda/internal/AttentionCommon.cuh"

#include <cstring>

// mma.sync m16n8k16 and cp.async need sm_80. Older targets of a fat binary
// compile them as traps: Attention.cu never launches the tensor-core
// kernels on such a device (useMma).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define HETC_ATTENTION_MMA_UNSUPPORTED 1
#endif

namespace hetc::runtime::cuda::internal {

constexpr int kMmaThreads = 128; // 4 warps of 16 rows
constexpr int kMmaBlock = 64;    // queries (forward, dq) or keys (dk, dv)

template <int DMAX> constexpr int mmaLd() { return DMAX + 8; }
// Query rows per tile of the dk/dv kernel (fewer for DMAX 128: registers).
template <int DMAX> constexpr int mmaKeysBq() { return DMAX <= 64 ? 64 : 32; }

// Two floats as the packed pair of T (the lower column in the low half).
template <typename T>
__device__ __forceinline__ uint32_t pack2(float lo, float hi);
template <>
__device__ __forceinline__ uint32_t pack2<__nv_bfloat16>(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  uint32_t bits;
  memcpy(&bits, &v, sizeof(bits));
  return bits;
}
template <>
__device__ __forceinline__ uint32_t pack2<__half>(float lo, float hi) {
  __half2 v = __floats2half2_rn(lo, hi);
  uint32_t bits;
  memcpy(&bits, &v, sizeof(bits));
  return bits;
}

// c += a (16x16, row-major fragment) * b (16x8, column-major fragment).
template <typename T>
__device__ __forceinline__ void mma16816(float (&c)[4], const uint32_t (&a)[4],
                                         uint32_t b0, uint32_t b1);
template <>
__device__ __forceinline__ void
mma16816<__nv_bfloat16>(float (&c)[4], const uint32_t (&a)[4], uint32_t b0,
                        uint32_t b1) {
#ifdef HETC_ATTENTION_MMA_UNSUPPORTED
  __trap();
#else
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
}
template <>
__device__ __forceinline__ void mma16816<__half>(float (&c)[4],
                                                 const uint32_t (&a)[4],
                                                 uint32_t b0, uint32_t b1) {
#ifdef HETC_ATTENTION_MMA_UNSUPPORTED
  __trap();
#else
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
}

// nanMax in one instruction (max.NaN: a NaN operand gives NaN).
__device__ __forceinline__ float maxNaN(float a, float b) {
#ifdef HETC_ATTENTION_MMA_UNSUPPORTED
  return nanMax(a, b);
#else
  float r;
  asm("max.NaN.f32 %0, %1, %2;\n" : "=f"(r) : "f"(a), "f"(b));
  return r;
#endif
}

// 2^x in one MUFU.EX2, subnormal results flushed to zero: probabilities that
// small vanish beside a row's largest, which is 1.
__device__ __forceinline__ float exp2Ftz(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(r) : "f"(x));
  return r;
}

// The max and the sum of accumulator row h (elements 2h and 2h + 1 of each
// s[nt]) of this thread, in trees rather than chains of dependent steps.
template <int NT>
__device__ __forceinline__ float rowMax(const float (&s)[NT][4], int h) {
  float x[NT];
#pragma unroll
  for (int nt = 0; nt < NT; ++nt)
    x[nt] = maxNaN(s[nt][2 * h], s[nt][2 * h + 1]);
#pragma unroll
  for (int width = NT / 2; width > 0; width /= 2)
#pragma unroll
    for (int i = 0; i < width; ++i)
      x[i] = maxNaN(x[i], x[i + width]);
  return x[0];
}
template <int NT>
__device__ __forceinline__ float rowSum(const float (&s)[NT][4], int h) {
  float x[NT];
#pragma unroll
  for (int nt = 0; nt < NT; ++nt)
    x[nt] = s[nt][2 * h] + s[nt][2 * h + 1];
#pragma unroll
  for (int width = NT / 2; width > 0; width /= 2)
#pragma unroll
    for (int i = 0; i < width; ++i)
      x[i] += x[i + width];
  return x[0];
}

template <typename T> __device__ __forceinline__ uint32_t lds32(const T *p) {
  return *reinterpret_cast<const uint32_t *>(p);
}

// Four 8x8 matrices transposed: lane l gives the address of row l % 8 of
// matrix l / 8.
__device__ __forceinline__ void ldmatrixTrans(const void *p, uint32_t &r0,
                                              uint32_t &r1, uint32_t &r2,
                                              uint32_t &r3) {
  uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 "
               "{%0,%1,%2,%3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}

// A fragment of rows row0..row0+15, columns col0..col0+15 of a row-major
// shared tile with stride LD.
template <int LD, typename T>
__device__ __forceinline__ void loadA(const T *tile, int row0, int col0,
                                      int lane, uint32_t (&a)[4]) {
  const T *p = tile + (row0 + lane / 4) * LD + col0 + 2 * (lane % 4);
  a[0] = lds32(p);
  a[1] = lds32(p + 8 * LD);
  a[2] = lds32(p + 8);
  a[3] = lds32(p + 8 * LD + 8);
}

// B fragment (16 x 8, k x n) whose column n is row n0 + n of a row-major
// shared tile, k the columns k0..k0+15: B = tile^T.
template <int LD, typename T>
__device__ __forceinline__ void
loadBRows(const T *tile, int n0, int k0, int lane, uint32_t &b0, uint32_t &b1) {
  const T *p = tile + (n0 + lane / 4) * LD + k0 + 2 * (lane % 4);
  b0 = lds32(p);
  b1 = lds32(p + 8);
}

// B fragments of two n-tiles (columns c0..c0+7 and c0+8..c0+15) whose k runs
// down rows k0..k0+15 of a row-major shared tile: B = tile.
template <int LD, typename T>
__device__ __forceinline__ void loadBCols(const T *tile, int k0, int c0,
                                          int lane, uint32_t (&b)[4]) {
  int matrix = lane / 8;
  const T *p =
      tile + (k0 + (matrix % 2) * 8 + lane % 8) * LD + c0 + (matrix / 2) * 8;
  ldmatrixTrans(p, b[0], b[1], b[2], b[3]);
}

// The A operand of k-step kk from accumulators s[2kk], s[2kk+1].
template <typename T>
__device__ __forceinline__ void accToA(const float (&s0)[4],
                                       const float (&s1)[4], uint32_t (&a)[4]) {
  a[0] = pack2<T>(s0[0], s0[1]);
  a[1] = pack2<T>(s0[2], s0[3]);
  a[2] = pack2<T>(s1[0], s1[1]);
  a[3] = pack2<T>(s1[2], s1[3]);
}

// Turns a warp's accumulator tile of q.k products into scores in log2
// units (maskedScoreLog2), -inf outside Tq x Tk. Element e of s[nt] is at
// row row0 + lane / 4 + 8 (e / 2), column col0 + 8 nt + 2 (lane % 4) +
// e % 2; the rows are queries, or keys when KeyRows. A plain tile
// (plainTile) only scales.
template <bool KeyRows, int NT>
__device__ __forceinline__ void
scoresLog2(float (&s)[NT][4], int row0, int col0, bool plain,
           const AttentionShape &g, const AttentionMask &mask, int64_t maskBase,
           int lane) {
  if (plain) {
    const float scaleLog2 = g.scale * kLog2e;
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        s[nt][e] *= scaleLog2;
    return;
  }
#pragma unroll
  for (int nt = 0; nt < NT; ++nt)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      int row = row0 + lane / 4 + 8 * (e / 2);
      int col = col0 + nt * 8 + 2 * (lane % 4) + e % 2;
      int i = KeyRows ? col : row, j = KeyRows ? row : col;
      s[nt][e] = i < g.tq && j < g.tk
                     ? maskedScoreLog2(s[nt][e], i, j, g, mask, maskBase)
                     : -INFINITY;
    }
}

// Asynchronous 16-byte copy global -> shared (cp.async, L2 only); zeros
// instead when !valid (src is then not read but must be a valid address).
__device__ __forceinline__ void cpAsync16(void *dst, const void *src,
                                          bool valid) {
  uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
  int bytes = valid ? 16 : 0;
#ifdef HETC_ATTENTION_MMA_UNSUPPORTED
  __trap();
#else
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
               :
               : "r"(addr), "l"(src), "r"(bytes)
               : "memory");
#endif
}
// Closes the group of this thread's copies issued since the last commit.
__device__ __forceinline__ void cpAsyncCommit() {
#ifdef HETC_ATTENTION_MMA_UNSUPPORTED
  __trap();
#else
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
// Waits until at most N of this thread's committed groups are in flight;
// other threads' copies need a __syncthreads() after this.
template <int N> __device__ __forceinline__ void cpAsyncWait() {
#ifdef HETC_ATTENTION_MMA_UNSUPPORTED
  __trap();
#else
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

// Starts copying dst[r][c] = src[(row0 + r) * width + c] for a ROWS x DMAX
// tile, zero past `rows` and `width` (a multiple of 8).
template <int ROWS, int DMAX, typename T>
__device__ __forceinline__ void loadMmaTileAsync(T *dst, const T *src, int row0,
                                                 int rows, int width) {
  constexpr int LD = mmaLd<DMAX>();
  constexpr int CHUNKS = DMAX / 8;
  static_assert(ROWS * CHUNKS % kMmaThreads == 0, "whole copies per thread");
#pragma unroll
  for (int it = 0; it < ROWS * CHUNKS / kMmaThreads; ++it) {
    int idx = threadIdx.x + it * kMmaThreads;
    int r = idx / CHUNKS, c = (idx % CHUNKS) * 8;
    bool valid = row0 + r < rows && c < width;
    cpAsync16(dst + r * LD + c,
              valid ? src + int64_t(row0 + r) * width + c : src, valid);
  }
}

// Stores the accumulators acc[DMAX/8][4] of rows row0 + g (+8), columns <
// width.
template <int DMAX, typename T>
__device__ __forceinline__ void
storeMmaRows(T *dst, const float (&acc)[DMAX / 8][4], int row0, int rows,
             int width, int lane) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    int row = row0 + lane / 4 + 8 * h;
    if (row >= rows)
      continue;
#pragma unroll
    for (int nt = 0; nt < DMAX / 8; ++nt) {
      int col = nt * 8 + 2 * (lane % 4);
      if (col < width) // width is even: col + 1 < width too
        *reinterpret_cast<uint32_t *>(dst + int64_t(row) * width + col) =
            pack2<T>(acc[nt][2 * h], acc[nt][2 * h + 1]);
    }
  }
}

} // namespace hetc::runtime::cuda::internal

#endif // HETC_RUNTIME_CUDA_INTERNAL_ATTENTIONMMAOPS_CUH
