//===- KernelBench.h - timing CUDA kernels ----------------------*- C++ -*-===//
//
// hetc-cuda-kernel-bench times each kernel of runtime/cuda on shapes of
// GPT-2 124M and 350M training (T = 1024) and prints one line per case:
// microseconds per call, and TFLOP/s or GB/s against the GPU's peak. One
// file per kernel family adds its cases.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_BENCH_CUDA_KERNELBENCH_H
#define HETC_BENCH_CUDA_KERNELBENCH_H

#include "runtime/base/Status.h"
#include "runtime/base/Tensor.h"

#include <functional>
#include <string>
#include <vector>

namespace hetc::bench {

/// Times `launch` (which enqueues one call on the current stream) with CUDA
/// events after warm-up calls, and prints `name`, the time per call and the
/// rates `flops` and `bytes` per call give. A failing launch prints its
/// error instead.
void timeKernel(const std::string &name, double flops, double bytes,
                const std::function<runtime::Status()> &launch);

/// A zero-filled device tensor owned by the benchmark run (freed at exit).
runtime::TensorView deviceTensor(runtime::DType dtype, runtime::Shape shape);
/// A device tensor of uniform values in [-1, 1) (float dtypes only).
runtime::TensorView randomDeviceTensor(runtime::DType dtype,
                                       runtime::Shape shape);

/// The families.
void benchGemm();
void benchAttention();
void benchNormsAndLoss();
void benchElementwise();
void benchOptimizers();

} // namespace hetc::bench

#endif // HETC_BENCH_CUDA_KERNELBENCH_H
