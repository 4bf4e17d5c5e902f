//===- NormsTest.cpp - layer norm and RMS norm -----------------------------===//

#include "runtime/cpu/Norms.h"

#include "TestUtil.h"

namespace hetc::runtime::test {
namespace {

// Layer norm of x viewed as [rows, cols]; scale/bias empty when absent.
std::vector<double> referenceLayerNorm(const std::vector<double> &x, int64_t cols,
                                       const std::vector<double> &scale,
                                       const std::vector<double> &bias, double eps,
                                       std::vector<double> *mean = nullptr,
                                       std::vector<double> *rstd = nullptr) {
  int64_t rows = static_cast<int64_t>(x.size()) / cols;
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double mu = 0, var = 0;
    for (int64_t c = 0; c < cols; ++c)
      mu += x[r * cols + c];
    mu /= cols;
    for (int64_t c = 0; c < cols; ++c)
      var += (x[r * cols + c] - mu) * (x[r * cols + c] - mu);
    var /= cols;
    double rs = 1 / std::sqrt(var + eps);
    for (int64_t c = 0; c < cols; ++c) {
      double v = (x[r * cols + c] - mu) * rs;
      if (!scale.empty())
        v *= scale[c];
      if (!bias.empty())
        v += bias[c];
      y[r * cols + c] = v;
    }
    if (mean)
      mean->push_back(mu);
    if (rstd)
      rstd->push_back(rs);
  }
  return y;
}

std::vector<double> referenceRmsNorm(const std::vector<double> &x, int64_t cols,
                                     const std::vector<double> &scale, double eps) {
  int64_t rows = static_cast<int64_t>(x.size()) / cols;
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double sq = 0;
    for (int64_t c = 0; c < cols; ++c)
      sq += x[r * cols + c] * x[r * cols + c];
    double rs = 1 / std::sqrt(sq / cols + eps);
    for (int64_t c = 0; c < cols; ++c)
      y[r * cols + c] = x[r * cols + c] * rs * (scale.empty() ? 1.0 : scale[c]);
  }
  return y;
}

struct LayerNormCase {
  Shape shape;
  int64_t axis;
  bool scale, bias;
};

void PrintTo(const LayerNormCase &c, std::ostream *os) {
  *os << shapeToString(c.shape) << " axis " << c.axis << (c.scale ? " scale" : "")
      << (c.bias ? " bias" : "");
}

class LayerNorms : public ::testing::TestWithParam<LayerNormCase> {
protected:
  void SetUp() override {
    const LayerNormCase &p = GetParam();
    int64_t a = p.axis < 0 ? p.axis + static_cast<int64_t>(p.shape.size()) : p.axis;
    paramShape = Shape(p.shape.begin() + a, p.shape.end());
    rows = numElements(Shape(p.shape.begin(), p.shape.begin() + a));
    cols = numElements(paramShape);
    x = randomF32(p.shape, -2.0f, 2.0f);
    scale = randomF32(paramShape, 0.5f, 1.5f);
    bias = randomF32(paramShape);
  }
  std::vector<double> scaleD() const {
    return GetParam().scale ? scale.asDouble() : std::vector<double>{};
  }
  std::vector<double> biasD() const {
    return GetParam().bias ? bias.asDouble() : std::vector<double>{};
  }

  Shape paramShape;
  int64_t rows = 0, cols = 0;
  F32 x, scale, bias;
  const float eps = 1e-5f;
};

TEST_P(LayerNorms, ForwardMatchesReference) {
  const LayerNormCase &p = GetParam();
  F32 y(p.shape), mean({rows}), rstd({rows, 1});
  TensorView sv = scale.view(), bv = bias.view(), mv = mean.view(), rv = rstd.view();
  HETC_ASSERT_OK(cpu::layerNorm(x.view(), p.scale ? &sv : nullptr,
                                p.bias ? &bv : nullptr, p.axis, eps, y.view(),
                                &mv, &rv));
  std::vector<double> wantMean, wantRstd;
  std::vector<double> want = referenceLayerNorm(x.asDouble(), cols, scaleD(),
                                                biasD(), eps, &wantMean, &wantRstd);
  EXPECT_TRUE(allClose(y.v, want, 1e-5, 1e-5));
  EXPECT_TRUE(allClose(mean.v, wantMean, 1e-6, 1e-6));
  EXPECT_TRUE(allClose(rstd.v, wantRstd, 1e-6, 1e-5));
}

TEST_P(LayerNorms, BackwardMatchesFiniteDifferences) {
  const LayerNormCase &p = GetParam();
  F32 y(p.shape), mean({rows}), rstd({rows});
  TensorView sv = scale.view(), bv = bias.view(), mv = mean.view(), rv = rstd.view();
  HETC_ASSERT_OK(cpu::layerNorm(x.view(), p.scale ? &sv : nullptr,
                                p.bias ? &bv : nullptr, p.axis, eps, y.view(),
                                &mv, &rv));
  F32 dy = randomF32(p.shape), dx(p.shape), dscale(paramShape), dbias(paramShape);
  TensorView dsv = dscale.view(), dbv = dbias.view();
  HETC_ASSERT_OK(cpu::layerNormBackward(
      x.view(), p.scale ? &sv : nullptr, mean.view(), rstd.view(), dy.view(),
      p.axis, dx.view(), p.scale ? &dsv : nullptr, p.bias ? &dbv : nullptr,
      false));
  std::vector<double> w = dy.asDouble();
  std::vector<double> wantDx = numericGrad(
      [&](const std::vector<double> &xv) {
        return weightedSum(referenceLayerNorm(xv, cols, scaleD(), biasD(), eps), w);
      },
      x.asDouble());
  EXPECT_TRUE(allClose(dx.v, wantDx, 1e-4, 1e-4));
  if (p.scale) {
    std::vector<double> want = numericGrad(
        [&](const std::vector<double> &s) {
          return weightedSum(referenceLayerNorm(x.asDouble(), cols, s, biasD(), eps), w);
        },
        scale.asDouble());
    EXPECT_TRUE(allClose(dscale.v, want, 1e-4, 1e-4));
  }
  if (p.bias) {
    std::vector<double> want = numericGrad(
        [&](const std::vector<double> &b) {
          return weightedSum(referenceLayerNorm(x.asDouble(), cols, scaleD(), b, eps), w);
        },
        bias.asDouble());
    EXPECT_TRUE(allClose(dbias.v, want, 1e-4, 1e-4));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Norms, LayerNorms,
    ::testing::Values(LayerNormCase{{2, 3, 8}, -1, true, true},
                      LayerNormCase{{2, 3, 4}, 1, true, true},
                      LayerNormCase{{5, 6}, 1, false, false},
                      LayerNormCase{{4, 70}, -1, true, false},
                      LayerNormCase{{3, 2, 5}, 0, false, true}));

TEST(LayerNorm, HandComputed) {
  F32 x({1, 3}, {1, 2, 3}), y({1, 3});
  HETC_ASSERT_OK(cpu::layerNorm(x.view(), nullptr, nullptr, -1, 0.0f, y.view(),
                                nullptr, nullptr));
  EXPECT_TRUE(allClose(y.v, std::vector<double>{-1.224744871391589, 0.0,
                                                1.224744871391589},
                       1e-6, 1e-6));
}

TEST(LayerNorm, ParamGradsAccumulate) {
  F32 x = randomF32({3, 5}), scale = randomF32({5}), y({3, 5}), mean({3}), rstd({3});
  TensorView sv = scale.view(), mv = mean.view(), rv = rstd.view();
  HETC_ASSERT_OK(cpu::layerNorm(x.view(), &sv, nullptr, -1, 1e-5f, y.view(), &mv, &rv));
  F32 dy = randomF32({3, 5}), dx({3, 5}), ds({5}), db({5});
  TensorView dsv = ds.view(), dbv = db.view();
  HETC_ASSERT_OK(cpu::layerNormBackward(x.view(), &sv, mean.view(), rstd.view(),
                                        dy.view(), -1, dx.view(), &dsv, &dbv, false));
  std::vector<float> once = ds.v, onceBias = db.v;
  HETC_ASSERT_OK(cpu::layerNormBackward(x.view(), &sv, mean.view(), rstd.view(),
                                        dy.view(), -1, dx.view(), &dsv, &dbv, true));
  for (int i = 0; i < 5; ++i) {
    EXPECT_FLOAT_EQ(ds.v[i], 2 * once[i]);
    EXPECT_FLOAT_EQ(db.v[i], 2 * onceBias[i]);
  }
}

TEST(LayerNorm, Errors) {
  F32 x({2, 4}), y({2, 4}), scale({3}), mean({3});
  TensorView sv = scale.view(), mv = mean.view();
  EXPECT_TRUE(isError(cpu::layerNorm(x.view(), &sv, nullptr, -1, 1e-5f, y.view(),
                                     nullptr, nullptr),
                      StatusCode::kInvalidArgument,
                      "layer_norm: scale must have shape [4], got [3]"));
  EXPECT_TRUE(isError(cpu::layerNorm(x.view(), nullptr, nullptr, -1, 1e-5f,
                                     y.view(), &mv, nullptr),
                      StatusCode::kInvalidArgument,
                      "layer_norm: mean must have 2 elements"));
  EXPECT_TRUE(isError(cpu::layerNorm(x.view(), nullptr, nullptr, 2, 1e-5f,
                                     y.view(), nullptr, nullptr),
                      StatusCode::kInvalidArgument,
                      "layer_norm: axis 2 is out of range for rank 2"));
}

class RmsNorms : public ::testing::TestWithParam<bool> {};

TEST_P(RmsNorms, ForwardAndBackward) {
  bool withScale = GetParam();
  Shape shape = {2, 3, 6};
  F32 x = randomF32(shape, -2.0f, 2.0f), scale = randomF32({6}, 0.5f, 1.5f);
  std::vector<double> sd = withScale ? scale.asDouble() : std::vector<double>{};
  F32 y(shape), rstd({2, 3});
  TensorView sv = scale.view(), rv = rstd.view();
  const float eps = 1e-6f;
  HETC_ASSERT_OK(cpu::rmsNorm(x.view(), withScale ? &sv : nullptr, eps, y.view(), &rv));
  EXPECT_TRUE(allClose(y.v, referenceRmsNorm(x.asDouble(), 6, sd, eps), 1e-5, 1e-5));

  F32 dy = randomF32(shape), dx(shape), dscale({6});
  TensorView dsv = dscale.view();
  HETC_ASSERT_OK(cpu::rmsNormBackward(x.view(), withScale ? &sv : nullptr,
                                      rstd.view(), dy.view(), dx.view(),
                                      withScale ? &dsv : nullptr, false));
  std::vector<double> w = dy.asDouble();
  std::vector<double> wantDx = numericGrad(
      [&](const std::vector<double> &xv) {
        return weightedSum(referenceRmsNorm(xv, 6, sd, eps), w);
      },
      x.asDouble());
  EXPECT_TRUE(allClose(dx.v, wantDx, 1e-4, 1e-4));
  if (withScale) {
    std::vector<double> want = numericGrad(
        [&](const std::vector<double> &s) {
          return weightedSum(referenceRmsNorm(x.asDouble(), 6, s, eps), w);
        },
        scale.asDouble());
    EXPECT_TRUE(allClose(dscale.v, want, 1e-4, 1e-4));
  }
}

INSTANTIATE_TEST_SUITE_P(Norms, RmsNorms, ::testing::Bool());

TEST(RmsNorm, HandComputedAndErrors) {
  F32 x({1, 2}, {3, 4}), y({1, 2});
  HETC_ASSERT_OK(cpu::rmsNorm(x.view(), nullptr, 0.0f, y.view(), nullptr));
  // rms = sqrt((9 + 16) / 2) = 3.5355339
  EXPECT_TRUE(allClose(y.v, std::vector<double>{0.848528137423857, 1.131370849898476},
                       1e-6, 1e-6));
  F32 rstd({2});
  EXPECT_TRUE(isError(cpu::rmsNormBackward(x.view(), nullptr, rstd.view(), y.view(),
                                           y.view(), nullptr, false),
                      StatusCode::kInvalidArgument,
                      "rms_norm_backward: rstd must have 1 elements"));
}

} // namespace
} // namespace hetc::runtime::test
