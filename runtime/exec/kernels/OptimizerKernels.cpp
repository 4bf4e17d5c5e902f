//===- OptimizerKernels.cpp - sgd, adamw, global_norm ---------------------===//
//
// The CPU updates work in place. The lowering usually writes the new
// parameter and state over the old ones (sgd: param/new_param; adamw:
// param/new_param, exp_avg/new_exp_avg, exp_avg_sq/new_exp_avg_sq); where it
// gives a result its own buffer, the adapter copies the old value there
// first and updates that.
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/kernels/AdapterUtil.h"
#include "runtime/exec/kernels/Backend.h"

#include <cmath>
#include <optional>

namespace hetc::runtime::exec::HETC_BACKEND_NAMESPACE {
namespace {

using namespace adapters;
using hetc::pkg::Instruction;

// Makes result `r` hold operand `o`'s value, unless it is the same buffer.
Status seedResult(const Instruction &inst, BufferTable &b, int o, int r) {
  if (b.rootOf(inst.operands(o)) == b.rootOf(inst.results(r)))
    return okStatus();
  return kernels::copy(operand(inst, b, o), result(inst, b, r));
}

// sgd(param, grad[, lr_factor]) {lr, weight_decay} -> new_param.
Status runSgd(const Instruction &inst, BufferTable &b) {
  SgdOptions options;
  HETC_RETURN_IF_ERROR(floatAttr(inst, "lr", &options.lr));
  if (hasAttr(inst, "weight_decay"))
    HETC_RETURN_IF_ERROR(floatAttr(inst, "weight_decay", &options.weightDecay));
  const TensorView &param = operand(inst, b, 0);
  const TensorView &out = result(inst, b, 0);
  if (param.dtype != out.dtype || param.shape != out.shape)
    return invalidArgument("sgd: new_param ", out.describe(),
                           " must have param's type ", param.describe());
  HETC_RETURN_IF_ERROR(seedResult(inst, b, 0, 0), "sgd");
  return kernels::sgdStep(out, operand(inst, b, 1), options,
                          optionalOperand(inst, b, 2));
}

// adamw(param, grad, exp_avg, exp_avg_sq, step[, lr_factor]) {lr, beta1,
// beta2, eps, weight_decay} -> (new_param, new_exp_avg, new_exp_avg_sq).
// `step` is a 0-D integer or float tensor counting this step (>= 1).
Status runAdamW(const Instruction &inst, BufferTable &b) {
  AdamWOptions options;
  HETC_RETURN_IF_ERROR(floatAttr(inst, "lr", &options.lr));
  HETC_RETURN_IF_ERROR(floatAttr(inst, "beta1", &options.beta1));
  HETC_RETURN_IF_ERROR(floatAttr(inst, "beta2", &options.beta2));
  HETC_RETURN_IF_ERROR(floatAttr(inst, "eps", &options.eps));
  HETC_RETURN_IF_ERROR(floatAttr(inst, "weight_decay", &options.weightDecay));
  options.applyWeightDecay = options.weightDecay != 0.0;
  for (int pair = 0; pair < 3; ++pair) {
    int o = pair == 0 ? 0 : pair + 1;
    const TensorView &in = operand(inst, b, o), &out = result(inst, b, pair);
    if (in.dtype != out.dtype || in.shape != out.shape)
      return invalidArgument("adamw: result ", pair, " ", out.describe(),
                             " must have the type of operand ", o, " ",
                             in.describe());
    HETC_RETURN_IF_ERROR(seedResult(inst, b, o, pair), "adamw");
  }
  return kernels::adamwStep(result(inst, b, 0), operand(inst, b, 1),
                        result(inst, b, 1), result(inst, b, 2),
                        operand(inst, b, 4), options,
                        optionalOperand(inst, b, 5));
}

// lr_schedule(step) {kind, warmup_steps, decay_steps, min_factor} -> factor.
Status runLrSchedule(const Instruction &inst, BufferTable &b) {
  std::string kind;
  HETC_RETURN_IF_ERROR(stringAttr(inst, "kind", &kind));
  LrSchedule schedule;
  if (!parseLrScheduleKind(kind, &schedule.kind))
    return invalidArgument("lr_schedule: kind '", kind,
                           "' is not constant, cosine or linear");
  std::optional<int64_t> warmup, decay;
  HETC_RETURN_IF_ERROR(optionalIntAttr(inst, "warmup_steps", &warmup));
  HETC_RETURN_IF_ERROR(optionalIntAttr(inst, "decay_steps", &decay));
  schedule.warmupSteps = warmup.value_or(0);
  schedule.decaySteps = decay.value_or(0);
  if (hasAttr(inst, "min_factor"))
    HETC_RETURN_IF_ERROR(floatAttr(inst, "min_factor", &schedule.minFactor));
  return kernels::lrSchedule(operand(inst, b, 0), schedule, result(inst, b, 0));
}

// global_norm(inputs...) -> 0-D norm.
Status runGlobalNorm(const Instruction &inst, BufferTable &b) {
  std::vector<TensorView> inputs;
  for (int i = 0; i < inst.operands_size(); ++i)
    inputs.push_back(operand(inst, b, i));
  return kernels::globalNorm(inputs, result(inst, b, 0));
}

} // namespace

void registerOptimizerKernels(KernelRegistry &r) {
  KernelInfo sgd = makeKernel("sgd", 2, 3, 1,
                              {{"lr", AttrKind::kFloat},
                               {"weight_decay", AttrKind::kFloat, true}},
                              runSgd);
  sgd.inPlace.pairs = {{0, 0}};
  mustAdd(r, std::move(sgd));
  KernelInfo adamw = makeKernel("adamw", 5, 6, 3,
                                {{"lr", AttrKind::kFloat},
                                 {"beta1", AttrKind::kFloat},
                                 {"beta2", AttrKind::kFloat},
                                 {"eps", AttrKind::kFloat},
                                 {"weight_decay", AttrKind::kFloat}},
                                runAdamW);
  adamw.inPlace.pairs = {{0, 0}, {2, 1}, {3, 2}};
  mustAdd(r, std::move(adamw));
  mustAdd(r, makeKernel("global_norm", 1, -1, 1, {}, runGlobalNorm));
  mustAdd(r, makeKernel("lr_schedule", 1, 1, 1,
                        {{"kind", AttrKind::kString},
                         {"warmup_steps", AttrKind::kInt, true},
                         {"decay_steps", AttrKind::kInt, true},
                         {"min_factor", AttrKind::kFloat, true}},
                        runLrSchedule));
}

} // namespace hetc::runtime::exec::HETC_BACKEND_NAMESPACE
