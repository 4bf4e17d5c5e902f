//===- Gemm.cpp -----------------------------------------------------------===//
//
// Row-major products through column-major cuBLASLt: a row-major [M, N]
// matrix is a column-major [N, M] one, so C = op(A) @ op(B) is computed as
// C^T = op(B)^T @ op(A)^T with B as cuBLASLt's first operand and A as its
// second, transposes unchanged. The bias, added to each of cuBLASLt's rows,
// then lands on each column of C; cuBLASLt's bias gradient of its first
// operand (BGRADA) is the column sums of B, that of its second (BGRADB) the
// row sums of op(A).
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/Gemm.h"

#include "runtime/cuda/internal/AlignedRows.h"
#include "runtime/cuda/internal/GemmKernels.h"

#include <climits>
#include <vector>

namespace hetc::runtime::cuda {
namespace {

Status checkFloat(const TensorView &t, const char *what) {
  if (t.dtype != DType::kF32 && t.dtype != DType::kBF16 &&
      t.dtype != DType::kF16)
    return invalidArgument(what, " must be f32, bf16 or f16, got ",
                           t.describe());
  return checkData(t, what);
}

// `t` shares the dtype of `ref` (named `refName`).
Status checkLike(const TensorView &t, const TensorView &ref, const char *what,
                 const char *refName) {
  if (t.dtype != ref.dtype)
    return invalidArgument(what, " must be ", dtypeName(ref.dtype), " like ",
                           refName, ", got ", t.describe());
  return checkData(t, what);
}

// A checked product in row-major terms.
struct Product {
  DType dtype = DType::kF32;
  int64_t m = 0, n = 0, k = 0;
  Shape batch;                             // broadcast batch dimensions
  std::vector<int64_t> stridesA, stridesB; // in matrices, per batch dim
  int64_t matrixA = 0, matrixB = 0;        // elements of one matrix
  // One product of M * numBatch rows: B has no batch dimensions and A's
  // batches are its rows (A not transposed, not broadcast).
  bool folds = false;
};

// Matrix strides of the batch dimensions `in` read in the index space of
// `out` (right-aligned; 0 where `in` has size 1 or lacks the dimension).
// `in` is known to broadcast to `out`.
std::vector<int64_t> batchStrides(const Shape &in, const Shape &out) {
  std::vector<int64_t> strides(out.size(), 0);
  size_t lead = out.size() - in.size();
  int64_t stride = 1;
  for (size_t i = out.size(); i-- > lead;) {
    int64_t d = in[i - lead];
    strides[i] = d == 1 ? 0 : stride;
    stride *= d;
  }
  return strides;
}

Status checkProduct(const char *kernel, const TensorView &a,
                    const TensorView &b, const TensorView &c,
                    const GemmOptions &options, Product *p) {
  HETC_RETURN_IF_ERROR(checkFloat(a, "A"), kernel);
  HETC_RETURN_IF_ERROR(checkLike(b, a, "B", "A"), kernel);
  HETC_RETURN_IF_ERROR(checkLike(c, a, "C", "A"), kernel);
  if (a.rank() < 2)
    return invalidArgument(kernel, ": A must have rank >= 2, got ",
                           a.describe());
  if (b.rank() < 2)
    return invalidArgument(kernel, ": B must have rank >= 2, got ",
                           b.describe());
  int64_t ar = a.rank(), br = b.rank();
  p->dtype = a.dtype;
  p->m = options.transA ? a.shape[ar - 1] : a.shape[ar - 2];
  p->k = options.transA ? a.shape[ar - 2] : a.shape[ar - 1];
  int64_t kb = options.transB ? b.shape[br - 1] : b.shape[br - 2];
  p->n = options.transB ? b.shape[br - 2] : b.shape[br - 1];
  if (p->k != kb)
    return invalidArgument(
        kernel, ": inner dimensions differ: op(A) is [", p->m, ",", p->k,
        "] and op(B) is [", kb, ",", p->n, "] (A ", a.describe(),
        options.transA ? " transposed" : "", ", B ", b.describe(),
        options.transB ? " transposed" : "", ")");
  Shape batchA(a.shape.begin(), a.shape.end() - 2);
  Shape batchB(b.shape.begin(), b.shape.end() - 2);
  HETC_RETURN_IF_ERROR(broadcastShapes(batchA, batchB, &p->batch), kernel,
                       ": batch dimensions");
  Shape expected = p->batch;
  expected.push_back(p->m);
  expected.push_back(p->n);
  HETC_RETURN_IF_ERROR(checkShape(c, expected, "C"), kernel);
  if (numElements(p->batch) > INT_MAX)
    return invalidArgument(kernel, ": more than 2^31 batches");
  p->stridesA = batchStrides(batchA, p->batch);
  p->stridesB = batchStrides(batchB, p->batch);
  p->matrixA = a.shape[ar - 2] * a.shape[ar - 1];
  p->matrixB = b.shape[br - 2] * b.shape[br - 1];
  int64_t numBatch = numElements(p->batch);
  p->folds = numBatch == 1 || (numElements(batchB) == 1 && !options.transA &&
                               numElements(batchA) == numBatch);
  return okStatus();
}

cudaDataType_t cudaTypeOf(DType dtype) {
  switch (dtype) {
  case DType::kBF16:
    return CUDA_R_16BF;
  case DType::kF16:
    return CUDA_R_16F;
  default:
    return CUDA_R_32F;
  }
}

// The batch dimensions split into an outer part, looped on the host, and
// the longest inner suffix over which A and B advance by a fixed number of
// matrices per batch (0 for a broadcast side): one strided-batch launch.
struct BatchGroups {
  size_t outerDims = 0; // batch dims [0, outerDims) are looped
  int64_t outer = 1;    // launches
  int64_t inner = 1;    // batches per launch
  int64_t innerStrideA = 0, innerStrideB = 0; // matrices per batch
};

BatchGroups groupBatches(const Product &p) {
  BatchGroups g;
  g.outerDims = p.batch.size();
  for (size_t d = p.batch.size(); d-- > 0;) {
    int64_t size = p.batch[d];
    if (size == 1) { // no index, any stride
      g.outerDims = d;
      continue;
    }
    if (g.inner == 1) {
      g.innerStrideA = p.stridesA[d];
      g.innerStrideB = p.stridesB[d];
    } else if (p.stridesA[d] != g.innerStrideA * g.inner ||
               p.stridesB[d] != g.innerStrideB * g.inner) {
      break;
    }
    g.inner *= size;
    g.outerDims = d;
  }
  for (size_t d = 0; d < g.outerDims; ++d)
    g.outer *= p.batch[d];
  return g;
}

// Enqueues C = epilogue(alpha * op(A) @ op(B) + beta * C) for a checked,
// non-empty product with K > 0. `bias` is the bias or bias gradient, `aux`
// the GELU input (C's shape), both optional. Errors name `kernel`.
Status runProduct(const char *kernel, const TensorView &a, const TensorView &b,
                  const TensorView &c, const GemmOptions &options,
                  const Product &p, cublasLtEpilogue_t epilogue, void *bias,
                  void *aux, float beta) {
  internal::LtMatmul lt;
  lt.type = cudaTypeOf(p.dtype);
  lt.transA = options.transB;
  lt.transB = options.transA;
  lt.m = p.n;
  lt.k = p.k;
  lt.lda = b.shape.back();
  lt.ldb = a.shape.back();
  lt.ldd = p.n;
  lt.epilogue = epilogue;
  lt.auxLd = p.n;
  lt.alpha = options.alpha;
  lt.beta = beta;
  lt.bias = bias;
  cudaStream_t stream = currentStream();
  if (p.folds) {
    lt.n = p.m * numElements(p.batch);
    lt.a = b.data;
    lt.b = a.data;
    lt.d = c.data;
    lt.aux = aux;
    HETC_RETURN_IF_ERROR(internal::alignedLtMatmul(lt, stream), kernel);
    return okStatus();
  }

  BatchGroups g = groupBatches(p);
  lt.n = p.m;
  lt.batchCount = g.inner;
  lt.strideA = g.innerStrideB * p.matrixB;
  lt.strideB = g.innerStrideA * p.matrixA;
  lt.strideD = p.m * p.n;
  lt.auxStride = p.m * p.n;
  size_t elem = dtypeSize(p.dtype);
  const char *aBytes = static_cast<const char *>(a.data);
  const char *bBytes = static_cast<const char *>(b.data);
  char *cBytes = static_cast<char *>(c.data);
  char *auxBytes = static_cast<char *>(aux);
  for (int64_t o = 0; o < g.outer; ++o) {
    int64_t offA = 0, offB = 0, rest = o; // in matrices
    for (size_t d = g.outerDims; d-- > 0;) {
      int64_t index = rest % p.batch[d];
      rest /= p.batch[d];
      offA += index * p.stridesA[d];
      offB += index * p.stridesB[d];
    }
    size_t offC = static_cast<size_t>(o * g.inner * p.m * p.n) * elem;
    lt.a = bBytes + static_cast<size_t>(offB * p.matrixB) * elem;
    lt.b = aBytes + static_cast<size_t>(offA * p.matrixA) * elem;
    lt.d = cBytes + offC;
    lt.aux = auxBytes ? auxBytes + offC : nullptr;
    HETC_RETURN_IF_ERROR(internal::alignedLtMatmul(lt, stream), kernel);
  }
  return okStatus();
}

Status checkVector(const TensorView &t, const TensorView &c, int64_t n,
                   const char *what) {
  HETC_RETURN_IF_ERROR(checkLike(t, c, what, "C"));
  return checkShape(t, {n}, what);
}

cublasLtEpilogue_t ltEpilogue(GemmEpilogue epilogue) {
  switch (epilogue) {
  case GemmEpilogue::kBias:
    return CUBLASLT_EPILOGUE_BIAS;
  case GemmEpilogue::kGelu:
    return CUBLASLT_EPILOGUE_GELU;
  case GemmEpilogue::kGeluBias:
    return CUBLASLT_EPILOGUE_GELU_BIAS;
  case GemmEpilogue::kGeluAuxBias:
    return CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
  case GemmEpilogue::kDGeluBGrad:
    return CUBLASLT_EPILOGUE_DGELU_BGRAD;
  case GemmEpilogue::kBGradA: // the operands are swapped (see top)
    return CUBLASLT_EPILOGUE_BGRADB;
  case GemmEpilogue::kBGradB:
    return CUBLASLT_EPILOGUE_BGRADA;
  case GemmEpilogue::kNone:
    break;
  }
  return CUBLASLT_EPILOGUE_DEFAULT;
}

// Whether `epilogue` takes `operand` (GemmEpilogueArgs' bias, aux,
// biasGrad).
enum class Operand { kBias, kAux, kBiasGrad };
bool takes(GemmEpilogue epilogue, Operand operand) {
  switch (operand) {
  case Operand::kBias:
    return epilogue == GemmEpilogue::kBias ||
           epilogue == GemmEpilogue::kGeluBias ||
           epilogue == GemmEpilogue::kGeluAuxBias;
  case Operand::kAux:
    return epilogue == GemmEpilogue::kGeluAuxBias ||
           epilogue == GemmEpilogue::kDGeluBGrad;
  case Operand::kBiasGrad:
    return epilogue == GemmEpilogue::kDGeluBGrad ||
           epilogue == GemmEpilogue::kBGradA ||
           epilogue == GemmEpilogue::kBGradB;
  }
  return false;
}

Status checkPresence(GemmEpilogue epilogue, Operand operand,
                     const TensorView *t, const char *what) {
  bool wanted = takes(epilogue, operand);
  if (wanted && !t)
    return invalidArgument("gemm_with_epilogue: ", gemmEpilogueName(epilogue),
                           " needs args.", what);
  if (!wanted && t)
    return invalidArgument("gemm_with_epilogue: ", gemmEpilogueName(epilogue),
                           " takes no args.", what);
  return okStatus();
}

} // namespace

Status gemm(const TensorView &a, const TensorView &b, const TensorView *bias,
            const TensorView &c, const GemmOptions &options) {
  Product p;
  HETC_RETURN_IF_ERROR(checkProduct("gemm", a, b, c, options, &p));
  if (bias)
    HETC_RETURN_IF_ERROR(checkVector(*bias, c, p.n, "bias"), "gemm");
  if (c.numel() == 0)
    return okStatus();
  if (p.k == 0) { // no product: C = (C) + bias, or 0
    if (bias)
      return internal::launchAddBiasRows(p.dtype, c.data, bias->data,
                                         c.numel() / p.n, p.n,
                                         options.accumulate, currentStream());
    if (!options.accumulate)
      HETC_RETURN_IF_ERROR(
          cudaStatus(cudaMemsetAsync(c.data, 0, c.byteSize(), currentStream()),
                     "cudaMemsetAsync"),
          "gemm");
    return okStatus();
  }
  return runProduct("gemm", a, b, c, options, p,
                    bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT,
                    bias ? bias->data : nullptr, nullptr,
                    options.accumulate ? 1.0f : 0.0f);
}

Status biasGrad(const TensorView &dy, const TensorView &dbias,
                bool accumulate) {
  HETC_RETURN_IF_ERROR(checkFloat(dy, "dy"), "bias_grad");
  HETC_RETURN_IF_ERROR(checkLike(dbias, dy, "dbias", "dy"), "bias_grad");
  if (dy.rank() < 1)
    return invalidArgument("bias_grad: dy must have rank >= 1, got ",
                           dy.describe());
  int64_t cols = dy.shape.back();
  HETC_RETURN_IF_ERROR(checkShape(dbias, {cols}, "dbias"), "bias_grad");
  if (cols == 0)
    return okStatus();
  void *scratch = nullptr;
  size_t scratchBytes = 0;
  int multiprocessors = 0;
  HETC_RETURN_IF_ERROR(
      internal::threadWorkspace(&scratch, &scratchBytes, &multiprocessors),
      "bias_grad");
  return internal::launchBiasGrad(dy.dtype, dy.data, dy.numel() / cols, cols,
                                  dbias.data, accumulate, scratch, scratchBytes,
                                  multiprocessors, currentStream());
}

const char *gemmEpilogueName(GemmEpilogue epilogue) {
  switch (epilogue) {
  case GemmEpilogue::kNone:
    return "none";
  case GemmEpilogue::kBias:
    return "bias";
  case GemmEpilogue::kGelu:
    return "gelu";
  case GemmEpilogue::kGeluBias:
    return "gelu_bias";
  case GemmEpilogue::kGeluAuxBias:
    return "gelu_aux_bias";
  case GemmEpilogue::kDGeluBGrad:
    return "dgelu_bgrad";
  case GemmEpilogue::kBGradA:
    return "bgrada";
  case GemmEpilogue::kBGradB:
    return "bgradb";
  }
  return "unknown";
}

Status gemmWithEpilogue(const TensorView &a, const TensorView &b,
                        const GemmEpilogueArgs &args, const TensorView &c,
                        const GemmOptions &options) {
  GemmEpilogue epilogue = args.epilogue;
  HETC_RETURN_IF_ERROR(
      checkPresence(epilogue, Operand::kBias, args.bias, "bias"));
  HETC_RETURN_IF_ERROR(checkPresence(epilogue, Operand::kAux, args.aux, "aux"));
  HETC_RETURN_IF_ERROR(
      checkPresence(epilogue, Operand::kBiasGrad, args.biasGrad, "biasGrad"));
  if (epilogue == GemmEpilogue::kNone || epilogue == GemmEpilogue::kBias)
    return gemm(a, b, args.bias, c, options);

  const char *kernel = "gemm_with_epilogue";
  const char *name = gemmEpilogueName(epilogue);
  Product p;
  HETC_RETURN_IF_ERROR(checkProduct(kernel, a, b, c, options, &p));
  if (args.bias)
    HETC_RETURN_IF_ERROR(checkVector(*args.bias, c, p.n, "bias"), kernel);
  if (args.biasGrad) {
    int64_t length = epilogue == GemmEpilogue::kBGradA ? p.m : p.n;
    HETC_RETURN_IF_ERROR(
        checkVector(*args.biasGrad, c, length, "bias gradient"), kernel);
  }
  if (args.aux) {
    HETC_RETURN_IF_ERROR(checkLike(*args.aux, c, "aux", "C"), kernel);
    HETC_RETURN_IF_ERROR(checkShape(*args.aux, c.shape, "aux"), kernel);
    if (p.n % 8 != 0)
      return invalidArgument(kernel, ": ", name,
                             " needs N to be a multiple of 8 (the leading "
                             "dimension of aux), got N = ",
                             p.n);
  }
  if (options.accumulate)
    return invalidArgument(kernel, ": ", name,
                           " overwrites C; accumulate is not supported");
  if (p.m == 0 || p.n == 0 || p.k == 0 || numElements(p.batch) == 0)
    return invalidArgument(kernel, ": ", name,
                           " needs M, N, K and the batch to be non-empty "
                           "(A ",
                           a.describe(), ", B ", b.describe(), ")");
  if (args.biasGrad) {
    if (options.alpha != 1.0f)
      return invalidArgument(kernel, ": ", name, " needs alpha = 1, got ",
                             options.alpha);
    if (!p.folds)
      return invalidArgument(kernel, ": ", name,
                             " needs a single product: B without batch "
                             "dimensions and A not transposed, or no batch "
                             "dimensions (A ",
                             a.describe(), ", B ", b.describe(), ")");
  }
  if (epilogue == GemmEpilogue::kBGradA && !options.transA)
    return invalidArgument(kernel, ": ", name,
                           " needs A transposed (what cuBLASLt supports)");
  if (epilogue == GemmEpilogue::kBGradB && options.transB)
    return invalidArgument(kernel, ": ", name,
                           " needs B not transposed (what cuBLASLt "
                           "supports)");
  void *vector = args.bias ? args.bias->data
                           : (args.biasGrad ? args.biasGrad->data : nullptr);
  return runProduct(kernel, a, b, c, options, p, ltEpilogue(epilogue), vector,
                    args.aux ? args.aux->data : nullptr, 0.0f);
}

} // namespace hetc::runtime::cuda
