//===- Eval.h - reference evaluation of hetg ops --------------------------===//
//
// Plain C++ evaluation of the heavier hetg ops in double precision, row-major.
// Folders call these on constants, so they are the reference semantics of the
// ops: the gradient checks fold whole training graphs through them, and the
// runtime's kernels are compared against the same formulas.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_DIALECTS_HETGRAPH_EVAL_EVAL_H
#define HETC_DIALECTS_HETGRAPH_EVAL_EVAL_H

#include "dialects/HetGraph/ShapeInference.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace hetc::hetg::eval {

/// A dense row-major tensor of doubles.
struct Array {
  Shape shape;
  std::vector<double> data;

  Array() = default;
  /// A tensor of `shape` filled with `fill`.
  explicit Array(llvm::ArrayRef<int64_t> shape, double fill = 0.0);
  Array(llvm::ArrayRef<int64_t> shape, std::vector<double> data);

  int64_t size() const { return int64_t(data.size()); }
  int64_t rank() const { return int64_t(shape.size()); }
};

/// `shape` seen as `[outer, extent, inner]` around dimension `axis`.
struct AxisView {
  int64_t outer, extent, inner;
};
AxisView viewAround(llvm::ArrayRef<int64_t> shape, int64_t axis);

/// Product of the dimensions of a static shape.
int64_t elementCount(llvm::ArrayRef<int64_t> shape);

//===----------------------------------------------------------------------===//
// Scalar functions shared by activations and their gradients
//===----------------------------------------------------------------------===//

double sigmoid(double x);
double gelu(double x, bool tanhApproximation);
double geluDerivative(double x, bool tanhApproximation);
double silu(double x);
double siluDerivative(double x);

//===----------------------------------------------------------------------===//
// Reductions, softmax, normalization
//===----------------------------------------------------------------------===//

enum class Reduction { Sum, Mean, Max };

/// Reduces `x` over `axes` (distinct, in range); reduced dimensions stay as 1.
Array reduce(const Array &x, llvm::ArrayRef<int64_t> axes, Reduction kind);

Array softmax(const Array &x, int64_t axis);
Array logSoftmax(const Array &x, int64_t axis);
/// Gradients from the forward results `y`.
Array softmaxGrad(const Array &y, const Array &dy, int64_t axis);
Array logSoftmaxGrad(const Array &y, const Array &dy, int64_t axis);

/// Normalizes over the dimensions `[axis, rank)`; `scale` and `bias` have
/// their shape and may be null.
Array layerNorm(const Array &x, const Array *scale, const Array *bias,
                int64_t axis, double epsilon);
struct LayerNormGrads {
  Array input, scale, bias;
};
LayerNormGrads layerNormGrad(const Array &x, const Array *scale,
                             const Array &dy, int64_t axis, double epsilon);

/// Normalizes over the last dimension.
Array rmsNorm(const Array &x, const Array *scale, double epsilon);
struct RmsNormGrads {
  Array input, scale;
};
RmsNormGrads rmsNormGrad(const Array &x, const Array *scale, const Array &dy,
                         double epsilon);

//===----------------------------------------------------------------------===//
// Linear algebra and attention
//===----------------------------------------------------------------------===//

/// `op(lhs) @ op(rhs) + bias` with numpy broadcasting of batch dimensions;
/// nullopt when the shapes do not fit.
std::optional<Array> matmul(const Array &lhs, const Array &rhs,
                            const Array *bias, bool transposeLhs,
                            bool transposeRhs);

/// Multiply-adds of a matmul of these shapes (after broadcasting).
int64_t matmulWork(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs);

/// Scaled dot-product attention over `[..., T, D]` tensors with equal
/// leading dimensions; `mask` (may be null) broadcasts to `[..., Tq, Tk]`.
/// Causal masking hides key `j > i` from query `i`.
std::optional<Array> attention(const Array &q, const Array &k, const Array &v,
                               const Array *mask, double scale, bool causal);
struct AttentionGrads {
  Array query, key, value;
};
std::optional<AttentionGrads> attentionGrad(const Array &q, const Array &k,
                                            const Array &v, const Array *mask,
                                            const Array &dy, double scale,
                                            bool causal);

//===----------------------------------------------------------------------===//
// Loss
//===----------------------------------------------------------------------===//

enum class LossReduction { None, Sum, Mean };

/// Softmax cross-entropy of `logits` `[N, C, d...]` against `labels`
/// `[N, d...]` (row-major values). nullopt when a label that is not
/// `ignoreIndex` is out of range.
std::optional<Array> crossEntropy(const Array &logits,
                                  llvm::ArrayRef<int64_t> labels,
                                  LossReduction reduction,
                                  std::optional<int64_t> ignoreIndex);
std::optional<Array> crossEntropyGrad(const Array &logits,
                                      llvm::ArrayRef<int64_t> labels,
                                      const Array &lossGrad,
                                      LossReduction reduction,
                                      std::optional<int64_t> ignoreIndex);

//===----------------------------------------------------------------------===//
// Data movement gradients
//===----------------------------------------------------------------------===//

/// Scatter-adds `dy` (shaped `data[:axis] + indexShape + data[axis+1:]`)
/// into zeros of `dataShape`; nullopt for an index out of range.
std::optional<Array> gatherGrad(const Array &dy,
                                llvm::ArrayRef<int64_t> indices, int64_t axis,
                                llvm::ArrayRef<int64_t> dataShape);

/// Writes `dy` at the elements a slice of `inputShape` reads, zeros elsewhere.
Array sliceGrad(const Array &dy, llvm::ArrayRef<int64_t> starts,
                llvm::ArrayRef<int64_t> ends, llvm::ArrayRef<int64_t> steps,
                llvm::ArrayRef<int64_t> inputShape);

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

struct AdamWHyper {
  double lr, beta1, beta2, eps, weightDecay;
};
struct AdamWState {
  Array param, expAvg, expAvgSq;
};
/// One torch.optim.AdamW step at step number `step` (>= 1).
AdamWState adamw(const Array &param, const Array &grad, const Array &expAvg,
                 const Array &expAvgSq, double step, const AdamWHyper &hyper);

/// One torch.optim.SGD step (no momentum; coupled weight decay).
Array sgd(const Array &param, const Array &grad, double lr, double weightDecay);

/// sqrt of the sum of squares of every element of every array.
double globalNorm(llvm::ArrayRef<const Array *> arrays);

} // namespace hetc::hetg::eval

#endif // HETC_DIALECTS_HETGRAPH_EVAL_EVAL_H
