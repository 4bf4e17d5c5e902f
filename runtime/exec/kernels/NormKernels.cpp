//===- NormKernels.cpp - norms, softmaxes and reductions ------------------===//

#include "runtime/exec/kernels/AdapterUtil.h"
#include "runtime/exec/kernels/Backend.h"

namespace hetc::runtime::exec::HETC_BACKEND_NAMESPACE {
namespace {

using namespace adapters;
using hetc::pkg::Instruction;

Status epsilonAttr(const Instruction &inst, float *epsilon) {
  double value;
  HETC_RETURN_IF_ERROR(floatAttr(inst, "epsilon", &value));
  *epsilon = static_cast<float>(value);
  return okStatus();
}

// layer_norm(input, scale?, bias?) {axis, epsilon}. The package does not
// keep the operand segment sizes, so two operands are (input, scale): the
// hetg importer always gives a bias a scale.
Status runLayerNorm(const Instruction &inst, BufferTable &b) {
  int64_t axis;
  float epsilon;
  HETC_RETURN_IF_ERROR(intAttr(inst, "axis", &axis));
  HETC_RETURN_IF_ERROR(epsilonAttr(inst, &epsilon));
  return kernels::layerNorm(operand(inst, b, 0), optionalOperand(inst, b, 1),
                        optionalOperand(inst, b, 2), axis, epsilon,
                        result(inst, b, 0), nullptr, nullptr);
}

// layer_norm_grad(input, result_grad, scale?) -> (input_grad, scale_grad,
// bias_grad). The op recomputes the statistics: the forward runs once more
// (its output goes to input_grad, overwritten right after) for the mean and
// rstd the CPU backward takes.
Status runLayerNormGrad(const Instruction &inst, BufferTable &b) {
  int64_t axis;
  float epsilon;
  HETC_RETURN_IF_ERROR(intAttr(inst, "axis", &axis));
  HETC_RETURN_IF_ERROR(epsilonAttr(inst, &epsilon));
  const TensorView &x = operand(inst, b, 0), &dy = operand(inst, b, 1);
  const TensorView &dx = result(inst, b, 0);
  int64_t normalized;
  HETC_RETURN_IF_ERROR(normalizeAxis(axis, x.rank(), &normalized),
                       "layer_norm_grad");
  int64_t rows = numElements(Shape(x.shape.begin(), x.shape.begin() + normalized));
  TensorView mean, rstd;
  HETC_RETURN_IF_ERROR(scratchView(b, 0, DType::kF32, {rows}, &mean));
  HETC_RETURN_IF_ERROR(scratchView(b, 1, DType::kF32, {rows}, &rstd));
  HETC_RETURN_IF_ERROR(kernels::layerNorm(x, nullptr, nullptr, axis, epsilon, dx,
                                      &mean, &rstd),
                       "layer_norm_grad: recomputing the statistics");
  TensorView dscale = result(inst, b, 1), dbias = result(inst, b, 2);
  return kernels::layerNormBackward(x, optionalOperand(inst, b, 2), mean, rstd, dy,
                                axis, dx, &dscale, &dbias, false);
}

// rms_norm(input, scale?) {epsilon}.
Status runRmsNorm(const Instruction &inst, BufferTable &b) {
  float epsilon;
  HETC_RETURN_IF_ERROR(epsilonAttr(inst, &epsilon));
  return kernels::rmsNorm(operand(inst, b, 0), optionalOperand(inst, b, 1),
                      epsilon, result(inst, b, 0), nullptr);
}

// rms_norm_grad(input, result_grad, scale?) -> (input_grad, scale_grad),
// recomputing rstd like layer_norm_grad.
Status runRmsNormGrad(const Instruction &inst, BufferTable &b) {
  float epsilon;
  HETC_RETURN_IF_ERROR(epsilonAttr(inst, &epsilon));
  const TensorView &x = operand(inst, b, 0), &dy = operand(inst, b, 1);
  const TensorView &dx = result(inst, b, 0);
  if (x.rank() < 1)
    return invalidArgument("rms_norm_grad: input must have rank >= 1, got ",
                           x.describe());
  int64_t cols = x.shape.back();
  int64_t rows = cols == 0 ? 0 : x.numel() / cols;
  TensorView rstd;
  HETC_RETURN_IF_ERROR(scratchView(b, 0, DType::kF32, {rows}, &rstd));
  HETC_RETURN_IF_ERROR(kernels::rmsNorm(x, nullptr, epsilon, dx, &rstd),
                       "rms_norm_grad: recomputing the statistics");
  TensorView dscale = result(inst, b, 1);
  return kernels::rmsNormBackward(x, optionalOperand(inst, b, 2), rstd, dy, dx,
                              &dscale, false);
}

template <Status (*Forward)(const TensorView &, int64_t, const TensorView &)>
Status runSoftmaxLike(const Instruction &inst, BufferTable &b) {
  int64_t axis;
  HETC_RETURN_IF_ERROR(intAttr(inst, "axis", &axis));
  return Forward(operand(inst, b, 0), axis, result(inst, b, 0));
}

// softmax_grad / log_softmax_grad(output, result_grad) {axis}.
template <Status (*Backward)(const TensorView &, const TensorView &, int64_t,
                             const TensorView &)>
Status runSoftmaxGradLike(const Instruction &inst, BufferTable &b) {
  int64_t axis;
  HETC_RETURN_IF_ERROR(intAttr(inst, "axis", &axis));
  return Backward(operand(inst, b, 0), operand(inst, b, 1), axis,
                  result(inst, b, 0));
}

// reduce_*(input) {axes, keep_dims = true}.
template <ReduceOp Op>
Status runReduce(const Instruction &inst, BufferTable &b) {
  std::vector<int64_t> axes;
  HETC_RETURN_IF_ERROR(intsAttr(inst, "axes", &axes));
  bool keepDims = true;
  if (hasAttr(inst, "keep_dims"))
    HETC_RETURN_IF_ERROR(boolAttr(inst, "keep_dims", &keepDims));
  return kernels::reduce(Op, operand(inst, b, 0), axes, keepDims,
                     result(inst, b, 0));
}

} // namespace

void registerNormKernels(KernelRegistry &r) {
  AttrSpec axis{"axis", AttrKind::kInt}, epsilon{"epsilon", AttrKind::kFloat};
  mustAdd(r, makeKernel("layer_norm", 1, 3, 1, {axis, epsilon}, runLayerNorm));
  mustAdd(r, makeKernel("layer_norm_grad", 2, 3, 3, {axis, epsilon},
                    runLayerNormGrad));
  mustAdd(r, makeKernel("rms_norm", 1, 2, 1, {epsilon}, runRmsNorm));
  mustAdd(r, makeKernel("rms_norm_grad", 2, 3, 2, {epsilon}, runRmsNormGrad));
  mustAdd(r, makeKernel("softmax", 1, 1, 1, {axis}, runSoftmaxLike<kernels::softmax>));
  mustAdd(r, makeKernel("log_softmax", 1, 1, 1, {axis},
                    runSoftmaxLike<kernels::logSoftmax>));
  mustAdd(r, makeKernel("softmax_grad", 2, 2, 1, {axis},
                    runSoftmaxGradLike<kernels::softmaxBackward>));
  mustAdd(r, makeKernel("log_softmax_grad", 2, 2, 1, {axis},
                    runSoftmaxGradLike<kernels::logSoftmaxBackward>));
  std::vector<AttrSpec> reduce = {{"axes", AttrKind::kInts},
                                  {"keep_dims", AttrKind::kBool, true}};
  mustAdd(r, makeKernel("reduce_sum", 1, 1, 1, reduce,
                    runReduce<ReduceOp::kSum>));
  mustAdd(r, makeKernel("reduce_mean", 1, 1, 1, reduce,
                    runReduce<ReduceOp::kMean>));
  mustAdd(r, makeKernel("reduce_max", 1, 1, 1, reduce,
                    runReduce<ReduceOp::kMax>));
}

} // namespace hetc::runtime::exec::HETC_BACKEND_NAMESPACE
