//===- ElementwiseBench.cpp - elementwise kernels on GPT-2 shapes ---------===//
//
// The memory-bound kernels of a GPT-2 training step (B = 8, T = 1024): the
// MLP's gelu forward and backward, the residual add, a bias add broadcast
// over rows and its gradient (reduceToShape), and the f32 -> bf16 cast of
// all parameters. Bytes are those each call must read and write once.
//
//===----------------------------------------------------------------------===//

#include "bench/cuda/KernelBench.h"

#include "runtime/cuda/Elementwise.h"

#include <string>

namespace hetc::bench {
namespace {

using runtime::DType;
using runtime::TensorView;
namespace kernels = runtime::cuda;

constexpr int64_t kRows = 8 * 1024; // B * T

struct Model {
  const char *name;
  int64_t d;      // hidden size
  int64_t params; // parameters, tied embeddings counted once
};

constexpr Model kModels[] = {{"124M", 768, 124439808},
                             {"350M", 1024, 354823168}};

std::string label(const Model &m, const char *what, DType dtype) {
  return std::string(m.name) + " " + what + " " + runtime::dtypeName(dtype);
}

void benchModel(const Model &m, DType dtype) {
  double size = static_cast<double>(runtime::dtypeSize(dtype));
  int64_t hidden = 4 * m.d;
  double mlp = static_cast<double>(kRows * hidden);
  double residual = static_cast<double>(kRows * m.d);

  TensorView x = randomDeviceTensor(dtype, {kRows, hidden});
  TensorView dy = randomDeviceTensor(dtype, {kRows, hidden});
  TensorView y = deviceTensor(dtype, {kRows, hidden});
  TensorView bias = randomDeviceTensor(dtype, {hidden});
  std::string shape = "[" + std::to_string(kRows) + "," + std::to_string(hidden) + "]";
  timeKernel(label(m, ("gelu_tanh " + shape).c_str(), dtype), 0, 2 * mlp * size,
             [&] { return kernels::unary(runtime::UnaryOp::kGeluTanh, x, y); });
  timeKernel(label(m, ("gelu_tanh_backward " + shape).c_str(), dtype), 0,
             3 * mlp * size, [&] {
               return kernels::unaryBackward(runtime::UnaryOp::kGeluTanh, x, dy, y);
             });
  timeKernel(label(m, ("bias add " + shape).c_str(), dtype), 0,
             (2 * mlp + hidden) * size,
             [&] { return kernels::binary(runtime::BinaryOp::kAdd, x, bias, y); });
  timeKernel(label(m, ("bias grad " + shape).c_str(), dtype), 0,
             (mlp + hidden) * size,
             [&] { return kernels::reduceToShape(dy, bias, false); });

  TensorView r = randomDeviceTensor(dtype, {kRows, m.d});
  TensorView h = randomDeviceTensor(dtype, {kRows, m.d});
  std::string rshape = "[" + std::to_string(kRows) + "," + std::to_string(m.d) + "]";
  timeKernel(label(m, ("residual add " + rshape).c_str(), dtype), 0,
             3 * residual * size,
             [&] { return kernels::binary(runtime::BinaryOp::kAdd, r, h, r); });
}

void benchParamCast(const Model &m) {
  TensorView master = randomDeviceTensor(DType::kF32, {m.params});
  TensorView copy = deviceTensor(DType::kBF16, {m.params});
  timeKernel(std::string(m.name) + " cast f32->bf16 params [" +
                 std::to_string(m.params) + "]",
             0, static_cast<double>(m.params) * (4 + 2),
             [&] { return kernels::cast(master, copy); });
}

} // namespace

void benchElementwise() {
  for (const Model &m : kModels) {
    benchModel(m, DType::kBF16);
    benchModel(m, DType::kF32);
    benchParamCast(m);
  }
}

} // namespace hetc::bench
