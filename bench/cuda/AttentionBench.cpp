//===- AttentionBench.cpp -------------------------------------------------===//
//
// Causal self-attention of GPT-2 124M (12 heads) and 350M (16 heads) at
// B = 8, T = 1024, head dimension 64, in bf16 and f32. FLOPs count the
// useful half of the score matrix: 4 B H T^2 D / 2 for the forward (two
// products) and 2.5 times that for the backward (five products).
//
//===----------------------------------------------------------------------===//

#include "bench/cuda/KernelBench.h"

#include "runtime/cuda/Attention.h"

#include <cmath>

namespace hetc::bench {
namespace {

using runtime::DType;

void benchShape(const char *model, int64_t heads, DType dtype) {
  const int64_t b = 8, t = 1024, d = 64;
  runtime::Shape x = {b, heads, t, d};
  runtime::TensorView q = randomDeviceTensor(dtype, x);
  runtime::TensorView k = randomDeviceTensor(dtype, x);
  runtime::TensorView v = randomDeviceTensor(dtype, x);
  runtime::TensorView out = deviceTensor(dtype, x);
  runtime::TensorView dout = randomDeviceTensor(dtype, x);
  runtime::TensorView dq = deviceTensor(dtype, x);
  runtime::TensorView dk = deviceTensor(dtype, x);
  runtime::TensorView dv = deviceTensor(dtype, x);
  runtime::TensorView lse = deviceTensor(DType::kF32, {b, heads, t});
  runtime::AttentionOptions options;
  options.scale = 1.0f / std::sqrt(static_cast<float>(d));
  options.causal = true;

  double forwardFlops = 4.0 * b * heads * t * t * d / 2;
  size_t elementBytes = runtime::dtypeSize(dtype);
  double tensorBytes = double(b * heads * t * d) * elementBytes;
  std::string name = std::string("attention ") + model + " " +
                     runtime::dtypeName(dtype) + " B8 H" +
                     std::to_string(heads) + " T1024 D64 causal";
  // Compulsory traffic: q, k, v read, out written (and lse).
  timeKernel(name + " fwd", forwardFlops, 4 * tensorBytes, [&] {
    return runtime::cuda::attention(q, k, v, nullptr, options, out, &lse);
  });
  // q, k, v, out, dout read; dq, dk, dv written.
  timeKernel(name + " bwd", 2.5 * forwardFlops, 8 * tensorBytes, [&] {
    return runtime::cuda::attentionBackward(q, k, v, nullptr, options, out, lse,
                                            dout, dq, dk, dv);
  });
}

} // namespace

void benchAttention() {
  for (DType dtype : {DType::kBF16, DType::kF32}) {
    benchShape("gpt2-124M", 12, dtype);
    benchShape("gpt2-350M", 16, dtype);
  }
}

} // namespace hetc::bench
