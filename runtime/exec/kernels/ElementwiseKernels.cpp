//===- ElementwiseKernels.cpp - unary, binary, where, cast ----------------===//
//
// Adapters for the elementwise hetg ops and the activation gradients. Every
// one of these may write its result over an operand of the result's shape
// (the CPU kernels read each element before writing it).
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/kernels/AdapterUtil.h"
#include "runtime/exec/kernels/Backend.h"

#include "runtime/base/Half.h"

namespace hetc::runtime::exec::HETC_BACKEND_NAMESPACE {

namespace {

using namespace adapters;
using hetc::pkg::Instruction;

template <UnaryOp Op> Status runUnary(const Instruction &inst, BufferTable &b) {
  return kernels::unary(Op, operand(inst, b, 0), result(inst, b, 0));
}

Status geluApproximation(const Instruction &inst, UnaryOp *op) {
  std::string approximate = "none";
  if (hasAttr(inst, "approximate"))
    HETC_RETURN_IF_ERROR(stringAttr(inst, "approximate", &approximate));
  if (approximate == "none")
    *op = UnaryOp::kGeluErf;
  else if (approximate == "tanh")
    *op = UnaryOp::kGeluTanh;
  else
    return invalidArgument("attribute 'approximate' must be none or tanh, "
                           "got '",
                           approximate, "'");
  return okStatus();
}

Status runGelu(const Instruction &inst, BufferTable &b) {
  UnaryOp op;
  HETC_RETURN_IF_ERROR(geluApproximation(inst, &op));
  return kernels::unary(op, operand(inst, b, 0), result(inst, b, 0));
}

// gelu_grad(input, result_grad), silu_grad(input, result_grad).
Status runGeluGrad(const Instruction &inst, BufferTable &b) {
  UnaryOp op;
  HETC_RETURN_IF_ERROR(geluApproximation(inst, &op));
  return kernels::unaryBackward(op, operand(inst, b, 0), operand(inst, b, 1),
                            result(inst, b, 0));
}

Status runSiluGrad(const Instruction &inst, BufferTable &b) {
  return kernels::unaryBackward(UnaryOp::kSilu, operand(inst, b, 0),
                            operand(inst, b, 1), result(inst, b, 0));
}

template <BinaryOp Op>
Status runBinary(const Instruction &inst, BufferTable &b) {
  return kernels::binary(Op, operand(inst, b, 0), operand(inst, b, 1),
                     result(inst, b, 0));
}

Status runEqual(const Instruction &inst, BufferTable &b) {
  return kernels::equal(operand(inst, b, 0), operand(inst, b, 1),
                    result(inst, b, 0));
}

Status runWhere(const Instruction &inst, BufferTable &b) {
  return kernels::where(operand(inst, b, 0), operand(inst, b, 1),
                    operand(inst, b, 2), result(inst, b, 0));
}

// The MLIR spelling of a dtype, as the package writes cast's `to`.
const char *mlirTypeName(DType dtype) {
  switch (dtype) {
  case DType::kF32:
    return "f32";
  case DType::kF64:
    return "f64";
  case DType::kI64:
    return "i64";
  case DType::kI32:
    return "i32";
  case DType::kBool:
    return "i1";
  case DType::kBF16:
    return "bf16";
  case DType::kF16:
    return "f16";
  }
  return "?";
}

Status runCast(const Instruction &inst, BufferTable &b) {
  const TensorView &out = result(inst, b, 0);
  std::string to;
  HETC_RETURN_IF_ERROR(stringAttr(inst, "to", &to));
  if (to != mlirTypeName(out.dtype))
    return invalidArgument("cast: attribute 'to' is ", to,
                           " but the result buffer is ", out.describe());
  return kernels::cast(operand(inst, b, 0), out);
}

KernelInfo elementwise(std::string name, int operands, KernelFn run,
                       std::vector<AttrSpec> attrs = {}) {
  KernelInfo info;
  info.name = std::move(name);
  info.minOperands = info.maxOperands = operands;
  info.numResults = 1;
  info.attrs = std::move(attrs);
  info.inPlace.elementwise = true;
  info.run = run;
  return info;
}

} // namespace

void registerElementwiseKernels(KernelRegistry &r) {
  mustAdd(r, elementwise("neg", 1, runUnary<UnaryOp::kNeg>));
  mustAdd(r, elementwise("sqrt", 1, runUnary<UnaryOp::kSqrt>));
  mustAdd(r, elementwise("reciprocal", 1, runUnary<UnaryOp::kReciprocal>));
  mustAdd(r, elementwise("exp", 1, runUnary<UnaryOp::kExp>));
  mustAdd(r, elementwise("log", 1, runUnary<UnaryOp::kLog>));
  mustAdd(r, elementwise("tanh", 1, runUnary<UnaryOp::kTanh>));
  mustAdd(r, elementwise("cos", 1, runUnary<UnaryOp::kCos>));
  mustAdd(r, elementwise("sin", 1, runUnary<UnaryOp::kSin>));
  mustAdd(r, elementwise("erf", 1, runUnary<UnaryOp::kErf>));
  mustAdd(r, elementwise("sigmoid", 1, runUnary<UnaryOp::kSigmoid>));
  mustAdd(r, elementwise("relu", 1, runUnary<UnaryOp::kRelu>));
  mustAdd(r, elementwise("silu", 1, runUnary<UnaryOp::kSilu>));
  AttrSpec approximate{"approximate", AttrKind::kString, true};
  mustAdd(r, elementwise("gelu", 1, runGelu, {approximate}));
  mustAdd(r, elementwise("gelu_grad", 2, runGeluGrad, {approximate}));
  mustAdd(r, elementwise("silu_grad", 2, runSiluGrad));
  mustAdd(r, elementwise("add", 2, runBinary<BinaryOp::kAdd>));
  mustAdd(r, elementwise("sub", 2, runBinary<BinaryOp::kSub>));
  mustAdd(r, elementwise("mul", 2, runBinary<BinaryOp::kMul>));
  mustAdd(r, elementwise("div", 2, runBinary<BinaryOp::kDiv>));
  mustAdd(r, elementwise("pow", 2, runBinary<BinaryOp::kPow>));
  mustAdd(r, elementwise("minimum", 2, runBinary<BinaryOp::kMinimum>));
  mustAdd(r, elementwise("maximum", 2, runBinary<BinaryOp::kMaximum>));
  mustAdd(r, elementwise("mod", 2, runBinary<BinaryOp::kMod>));
  mustAdd(r, elementwise("fmod", 2, runBinary<BinaryOp::kFmod>));
  mustAdd(r, elementwise("equal", 2, runEqual));
  mustAdd(r, elementwise("where", 3, runWhere));
  mustAdd(r, elementwise("cast", 1, runCast, {{"to", AttrKind::kString}}));
}

} // namespace hetc::runtime::exec::HETC_BACKEND_NAMESPACE
