//===- LogicOps.cpp - ONNX comparisons and boolean ops to hetg ------------===//
//
// Greater, GreaterOrEqual, Less, LessOrEqual, Not, And, Or: what exports use
// to build masks, which usually fold to constants. hetg compares with
// `equal` only, so each is built from equal, maximum/minimum and where,
// exactly (a NaN operand compares false, as in ONNX):
//   a >= b  =  max(a, b) == a          a <= b  =  min(a, b) == a
//   a >  b  =  a == b ? false : a >= b a <  b  =  a == b ? false : a <= b
//   !x = x == false,  x && y = x ? y : false,  x || y = x ? true : y
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/ONNX/OpTable.h"

using namespace mlir;

namespace hetc::onnximport {

namespace {

/// max(a, b) == a (or min(a, b) == a): a >= b (or a <= b).
template <typename ExtremumOp>
FailureOr<Value> atLeastOrAtMost(NodeContext &ctx, Value a, Value b) {
  FailureOr<Value> extremum = ctx.create<ExtremumOp>(a, b);
  if (failed(extremum))
    return failure();
  return ctx.create<hetg::EqualOp>(*extremum, a);
}

Value boolConstant(NodeContext &ctx, bool value) {
  return ctx.scalarConstant(ctx.builder().getI1Type(), value ? 1.0 : 0.0);
}

template <typename ExtremumOp>
LogicalResult convertOrEqual(NodeContext &ctx) {
  return ctx.bindResult(
      atLeastOrAtMost<ExtremumOp>(ctx, ctx.input(0), ctx.input(1)));
}

template <typename ExtremumOp> LogicalResult convertStrict(NodeContext &ctx) {
  Value a = ctx.input(0), b = ctx.input(1);
  FailureOr<Value> orEqual = atLeastOrAtMost<ExtremumOp>(ctx, a, b);
  FailureOr<Value> equal = ctx.create<hetg::EqualOp>(a, b);
  if (failed(orEqual) || failed(equal))
    return failure();
  return ctx.bindResult(
      ctx.create<hetg::WhereOp>(*equal, boolConstant(ctx, false), *orEqual));
}

LogicalResult convertNot(NodeContext &ctx) {
  return ctx.bindResult(
      ctx.create<hetg::EqualOp>(ctx.input(0), boolConstant(ctx, false)));
}

LogicalResult convertAnd(NodeContext &ctx) {
  return ctx.bindResult(ctx.create<hetg::WhereOp>(
      ctx.input(0), ctx.input(1), boolConstant(ctx, false)));
}

LogicalResult convertOr(NodeContext &ctx) {
  return ctx.bindResult(ctx.create<hetg::WhereOp>(
      ctx.input(0), boolConstant(ctx, true), ctx.input(1)));
}

} // namespace

void addLogicConverters(OpTable &table) {
  table["GreaterOrEqual"] = {convertOrEqual<hetg::MaximumOp>, 2, 2};
  table["LessOrEqual"] = {convertOrEqual<hetg::MinimumOp>, 2, 2};
  table["Greater"] = {convertStrict<hetg::MaximumOp>, 2, 2};
  table["Less"] = {convertStrict<hetg::MinimumOp>, 2, 2};
  table["Not"] = {convertNot, 1, 1};
  table["And"] = {convertAnd, 2, 2};
  table["Or"] = {convertOr, 2, 2};
}

} // namespace hetc::onnximport
