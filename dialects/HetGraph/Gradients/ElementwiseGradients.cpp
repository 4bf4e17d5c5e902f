//===- ElementwiseGradients.cpp - gradients of elementwise hetg ops -------===//
//
// Derivatives of elementwise ops compose from forward ops, reusing the
// forward result where the derivative is cheaper in terms of it (exp, tanh,
// sigmoid, sqrt, reciprocal). Gradients of broadcast operands are summed
// back to the operand's shape.
//
//===----------------------------------------------------------------------===//

#include "dialects/HetGraph/Gradients/GradientBuilders.h"

#include <cmath>

using namespace mlir;
using namespace hetc::hetg;

namespace {

RankedTensorType rankedType(Value value) {
  return llvm::cast<RankedTensorType>(value.getType());
}

Type elementType(Value value) { return rankedType(value).getElementType(); }

/// Gradients of a one-operand op: `dx = derivative()` when asked for.
LogicalResult unaryGradient(Value resultGrad, ArrayRef<bool> needsGradient,
                            SmallVectorImpl<Value> &operandGradients,
                            llvm::function_ref<Value()> derivative) {
  operandGradients.push_back(resultGrad && needsGradient[0] ? derivative()
                                                            : Value());
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

LogicalResult NegOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    ArrayRef<bool> needs,
                                    SmallVectorImpl<Value> &grads) {
  return unaryGradient(dys[0], needs, grads, [&]() -> Value {
    return NegOp::create(b, getLoc(), dys[0]);
  });
}

LogicalResult SqrtOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                     ArrayRef<bool> needs,
                                     SmallVectorImpl<Value> &grads) {
  // d sqrt(x) = 1 / (2 y)
  return unaryGradient(dys[0], needs, grads, [&]() -> Value {
    Location loc = getLoc();
    Value two = buildScalar(b, loc, elementType(getResult()), 2.0);
    Value twiceY = MulOp::create(b, loc, getResult(), two);
    return DivOp::create(b, loc, dys[0], twiceY);
  });
}

LogicalResult ReciprocalOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                           ArrayRef<bool> needs,
                                           SmallVectorImpl<Value> &grads) {
  // d (1/x) = -y^2
  return unaryGradient(dys[0], needs, grads, [&]() -> Value {
    Location loc = getLoc();
    Value squared = MulOp::create(b, loc, getResult(), getResult());
    return NegOp::create(b, loc, MulOp::create(b, loc, dys[0], squared));
  });
}

LogicalResult ExpOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    ArrayRef<bool> needs,
                                    SmallVectorImpl<Value> &grads) {
  return unaryGradient(dys[0], needs, grads, [&]() -> Value {
    return MulOp::create(b, getLoc(), dys[0], getResult());
  });
}

LogicalResult LogOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    ArrayRef<bool> needs,
                                    SmallVectorImpl<Value> &grads) {
  return unaryGradient(dys[0], needs, grads, [&]() -> Value {
    return DivOp::create(b, getLoc(), dys[0], getInput());
  });
}

LogicalResult TanhOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                     ArrayRef<bool> needs,
                                     SmallVectorImpl<Value> &grads) {
  // d tanh(x) = 1 - y^2
  return unaryGradient(dys[0], needs, grads, [&]() -> Value {
    Location loc = getLoc();
    Value one = buildScalar(b, loc, elementType(getResult()), 1.0);
    Value squared = MulOp::create(b, loc, getResult(), getResult());
    Value slope = SubOp::create(b, loc, one, squared);
    return MulOp::create(b, loc, dys[0], slope);
  });
}

LogicalResult CosOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    ArrayRef<bool> needs,
                                    SmallVectorImpl<Value> &grads) {
  // d cos(x) = -sin(x)
  return unaryGradient(dys[0], needs, grads, [&]() -> Value {
    Location loc = getLoc();
    Value sine = SinOp::create(b, loc, getInput());
    return NegOp::create(b, loc, MulOp::create(b, loc, dys[0], sine));
  });
}

LogicalResult SinOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    ArrayRef<bool> needs,
                                    SmallVectorImpl<Value> &grads) {
  // d sin(x) = cos(x)
  return unaryGradient(dys[0], needs, grads, [&]() -> Value {
    Location loc = getLoc();
    return MulOp::create(b, loc, dys[0], CosOp::create(b, loc, getInput()));
  });
}

LogicalResult ErfOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    ArrayRef<bool> needs,
                                    SmallVectorImpl<Value> &grads) {
  // d erf(x) = 2 / sqrt(pi) * exp(-x^2)
  return unaryGradient(dys[0], needs, grads, [&]() -> Value {
    Location loc = getLoc();
    Value squared = MulOp::create(b, loc, getInput(), getInput());
    Value gauss = ExpOp::create(b, loc, NegOp::create(b, loc, squared));
    Value coefficient =
        buildScalar(b, loc, elementType(getInput()), 2.0 / std::sqrt(M_PI));
    Value slope = MulOp::create(b, loc, gauss, coefficient);
    return MulOp::create(b, loc, dys[0], slope);
  });
}

LogicalResult SigmoidOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                        ArrayRef<bool> needs,
                                        SmallVectorImpl<Value> &grads) {
  // d sigmoid(x) = y (1 - y)
  return unaryGradient(dys[0], needs, grads, [&]() -> Value {
    Location loc = getLoc();
    Value one = buildScalar(b, loc, elementType(getResult()), 1.0);
    Value complement = SubOp::create(b, loc, one, getResult());
    Value slope = MulOp::create(b, loc, getResult(), complement);
    return MulOp::create(b, loc, dys[0], slope);
  });
}

LogicalResult ReluOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                     ArrayRef<bool> needs,
                                     SmallVectorImpl<Value> &grads) {
  // The gradient passes where y > 0, that is where y != 0 (torch: 0 at 0).
  return unaryGradient(dys[0], needs, grads, [&]() -> Value {
    Location loc = getLoc();
    Value zero = buildScalar(b, loc, elementType(getResult()), 0.0);
    Value blocked = EqualOp::create(b, loc, getResult(), zero);
    return WhereOp::create(b, loc, blocked, zero, dys[0]);
  });
}

LogicalResult SiluOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                     ArrayRef<bool> needs,
                                     SmallVectorImpl<Value> &grads) {
  return unaryGradient(dys[0], needs, grads, [&]() -> Value {
    return SiluGradOp::create(b, getLoc(), getInput(), dys[0]);
  });
}

LogicalResult GeluOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                     ArrayRef<bool> needs,
                                     SmallVectorImpl<Value> &grads) {
  return unaryGradient(dys[0], needs, grads, [&]() -> Value {
    return GeluGradOp::create(b, getLoc(), getInput(), dys[0],
                              getApproximate());
  });
}

LogicalResult TriluOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                      ArrayRef<bool> needs,
                                      SmallVectorImpl<Value> &grads) {
  return unaryGradient(dys[0], needs, grads, [&]() -> Value {
    return TriluOp::create(b, getLoc(), dys[0], getKAttr(), getUpperAttr());
  });
}

LogicalResult CastOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                     ArrayRef<bool> needs,
                                     SmallVectorImpl<Value> &grads) {
  // Only float-to-float casts carry a gradient; it is cast back.
  Type from = elementType(getInput());
  bool floats = llvm::isa<FloatType>(from) && llvm::isa<FloatType>(getTo());
  return unaryGradient(floats ? dys[0] : Value(), needs, grads, [&]() -> Value {
    return CastOp::create(b, getLoc(), dys[0], from);
  });
}

//===----------------------------------------------------------------------===//
// Binary with broadcasting
//===----------------------------------------------------------------------===//

namespace {

/// Gradients of `lhs` and `rhs` of a broadcasting binary op from the
/// full-shape contributions `lhsTerm()` and `rhsTerm()`.
LogicalResult binaryGradients(OpBuilder &b, Location loc, Value lhs, Value rhs,
                              Value resultGrad, ArrayRef<bool> needs,
                              SmallVectorImpl<Value> &grads,
                              llvm::function_ref<Value()> lhsTerm,
                              llvm::function_ref<Value()> rhsTerm) {
  bool any = resultGrad && llvm::isa<FloatType>(elementType(lhs));
  grads.push_back(any && needs[0]
                      ? sumToShape(b, loc, lhsTerm(), rankedType(lhs))
                      : Value());
  grads.push_back(any && needs[1]
                      ? sumToShape(b, loc, rhsTerm(), rankedType(rhs))
                      : Value());
  return success();
}

} // namespace

LogicalResult AddOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    ArrayRef<bool> needs,
                                    SmallVectorImpl<Value> &grads) {
  return binaryGradients(
      b, getLoc(), getLhs(), getRhs(), dys[0], needs, grads,
      [&] { return dys[0]; }, [&] { return dys[0]; });
}

LogicalResult SubOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    ArrayRef<bool> needs,
                                    SmallVectorImpl<Value> &grads) {
  if (failed(binaryGradients(
          b, getLoc(), getLhs(), getRhs(), dys[0], needs, grads,
          [&] { return dys[0]; }, [&] { return dys[0]; })))
    return failure();
  // Negate after summing: the summed tensor is the smaller one.
  if (grads[1])
    grads[1] = NegOp::create(b, getLoc(), grads[1]);
  return success();
}

LogicalResult MulOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    ArrayRef<bool> needs,
                                    SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  return binaryGradients(
      b, loc, getLhs(), getRhs(), dys[0], needs, grads,
      [&]() -> Value { return MulOp::create(b, loc, dys[0], getRhs()); },
      [&]() -> Value { return MulOp::create(b, loc, dys[0], getLhs()); });
}

LogicalResult DivOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    ArrayRef<bool> needs,
                                    SmallVectorImpl<Value> &grads) {
  // d (a / b) / da = 1 / b;  d (a / b) / db = -y / b
  Location loc = getLoc();
  return binaryGradients(
      b, loc, getLhs(), getRhs(), dys[0], needs, grads,
      [&]() -> Value { return DivOp::create(b, loc, dys[0], getRhs()); },
      [&]() -> Value {
        Value scaled = MulOp::create(b, loc, dys[0], getResult());
        return NegOp::create(b, loc, DivOp::create(b, loc, scaled, getRhs()));
      });
}

LogicalResult PowOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                    ArrayRef<bool> needs,
                                    SmallVectorImpl<Value> &grads) {
  // d a^e / da = e a^(e-1);  d a^e / de = y log(a)
  Location loc = getLoc();
  return binaryGradients(
      b, loc, getLhs(), getRhs(), dys[0], needs, grads,
      [&]() -> Value {
        Value one = buildScalar(b, loc, elementType(getRhs()), 1.0);
        Value lowered = SubOp::create(b, loc, getRhs(), one);
        Value power = PowOp::create(b, loc, getLhs(), lowered);
        Value slope = MulOp::create(b, loc, getRhs(), power);
        return MulOp::create(b, loc, dys[0], slope);
      },
      [&]() -> Value {
        Value log = LogOp::create(b, loc, getLhs());
        Value slope = MulOp::create(b, loc, getResult(), log);
        return MulOp::create(b, loc, dys[0], slope);
      });
}

namespace {

/// Gradients of minimum and maximum: each operand gets the gradient where
/// it is the result, split evenly where both are (as torch does).
LogicalResult extremumGradients(OpBuilder &b, Location loc, Value lhs,
                                Value rhs, Value result, Value resultGrad,
                                ArrayRef<bool> needs,
                                SmallVectorImpl<Value> &grads) {
  Type element = elementType(result);
  Value lhsPicked, rhsPicked, share;
  if (resultGrad && llvm::isa<FloatType>(element)) {
    lhsPicked =
        CastOp::create(b, loc, EqualOp::create(b, loc, lhs, result), element);
    rhsPicked =
        CastOp::create(b, loc, EqualOp::create(b, loc, rhs, result), element);
    Value ways = AddOp::create(b, loc, lhsPicked, rhsPicked);
    share = DivOp::create(b, loc, resultGrad, ways);
  }
  return binaryGradients(
      b, loc, lhs, rhs, resultGrad, needs, grads,
      [&]() -> Value { return MulOp::create(b, loc, share, lhsPicked); },
      [&]() -> Value { return MulOp::create(b, loc, share, rhsPicked); });
}

} // namespace

LogicalResult MinimumOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                        ArrayRef<bool> needs,
                                        SmallVectorImpl<Value> &grads) {
  return extremumGradients(b, getLoc(), getLhs(), getRhs(), getResult(), dys[0],
                           needs, grads);
}

LogicalResult MaximumOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                        ArrayRef<bool> needs,
                                        SmallVectorImpl<Value> &grads) {
  return extremumGradients(b, getLoc(), getLhs(), getRhs(), getResult(), dys[0],
                           needs, grads);
}

LogicalResult WhereOp::buildGradients(OpBuilder &b, ArrayRef<Value> dys,
                                      ArrayRef<bool> needs,
                                      SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  Value dy = dys[0];
  bool floats = dy && llvm::isa<FloatType>(elementType(getOnTrue()));
  grads.push_back(Value()); // the condition
  auto branch = [&](bool taken, Value operand) -> Value {
    Value zero = buildScalar(b, loc, elementType(operand), 0.0);
    Value picked = taken ? WhereOp::create(b, loc, getCondition(), dy, zero)
                         : WhereOp::create(b, loc, getCondition(), zero, dy);
    return sumToShape(b, loc, picked, rankedType(operand));
  };
  grads.push_back(floats && needs[1] ? branch(true, getOnTrue()) : Value());
  grads.push_back(floats && needs[2] ? branch(false, getOnFalse()) : Value());
  return success();
}
