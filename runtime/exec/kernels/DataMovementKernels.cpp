//===- DataMovementKernels.cpp - transpose, slice, gather, copy, ... ------===//

#include "runtime/exec/kernels/AdapterUtil.h"
#include "runtime/exec/kernels/Backend.h"

namespace hetc::runtime::exec::HETC_BACKEND_NAMESPACE {
namespace {

using namespace adapters;
using hetc::pkg::Instruction;

// transpose(input) {permutation}.
Status runTranspose(const Instruction &inst, BufferTable &b) {
  std::vector<int64_t> permutation;
  HETC_RETURN_IF_ERROR(intsAttr(inst, "permutation", &permutation));
  return kernels::transpose(operand(inst, b, 0), permutation, result(inst, b, 0));
}

// hetg.slice and slice_grad give one start, end and step per dimension.
Status sliceParams(const Instruction &inst, SliceParams *params) {
  HETC_RETURN_IF_ERROR(intsAttr(inst, "starts", &params->starts));
  HETC_RETURN_IF_ERROR(intsAttr(inst, "ends", &params->ends));
  HETC_RETURN_IF_ERROR(intsAttr(inst, "steps", &params->steps));
  if (params->ends.size() != params->starts.size() ||
      params->steps.size() != params->starts.size())
    return invalidArgument("attributes 'starts', 'ends' and 'steps' must have "
                           "one entry per dimension, got ",
                           params->starts.size(), ", ", params->ends.size(),
                           " and ", params->steps.size());
  return okStatus();
}

Status runSlice(const Instruction &inst, BufferTable &b) {
  SliceParams params;
  HETC_RETURN_IF_ERROR(sliceParams(inst, &params));
  return kernels::slice(operand(inst, b, 0), params, result(inst, b, 0));
}

// slice_grad(result_grad) -> input_grad.
Status runSliceGrad(const Instruction &inst, BufferTable &b) {
  SliceParams params;
  HETC_RETURN_IF_ERROR(sliceParams(inst, &params));
  return kernels::sliceBackward(operand(inst, b, 0), params, result(inst, b, 0),
                            false);
}

// concat(inputs...) {axis}.
Status runConcat(const Instruction &inst, BufferTable &b) {
  int64_t axis;
  HETC_RETURN_IF_ERROR(intAttr(inst, "axis", &axis));
  std::vector<TensorView> inputs;
  for (int i = 0; i < inst.operands_size(); ++i)
    inputs.push_back(operand(inst, b, i));
  return kernels::concat(inputs, axis, result(inst, b, 0));
}

Status runBroadcast(const Instruction &inst, BufferTable &b) {
  return kernels::broadcastTo(operand(inst, b, 0), result(inst, b, 0));
}

// gather(data, indices) {axis}.
Status runGather(const Instruction &inst, BufferTable &b) {
  int64_t axis;
  HETC_RETURN_IF_ERROR(intAttr(inst, "axis", &axis));
  return kernels::gather(operand(inst, b, 0), operand(inst, b, 1), axis,
                     result(inst, b, 0));
}

// gather_grad(result_grad, indices) {axis} -> data_grad.
Status runGatherGrad(const Instruction &inst, BufferTable &b) {
  int64_t axis;
  HETC_RETURN_IF_ERROR(intAttr(inst, "axis", &axis));
  return kernels::gatherBackward(operand(inst, b, 0), operand(inst, b, 1), axis,
                             result(inst, b, 0), false);
}

// scatter_nd(data, indices, updates) {reduction}.
Status runScatterND(const Instruction &inst, BufferTable &b) {
  std::string name;
  HETC_RETURN_IF_ERROR(stringAttr(inst, "reduction", &name));
  static const std::pair<const char *, ScatterReduction> kReductions[] = {
      {"none", ScatterReduction::kNone}, {"add", ScatterReduction::kAdd},
      {"mul", ScatterReduction::kMul},   {"max", ScatterReduction::kMax},
      {"min", ScatterReduction::kMin}};
  for (const auto &[text, reduction] : kReductions)
    if (name == text)
      return kernels::scatterND(operand(inst, b, 0), operand(inst, b, 1),
                                operand(inst, b, 2), reduction,
                                result(inst, b, 0));
  return invalidArgument("scatter_nd: reduction '", name,
                         "' is not one of none, add, mul, max, min");
}

// trilu(input) {k, upper}.
Status runTrilu(const Instruction &inst, BufferTable &b) {
  int64_t k;
  bool upper;
  HETC_RETURN_IF_ERROR(intAttr(inst, "k", &k));
  HETC_RETURN_IF_ERROR(boolAttr(inst, "upper", &upper));
  return kernels::trilu(operand(inst, b, 0), k, upper, result(inst, b, 0));
}

// range(start, limit, delta): three 0-D operands.
Status runRange(const Instruction &inst, BufferTable &b) {
  double start, limit, delta;
  HETC_RETURN_IF_ERROR(kernels::readScalar(operand(inst, b, 0), "start", &start),
                       "range");
  HETC_RETURN_IF_ERROR(kernels::readScalar(operand(inst, b, 1), "limit", &limit),
                       "range");
  HETC_RETURN_IF_ERROR(kernels::readScalar(operand(inst, b, 2), "delta", &delta),
                       "range");
  return kernels::range(start, limit, delta, result(inst, b, 0));
}

// copy: results[0] = operands[0], one dtype and byte size (shapes may
// differ). The lowering's only kernel without a hetg op.
Status runCopy(const Instruction &inst, BufferTable &b) {
  const TensorView &from = operand(inst, b, 0), &to = result(inst, b, 0);
  if (from.dtype != to.dtype || from.byteSize() != to.byteSize())
    return invalidArgument("copy: source ", from.describe(),
                           " and destination ", to.describe(),
                           " differ in dtype or size");
  return kernels::copy(from, to);
}

} // namespace

void registerDataMovementKernels(KernelRegistry &r) {
  AttrSpec axis{"axis", AttrKind::kInt};
  std::vector<AttrSpec> slice = {{"starts", AttrKind::kInts},
                                 {"ends", AttrKind::kInts},
                                 {"steps", AttrKind::kInts}};
  mustAdd(r, makeKernel("transpose", 1, 1, 1,
                        {{"permutation", AttrKind::kInts}}, runTranspose));
  mustAdd(r, makeKernel("slice", 1, 1, 1, slice, runSlice));
  mustAdd(r, makeKernel("slice_grad", 1, 1, 1, slice, runSliceGrad));
  mustAdd(r, makeKernel("concat", 1, -1, 1, {axis}, runConcat));
  mustAdd(r, makeKernel("broadcast", 1, 1, 1, {}, runBroadcast));
  mustAdd(r, makeKernel("gather", 2, 2, 1, {axis}, runGather));
  mustAdd(r, makeKernel("gather_grad", 2, 2, 1, {axis}, runGatherGrad));
  mustAdd(r, makeKernel("scatter_nd", 3, 3, 1,
                        {{"reduction", AttrKind::kString}}, runScatterND));
  mustAdd(r, makeKernel("trilu", 1, 1, 1,
                        {{"k", AttrKind::kInt}, {"upper", AttrKind::kBool}},
                        runTrilu));
  mustAdd(r, makeKernel("range", 3, 3, 1, {}, runRange));
  mustAdd(r, makeKernel("copy", 1, 1, 1, {}, runCopy));
}

} // namespace hetc::runtime::exec::HETC_BACKEND_NAMESPACE
