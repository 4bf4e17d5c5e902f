//===- CrossEntropyTest.cpp - CUDA CrossEntropy against the CPU backend ---===//

#include "runtime/cpu/CrossEntropy.h"
#include "runtime/cuda/CrossEntropy.h"

#include "test/runtime/cuda/CudaTestUtil.h"

namespace hetc::runtime::cuda::test {
namespace {

const DType kFloatTypes[] = {DType::kF32, DType::kBF16, DType::kF16};
const LossReduction kReductions[] = {LossReduction::kNone, LossReduction::kSum,
                                     LossReduction::kMean};

// [N, C] with C of 1, 3, 769 and 50257, and [N, C, d] with classes strided.
const Shape kShapes[] = {{3, 1},    {4, 3},       {6, 769}, {3, 50257},
                         {2, 5, 3}, {2, 7, 2, 3}, {70, 10}};

Shape labelShape(const Shape &logits) {
  Shape s = logits;
  s.erase(s.begin() + 1);
  return s;
}

// Labels in [0, C) with every third one ignored (the first is never).
std::vector<int64_t> makeLabels(int64_t count, int64_t classes,
                                int64_t ignoreIndex, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int64_t> dist(0, classes - 1);
  std::vector<int64_t> labels(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    labels[i] = i % 3 == 2 ? ignoreIndex : dist(gen);
  return labels;
}

// A device tensor of the labels as i64 or i32.
void writeLabels(DeviceTensor &t, DType dtype, const std::vector<int64_t> &v) {
  if (dtype == DType::kI64) {
    t.write(v);
    return;
  }
  std::vector<int32_t> narrow(v.begin(), v.end());
  t.write(narrow);
}

struct Case {
  Shape logits;
  DType dtype;
  DType labelType;
  LossReduction reduction;
  int64_t ignoreIndex;
};

std::string label(const Case &c) {
  return shapeToString(c.logits) + " " + dtypeName(c.dtype) + " labels " +
         dtypeName(c.labelType) + " reduction " +
         std::to_string(static_cast<int>(c.reduction)) + " ignore " +
         std::to_string(c.ignoreIndex);
}

void checkCase(const Case &c) {
  SCOPED_TRACE(label(c));
  CrossEntropyOptions options;
  options.reduction = c.reduction;
  options.ignoreIndex = c.ignoreIndex;
  Shape ls = labelShape(c.logits);
  int64_t n = numElements(c.logits), rows = numElements(ls);
  std::vector<float> logits = randomValues(n, c.dtype, -3.0f, 3.0f, 31);
  std::vector<int64_t> labels =
      makeLabels(rows, c.logits[1], c.ignoreIndex, 32);
  bool reduced = c.reduction != LossReduction::kNone;
  Shape lossShape = reduced ? Shape{} : ls;
  int64_t lossCount = reduced ? 1 : rows;

  // Forward.
  std::vector<float> loss(lossCount), lse(rows);
  TensorView cLse = makeView(lse.data(), ls);
  ASSERT_TRUE(cpu::crossEntropy(makeView(logits.data(), c.logits),
                                makeView(labels.data(), ls), options,
                                makeView(loss.data(), lossShape), &cLse)
                  .ok());
  DeviceTensor dLogits(c.dtype, c.logits, logits), dLabels(c.labelType, ls);
  writeLabels(dLabels, c.labelType, labels);
  DeviceTensor dLoss(DType::kF32, lossShape), dLse(DType::kF32, ls);
  TensorView gLse = dLse.view();
  HETC_EXPECT_CUDA_OK(crossEntropy(dLogits.view(), dLabels.view(), options,
                                   dLoss.view(), &gLse));
  expectClose(dLoss.readFloats(), loss, 1e-5, 1e-5, "loss");
  expectClose(dLse.readFloats(), lse, 1e-5, 1e-5, "lse");

  // Without lse, the loss is the same.
  DeviceTensor dLoss2(DType::kF32, lossShape);
  HETC_EXPECT_CUDA_OK(crossEntropy(dLogits.view(), dLabels.view(), options,
                                   dLoss2.view(), nullptr));
  expectClose(dLoss2.readFloats(), loss, 1e-5, 1e-5, "loss without lse");

  // Backward, from the CPU's lse and recomputing it.
  std::vector<float> dloss =
      randomValues(lossCount, DType::kF32, 0.5f, 2.0f, 33);
  std::vector<float> want(n);
  ASSERT_TRUE(cpu::crossEntropyBackward(makeView(logits.data(), c.logits),
                                        makeView(labels.data(), ls), options,
                                        makeView(dloss.data(), lossShape),
                                        &cLse, makeView(want.data(), c.logits))
                  .ok());
  DeviceTensor dDloss(DType::kF32, lossShape, dloss),
      cpuLse(DType::kF32, ls, lse);
  for (bool withLse : {true, false}) {
    SCOPED_TRACE(withLse ? "with lse" : "recomputing lse");
    DeviceTensor dDlogits(c.dtype, c.logits);
    TensorView l = cpuLse.view();
    HETC_EXPECT_CUDA_OK(crossEntropyBackward(
        dLogits.view(), dLabels.view(), options, dDloss.view(),
        withLse ? &l : nullptr, dDlogits.view()));
    expectClose(dDlogits.readFloats(), want, storageTolerance(c.dtype, 1e-4),
                1e-7, "dlogits");
  }
}

TEST(CudaCrossEntropy, MatchesCpu) {
  HETC_REQUIRE_CUDA();
  for (const Shape &shape : kShapes)
    for (DType dtype : kFloatTypes)
      for (LossReduction reduction : kReductions)
        checkCase({shape, dtype, DType::kI64, reduction, -100});
}

TEST(CudaCrossEntropy, Int32LabelsAndCustomIgnoreIndex) {
  HETC_REQUIRE_CUDA();
  for (LossReduction reduction : kReductions) {
    checkCase({{8, 769}, DType::kBF16, DType::kI32, reduction, 2});
    checkCase({{2, 4, 5}, DType::kF32, DType::kI32, reduction, 0});
  }
}

TEST(CudaCrossEntropy, AllIgnoredMeanIsNaN) {
  HETC_REQUIRE_CUDA();
  DeviceTensor logits(DType::kF32, {2, 3}, {1, 2, 3, 4, 5, 6});
  DeviceTensor labels(DType::kI64, {2}), loss(DType::kF32, {});
  labels.write(std::vector<int64_t>{-100, -100});
  CrossEntropyOptions options; // kMean, ignore -100
  HETC_EXPECT_CUDA_OK(crossEntropy(logits.view(), labels.view(), options,
                                   loss.view(), nullptr));
  EXPECT_TRUE(std::isnan(loss.readFloats()[0]));
  options.reduction = LossReduction::kSum;
  HETC_EXPECT_CUDA_OK(crossEntropy(logits.view(), labels.view(), options,
                                   loss.view(), nullptr));
  EXPECT_EQ(loss.readFloats()[0], 0.0f);
  DeviceTensor dloss(DType::kF32, {}, {1.0f}), dlogits(DType::kF32, {2, 3});
  options.reduction = LossReduction::kMean;
  HETC_EXPECT_CUDA_OK(crossEntropyBackward(logits.view(), labels.view(),
                                           options, dloss.view(), nullptr,
                                           dlogits.view()));
  for (float g : dlogits.readFloats())
    EXPECT_EQ(g, 0.0f); // ignored rows are zero, whatever the weight
}

// Labels are not checked on the device: one out of range gives a NaN loss
// for its row and a zero gradient row, and reads nothing out of bounds.
TEST(CudaCrossEntropy, LabelOutOfRangeIsNaNLossAndZeroGradient) {
  HETC_REQUIRE_CUDA();
  DeviceTensor logits(DType::kF32, {3, 4},
                      {0, 1, 2, 3, 3, 2, 1, 0, 1, 1, 1, 1});
  DeviceTensor labels(DType::kI64, {3}), loss(DType::kF32, {3});
  labels.write(std::vector<int64_t>{1, 4, -1});
  CrossEntropyOptions options;
  options.reduction = LossReduction::kNone;
  HETC_EXPECT_CUDA_OK(crossEntropy(logits.view(), labels.view(), options,
                                   loss.view(), nullptr));
  std::vector<float> got = loss.readFloats();
  EXPECT_FALSE(std::isnan(got[0]));
  EXPECT_TRUE(std::isnan(got[1]));
  EXPECT_TRUE(std::isnan(got[2]));
  DeviceTensor dloss(DType::kF32, {3}, {1, 1, 1}), dlogits(DType::kF32, {3, 4});
  HETC_EXPECT_CUDA_OK(crossEntropyBackward(logits.view(), labels.view(),
                                           options, dloss.view(), nullptr,
                                           dlogits.view()));
  std::vector<float> g = dlogits.readFloats();
  for (int i = 4; i < 12; ++i)
    EXPECT_EQ(g[i], 0.0f) << i;
}

// The reduced loss is summed in a fixed order: the same bits every time.
TEST(CudaCrossEntropy, ReducedLossIsReproducible) {
  HETC_REQUIRE_CUDA();
  Shape shape{512, 1000};
  DeviceTensor logits(DType::kBF16, shape,
                      randomValues(512 * 1000, DType::kBF16, -5.0f, 5.0f, 34));
  DeviceTensor labels(DType::kI64, {512}), loss(DType::kF32, {});
  labels.write(makeLabels(512, 1000, -100, 35));
  CrossEntropyOptions options;
  HETC_EXPECT_CUDA_OK(crossEntropy(logits.view(), labels.view(), options,
                                   loss.view(), nullptr));
  float first = loss.readFloats()[0];
  for (int i = 0; i < 3; ++i) {
    HETC_EXPECT_CUDA_OK(crossEntropy(logits.view(), labels.view(), options,
                                     loss.view(), nullptr));
    float again = loss.readFloats()[0];
    EXPECT_EQ(std::memcmp(&first, &again, sizeof(float)), 0);
  }
}

TEST(CudaCrossEntropy, Errors) {
  HETC_REQUIRE_CUDA();
  DeviceTensor logits(DType::kF32, {2, 3}), logitsI(DType::kI32, {2, 3});
  DeviceTensor flat(DType::kF32, {6}), labels(DType::kI64, {2});
  DeviceTensor labelsF(DType::kF32, {2}), labelsWrong(DType::kI64, {3});
  DeviceTensor loss(DType::kF32, {}), rowLoss(DType::kF32, {2});
  DeviceTensor lseHalf(DType::kF16, {2}), dlogitsHalf(DType::kF16, {2, 3});
  CrossEntropyOptions mean;
  auto expectInvalid = [](const Status &status, const char *name) {
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.toString();
    EXPECT_NE(status.message().find(name), std::string::npos)
        << status.message();
  };
  expectInvalid(
      crossEntropy(logitsI.view(), labels.view(), mean, loss.view(), nullptr),
      "cross_entropy");
  expectInvalid(
      crossEntropy(flat.view(), labels.view(), mean, loss.view(), nullptr),
      "cross_entropy");
  expectInvalid(
      crossEntropy(logits.view(), labelsF.view(), mean, loss.view(), nullptr),
      "cross_entropy");
  expectInvalid(crossEntropy(logits.view(), labelsWrong.view(), mean,
                             loss.view(), nullptr),
                "cross_entropy");
  expectInvalid(
      crossEntropy(logits.view(), labels.view(), mean, rowLoss.view(), nullptr),
      "cross_entropy");
  TensorView lh = lseHalf.view();
  expectInvalid(
      crossEntropy(logits.view(), labels.view(), mean, loss.view(), &lh),
      "cross_entropy");
  CrossEntropyOptions none;
  none.reduction = LossReduction::kNone;
  expectInvalid(
      crossEntropy(logits.view(), labels.view(), none, loss.view(), nullptr),
      "cross_entropy");
  expectInvalid(crossEntropyBackward(logits.view(), labels.view(), mean,
                                     loss.view(), nullptr, dlogitsHalf.view()),
                "cross_entropy_backward");
  expectInvalid(crossEntropyBackward(logits.view(), labels.view(), none,
                                     loss.view(), nullptr, logits.view()),
                "cross_entropy_backward");
}

} // namespace
} // namespace hetc::runtime::cuda::test
