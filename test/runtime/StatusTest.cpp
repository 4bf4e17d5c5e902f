//===- StatusTest.cpp - status, tensor views -------------------------------===//

#include "runtime/base/Status.h"
#include "runtime/base/Tensor.h"

#include "TestUtil.h"

#include <cerrno>

namespace hetc::runtime::test {
namespace {

int contextEvaluations = 0;

std::string expensiveContext() {
  ++contextEvaluations;
  return "layer 3";
}

Status failing() { return outOfRange("index ", 7, " is past ", 5); }
Status passing() { return okStatus(); }

Status propagate(bool fail) {
  HETC_RETURN_IF_ERROR(passing(), expensiveContext());
  HETC_RETURN_IF_ERROR(fail ? failing() : passing(), expensiveContext(), " qkv");
  return okStatus();
}

Status shortSpelling() {
  RETURN_IF_ERROR(failing());
  return internalError("not reached");
}

TEST(Status, OkAndErrors) {
  Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.toString(), "OK");
  Status err = invalidArgument("shape ", shapeToString({2, 3}), " is wrong");
  EXPECT_FALSE(err.ok());
  EXPECT_EQ(err.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(err.toString(), "INVALID_ARGUMENT: shape [2,3] is wrong");
  err.annotate("gemm");
  EXPECT_EQ(err.message(), "gemm: shape [2,3] is wrong");
  ok.annotate("ignored");
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.message(), "");
}

TEST(Status, ReturnIfErrorAddsContextOnlyOnError) {
  contextEvaluations = 0;
  HETC_ASSERT_OK(propagate(false));
  EXPECT_EQ(contextEvaluations, 0);
  Status s = propagate(true);
  EXPECT_EQ(contextEvaluations, 1);
  EXPECT_EQ(s.toString(), "OUT_OF_RANGE: layer 3 qkv: index 7 is past 5");
  EXPECT_EQ(shortSpelling().message(), "index 7 is past 5");
}

TEST(Status, ErrnoMapping) {
  EXPECT_EQ(errnoStatus(ENOENT, "open x").code(), StatusCode::kNotFound);
  EXPECT_EQ(errnoStatus(ENOMEM, "mmap").code(), StatusCode::kResourceExhausted);
  EXPECT_NE(errnoStatus(ENOENT, "open x").message().find("open x: "),
            std::string::npos);
}

TEST(Tensor, ViewBasics) {
  std::vector<int32_t> data(24);
  TensorView t = makeView(data.data(), {2, 3, 4});
  EXPECT_EQ(t.dtype, DType::kI32);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.byteSize(), 96u);
  EXPECT_EQ(t.describe(), "i32[2,3,4]");
  EXPECT_EQ(t.as<int32_t>(), data.data());
  TensorView scalar(data.data(), DType::kF32, {});
  EXPECT_EQ(scalar.numel(), 1);
  EXPECT_EQ(dtypeSize(DType::kBool), 1u);
  EXPECT_STREQ(dtypeName(DType::kF64), "f64");
}

TEST(Tensor, Checks) {
  TensorView t(nullptr, DType::kF32, {2, 2});
  EXPECT_TRUE(isError(checkData(t, "x"), StatusCode::kInvalidArgument, "x has no data"));
  TensorView empty(nullptr, DType::kF32, {0, 2});
  HETC_ASSERT_OK(checkData(empty, "x"));
  TensorView negative(nullptr, DType::kF32, {-1});
  EXPECT_TRUE(isError(checkData(negative, "x"), StatusCode::kInvalidArgument,
                      "x has a negative dimension: [-1]"));
  int64_t axis = 0;
  HETC_ASSERT_OK(normalizeAxis(-1, 3, &axis));
  EXPECT_EQ(axis, 2);
  EXPECT_TRUE(isError(normalizeAxis(-4, 3, &axis), StatusCode::kInvalidArgument,
                      "axis -4 is out of range for rank 3"));
  Shape out;
  HETC_ASSERT_OK(broadcastShapes({4, 1, 3}, {5, 1}, &out));
  EXPECT_EQ(out, (Shape{4, 5, 3}));
}

} // namespace
} // namespace hetc::runtime::test
