//===- ConstantEvalTest.cpp - evaluating hetg ops on constants ------------===//

#include "dialects/HetGraph/ConstantEval.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace hetc::hetg;

namespace {

class ConstantEvalTest : public ::testing::Test {
protected:
  MLIRContext context;
  Builder builder{&context};

  DenseElementsAttr ints(ArrayRef<int64_t> shape, ArrayRef<int64_t> values) {
    return DenseIntElementsAttr::get(
        RankedTensorType::get(shape, builder.getI64Type()), values);
  }
  DenseElementsAttr floats(ArrayRef<int64_t> shape, ArrayRef<float> values) {
    return DenseFPElementsAttr::get(
        RankedTensorType::get(shape, builder.getF32Type()), values);
  }
};

TEST_F(ConstantEvalTest, BroadcastIndicesRepeatSizeOneDimensions) {
  EXPECT_EQ(broadcastSourceIndices({2, 1}, {2, 3}),
            (std::vector<int64_t>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(broadcastSourceIndices({3}, {2, 3}),
            (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
}

TEST_F(ConstantEvalTest, FoldsIntegerBinaryWithBroadcast) {
  Attribute sum = foldBroadcastBinary(
      ints({2, 1}, {10, 20}), ints({3}, {1, 2, 3}), builder.getI64Type(),
      [](double a, double b) { return a + b; },
      [](int64_t a, int64_t b) { return a + b; });
  EXPECT_EQ(sum, ints({2, 3}, {11, 12, 13, 21, 22, 23}));
}

TEST_F(ConstantEvalTest, ComparisonsProduceBool) {
  Attribute equal = foldBroadcastBinary(
      ints({3}, {1, 2, 3}), ints({}, {2}), builder.getI1Type(),
      [](double a, double b) { return double(a == b); },
      [](int64_t a, int64_t b) { return int64_t(a == b); });
  auto expected = DenseIntElementsAttr::get(
      RankedTensorType::get({3}, builder.getI1Type()),
      ArrayRef<bool>{false, true, false});
  EXPECT_EQ(equal, expected);
}

TEST_F(ConstantEvalTest, FloatUnaryRoundsToElementType) {
  Attribute root = foldFloatUnary(floats({2}, {4.0f, 2.0f}),
                                  [](double x) { return std::sqrt(x); });
  EXPECT_EQ(root, floats({2}, {2.0f, std::sqrt(2.0f)}));
}

TEST_F(ConstantEvalTest, RefusesMixedKinds) {
  Attribute mixed = foldBroadcastBinary(
      ints({1}, {1}), floats({1}, {1.0f}), builder.getF32Type(),
      [](double a, double b) { return a + b; },
      [](int64_t a, int64_t b) { return a + b; });
  EXPECT_FALSE(mixed);
}

TEST_F(ConstantEvalTest, ReadsSplats) {
  auto splat = DenseElementsAttr::get(
      RankedTensorType::get({2, 2}, builder.getF32Type()), 1.5f);
  std::optional<ConstantValues> values = readConstant(splat);
  ASSERT_TRUE(values.has_value());
  EXPECT_EQ(values->floats, (std::vector<double>{1.5, 1.5, 1.5, 1.5}));
}

} // namespace
