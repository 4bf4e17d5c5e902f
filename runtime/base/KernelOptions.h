//===- KernelOptions.h - options both kernel backends take ------*- C++ -*-===//
//
// runtime/cpu and runtime/cuda declare the same kernels with the same
// signatures; the option structs and op enums they share live here.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_BASE_KERNELOPTIONS_H
#define HETC_RUNTIME_BASE_KERNELOPTIONS_H

#include <cstdint>
#include <vector>

namespace hetc::runtime {

struct AttentionOptions {
  float scale = 1.0f; // usually 1/sqrt(D); the compiler always passes it
  // Query i attends keys j <= i (torch's is_causal: the top-left triangle,
  // also when Tq != Tk).
  bool causal = false;
};

enum class LossReduction { kNone, kSum, kMean };

struct CrossEntropyOptions {
  LossReduction reduction = LossReduction::kMean;
  int64_t ignoreIndex = -100; // torch's default; such labels contribute 0
};

// How ScatterND combines an update with the element it lands on; kNone
// replaces it.
enum class ScatterReduction { kNone, kAdd, kMul, kMax, kMin };

// ONNX Slice. `axes` empty means 0, 1, ..., starts.size()-1; `steps` empty
// means all 1. Negative starts/ends count from the end; they then clamp to
// [0, dim] for positive steps and to [0, dim-1] / [-1, dim-1] for negative
// ones, so INT64_MAX / INT64_MIN mean "to the end". A step of 0 or a
// repeated axis is an error.
struct SliceParams {
  std::vector<int64_t> starts, ends, axes, steps;
};

enum class UnaryOp {
  kNeg,
  kSqrt,
  kReciprocal,
  kExp,
  kLog,
  kTanh,
  kCos,
  kSin,
  kErf,
  kSigmoid,
  kRelu,
  kGeluErf,  // x * Phi(x), Phi exact (erf)
  kGeluTanh, // x * Phi(x), Phi by the tanh approximation
  kSilu,     // x * sigmoid(x)
};

const char *unaryOpName(UnaryOp op);

// kMod's remainder has the sign of the divisor (Python's %), kFmod's that
// of the dividend (C's fmod); an integer remainder by 0 is 0.
enum class BinaryOp {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kPow,
  kMinimum,
  kMaximum,
  kMod,
  kFmod
};

const char *binaryOpName(BinaryOp op);

struct GemmOptions {
  bool transA = false; // use A^T: A is [..., K, M]
  bool transB = false; // use B^T: B is [..., N, K]
  float alpha = 1.0f;
  // C += alpha * op(A) @ op(B) (+ bias) instead of overwriting C: gradient
  // accumulation across micro-batches at no extra cost (BLAS beta = 1).
  bool accumulate = false;
};

enum class ReduceOp { kSum, kMean, kMax };

struct SgdOptions {
  double lr = 1e-3;
  double weightDecay = 0.0; // torch's coupled decay: g + wd * p
};

struct AdamWOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weightDecay = 1e-2;
  // The compiler turns decay off per tensor (it applies to rank >= 2 only).
  bool applyWeightDecay = true;
};

} // namespace hetc::runtime

#endif // HETC_RUNTIME_BASE_KERNELOPTIONS_H
