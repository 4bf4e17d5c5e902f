//===- GemmBench.cpp - GPT-2's linear layers through cuBLASLt -------------===//
//
// Every linear layer of GPT-2 124M (d = 768) and 350M (d = 1024) at B*T =
// 8192 rows, with HF Conv1D weights W [in, out] (y = x @ W + b) and the LM
// head tied to wte [V, d]: the forward, the two backward products (dx =
// dy @ W^T, dW = x^T @ dy), the bias gradient alone and fused into dW, and
// the fused GELU epilogues of the MLP. 2 * rows * in * out FLOPs per
// product. bf16 throughout, plus the f32 forwards (full f32, no TF32).
//
//===----------------------------------------------------------------------===//

#include "bench/cuda/KernelBench.h"

#include "runtime/cuda/Gemm.h"

#include <cstdio>
#include <string>

namespace hetc::bench {
namespace {

using runtime::DType;
using runtime::GemmOptions;
using runtime::Shape;
using runtime::Status;
using runtime::TensorView;
namespace cuda = runtime::cuda;

constexpr int64_t kRows = 8 * 1024; // B = 8, T = 1024
constexpr int64_t kVocab = 50257;

struct Linear {
  const char *name;
  int64_t in, out;
  bool bias;
};

std::string caseName(const char *model, const char *layer, const char *what,
                     DType dtype) {
  return std::string("gemm ") + model + " " + layer + " " + what + " " +
         runtime::dtypeName(dtype);
}

void benchLinear(const char *model, const Linear &l, DType dtype,
                 bool backward) {
  double flops = 2.0 * kRows * l.in * l.out;
  TensorView x = randomDeviceTensor(dtype, {kRows, l.in});
  TensorView w = randomDeviceTensor(dtype, {l.in, l.out});
  TensorView b = randomDeviceTensor(dtype, {l.out});
  TensorView y = deviceTensor(dtype, {kRows, l.out});
  const TensorView *bias = l.bias ? &b : nullptr;
  timeKernel(caseName(model, l.name, "fwd", dtype), flops, 0,
             [&] { return cuda::gemm(x, w, bias, y, GemmOptions()); });
  if (!backward)
    return;

  TensorView dy = randomDeviceTensor(dtype, {kRows, l.out});
  TensorView dx = deviceTensor(dtype, {kRows, l.in});
  TensorView dw = deviceTensor(dtype, {l.in, l.out});
  TensorView db = deviceTensor(dtype, {l.out});
  GemmOptions transB;
  transB.transB = true;
  GemmOptions transA;
  transA.transA = true;
  timeKernel(caseName(model, l.name, "dx", dtype), flops, 0,
             [&] { return cuda::gemm(dy, w, nullptr, dx, transB); });
  timeKernel(caseName(model, l.name, "dW", dtype), flops, 0,
             [&] { return cuda::gemm(x, dy, nullptr, dw, transA); });
  if (!l.bias)
    return;
  double dyBytes = double(dy.byteSize()) + double(db.byteSize());
  timeKernel(caseName(model, l.name, "db (bias_grad)", dtype), 0, dyBytes,
             [&] { return cuda::biasGrad(dy, db, false); });
  cuda::GemmEpilogueArgs args;
  args.epilogue = cuda::GemmEpilogue::kBGradB;
  args.biasGrad = &db;
  timeKernel(caseName(model, l.name, "dW+db (bgradb)", dtype), flops, 0,
             [&] { return cuda::gemmWithEpilogue(x, dy, args, dw, transA); });
}

// The MLP with GELU fused: fc's forward keeps its pre-activation in aux,
// and fc2's dx applies gelu' to it and sums fc's bias gradient.
void benchFusedMlp(const char *model, int64_t d, DType dtype) {
  TensorView x = randomDeviceTensor(dtype, {kRows, d});
  TensorView w1 = randomDeviceTensor(dtype, {d, 4 * d});
  TensorView b1 = randomDeviceTensor(dtype, {4 * d});
  TensorView h = deviceTensor(dtype, {kRows, 4 * d});
  TensorView pre = randomDeviceTensor(dtype, {kRows, 4 * d});
  TensorView w2 = randomDeviceTensor(dtype, {4 * d, d});
  TensorView dy = randomDeviceTensor(dtype, {kRows, d});
  TensorView dpre = deviceTensor(dtype, {kRows, 4 * d});
  TensorView db1 = deviceTensor(dtype, {4 * d});
  double flops = 2.0 * kRows * d * 4 * d;

  cuda::GemmEpilogueArgs forward;
  forward.epilogue = cuda::GemmEpilogue::kGeluAuxBias;
  forward.bias = &b1;
  forward.aux = &pre;
  timeKernel(caseName(model, "fc", "fwd gelu_aux_bias", dtype), flops, 0, [&] {
    return cuda::gemmWithEpilogue(x, w1, forward, h, GemmOptions());
  });

  cuda::GemmEpilogueArgs backward;
  backward.epilogue = cuda::GemmEpilogue::kDGeluBGrad;
  backward.aux = &pre;
  backward.biasGrad = &db1;
  GemmOptions transB;
  transB.transB = true;
  timeKernel(caseName(model, "fc2", "dx dgelu_bgrad", dtype), flops, 0, [&] {
    return cuda::gemmWithEpilogue(dy, w2, backward, dpre, transB);
  });
}

// Logits = x @ wte^T; dx = dlogits @ wte; dwte = dlogits^T @ x.
void benchLmHead(const char *model, int64_t d, DType dtype, bool backward) {
  double flops = 2.0 * kRows * d * kVocab;
  TensorView x = randomDeviceTensor(dtype, {kRows, d});
  TensorView wte = randomDeviceTensor(dtype, {kVocab, d});
  TensorView logits = deviceTensor(dtype, {kRows, kVocab});
  GemmOptions transB;
  transB.transB = true;
  timeKernel(caseName(model, "lm_head", "fwd", dtype), flops, 0,
             [&] { return cuda::gemm(x, wte, nullptr, logits, transB); });
  if (!backward)
    return;
  TensorView dx = deviceTensor(dtype, {kRows, d});
  TensorView dwte = deviceTensor(dtype, {kVocab, d});
  GemmOptions transA;
  transA.transA = true;
  // The random logits stand in for their gradient.
  timeKernel(caseName(model, "lm_head", "dx", dtype), flops, 0, [&] {
    return cuda::gemm(logits, wte, nullptr, dx, GemmOptions());
  });
  timeKernel(caseName(model, "lm_head", "dW", dtype), flops, 0,
             [&] { return cuda::gemm(logits, x, nullptr, dwte, transA); });
}

void benchModel(const char *model, int64_t d) {
  const Linear layers[] = {{"qkv", d, 3 * d, true},
                           {"proj", d, d, true},
                           {"fc", d, 4 * d, true},
                           {"fc2", 4 * d, d, true}};
  std::printf("# GPT-2 %s (d = %lld, %lld rows)\n", model,
              static_cast<long long>(d), static_cast<long long>(kRows));
  for (const Linear &l : layers)
    benchLinear(model, l, DType::kBF16, true);
  benchFusedMlp(model, d, DType::kBF16);
  benchLmHead(model, d, DType::kBF16, true);
  for (const Linear &l : layers)
    benchLinear(model, l, DType::kF32, false);
  benchLmHead(model, d, DType::kF32, false);
}

} // namespace

void benchGemm() {
  benchModel("124M", 768);
  benchModel("350M", 1024);
}

} // namespace hetc::bench
