//===- CublasLt.cpp -------------------------------------------------------===//

#include "runtime/cuda/internal/CublasLt.h"

#include "runtime/cuda/Stream.h"

#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace hetc::runtime::cuda::internal {
namespace {

constexpr size_t kWorkspaceBytes = size_t(32) << 20;

#define HETC_CUBLAS_RETURN_IF_ERROR(call)                                      \
  HETC_RETURN_IF_ERROR(cublasStatus((call), #call))

// Everything the chosen algorithm depends on. Pointer alignments are part
// of it: the heuristic picks kernels for the alignment it is told.
using PlanKey = std::array<int64_t, 22>;

struct PlanKeyHash {
  size_t operator()(const PlanKey &key) const {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int64_t v : key) {
      h ^= static_cast<uint64_t>(v) + 0x9e3779b97f4a7c15ull + (h << 6) +
           (h >> 2);
    }
    return static_cast<size_t>(h);
  }
};

// Largest power of two dividing the address, at most 256 (cuBLASLt's
// default assumption). Null (an unused operand) counts as 256.
uint32_t alignmentOf(const void *p) {
  uintptr_t v = reinterpret_cast<uintptr_t>(p);
  if (v == 0)
    return 256;
  uintptr_t lowest = v & (~v + 1);
  return lowest >= 256 ? 256u : static_cast<uint32_t>(lowest);
}

PlanKey keyOf(const LtMatmul &p) {
  return {p.type,
          p.transA,
          p.transB,
          p.m,
          p.n,
          p.k,
          p.lda,
          p.ldb,
          p.ldd,
          p.batchCount,
          p.strideA,
          p.strideB,
          p.strideD,
          static_cast<int64_t>(p.epilogue),
          p.auxLd,
          p.auxStride,
          p.beta != 0.0f,
          alignmentOf(p.a),
          alignmentOf(p.b),
          alignmentOf(p.d),
          p.bias ? int64_t(alignmentOf(p.bias)) : 0,
          p.aux ? int64_t(alignmentOf(p.aux)) : 0};
}

// Descriptors and algorithm of one problem; the pointers in `desc` are
// updated before each launch.
struct LtPlan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t layoutA = nullptr, layoutB = nullptr,
                         layoutD = nullptr;
  cublasLtMatmulAlgo_t algo{};
  bool hasBias = false, hasAux = false;

  LtPlan() = default;
  LtPlan(const LtPlan &) = delete;
  LtPlan &operator=(const LtPlan &) = delete;
  ~LtPlan() {
    if (layoutD)
      cublasLtMatrixLayoutDestroy(layoutD);
    if (layoutB)
      cublasLtMatrixLayoutDestroy(layoutB);
    if (layoutA)
      cublasLtMatrixLayoutDestroy(layoutA);
    if (desc)
      cublasLtMatmulDescDestroy(desc);
  }
};

struct PreferenceOwner {
  cublasLtMatmulPreference_t pref = nullptr;
  ~PreferenceOwner() {
    if (pref)
      cublasLtMatmulPreferenceDestroy(pref);
  }
};

// One thread's state on one device.
struct LtContext {
  cublasLtHandle_t handle = nullptr;
  void *workspace = nullptr;
  int multiprocessors = 0;
  std::unordered_map<PlanKey, std::unique_ptr<LtPlan>, PlanKeyHash> plans;

  LtContext() = default;
  LtContext(const LtContext &) = delete;
  LtContext &operator=(const LtContext &) = delete;
  // Errors are ignored: at thread exit there is no one to report them to
  // (and the driver may already be shutting down).
  ~LtContext() {
    plans.clear();
    if (workspace)
      cudaFree(workspace);
    if (handle)
      cublasLtDestroy(handle);
  }
};

// Indexed by device ordinal.
thread_local std::vector<std::unique_ptr<LtContext>> threadContexts;

Status currentContext(LtContext **out) {
  int device = 0;
  HETC_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device));
  if (threadContexts.size() <= static_cast<size_t>(device))
    threadContexts.resize(device + 1);
  std::unique_ptr<LtContext> &slot = threadContexts[device];
  if (!slot) {
    auto context = std::make_unique<LtContext>();
    HETC_CUBLAS_RETURN_IF_ERROR(cublasLtCreate(&context->handle));
    HETC_CUDA_RETURN_IF_ERROR(cudaMalloc(&context->workspace, kWorkspaceBytes));
    HETC_CUDA_RETURN_IF_ERROR(cudaDeviceGetAttribute(
        &context->multiprocessors, cudaDevAttrMultiProcessorCount, device));
    slot = std::move(context);
  }
  *out = slot.get();
  return okStatus();
}

template <typename T>
Status setDesc(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr,
               const T &value) {
  return cublasStatus(
      cublasLtMatmulDescSetAttribute(desc, attr, &value, sizeof(value)),
      "cublasLtMatmulDescSetAttribute");
}

template <typename T>
Status setLayout(cublasLtMatrixLayout_t layout,
                 cublasLtMatrixLayoutAttribute_t attr, const T &value) {
  return cublasStatus(
      cublasLtMatrixLayoutSetAttribute(layout, attr, &value, sizeof(value)),
      "cublasLtMatrixLayoutSetAttribute");
}

template <typename T>
Status setPreference(cublasLtMatmulPreference_t pref,
                     cublasLtMatmulPreferenceAttributes_t attr,
                     const T &value) {
  return cublasStatus(
      cublasLtMatmulPreferenceSetAttribute(pref, attr, &value, sizeof(value)),
      "cublasLtMatmulPreferenceSetAttribute");
}

// A column-major rows x cols matrix of `type`, batched if asked.
Status makeLayout(cudaDataType_t type, int64_t rows, int64_t cols, int64_t ld,
                  int64_t batchCount, int64_t stride,
                  cublasLtMatrixLayout_t *layout) {
  HETC_CUBLAS_RETURN_IF_ERROR(
      cublasLtMatrixLayoutCreate(layout, type, static_cast<uint64_t>(rows),
                                 static_cast<uint64_t>(cols), ld));
  if (batchCount > 1) {
    HETC_RETURN_IF_ERROR(setLayout(*layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                   static_cast<int32_t>(batchCount)));
    HETC_RETURN_IF_ERROR(setLayout(
        *layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, stride));
  }
  return okStatus();
}

Status setPointers(const LtPlan &plan, const LtMatmul &p) {
  if (plan.hasBias)
    HETC_RETURN_IF_ERROR(
        setDesc(plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, p.bias));
  if (plan.hasAux)
    HETC_RETURN_IF_ERROR(
        setDesc(plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, p.aux));
  return okStatus();
}

Status createPlan(const LtMatmul &p, const LtContext &context,
                  std::unique_ptr<LtPlan> *out) {
  auto plan = std::make_unique<LtPlan>();
  // f32 accumulation for every type; for f32 inputs this also rules out
  // TF32 (that would be CUBLAS_COMPUTE_32F_FAST_TF32).
  HETC_CUBLAS_RETURN_IF_ERROR(
      cublasLtMatmulDescCreate(&plan->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t opA = p.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opB = p.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  HETC_RETURN_IF_ERROR(setDesc(plan->desc, CUBLASLT_MATMUL_DESC_TRANSA, opA));
  HETC_RETURN_IF_ERROR(setDesc(plan->desc, CUBLASLT_MATMUL_DESC_TRANSB, opB));
  HETC_RETURN_IF_ERROR(
      setDesc(plan->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, p.epilogue));
  plan->hasBias = p.bias != nullptr;
  plan->hasAux = p.aux != nullptr;
  if (plan->hasBias)
    HETC_RETURN_IF_ERROR(setDesc(plan->desc,
                                 CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
                                 static_cast<int32_t>(p.type)));
  if (plan->hasAux) {
    HETC_RETURN_IF_ERROR(
        setDesc(plan->desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, p.auxLd));
    if (p.batchCount > 1)
      HETC_RETURN_IF_ERROR(
          setDesc(plan->desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE,
                  p.auxStride));
  }
  // The heuristic reads the bias and aux pointers for their alignment.
  HETC_RETURN_IF_ERROR(setPointers(*plan, p));

  HETC_RETURN_IF_ERROR(makeLayout(p.type, p.transA ? p.k : p.m,
                                  p.transA ? p.m : p.k, p.lda, p.batchCount,
                                  p.strideA, &plan->layoutA));
  HETC_RETURN_IF_ERROR(makeLayout(p.type, p.transB ? p.n : p.k,
                                  p.transB ? p.k : p.n, p.ldb, p.batchCount,
                                  p.strideB, &plan->layoutB));
  HETC_RETURN_IF_ERROR(makeLayout(p.type, p.m, p.n, p.ldd, p.batchCount,
                                  p.strideD, &plan->layoutD));

  PreferenceOwner preference;
  HETC_CUBLAS_RETURN_IF_ERROR(cublasLtMatmulPreferenceCreate(&preference.pref));
  HETC_RETURN_IF_ERROR(setPreference(preference.pref,
                                     CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                     static_cast<uint64_t>(kWorkspaceBytes)));
  uint32_t alignD = alignmentOf(p.d);
  HETC_RETURN_IF_ERROR(setPreference(preference.pref,
                                     CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                                     alignmentOf(p.a)));
  HETC_RETURN_IF_ERROR(setPreference(preference.pref,
                                     CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                                     alignmentOf(p.b)));
  HETC_RETURN_IF_ERROR(setPreference(
      preference.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, alignD));
  HETC_RETURN_IF_ERROR(setPreference(
      preference.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, alignD));

  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
      context.handle, plan->desc, plan->layoutA, plan->layoutB, plan->layoutD,
      plan->layoutD, preference.pref, 1, &result, &found);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED ||
      (status == CUBLAS_STATUS_SUCCESS && found == 0))
    return unimplemented("cuBLASLt has no algorithm for this product (m=", p.m,
                         " n=", p.n, " k=", p.k, " batches=", p.batchCount,
                         " epilogue=", static_cast<int>(p.epilogue), ")");
  HETC_RETURN_IF_ERROR(cublasStatus(status, "cublasLtMatmulAlgoGetHeuristic"));
  plan->algo = result.algo;
  *out = std::move(plan);
  return okStatus();
}

} // namespace

Status cublasStatus(cublasStatus_t status, const char *call) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return okStatus();
  std::string name(call, std::strcspn(call, "("));
  std::string message = name + ": " + cublasLtGetStatusName(status) + ": " +
                        cublasLtGetStatusString(status);
  switch (status) {
  case CUBLAS_STATUS_ALLOC_FAILED:
    return resourceExhausted(message);
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return unimplemented(message);
  default:
    return internalError(message);
  }
}

Status ltMatmul(const LtMatmul &problem, cudaStream_t stream) {
  LtContext *context = nullptr;
  HETC_RETURN_IF_ERROR(currentContext(&context));
  PlanKey key = keyOf(problem);
  auto found = context->plans.find(key);
  if (found == context->plans.end()) {
    std::unique_ptr<LtPlan> plan;
    HETC_RETURN_IF_ERROR(createPlan(problem, *context, &plan));
    found = context->plans.emplace(key, std::move(plan)).first;
  }
  const LtPlan &plan = *found->second;
  HETC_RETURN_IF_ERROR(setPointers(plan, problem));
  HETC_CUBLAS_RETURN_IF_ERROR(
      cublasLtMatmul(context->handle, plan.desc, &problem.alpha, problem.a,
                     plan.layoutA, problem.b, plan.layoutB, &problem.beta,
                     problem.d, plan.layoutD, problem.d, plan.layoutD,
                     &plan.algo, context->workspace, kWorkspaceBytes, stream));
  return okStatus();
}

Status threadWorkspace(void **data, size_t *bytes, int *multiprocessors) {
  LtContext *context = nullptr;
  HETC_RETURN_IF_ERROR(currentContext(&context));
  *data = context->workspace;
  *bytes = kWorkspaceBytes;
  *multiprocessors = context->multiprocessors;
  return okStatus();
}

} // namespace hetc::runtime::cuda::internal
