//===- LinalgKernels.cpp - matmul, attention, cross-entropy ---------------===//

#include "runtime/exec/kernels/AdapterUtil.h"
#include "runtime/exec/kernels/Backend.h"

#include <limits>

namespace hetc::runtime::exec::HETC_BACKEND_NAMESPACE {
namespace {

using namespace adapters;
using hetc::pkg::Instruction;

// matmul(lhs, rhs, bias?) {transpose_lhs, transpose_rhs}.
Status runMatmul(const Instruction &inst, BufferTable &b) {
  GemmOptions options;
  HETC_RETURN_IF_ERROR(boolAttr(inst, "transpose_lhs", &options.transA));
  HETC_RETURN_IF_ERROR(boolAttr(inst, "transpose_rhs", &options.transB));
  return kernels::gemm(operand(inst, b, 0), operand(inst, b, 1),
                   optionalOperand(inst, b, 2), result(inst, b, 0), options);
}

Status attentionOptions(const Instruction &inst,
                        AttentionOptions *options) {
  double scale;
  HETC_RETURN_IF_ERROR(floatAttr(inst, "scale", &scale));
  options->scale = static_cast<float>(scale);
  return boolAttr(inst, "causal", &options->causal);
}

// attention(query, key, value, mask?) -> (result, lse?) {scale, causal,
// with_lse?}.
Status runAttention(const Instruction &inst, BufferTable &b) {
  AttentionOptions options;
  HETC_RETURN_IF_ERROR(attentionOptions(inst, &options));
  TensorView lse;
  if (inst.results_size() > 1)
    lse = result(inst, b, 1);
  return kernels::attention(operand(inst, b, 0), operand(inst, b, 1),
                            operand(inst, b, 2), optionalOperand(inst, b, 3),
                            options, result(inst, b, 0),
                            inst.results_size() > 1 ? &lse : nullptr);
}

// attention_grad(query, key, value, result_grad, mask?, output?, lse?) ->
// (query_grad, key_grad, value_grad). Without the forward's output and row
// log-sum-exps the adapter reruns the forward into scratch for them.
Status runAttentionGrad(const Instruction &inst, BufferTable &b) {
  AttentionOptions options;
  HETC_RETURN_IF_ERROR(attentionOptions(inst, &options));
  const TensorView &q = operand(inst, b, 0), &k = operand(inst, b, 1),
                   &v = operand(inst, b, 2), &dout = operand(inst, b, 3);
  const TensorView *mask = optionalOperand(inst, b, 4);
  const TensorView *savedOut = optionalOperand(inst, b, 5);
  const TensorView *savedLse = optionalOperand(inst, b, 6);
  if (q.rank() < 2)
    return invalidArgument("attention_grad: query must have rank >= 2, got ",
                           q.describe());
  if (!savedOut != !savedLse)
    return invalidArgument("attention_grad: the forward's output and lse "
                           "come together");
  TensorView out, lse;
  if (savedOut) {
    out = *savedOut;
    lse = *savedLse;
  } else {
    HETC_RETURN_IF_ERROR(scratchView(b, 0, dout.dtype, dout.shape, &out),
                         "attention_grad");
    Shape rows(q.shape.begin(), q.shape.end() - 1);
    HETC_RETURN_IF_ERROR(scratchView(b, 1, DType::kF32, rows, &lse),
                         "attention_grad");
    HETC_RETURN_IF_ERROR(kernels::attention(q, k, v, mask, options, out, &lse),
                         "attention_grad: recomputing the forward");
  }
  return kernels::attentionBackward(q, k, v, mask, options, out, lse, dout,
                                    result(inst, b, 0), result(inst, b, 1),
                                    result(inst, b, 2));
}

Status crossEntropyOptions(const Instruction &inst,
                           CrossEntropyOptions *options) {
  std::string reduction;
  HETC_RETURN_IF_ERROR(stringAttr(inst, "reduction", &reduction));
  if (reduction == "mean")
    options->reduction = LossReduction::kMean;
  else if (reduction == "sum")
    options->reduction = LossReduction::kSum;
  else if (reduction == "none")
    options->reduction = LossReduction::kNone;
  else
    return invalidArgument("attribute 'reduction' must be none, sum or mean, "
                           "got '",
                           reduction, "'");
  std::optional<int64_t> ignore;
  HETC_RETURN_IF_ERROR(optionalIntAttr(inst, "ignore_index", &ignore));
  // Without ignore_index no label is ignored; labels outside [0, C) are
  // errors, so the smallest int64 never matches one that is accepted.
  options->ignoreIndex = ignore ? *ignore : std::numeric_limits<int64_t>::min();
  return okStatus();
}

// cross_entropy(logits, labels) {reduction, ignore_index?}.
Status runCrossEntropy(const Instruction &inst, BufferTable &b) {
  CrossEntropyOptions options;
  HETC_RETURN_IF_ERROR(crossEntropyOptions(inst, &options));
  return kernels::crossEntropy(operand(inst, b, 0), operand(inst, b, 1), options,
                           result(inst, b, 0), nullptr);
}

// cross_entropy_grad(logits, labels, loss_grad) -> logits_grad.
Status runCrossEntropyGrad(const Instruction &inst, BufferTable &b) {
  CrossEntropyOptions options;
  HETC_RETURN_IF_ERROR(crossEntropyOptions(inst, &options));
  return kernels::crossEntropyBackward(operand(inst, b, 0), operand(inst, b, 1),
                                   options, operand(inst, b, 2), nullptr,
                                   result(inst, b, 0));
}

} // namespace

void registerLinalgKernels(KernelRegistry &r) {
  mustAdd(r, makeKernel("matmul", 2, 3, 1,
                    {{"transpose_lhs", AttrKind::kBool, true},
                     {"transpose_rhs", AttrKind::kBool, true}},
                    runMatmul));
  std::vector<AttrSpec> attention = {{"scale", AttrKind::kFloat},
                                     {"causal", AttrKind::kBool, true}};
  std::vector<AttrSpec> forwardAttrs = attention;
  forwardAttrs.push_back({"with_lse", AttrKind::kBool, true});
  KernelInfo forward =
      makeKernel("attention", 3, 4, 1, forwardAttrs, runAttention);
  forward.optionalResults = 1; // lse, with with_lse
  mustAdd(r, std::move(forward));
  mustAdd(r,
          makeKernel("attention_grad", 4, 7, 3, attention, runAttentionGrad));
  std::vector<AttrSpec> loss = {{"reduction", AttrKind::kString},
                                {"ignore_index", AttrKind::kInt, true}};
  mustAdd(r, makeKernel("cross_entropy", 2, 2, 1, loss, runCrossEntropy));
  mustAdd(r, makeKernel("cross_entropy_grad", 3, 3, 1, loss, runCrossEntropyGrad));
}

} // namespace hetc::runtime::exec::HETC_BACKEND_NAMESPACE
