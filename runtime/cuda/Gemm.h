//===- Gemm.h - batched matrix products (cuBLASLt) --------------*- C++ -*-===//

#ifndef HETC_RUNTIME_CUDA_GEMM_H
#define HETC_RUNTIME_CUDA_GEMM_H

#include "runtime/base/KernelOptions.h"
#include "runtime/base/Tensor.h"
#include "runtime/cuda/Stream.h"

// The kernels of runtime/cpu/Gemm.h on the current stream (Stream.h):
// device pointers; A, B, C and bias share one float dtype, f32, bf16 or f16.
// Products accumulate in f32 (CUBLAS_COMPUTE_32F; f32 inputs are never
// rounded to TF32) and C is rounded once. Each thread keeps a cuBLASLt
// handle and a 32 MiB workspace per device, created by its first call there
// (so that call must not be under CUDA graph capture), and caches the
// algorithm of every problem it has seen: later calls neither allocate nor
// synchronize. The workspace (also biasGrad's scratch) belongs to the
// thread, not to a stream: calls one thread enqueues on two streams must
// not run concurrently, and a captured graph must not outlive the thread
// that captured it. biasGrad's dy and dbias share one dtype and sum in f32
// in a fixed order (no atomics: the same result on every run).

namespace hetc::runtime::cuda {

#include "runtime/kernels/Gemm.inc"

//===----------------------------------------------------------------------===//
// CUDA only: cuBLASLt epilogues fused into the product.
//===----------------------------------------------------------------------===//

// Named after cublasLtEpilogue_t. GELU is the tanh approximation
// (UnaryOp::kGeluTanh); "pre" is alpha * op(A) @ op(B).
enum class GemmEpilogue {
  kNone,        // C = pre, as gemm without bias
  kBias,        // C = pre + bias, as gemm with bias
  kGelu,        // C = gelu(pre)
  kGeluBias,    // C = gelu(pre + bias)
  kGeluAuxBias, // C = gelu(pre + bias), aux = pre + bias (for the backward)
  kDGeluBGrad,  // C = gelu'(aux) * pre, biasGrad[n] = sum over rows of C
  kBGradA,      // C = pre, biasGrad[m] = sum over k of op(A)[m, k]
  kBGradB,      // C = pre, biasGrad[n] = sum over k of op(B)[k, n]
};

const char *gemmEpilogueName(GemmEpilogue epilogue);

// The extra operands of an epilogue; those it does not use must be null.
// All share C's dtype.
struct GemmEpilogueArgs {
  GemmEpilogue epilogue = GemmEpilogue::kNone;
  const TensorView *bias = nullptr;     // [N]: kBias, kGeluBias, kGeluAuxBias
  const TensorView *aux = nullptr;      // C's shape: written by kGeluAuxBias,
                                        // read by kDGeluBGrad
  const TensorView *biasGrad = nullptr; // overwritten: [N] for kDGeluBGrad
                                        // and kBGradB, [M] for kBGradA
};

// C = epilogue(alpha * op(A) @ op(B)) with gemm's shapes and broadcasting,
// in one cuBLASLt launch per batch group. kNone and kBias are gemm. The
// others require (cuBLASLt's rules, and what keeps the result well defined):
// - M, N and K of at least 1 and no accumulate (C is overwritten);
// - with aux (kGeluAuxBias, kDGeluBGrad): N a multiple of 8 (aux is a
//   row-major [..., M, N] matrix whose leading dimension must be);
// - kDGeluBGrad, kBGradA and kBGradB: alpha 1 and a single product, that
//   is, no batch dimensions, or batch dimensions that fold into M (B
//   without batch dimensions and A not transposed);
// - kBGradA: A transposed, kBGradB: B not transposed. The row-major
//   product runs as its column-major transpose with the operands swapped,
//   so these are cuBLASLt's BGRADB and BGRADA, which support only a
//   transposed B and a non-transposed A respectively. For a linear layer
//   y = x @ W^T + b (W [out, in]), kBGradA gives dW = dy^T @ x with
//   db = column sums of dy; for y = x @ W + b (W [in, out]), kBGradB gives
//   dW = x^T @ dy with the same db.
// An epilogue for which the installed cuBLASLt has no algorithm gives
// UNIMPLEMENTED. C must not alias A, B, bias, aux or biasGrad.
Status gemmWithEpilogue(const TensorView &a, const TensorView &b,
                        const GemmEpilogueArgs &args, const TensorView &c,
                        const GemmOptions &options);

} // namespace hetc::runtime::cuda

#endif // HETC_RUNTIME_CUDA_GEMM_H
