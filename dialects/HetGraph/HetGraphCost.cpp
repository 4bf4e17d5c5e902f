//===- HetGraphCost.cpp - CostOpInterface of every hetg op ----------------===//
//
// FLOPs by the conventions documented with CostOpInterface
// (HetGraphInterfaces.td); the per-element constants of each formula are
// written out next to the op that uses them.
//
//===----------------------------------------------------------------------===//

#include "dialects/HetGraph/HetGraph.h"

using namespace mlir;

namespace hetc::hetg {

namespace {

constexpr int64_t kT = kTranscendentalFlops;
/// max, subtract, exp, sum, divide.
constexpr int64_t kSoftmaxFlops = 4 + kT;

int64_t elements(Value value) {
  return llvm::cast<ShapedType>(value.getType()).getNumElements();
}

int64_t elementBytes(Type elementType) {
  return (elementType.getIntOrFloatBitWidth() + 7) / 8;
}

/// `perElement` FLOPs for each element of `value`.
int64_t perElement(Value value, int64_t perElement) {
  return perElement * elements(value);
}

int64_t dim(Value value, int64_t index) {
  auto type = llvm::cast<ShapedType>(value.getType());
  return type.getDimSize(index < 0 ? type.getRank() + index : index);
}

/// The product of all but the last two dimensions.
int64_t leadingEntries(Value value) {
  auto type = llvm::cast<ShapedType>(value.getType());
  int64_t entries = 1;
  for (int64_t d : type.getShape().drop_back(2))
    entries *= d;
  return entries;
}

/// Scores of an attention: leading entries x Tq x Tk.
int64_t attentionScores(Value query, Value key) {
  return leadingEntries(query) * dim(query, -2) * dim(key, -2);
}

} // namespace

int64_t storageBytes(Type type) {
  auto shaped = llvm::cast<ShapedType>(type);
  return shaped.getNumElements() * elementBytes(shaped.getElementType());
}

int64_t operandAndResultBytes(Operation *op) {
  int64_t bytes = 0;
  for (Type type : op->getOperandTypes())
    bytes += storageBytes(type);
  for (Type type : op->getResultTypes())
    bytes += storageBytes(type);
  return bytes;
}

std::optional<OpCost> getOpCost(Operation *op) {
  auto cost = llvm::dyn_cast<CostOpInterface>(op);
  if (!cost)
    return std::nullopt;
  auto isStatic = [](Type type) {
    auto tensor = llvm::dyn_cast<RankedTensorType>(type);
    return tensor && tensor.hasStaticShape() &&
           tensor.getElementType().isIntOrFloat();
  };
  if (!llvm::all_of(op->getOperandTypes(), isStatic) ||
      !llvm::all_of(op->getResultTypes(), isStatic))
    return std::nullopt;
  return OpCost{cost.flops(), cost.bytesMoved()};
}

int64_t modelFlops(Operation *op) {
  int64_t total = 0;
  op->walk([&](Operation *nested) {
    if (nested->hasAttr(kRecomputedAttr))
      return;
    if (std::optional<OpCost> cost = getOpCost(nested))
      total += cost->flops;
  });
  return total;
}

//===----------------------------------------------------------------------===//
// Constants, data movement and shape computation: no arithmetic
//===----------------------------------------------------------------------===//

int64_t ConstantOp::flops() { return 0; }
int64_t ConstantOp::bytesMoved() { return 0; }
int64_t TransposeOp::flops() { return 0; }
int64_t ReshapeOp::flops() { return 0; }
int64_t ReshapeOp::bytesMoved() { return 0; }
int64_t DynamicReshapeOp::flops() { return 0; }
int64_t BroadcastOp::flops() { return 0; }
int64_t DynamicBroadcastOp::flops() { return 0; }
int64_t SliceOp::flops() { return 0; }
int64_t SliceOp::bytesMoved() { return 2 * storageBytes(getType()); }
int64_t DynamicSliceOp::flops() { return 0; }
int64_t ConcatOp::flops() { return 0; }
int64_t GatherOp::flops() { return 0; }
int64_t GatherOp::bytesMoved() {
  // The indices, the selected rows, and the result.
  return storageBytes(getIndices().getType()) + 2 * storageBytes(getType());
}
int64_t ScatterNDOp::flops() { return elements(getUpdates()); }
int64_t ScatterNDOp::bytesMoved() {
  // The copy of the data, then the indices and updates read and written.
  return 2 * storageBytes(getType()) + storageBytes(getIndices().getType()) +
         2 * storageBytes(getUpdates().getType());
}
int64_t CastOp::flops() { return 0; }
int64_t TriluOp::flops() { return 0; }
int64_t ShapeOp::flops() { return 0; }
int64_t ShapeOp::bytesMoved() { return storageBytes(getType()); }
int64_t RangeOp::flops() { return 0; }
int64_t ConstantOfShapeOp::flops() { return 0; }
int64_t SliceGradOp::flops() { return 0; }
/// One addition per scattered element.
int64_t GatherGradOp::flops() { return elements(getResultGrad()); }

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

int64_t NegOp::flops() { return perElement(getResult(), 1); }
int64_t SqrtOp::flops() { return perElement(getResult(), 1); }
int64_t ReciprocalOp::flops() { return perElement(getResult(), 1); }
int64_t ReluOp::flops() { return perElement(getResult(), 1); }
int64_t ExpOp::flops() { return perElement(getResult(), kT); }
int64_t LogOp::flops() { return perElement(getResult(), kT); }
int64_t TanhOp::flops() { return perElement(getResult(), kT); }
int64_t CosOp::flops() { return perElement(getResult(), kT); }
int64_t SinOp::flops() { return perElement(getResult(), kT); }
int64_t ErfOp::flops() { return perElement(getResult(), kT); }
/// exp(-x), add 1, divide.
int64_t SigmoidOp::flops() { return perElement(getResult(), kT + 2); }
/// sigmoid, then multiply by x.
int64_t SiluOp::flops() { return perElement(getResult(), kT + 3); }
int64_t GeluOp::flops() {
  // erf: x / sqrt(2), erf, + 1, * x, * 0.5. tanh: x^3 (2), * 0.044715,
  // + x, * sqrt(2/pi), tanh, + 1, * x, * 0.5.
  return perElement(getResult(), getApproximate() == GeluApproximation::tanh
                                     ? kT + 8
                                     : kT + 4);
}
int64_t AddOp::flops() { return perElement(getResult(), 1); }
int64_t SubOp::flops() { return perElement(getResult(), 1); }
int64_t MulOp::flops() { return perElement(getResult(), 1); }
int64_t DivOp::flops() { return perElement(getResult(), 1); }
/// exp(y * log(x)).
int64_t PowOp::flops() { return perElement(getResult(), 2 * kT + 1); }
int64_t EqualOp::flops() { return perElement(getResult(), 1); }
int64_t MinimumOp::flops() { return perElement(getResult(), 1); }
int64_t MaximumOp::flops() { return perElement(getResult(), 1); }
/// A division, a truncation or floor, a multiply-subtract.
int64_t ModOp::flops() { return perElement(getResult(), 3); }
int64_t FmodOp::flops() { return perElement(getResult(), 3); }
int64_t WhereOp::flops() { return perElement(getResult(), 1); }

/// Phi(x) (erf, + 1, * 0.5, x / sqrt(2)) + x * phi(x) (square, * -0.5,
/// exp, * 1/sqrt(2 pi), * x), the sum, and * result_grad.
int64_t GeluGradOp::flops() {
  if (getApproximate() == GeluApproximation::tanh)
    // u (5), tanh, 0.5 (1 + t) (2), 1 - t^2 (2), du/dx (3), the product
    // and sum (3), * result_grad.
    return perElement(getInputGrad(), kT + 16);
  return perElement(getInputGrad(), 2 * kT + 9);
}
/// s = sigmoid(x) (6), 1 - s, * x, + 1, * s, * result_grad.
int64_t SiluGradOp::flops() { return perElement(getInputGrad(), kT + 7); }

//===----------------------------------------------------------------------===//
// Linear algebra and attention
//===----------------------------------------------------------------------===//

int64_t MatmulOp::flops() {
  int64_t k = getTransposeLhs() ? dim(getLhs(), -2) : dim(getLhs(), -1);
  int64_t outputs = elements(getResult());
  return 2 * k * outputs + (getBias() ? outputs : 0);
}

int64_t AttentionOp::flops() {
  int64_t d = dim(getQuery(), -1), dv = dim(getValue(), -1);
  // Q K^T, scale, mask, softmax, P V.
  int64_t perScore = 2 * d + 1 + (getMask() ? 1 : 0) + kSoftmaxFlops + 2 * dv;
  return attentionScores(getQuery(), getKey()) * perScore;
}

int64_t AttentionGradOp::flops() {
  int64_t d = dim(getQuery(), -1), dv = dim(getValue(), -1);
  int64_t recompute = 2 * d + 1 + (getMask() ? 1 : 0) + kSoftmaxFlops;
  // dP = dO V^T; dS = P (dP - rowsum(dP P)); dQ = dS K; dK = dS^T Q;
  // dV = P^T dO.
  int64_t perScore = recompute + 2 * dv + 4 + 2 * d + 2 * d + 2 * dv;
  // dQ and dK are scaled once more.
  return attentionScores(getQuery(), getKey()) * perScore +
         elements(getQueryGrad()) + elements(getKeyGrad());
}

//===----------------------------------------------------------------------===//
// Reductions, normalization, loss
//===----------------------------------------------------------------------===//

int64_t ReduceSumOp::flops() { return elements(getInput()); }
int64_t ReduceMaxOp::flops() { return elements(getInput()); }
int64_t ReduceMeanOp::flops() {
  return elements(getInput()) + elements(getResult());
}
int64_t SoftmaxOp::flops() { return perElement(getResult(), kSoftmaxFlops); }
/// max, subtract, exp, sum, subtract the log-sum.
int64_t LogSoftmaxOp::flops() { return perElement(getResult(), kT + 4); }
/// result_grad * output, row sum, subtract, multiply.
int64_t SoftmaxGradOp::flops() { return perElement(getInputGrad(), 4); }
/// row sum, exp(output), multiply, subtract.
int64_t LogSoftmaxGradOp::flops() { return perElement(getInputGrad(), kT + 3); }

int64_t LayerNormOp::flops() {
  // mean, subtract, square, sum, normalize; then scale and bias.
  return perElement(getResult(),
                    5 + (getScale() ? 1 : 0) + (getBias() ? 1 : 0));
}
int64_t RmsNormOp::flops() {
  // square, sum, normalize; then scale.
  return perElement(getResult(), 3 + (getScale() ? 1 : 0));
}
int64_t LayerNormGradOp::flops() {
  // Recompute x̂ (5); g = result_grad * scale; input_grad: g * x̂, two row
  // sums, x̂ * mean(g x̂), two subtractions, * rstd (7); scale_grad:
  // result_grad * x̂ and the column sum (2); bias_grad: the column sum (1).
  return perElement(getInput(), 15 + (getScale() ? 1 : 0));
}
int64_t RmsNormGradOp::flops() {
  // Recompute r (2); g = result_grad * scale; input_grad: g * x, row sum,
  // g / r, x * mean / r^3 (2), subtract (6); scale_grad: x / r,
  // * result_grad, column sum (3).
  return perElement(getInput(), 11 + (getScale() ? 1 : 0));
}

int64_t CrossEntropyOp::flops() {
  // log-sum-exp over the classes (max, subtract, exp, sum) per logit; pick
  // the label's logit and accumulate per label.
  return perElement(getLogits(), kT + 3) + perElement(getLabels(), 2);
}
/// softmax (8), subtract the one-hot, * w.
int64_t CrossEntropyGradOp::flops() {
  return perElement(getLogits(), kSoftmaxFlops + 1);
}

//===----------------------------------------------------------------------===//
// Optimizer
//===----------------------------------------------------------------------===//

int64_t SgdOp::flops() {
  // p - lr * g; with decay, g + weight_decay * p first.
  bool decay = !getWeightDecay().isZero();
  return perElement(getParam(), 2 + (decay ? 2 : 0));
}

int64_t AdamWOp::flops() {
  // m: 3; v: g * g and 3; update: sqrt, / sqrt(1 - beta2^t), + eps, m /
  // denominator, * step size, subtract (6). Decay: p * (1 - lr wd) (2).
  bool decay = !getWeightDecay().isZero();
  return perElement(getParam(), 13 + (decay ? 2 : 0));
}

int64_t LrScheduleOp::flops() {
  // A handful of scalar operations: nothing next to the updates.
  return 0;
}

int64_t GlobalNormOp::flops() {
  int64_t total = 0;
  for (Value input : getInputs())
    total += perElement(input, 2);
  return total;
}

} // namespace hetc::hetg
