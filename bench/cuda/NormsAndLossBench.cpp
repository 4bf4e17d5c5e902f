//===- NormsAndLossBench.cpp - norms, softmax, cross-entropy, embedding ---===//
//
// GPT-2 training shapes: B = 8, T = 1024 (8192 token rows), d = 768 (124M)
// or 1024 (350M), 12 or 16 heads, vocabulary 50257. These kernels are
// memory-bound: each case reports the bytes one call must move at least
// (every operand read or written once).
//
//===----------------------------------------------------------------------===//

#include "bench/cuda/KernelBench.h"

#include "runtime/cuda/CrossEntropy.h"
#include "runtime/cuda/Gather.h"
#include "runtime/cuda/Norms.h"
#include "runtime/cuda/Softmax.h"

#include <cuda_runtime_api.h>

#include <random>
#include <string>

namespace hetc::bench {
namespace {

using runtime::DType;
using runtime::TensorView;
namespace kernels = runtime::cuda;

constexpr int64_t kTokens = 8 * 1024;
constexpr int64_t kVocab = 50257;
constexpr float kEpsilon = 1e-5f;

double bytesOf(DType dtype, double elements) {
  return elements * static_cast<double>(runtime::dtypeSize(dtype));
}

// i64 ids uniform in [0, vocab).
TensorView randomIds(int64_t count, int64_t vocab) {
  TensorView ids = deviceTensor(DType::kI64, {count});
  std::mt19937 gen(11);
  std::uniform_int_distribution<int64_t> dist(0, vocab - 1);
  std::vector<int64_t> host(static_cast<size_t>(count));
  for (int64_t &id : host)
    id = dist(gen);
  cudaMemcpy(ids.data, host.data(), host.size() * sizeof(int64_t),
             cudaMemcpyHostToDevice);
  return ids;
}

void benchLayerNorm(int64_t d, DType dtype) {
  std::string shape = std::string(runtime::dtypeName(dtype)) + " " +
                      std::to_string(kTokens) + "x" + std::to_string(d);
  TensorView x = randomDeviceTensor(dtype, {kTokens, d});
  TensorView dy = randomDeviceTensor(dtype, {kTokens, d});
  TensorView y = deviceTensor(dtype, {kTokens, d});
  TensorView scale = randomDeviceTensor(dtype, {d});
  TensorView bias = randomDeviceTensor(dtype, {d});
  TensorView dscale = deviceTensor(dtype, {d}),
             dbias = deviceTensor(dtype, {d});
  TensorView mean = deviceTensor(DType::kF32, {kTokens});
  TensorView rstd = deviceTensor(DType::kF32, {kTokens});
  double rows = bytesOf(dtype, double(kTokens) * d);
  double stats = 2.0 * 4 * kTokens;
  timeKernel("layer_norm " + shape, 0, 2 * rows + stats, [&] {
    return kernels::layerNorm(x, &scale, &bias, -1, kEpsilon, y, &mean, &rstd);
  });
  timeKernel("layer_norm_backward " + shape, 0, 3 * rows + stats, [&] {
    return kernels::layerNormBackward(x, &scale, mean, rstd, dy, -1, y, &dscale,
                                      &dbias, true);
  });
  if (d != 768)
    return;
  timeKernel("rms_norm " + shape, 0, 2 * rows + stats / 2,
             [&] { return kernels::rmsNorm(x, &scale, kEpsilon, y, &rstd); });
  timeKernel("rms_norm_backward " + shape, 0, 3 * rows + stats / 2, [&] {
    return kernels::rmsNormBackward(x, &scale, rstd, dy, y, &dscale, true);
  });
}

// Unfused attention probabilities: [B * heads * T, T].
void benchSoftmax(int64_t heads, DType dtype) {
  int64_t rows = kTokens * heads, t = 1024;
  std::string shape = std::string(runtime::dtypeName(dtype)) + " " +
                      std::to_string(rows) + "x" + std::to_string(t);
  TensorView x = randomDeviceTensor(dtype, {rows, t});
  TensorView y = deviceTensor(dtype, {rows, t});
  TensorView dx = deviceTensor(dtype, {rows, t});
  double bytes = bytesOf(dtype, double(rows) * t);
  timeKernel("softmax " + shape, 0, 2 * bytes,
             [&] { return kernels::softmax(x, -1, y); });
  timeKernel("softmax_backward " + shape, 0, 3 * bytes,
             [&] { return kernels::softmaxBackward(y, x, -1, dx); });
}

void benchCrossEntropy(DType dtype) {
  std::string shape = std::string(runtime::dtypeName(dtype)) + " " +
                      std::to_string(kTokens) + "x" + std::to_string(kVocab);
  TensorView logits = randomDeviceTensor(dtype, {kTokens, kVocab});
  TensorView dlogits = deviceTensor(dtype, {kTokens, kVocab});
  TensorView labels = randomIds(kTokens, kVocab);
  TensorView loss = deviceTensor(DType::kF32, {});
  TensorView dloss = deviceTensor(DType::kF32, {});
  TensorView lse = deviceTensor(DType::kF32, {kTokens});
  runtime::CrossEntropyOptions options; // mean, ignore -100
  double bytes = bytesOf(dtype, double(kTokens) * kVocab);
  double small = 8.0 * kTokens + 4.0 * kTokens;
  timeKernel("cross_entropy " + shape, 0, bytes + small, [&] {
    return kernels::crossEntropy(logits, labels, options, loss, &lse);
  });
  timeKernel("cross_entropy_backward (saved lse) " + shape, 0,
             2 * bytes + small, [&] {
               return kernels::crossEntropyBackward(logits, labels, options,
                                                    dloss, &lse, dlogits);
             });
  timeKernel("cross_entropy_backward (no lse) " + shape, 0, 3 * bytes + small,
             [&] {
               return kernels::crossEntropyBackward(logits, labels, options,
                                                    dloss, nullptr, dlogits);
             });
}

void benchEmbedding(int64_t d, DType dtype) {
  std::string shape = std::string(runtime::dtypeName(dtype)) + " " +
                      std::to_string(kVocab) + "x" + std::to_string(d) + " [" +
                      std::to_string(kTokens) + "]";
  TensorView table = randomDeviceTensor(dtype, {kVocab, d});
  TensorView dtable = deviceTensor(dtype, {kVocab, d});
  TensorView ids = randomIds(kTokens, kVocab);
  TensorView out = deviceTensor(dtype, {kTokens, d});
  TensorView dout = randomDeviceTensor(dtype, {kTokens, d});
  double rows = bytesOf(dtype, double(kTokens) * d);
  double tableBytes = bytesOf(dtype, double(kVocab) * d);
  timeKernel("embedding " + shape, 0, 2 * rows + 8.0 * kTokens,
             [&] { return kernels::embedding(table, ids, out); });
  // dout read, the touched table rows read and written.
  timeKernel(
      "embedding_backward (accumulate) " + shape, 0, 3 * rows + 8.0 * kTokens,
      [&] { return kernels::embeddingBackward(dout, ids, dtable, true); });
  // Plus zeroing the table.
  timeKernel("embedding_backward (overwrite) " + shape, 0,
             tableBytes + 2 * rows + 8.0 * kTokens, [&] {
               return kernels::embeddingBackward(dout, ids, dtable, false);
             });
}

} // namespace

void benchNormsAndLoss() {
  for (DType dtype : {DType::kBF16, DType::kF32}) {
    benchLayerNorm(768, dtype);
    benchLayerNorm(1024, dtype);
  }
  benchSoftmax(12, DType::kBF16);
  for (DType dtype : {DType::kBF16, DType::kF32})
    benchCrossEntropy(dtype);
  for (DType dtype : {DType::kBF16, DType::kF32}) {
    benchEmbedding(768, dtype);
    benchEmbedding(1024, dtype);
  }
}

} // namespace hetc::bench
