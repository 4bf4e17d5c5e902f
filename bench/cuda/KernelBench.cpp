//===- KernelBench.cpp - timing harness and main --------------------------===//

#include "bench/cuda/KernelBench.h"

#include "runtime/base/Half.h"
#include "runtime/cuda/Stream.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <random>

namespace hetc::bench {
namespace {

using runtime::DType;

struct DeviceFree {
  void operator()(void *p) const { cudaFree(p); }
};
std::vector<std::unique_ptr<void, DeviceFree>> &allocations() {
  static std::vector<std::unique_ptr<void, DeviceFree>> owned;
  return owned;
}

constexpr int kWarmupCalls = 3;
constexpr int kTimedCalls = 20;

} // namespace

runtime::TensorView deviceTensor(DType dtype, runtime::Shape shape) {
  size_t bytes = std::max<size_t>(
      1, runtime::numElements(shape) * runtime::dtypeSize(dtype));
  void *data = nullptr;
  if (cudaMalloc(&data, bytes) != cudaSuccess || cudaMemset(data, 0, bytes))
    std::fprintf(stderr, "cudaMalloc of %zu bytes failed\n", bytes);
  allocations().emplace_back(data);
  return runtime::TensorView(data, dtype, std::move(shape));
}

runtime::TensorView randomDeviceTensor(DType dtype, runtime::Shape shape) {
  runtime::TensorView view = deviceTensor(dtype, std::move(shape));
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  size_t count = static_cast<size_t>(view.numel());
  std::vector<uint8_t> bytes(view.byteSize());
  for (size_t i = 0; i < count; ++i) {
    float value = dist(gen);
    if (dtype == DType::kF32) {
      std::memcpy(&bytes[i * 4], &value, 4);
      continue;
    }
    uint16_t bits = dtype == DType::kBF16 ? runtime::floatToBf16(value)
                                          : runtime::floatToF16(value);
    std::memcpy(&bytes[i * 2], &bits, 2);
  }
  cudaMemcpy(view.data, bytes.data(), bytes.size(), cudaMemcpyHostToDevice);
  return view;
}

void timeKernel(const std::string &name, double flops, double bytes,
                const std::function<runtime::Status()> &launch) {
  cudaStream_t stream = runtime::cuda::currentStream();
  for (int i = 0; i < kWarmupCalls; ++i) {
    runtime::Status status = launch();
    if (!status.ok()) {
      std::printf("%-48s failed: %s\n", name.c_str(), status.toString().c_str());
      return;
    }
  }
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, stream);
  for (int i = 0; i < kTimedCalls; ++i)
    (void)launch();
  cudaEventRecord(stop, stream);
  cudaEventSynchronize(stop);
  float ms = 0.0f;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  double seconds = ms / 1e3 / kTimedCalls;
  std::printf("%-48s %10.1f us", name.c_str(), seconds * 1e6);
  if (flops > 0)
    std::printf("  %8.1f TFLOP/s", flops / seconds / 1e12);
  if (bytes > 0)
    std::printf("  %8.1f GB/s", bytes / seconds / 1e9);
  std::printf("\n");
}

} // namespace hetc::bench

int main() {
  if (!hetc::runtime::cuda::cudaDeviceAvailable()) {
    std::printf("hetc-cuda-kernel-bench: no CUDA device, nothing to time\n");
    return 0;
  }
  cudaDeviceProp properties;
  cudaGetDeviceProperties(&properties, 0);
  std::printf("hetc CUDA kernels on %s (%d SMs)\n", properties.name,
              properties.multiProcessorCount);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  hetc::runtime::cuda::setCurrentStream(stream);
  hetc::bench::benchGemm();
  hetc::bench::benchAttention();
  hetc::bench::benchNormsAndLoss();
  hetc::bench::benchElementwise();
  hetc::bench::benchOptimizers();
  return 0;
}
