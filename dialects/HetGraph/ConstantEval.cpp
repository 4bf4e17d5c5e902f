//===- ConstantEval.cpp - evaluating hetg ops on constants ----------------===//

#include "dialects/HetGraph/ConstantEval.h"
#include "dialects/HetGraph/ShapeInference.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"

namespace hetc::hetg {

std::optional<ConstantValues> readConstant(mlir::Attribute attr) {
  auto dense = llvm::dyn_cast_if_present<mlir::DenseElementsAttr>(attr);
  if (!dense)
    return std::nullopt;
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(dense.getType());
  if (!type || !type.hasStaticShape() ||
      type.getNumElements() > kMaxFoldedElements)
    return std::nullopt;
  ConstantValues values;
  values.type = type;
  mlir::Type element = type.getElementType();
  if (llvm::isa<mlir::FloatType>(element)) {
    values.isFloat = true;
    values.floats.reserve(type.getNumElements());
    for (const llvm::APFloat &v : dense.getValues<llvm::APFloat>())
      values.floats.push_back(v.convertToDouble());
    if (dense.isSplat())
      values.floats.resize(type.getNumElements(), values.floats.front());
    return values;
  }
  if (!element.isIntOrIndex())
    return std::nullopt;
  bool isUnsigned = element.isUnsignedInteger() || element.isInteger(1);
  values.ints.reserve(type.getNumElements());
  for (const llvm::APInt &v : dense.getValues<llvm::APInt>())
    values.ints.push_back(isUnsigned ? int64_t(v.getZExtValue())
                                     : v.getSExtValue());
  if (dense.isSplat())
    values.ints.resize(type.getNumElements(), values.ints.front());
  return values;
}

mlir::DenseElementsAttr writeConstant(mlir::RankedTensorType type,
                                      const ConstantValues &values) {
  mlir::Type element = type.getElementType();
  if (auto floatType = llvm::dyn_cast<mlir::FloatType>(element)) {
    llvm::SmallVector<llvm::APFloat> out;
    out.reserve(values.size());
    for (int64_t i = 0, e = values.size(); i < e; ++i) {
      llvm::APFloat v(values.asDouble(i));
      bool lost;
      v.convert(floatType.getFloatSemantics(),
                llvm::APFloat::rmNearestTiesToEven, &lost);
      out.push_back(v);
    }
    return mlir::DenseElementsAttr::get(type, out);
  }
  unsigned width = element.getIntOrFloatBitWidth();
  llvm::SmallVector<llvm::APInt> out;
  out.reserve(values.size());
  for (int64_t i = 0, e = values.size(); i < e; ++i) {
    if (width == 1)
      out.emplace_back(1, values.asDouble(i) != 0.0);
    else
      out.emplace_back(width, values.asInt(i), /*isSigned=*/true,
                       /*implicitTrunc=*/true);
  }
  return mlir::DenseElementsAttr::get(type, out);
}

std::vector<int64_t> rowMajorStrides(llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = int64_t(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

std::vector<int64_t> broadcastSourceIndices(llvm::ArrayRef<int64_t> sourceShape,
                                            llvm::ArrayRef<int64_t> resultShape) {
  size_t rank = resultShape.size();
  size_t offset = rank - sourceShape.size();
  std::vector<int64_t> sourceStrides = rowMajorStrides(sourceShape);
  // Stride of each result dimension within the source; 0 where it repeats.
  std::vector<int64_t> strides(rank, 0);
  for (size_t i = offset; i < rank; ++i)
    if (sourceShape[i - offset] != 1)
      strides[i] = sourceStrides[i - offset];
  int64_t count = staticElementCount(resultShape).value_or(0);
  std::vector<int64_t> indices(count);
  std::vector<int64_t> position(rank, 0);
  int64_t source = 0;
  for (int64_t n = 0; n < count; ++n) {
    indices[n] = source;
    // Advance the multi-index like an odometer, tracking the source offset.
    for (int64_t d = int64_t(rank) - 1; d >= 0; --d) {
      source += strides[d];
      if (++position[d] < resultShape[d])
        break;
      source -= strides[d] * resultShape[d];
      position[d] = 0;
    }
  }
  return indices;
}

mlir::Attribute foldBroadcastBinary(mlir::Attribute lhsAttr,
                                    mlir::Attribute rhsAttr,
                                    mlir::Type resultElementType,
                                    FloatFn floatFn, IntFn intFn) {
  std::optional<ConstantValues> lhs = readConstant(lhsAttr);
  std::optional<ConstantValues> rhs = readConstant(rhsAttr);
  if (!lhs || !rhs || lhs->isFloat != rhs->isFloat || (!lhs->isFloat && !intFn))
    return {};
  llvm::FailureOr<Shape> shape =
      broadcastShapes(lhs->type.getShape(), rhs->type.getShape());
  if (mlir::failed(shape) ||
      staticElementCount(*shape).value_or(0) > kMaxFoldedElements)
    return {};
  std::vector<int64_t> li = broadcastSourceIndices(lhs->type.getShape(), *shape);
  std::vector<int64_t> ri = broadcastSourceIndices(rhs->type.getShape(), *shape);
  ConstantValues result;
  result.isFloat = lhs->isFloat;
  for (size_t n = 0; n < li.size(); ++n) {
    if (lhs->isFloat)
      result.floats.push_back(floatFn(lhs->floats[li[n]], rhs->floats[ri[n]]));
    else
      result.ints.push_back(intFn(lhs->ints[li[n]], rhs->ints[ri[n]]));
  }
  return writeConstant(mlir::RankedTensorType::get(*shape, resultElementType),
                       result);
}

std::optional<eval::Array> readArray(mlir::Attribute attr) {
  std::optional<ConstantValues> values = readConstant(attr);
  if (!values || !values->isFloat)
    return std::nullopt;
  return eval::Array(values->type.getShape(), std::move(values->floats));
}

mlir::Attribute writeArray(const eval::Array &array, mlir::Type elementType) {
  if (array.size() > kMaxFoldedElements)
    return {};
  ConstantValues values;
  values.isFloat = true;
  values.floats = array.data;
  return writeConstant(mlir::RankedTensorType::get(array.shape, elementType),
                       values);
}

mlir::Attribute foldFloatUnary(mlir::Attribute inputAttr,
                               llvm::function_ref<double(double)> fn) {
  std::optional<ConstantValues> input = readConstant(inputAttr);
  if (!input || !input->isFloat)
    return {};
  for (double &v : input->floats)
    v = fn(v);
  return writeConstant(input->type, *input);
}

} // namespace hetc::hetg
