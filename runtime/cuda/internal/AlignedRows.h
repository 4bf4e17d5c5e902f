//===- AlignedRows.h - products on rows aligned for tensor cores -*- C++
//-*-===//
//
// cuBLASLt's fast 16-bit kernels (TMA copies on Hopper, the wide tensor-core
// tiles before it) need 16-byte aligned columns of column-major matrices,
// and M and K in whole groups of 16 bytes. A row-major matrix whose rows
// hold a number of 16-bit elements that is not a multiple of 8 (logits over
// GPT-2's 50257 tokens) drops its product to kernels four to six times
// slower. Such a product, when large, runs on copies in the thread's
// scratch (RowScratch.h) whose every dimension is padded to a multiple
// of 8 elements: inputs padded with zeros (padded inner terms add nothing),
// the result copied back without its padding.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CUDA_INTERNAL_ALIGNEDROWS_H
#define HETC_RUNTIME_CUDA_INTERNAL_ALIGNEDROWS_H

#include "runtime/cuda/internal/CublasLt.h"

namespace hetc::runtime::cuda::internal {

/// Products of at least this many multiply-adds are staged; smaller ones
/// keep their layout, where the copies would cost more than the faster
/// kernel saves.
constexpr int64_t kMinStagedMultiplyAdds = int64_t(1) << 28;

/// ltMatmul(problem, stream), on padded copies (above) when the problem is
/// bf16 or f16, one product (no batches) of the default or bias epilogue,
/// at least kMinStagedMultiplyAdds, and some matrix's columns are not
/// 16-byte aligned. The staged result is complete when the call's work on
/// `stream` is.
Status alignedLtMatmul(const LtMatmul &problem, cudaStream_t stream);

} // namespace hetc::runtime::cuda::internal

#endif // HETC_RUNTIME_CUDA_INTERNAL_ALIGNEDROWS_H
