//===- ShapeInferenceTest.cpp - shape rules shared by ops and importer ----===//

#include "dialects/HetGraph/ShapeInference.h"

#include <gtest/gtest.h>

using namespace hetc::hetg;

namespace {

Shape shapeOf(std::initializer_list<int64_t> dims) { return Shape(dims); }

TEST(BroadcastShapes, AlignsTrailingDimensions) {
  auto result = broadcastShapes({2, 16, 64}, {64});
  ASSERT_TRUE(mlir::succeeded(result));
  EXPECT_EQ(*result, shapeOf({2, 16, 64}));
}

TEST(BroadcastShapes, RepeatsSizeOne) {
  auto result = broadcastShapes({2, 1, 16}, {4, 1});
  ASSERT_TRUE(mlir::succeeded(result));
  EXPECT_EQ(*result, shapeOf({2, 4, 16}));
}

TEST(BroadcastShapes, DynamicTakesTheStaticSize) {
  auto result = broadcastShapes({kDynamic, 16}, {1, 16});
  ASSERT_TRUE(mlir::succeeded(result));
  EXPECT_EQ(*result, shapeOf({kDynamic, 16}));
  result = broadcastShapes({kDynamic}, {8});
  ASSERT_TRUE(mlir::succeeded(result));
  EXPECT_EQ(*result, shapeOf({8}));
}

TEST(BroadcastShapes, RejectsMismatch) {
  std::string error;
  EXPECT_TRUE(mlir::failed(broadcastShapes({3}, {4}, &error)));
  EXPECT_EQ(error, "dimension 0 is 3 in one operand and 4 in the other; they "
                   "do not broadcast");
}

TEST(ResolveReshape, CopiesZerosAndInfersMinusOne) {
  auto result = resolveReshape({2, 16, 64}, {0, 0, 4, -1});
  ASSERT_TRUE(mlir::succeeded(result));
  EXPECT_EQ(*result, shapeOf({2, 16, 4, 16}));
}

TEST(ResolveReshape, LeavesInferredDynamicWhenCountUnknown) {
  auto result = resolveReshape({kDynamic, 16}, {-1, 4, 4});
  ASSERT_TRUE(mlir::succeeded(result));
  EXPECT_EQ(*result, shapeOf({kDynamic, 4, 4}));
}

TEST(ResolveReshape, RejectsTwoInferredEntries) {
  std::string error;
  EXPECT_TRUE(mlir::failed(resolveReshape({6}, {-1, -1}, &error)));
  EXPECT_EQ(error, "shape has more than one -1 entry");
}

TEST(ResolveReshape, RejectsIndivisibleCount) {
  std::string error;
  EXPECT_TRUE(mlir::failed(resolveReshape({7}, {2, -1}, &error)));
}

TEST(ResolveReshape, AllowZeroMakesEmptyDimensions) {
  auto result = resolveReshape({0, 3}, {3, 0}, nullptr, /*allowZero=*/true);
  ASSERT_TRUE(mlir::succeeded(result));
  EXPECT_EQ(*result, shapeOf({3, 0}));
  std::string error;
  EXPECT_TRUE(mlir::failed(
      resolveReshape({0, 3}, {0, -1}, &error, /*allowZero=*/true)));
  EXPECT_EQ(error, "shape has both -1 and 0 entries, which allowzero forbids");
}

TEST(Slice, ClampsAndCountsFromTheEnd) {
  EXPECT_EQ(slicedSize(16, 0, INT64_MAX, 1), 16);
  EXPECT_EQ(slicedSize(16, -4, INT64_MAX, 1), 4);
  EXPECT_EQ(slicedSize(16, 1, 16, 2), 8);
  EXPECT_EQ(slicedSize(16, 8, 4, 1), 0);
  EXPECT_EQ(slicedSize(kDynamic, 0, 4, 1), kDynamic);
}

TEST(NormalizeAxis, HandlesNegativeAndRange) {
  EXPECT_EQ(normalizeAxis(-1, 3), 2);
  EXPECT_EQ(normalizeAxis(2, 3), 2);
  EXPECT_FALSE(normalizeAxis(3, 3).has_value());
  EXPECT_FALSE(normalizeAxis(-4, 3).has_value());
}

} // namespace
