//===- KernelOptions.cpp --------------------------------------------------===//

#include "runtime/base/KernelOptions.h"

namespace hetc::runtime {

const char *unaryOpName(UnaryOp op) {
  switch (op) {
  case UnaryOp::kNeg:
    return "neg";
  case UnaryOp::kSqrt:
    return "sqrt";
  case UnaryOp::kReciprocal:
    return "reciprocal";
  case UnaryOp::kExp:
    return "exp";
  case UnaryOp::kLog:
    return "log";
  case UnaryOp::kTanh:
    return "tanh";
  case UnaryOp::kCos:
    return "cos";
  case UnaryOp::kSin:
    return "sin";
  case UnaryOp::kErf:
    return "erf";
  case UnaryOp::kSigmoid:
    return "sigmoid";
  case UnaryOp::kRelu:
    return "relu";
  case UnaryOp::kGeluErf:
    return "gelu";
  case UnaryOp::kGeluTanh:
    return "gelu_tanh";
  case UnaryOp::kSilu:
    return "silu";
  }
  return "?";
}

const char *binaryOpName(BinaryOp op) {
  switch (op) {
  case BinaryOp::kAdd:
    return "add";
  case BinaryOp::kSub:
    return "sub";
  case BinaryOp::kMul:
    return "mul";
  case BinaryOp::kDiv:
    return "div";
  case BinaryOp::kPow:
    return "pow";
  case BinaryOp::kMinimum:
    return "minimum";
  case BinaryOp::kMaximum:
    return "maximum";
  case BinaryOp::kMod:
    return "mod";
  case BinaryOp::kFmod:
    return "fmod";
  }
  return "?";
}

} // namespace hetc::runtime
