//===- NormsTest.cpp - CUDA Norms against the CPU backend -----------------===//

#include "runtime/cpu/Norms.h"
#include "runtime/cuda/Norms.h"

#include "test/runtime/cuda/CudaTestUtil.h"

namespace hetc::runtime::cuda::test {
namespace {

constexpr float kEpsilon = 1e-5f;

struct NormCase {
  Shape shape;
  int64_t axis;
};

// Odd row lengths (1, 3, 769, 50257), a normalized block of two dimensions,
// and enough rows for several parameter-gradient chunks (300 > 2 * 128).
const NormCase kCases[] = {
    {{4, 1}, -1},   {{5, 3}, -1},   {{7, 769}, 1},    {{2, 50257}, -1},
    {{3, 4, 5}, 1}, {{300, 40}, 1}, {{2, 3, 64}, -1},
};

// The dtype pairs (activations, parameters): each float dtype alone, and
// bf16 / f16 activations with f32 parameters.
const std::pair<DType, DType> kDTypes[] = {
    {DType::kF32, DType::kF32}, {DType::kBF16, DType::kBF16},
    {DType::kF16, DType::kF16}, {DType::kBF16, DType::kF32},
    {DType::kF16, DType::kF32},
};

struct Split {
  Shape paramShape;
  int64_t rows, cols;
};

Split split(const Shape &shape, int64_t axis) {
  int64_t a = axis < 0 ? axis + static_cast<int64_t>(shape.size()) : axis;
  Split s;
  s.paramShape = Shape(shape.begin() + a, shape.end());
  s.cols = numElements(s.paramShape);
  s.rows = numElements(shape) / s.cols;
  return s;
}

std::string label(const NormCase &c, DType dtype, DType paramType) {
  return shapeToString(c.shape) + " axis " + std::to_string(c.axis) + " " +
         dtypeName(dtype) + "/" + dtypeName(paramType);
}

// ---- layer norm

void checkLayerNormForward(const NormCase &c, DType dtype, DType paramType,
                           bool withScale, bool withBias) {
  SCOPED_TRACE(label(c, dtype, paramType) + (withScale ? " scale" : "") +
               (withBias ? " bias" : ""));
  Split s = split(c.shape, c.axis);
  int64_t n = numElements(c.shape);
  std::vector<float> x = randomValues(n, dtype, -2.0f, 3.0f, 1);
  std::vector<float> scale = randomValues(s.cols, paramType, 0.5f, 1.5f, 2);
  std::vector<float> bias = randomValues(s.cols, paramType, -0.5f, 0.5f, 3);

  std::vector<float> y(n), mean(s.rows), rstd(s.rows);
  TensorView cScale = makeView(scale.data(), s.paramShape);
  TensorView cBias = makeView(bias.data(), s.paramShape);
  TensorView cMean = makeView(mean.data(), {s.rows});
  TensorView cRstd = makeView(rstd.data(), {s.rows});
  ASSERT_TRUE(cpu::layerNorm(makeView(x.data(), c.shape),
                             withScale ? &cScale : nullptr,
                             withBias ? &cBias : nullptr, c.axis, kEpsilon,
                             makeView(y.data(), c.shape), &cMean, &cRstd)
                  .ok());

  DeviceTensor dX(dtype, c.shape, x), dY(dtype, c.shape);
  DeviceTensor dScale(paramType, s.paramShape, scale);
  DeviceTensor dBias(paramType, s.paramShape, bias);
  DeviceTensor dMean(DType::kF32, {s.rows}), dRstd(DType::kF32, {s.rows});
  TensorView gScale = dScale.view(), gBias = dBias.view();
  TensorView gMean = dMean.view(), gRstd = dRstd.view();
  HETC_EXPECT_CUDA_OK(layerNorm(dX.view(), withScale ? &gScale : nullptr,
                                withBias ? &gBias : nullptr, c.axis, kEpsilon,
                                dY.view(), &gMean, &gRstd));
  expectClose(dY.readFloats(), y, storageTolerance(dtype, 1e-5), 2e-5, "y");
  expectClose(dMean.readFloats(), mean, 1e-5, 1e-6, "mean");
  expectClose(dRstd.readFloats(), rstd, 1e-5, 1e-6, "rstd");
}

TEST(CudaLayerNorm, ForwardMatchesCpu) {
  HETC_REQUIRE_CUDA();
  for (const NormCase &c : kCases)
    for (auto [dtype, paramType] : kDTypes)
      checkLayerNormForward(c, dtype, paramType, true, true);
}

TEST(CudaLayerNorm, ForwardWithoutScaleOrBias) {
  HETC_REQUIRE_CUDA();
  NormCase c{{6, 769}, -1};
  for (DType dtype : {DType::kF32, DType::kBF16}) {
    checkLayerNormForward(c, dtype, dtype, false, false);
    checkLayerNormForward(c, dtype, dtype, true, false);
    checkLayerNormForward(c, dtype, dtype, false, true);
  }
}

void checkLayerNormBackward(const NormCase &c, DType dtype, DType paramType,
                            bool withScale, bool accumulate) {
  SCOPED_TRACE(label(c, dtype, paramType) + (withScale ? " scale" : "") +
               (accumulate ? " accumulate" : ""));
  Split s = split(c.shape, c.axis);
  int64_t n = numElements(c.shape);
  std::vector<float> x = randomValues(n, dtype, -2.0f, 3.0f, 4);
  std::vector<float> dy = randomValues(n, dtype, -1.0f, 1.0f, 5);
  std::vector<float> scale = randomValues(s.cols, paramType, 0.5f, 1.5f, 6);
  std::vector<float> dscale = randomValues(s.cols, paramType, -1.0f, 1.0f, 7);
  std::vector<float> dbias = randomValues(s.cols, paramType, -1.0f, 1.0f, 8);

  // The statistics from the CPU forward feed both backward passes.
  std::vector<float> y(n), mean(s.rows), rstd(s.rows);
  TensorView cMean = makeView(mean.data(), {s.rows});
  TensorView cRstd = makeView(rstd.data(), {s.rows});
  ASSERT_TRUE(cpu::layerNorm(makeView(x.data(), c.shape), nullptr, nullptr,
                             c.axis, kEpsilon, makeView(y.data(), c.shape),
                             &cMean, &cRstd)
                  .ok());

  DeviceTensor dX(dtype, c.shape, x), dDy(dtype, c.shape, dy),
      dDx(dtype, c.shape);
  DeviceTensor dScale(paramType, s.paramShape, scale);
  DeviceTensor dMean(DType::kF32, {s.rows}, mean),
      dRstd(DType::kF32, {s.rows}, rstd);
  DeviceTensor dDscale(paramType, s.paramShape, dscale),
      dDbias(paramType, s.paramShape, dbias);
  TensorView gScale = dScale.view(), gDscale = dDscale.view(),
             gDbias = dDbias.view();
  HETC_EXPECT_CUDA_OK(layerNormBackward(
      dX.view(), withScale ? &gScale : nullptr, dMean.view(), dRstd.view(),
      dDy.view(), c.axis, dDx.view(), &gDscale, &gDbias, accumulate));

  std::vector<float> dx(n);
  TensorView cScale = makeView(scale.data(), s.paramShape);
  TensorView cDscale = makeView(dscale.data(), s.paramShape);
  TensorView cDbias = makeView(dbias.data(), s.paramShape);
  ASSERT_TRUE(cpu::layerNormBackward(
                  makeView(x.data(), c.shape), withScale ? &cScale : nullptr,
                  cMean, cRstd, makeView(dy.data(), c.shape), c.axis,
                  makeView(dx.data(), c.shape), &cDscale, &cDbias, accumulate)
                  .ok());
  expectClose(dDx.readFloats(), dx, storageTolerance(dtype, 1e-4), 1e-4, "dx");
  expectClose(dDscale.readFloats(), dscale, storageTolerance(paramType, 1e-4),
              1e-4, "dscale");
  expectClose(dDbias.readFloats(), dbias, storageTolerance(paramType, 1e-4),
              1e-4, "dbias");
}

TEST(CudaLayerNorm, BackwardMatchesCpu) {
  HETC_REQUIRE_CUDA();
  for (const NormCase &c : kCases)
    for (auto [dtype, paramType] : kDTypes)
      for (bool accumulate : {false, true})
        checkLayerNormBackward(c, dtype, paramType, true, accumulate);
}

TEST(CudaLayerNorm, BackwardWithoutScale) {
  HETC_REQUIRE_CUDA();
  checkLayerNormBackward({{9, 33}, -1}, DType::kF32, DType::kF32, false, false);
  checkLayerNormBackward({{9, 33}, -1}, DType::kBF16, DType::kBF16, false,
                         true);
}

TEST(CudaLayerNorm, BackwardWithoutParamGrads) {
  HETC_REQUIRE_CUDA();
  Shape shape{5, 40};
  std::vector<float> x = randomValues(200, DType::kF32, -1.0f, 1.0f, 9);
  std::vector<float> dy = randomValues(200, DType::kF32, -1.0f, 1.0f, 10);
  std::vector<float> y(200), mean(5), rstd(5), dx(200);
  TensorView cMean = makeView(mean.data(), {5}),
             cRstd = makeView(rstd.data(), {5});
  ASSERT_TRUE(cpu::layerNorm(makeView(x.data(), shape), nullptr, nullptr, -1,
                             kEpsilon, makeView(y.data(), shape), &cMean,
                             &cRstd)
                  .ok());
  ASSERT_TRUE(cpu::layerNormBackward(makeView(x.data(), shape), nullptr, cMean,
                                     cRstd, makeView(dy.data(), shape), -1,
                                     makeView(dx.data(), shape), nullptr,
                                     nullptr, false)
                  .ok());
  DeviceTensor dX(DType::kF32, shape, x), dDy(DType::kF32, shape, dy),
      dDx(DType::kF32, shape);
  DeviceTensor dMean(DType::kF32, {5}, mean), dRstd(DType::kF32, {5}, rstd);
  HETC_EXPECT_CUDA_OK(layerNormBackward(dX.view(), nullptr, dMean.view(),
                                        dRstd.view(), dDy.view(), -1,
                                        dDx.view(), nullptr, nullptr, false));
  expectClose(dDx.readFloats(), dx, 1e-4, 1e-4, "dx");
}

// y may be x; the unaligned output takes the scalar path.
TEST(CudaLayerNorm, InPlaceAndUnalignedOutput) {
  HETC_REQUIRE_CUDA();
  Shape shape{6, 100};
  for (DType dtype : {DType::kF32, DType::kBF16}) {
    SCOPED_TRACE(dtypeName(dtype));
    std::vector<float> x = randomValues(600, dtype, -1.0f, 2.0f, 11);
    std::vector<float> y(600);
    ASSERT_TRUE(cpu::layerNorm(makeView(x.data(), shape), nullptr, nullptr, -1,
                               kEpsilon, makeView(y.data(), shape), nullptr,
                               nullptr)
                    .ok());
    DeviceTensor inPlace(dtype, shape, x);
    HETC_EXPECT_CUDA_OK(layerNorm(inPlace.view(), nullptr, nullptr, -1,
                                  kEpsilon, inPlace.view(), nullptr, nullptr));
    expectClose(inPlace.readFloats(), y, storageTolerance(dtype), 2e-5,
                "in place");

    // One element past a 256-byte boundary: x and y disagree modulo 16.
    DeviceTensor dX(dtype, shape, x), padded(dtype, {601});
    TensorView shifted(static_cast<char *>(padded.view().data) +
                           dtypeSize(dtype),
                       dtype, shape);
    HETC_EXPECT_CUDA_OK(layerNorm(dX.view(), nullptr, nullptr, -1, kEpsilon,
                                  shifted, nullptr, nullptr));
    std::vector<float> got = padded.readFloats();
    got.erase(got.begin());
    expectClose(got, y, storageTolerance(dtype), 2e-5, "unaligned");
  }
}

TEST(CudaLayerNorm, Errors) {
  HETC_REQUIRE_CUDA();
  DeviceTensor x(DType::kF32, {2, 3}), y(DType::kF32, {2, 3});
  DeviceTensor xi(DType::kI32, {2, 3}), yb(DType::kBF16, {2, 3});
  DeviceTensor scale(DType::kF32, {3}), biasH(DType::kF16, {3});
  DeviceTensor badScale(DType::kF32, {4}), mean(DType::kF32, {5});
  DeviceTensor rstd(DType::kF32, {2});
  TensorView s = scale.view(), bh = biasH.view(), bs = badScale.view(),
             m = mean.view(), r = rstd.view();
  auto expectInvalid = [](const Status &status, const char *what) {
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << what;
    EXPECT_NE(status.message().find("layer_norm"), std::string::npos)
        << status.message();
  };
  expectInvalid(layerNorm(xi.view(), nullptr, nullptr, -1, kEpsilon, y.view(),
                          nullptr, nullptr),
                "i32 x");
  expectInvalid(layerNorm(x.view(), nullptr, nullptr, -1, kEpsilon, yb.view(),
                          nullptr, nullptr),
                "y dtype");
  expectInvalid(
      layerNorm(x.view(), &s, &bh, -1, kEpsilon, y.view(), nullptr, nullptr),
      "scale and bias dtypes");
  expectInvalid(layerNorm(x.view(), &bs, nullptr, -1, kEpsilon, y.view(),
                          nullptr, nullptr),
                "scale shape");
  expectInvalid(layerNorm(x.view(), nullptr, nullptr, -1, kEpsilon, y.view(),
                          &m, nullptr),
                "mean size");
  expectInvalid(layerNorm(x.view(), nullptr, nullptr, 2, kEpsilon, y.view(),
                          nullptr, nullptr),
                "axis");
  expectInvalid(layerNormBackward(x.view(), nullptr, m, r, y.view(), -1,
                                  y.view(), nullptr, nullptr, false),
                "backward mean size");
  expectInvalid(layerNormBackward(x.view(), nullptr, r, r, yb.view(), -1,
                                  y.view(), nullptr, nullptr, false),
                "backward dy dtype");
}

// ---- RMS norm

void checkRmsNorm(const NormCase &c, DType dtype, DType paramType,
                  bool withScale, bool accumulate) {
  SCOPED_TRACE(label(c, dtype, paramType) + (withScale ? " scale" : "") +
               (accumulate ? " accumulate" : ""));
  Split s = split(c.shape, -1);
  int64_t n = numElements(c.shape);
  std::vector<float> x = randomValues(n, dtype, -2.0f, 3.0f, 12);
  std::vector<float> dy = randomValues(n, dtype, -1.0f, 1.0f, 13);
  std::vector<float> scale = randomValues(s.cols, paramType, 0.5f, 1.5f, 14);
  std::vector<float> dscale = randomValues(s.cols, paramType, -1.0f, 1.0f, 15);

  std::vector<float> y(n), rstd(s.rows), dx(n);
  TensorView cScale = makeView(scale.data(), s.paramShape);
  TensorView cRstd = makeView(rstd.data(), {s.rows});
  ASSERT_TRUE(cpu::rmsNorm(makeView(x.data(), c.shape),
                           withScale ? &cScale : nullptr, kEpsilon,
                           makeView(y.data(), c.shape), &cRstd)
                  .ok());

  DeviceTensor dX(dtype, c.shape, x), dY(dtype, c.shape);
  DeviceTensor dScale(paramType, s.paramShape, scale);
  DeviceTensor dRstd(DType::kF32, {s.rows});
  TensorView gScale = dScale.view(), gRstd = dRstd.view();
  HETC_EXPECT_CUDA_OK(rmsNorm(dX.view(), withScale ? &gScale : nullptr,
                              kEpsilon, dY.view(), &gRstd));
  expectClose(dY.readFloats(), y, storageTolerance(dtype, 1e-5), 2e-5, "y");
  expectClose(dRstd.readFloats(), rstd, 1e-5, 1e-6, "rstd");

  // Backward from the CPU's rstd.
  DeviceTensor dDy(dtype, c.shape, dy), dDx(dtype, c.shape);
  DeviceTensor cpuRstd(DType::kF32, {s.rows}, rstd);
  DeviceTensor dDscale(paramType, s.paramShape, dscale);
  TensorView gDscale = dDscale.view();
  HETC_EXPECT_CUDA_OK(rmsNormBackward(dX.view(), withScale ? &gScale : nullptr,
                                      cpuRstd.view(), dDy.view(), dDx.view(),
                                      &gDscale, accumulate));
  TensorView cDscale = makeView(dscale.data(), s.paramShape);
  ASSERT_TRUE(cpu::rmsNormBackward(
                  makeView(x.data(), c.shape), withScale ? &cScale : nullptr,
                  cRstd, makeView(dy.data(), c.shape),
                  makeView(dx.data(), c.shape), &cDscale, accumulate)
                  .ok());
  expectClose(dDx.readFloats(), dx, storageTolerance(dtype, 1e-4), 1e-4, "dx");
  expectClose(dDscale.readFloats(), dscale, storageTolerance(paramType, 1e-4),
              1e-4, "dscale");
}

TEST(CudaRmsNorm, ForwardAndBackwardMatchCpu) {
  HETC_REQUIRE_CUDA();
  for (const NormCase &c : kCases)
    for (auto [dtype, paramType] : kDTypes)
      for (bool accumulate : {false, true})
        checkRmsNorm(c, dtype, paramType, true, accumulate);
}

TEST(CudaRmsNorm, WithoutScale) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : {DType::kF32, DType::kF16})
    checkRmsNorm({{5, 769}, -1}, dtype, dtype, false, false);
}

TEST(CudaRmsNorm, Errors) {
  HETC_REQUIRE_CUDA();
  DeviceTensor x(DType::kBF16, {2, 3}), y(DType::kBF16, {2, 3});
  DeviceTensor yWrong(DType::kBF16, {3, 2}), rstd(DType::kF32, {2});
  DeviceTensor rstdWrong(DType::kBF16, {2}), dscale(DType::kF32, {2});
  TensorView r = rstd.view(), rw = rstdWrong.view(), ds = dscale.view();
  Status status = rmsNorm(x.view(), nullptr, kEpsilon, yWrong.view(), &r);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("rms_norm"), std::string::npos);
  status = rmsNorm(x.view(), nullptr, kEpsilon, y.view(), &rw);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  status =
      rmsNormBackward(x.view(), nullptr, r, y.view(), y.view(), &ds, false);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.toString();
  EXPECT_NE(status.message().find("rms_norm_backward"), std::string::npos);
}

} // namespace
} // namespace hetc::runtime::cuda::test
