//===- OptimizersBench.cpp - AdamW and the global norm on GPT-2 -----------===//
//
// The optimizer touches every parameter once per step, so it is timed over
// a model's real tensor list (wte, wpe, per layer ln/attn/mlp weights and
// biases, ln_f) laid out back to back in flat buffers as the executor's
// arena does: one multi-tensor call against one adamwStep per tensor.
// AdamW moves 16 bytes read (param, grad, m, v in f32; 14 with bf16 grads)
// and 12 written per parameter.
//
//===----------------------------------------------------------------------===//

#include "bench/cuda/KernelBench.h"

#include "runtime/cuda/Optimizers.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

namespace hetc::bench {
namespace {

using runtime::DType;
using runtime::Shape;
using runtime::Status;
using runtime::TensorView;
namespace cuda = runtime::cuda;

// GPT-2's parameters in nanoGPT's order (HF Conv1D layouts; the LM head is
// tied to wte).
std::vector<Shape> gpt2Parameters(int layers, int64_t d) {
  const int64_t vocab = 50257, context = 1024;
  std::vector<Shape> shapes = {{vocab, d}, {context, d}};
  for (int l = 0; l < layers; ++l) {
    std::vector<Shape> layer = {{d},         {d},     // ln_1
                                {d, 3 * d},  {3 * d}, // attn.c_attn
                                {d, d},      {d},     // attn.c_proj
                                {d},         {d},     // ln_2
                                {d, 4 * d},  {4 * d}, // mlp.c_fc
                                {4 * d, d},  {d}};    // mlp.c_proj
    shapes.insert(shapes.end(), layer.begin(), layer.end());
  }
  shapes.push_back({d}); // ln_f
  shapes.push_back({d});
  return shapes;
}

// Views of `shapes` packed back to back in one flat buffer.
std::vector<TensorView> carve(const TensorView &flat,
                              const std::vector<Shape> &shapes) {
  std::vector<TensorView> views;
  char *base = static_cast<char *>(flat.data);
  size_t offset = 0;
  for (const Shape &shape : shapes) {
    views.emplace_back(base + offset, flat.dtype, shape);
    offset += views.back().byteSize();
  }
  return views;
}

void benchModel(const char *model, int layers, int64_t d) {
  std::vector<Shape> shapes = gpt2Parameters(layers, d);
  int64_t count = 0;
  for (const Shape &shape : shapes)
    count += runtime::numElements(shape);
  std::printf("# %s: %zu tensors, %lld parameters\n", model, shapes.size(),
              static_cast<long long>(count));

  std::vector<TensorView> params = carve(deviceTensor(DType::kF32, {count}), shapes);
  std::vector<TensorView> m = carve(deviceTensor(DType::kF32, {count}), shapes);
  std::vector<TensorView> v = carve(deviceTensor(DType::kF32, {count}), shapes);
  std::vector<TensorView> grads32 =
      carve(randomDeviceTensor(DType::kF32, {count}), shapes);
  std::vector<TensorView> grads16 =
      carve(randomDeviceTensor(DType::kBF16, {count}), shapes);
  TensorView step = deviceTensor(DType::kI64, {});
  int64_t one = 1;
  cudaMemcpy(step.data, &one, sizeof(one), cudaMemcpyHostToDevice);

  runtime::AdamWOptions options;
  options.lr = 6e-4;
  options.weightDecay = 0.1;
  auto tensorList = [&](const std::vector<TensorView> &grads) {
    std::vector<cuda::AdamWTensors> tensors;
    for (size_t i = 0; i < shapes.size(); ++i)
      tensors.push_back({params[i], grads[i], m[i], v[i]});
    return tensors;
  };
  std::vector<cuda::AdamWTensors> tensors32 = tensorList(grads32);
  std::vector<cuda::AdamWTensors> tensors16 = tensorList(grads16);
  double n = static_cast<double>(count);
  std::string name = std::string("adamw ") + model;

  timeKernel(name + " multi-tensor, f32 grads", 0, 28 * n, [&] {
    return cuda::multiTensorAdamW(tensors32, step, options);
  });
  timeKernel(name + " per-tensor, f32 grads", 0, 28 * n, [&]() -> Status {
    for (const cuda::AdamWTensors &t : tensors32)
      HETC_RETURN_IF_ERROR(
          cuda::adamwStep(t.param, t.grad, t.m, t.v, step, options));
    return runtime::okStatus();
  });
  timeKernel(name + " multi-tensor, bf16 grads", 0, 26 * n, [&] {
    return cuda::multiTensorAdamW(tensors16, step, options);
  });

  TensorView norm = deviceTensor(DType::kF32, {});
  std::string normName = std::string("global_norm ") + model;
  timeKernel(normName + ", f32 grads", 0, 4 * n,
             [&] { return cuda::globalNorm(grads32, norm); });
  timeKernel(normName + ", bf16 grads", 0, 2 * n,
             [&] { return cuda::globalNorm(grads16, norm); });
}

} // namespace

void benchOptimizers() {
  benchModel("gpt2-124M", 12, 768);
  benchModel("gpt2-350M", 24, 1024);
}

} // namespace hetc::bench
