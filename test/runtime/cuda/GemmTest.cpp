//===- GemmTest.cpp - CUDA Gemm against the CPU backend -------------------===//

#include "test/runtime/cuda/CudaTestUtil.h"

#include "runtime/cpu/Elementwise.h"
#include "runtime/cpu/Gemm.h"
#include "runtime/cuda/Gemm.h"
#include "runtime/cuda/internal/AlignedRows.h"

#include <algorithm>
#include <string>

namespace hetc::runtime::cuda::test {
namespace {

const DType kFloatTypes[] = {DType::kF32, DType::kBF16, DType::kF16};

// Relative tolerance: one rounding of the stored result; f32 leaves room
// for a different summation order than OpenBLAS.
double relTolerance(DType dtype) {
  return dtype == DType::kF32 ? 2e-5 : storageTolerance(dtype);
}

double maxAbs(const std::vector<float> &values) {
  double m = 0.0;
  for (float v : values)
    m = std::max(m, double(std::fabs(v)));
  return m;
}

// Results near zero come from cancellation: their error scales with the
// largest results, not with themselves.
void expectMatches(const std::vector<float> &got,
                   const std::vector<float> &want, DType dtype,
                   const std::string &what) {
  double rtol = relTolerance(dtype);
  expectClose(got, want, rtol, rtol * std::max(1.0, maxAbs(want)),
              what.c_str());
}

Shape productShape(const Shape &a, const Shape &b, const GemmOptions &o) {
  Shape batchA(a.begin(), a.end() - 2), batchB(b.begin(), b.end() - 2), c;
  EXPECT_TRUE(broadcastShapes(batchA, batchB, &c).ok());
  c.push_back(o.transA ? a.back() : a[a.size() - 2]);
  c.push_back(o.transB ? b[b.size() - 2] : b.back());
  return c;
}

std::string describe(DType dtype, const Shape &a, const Shape &b,
                     const GemmOptions &o) {
  return std::string(dtypeName(dtype)) + " " + shapeToString(a) +
         (o.transA ? "^T" : "") + " @ " + shapeToString(b) +
         (o.transB ? "^T" : "") + (o.accumulate ? " accumulate" : "") +
         " alpha " + std::to_string(o.alpha);
}

// cpu::gemm on copies of the (already rounded) values; `c` holds C's
// initial values and receives the result.
void cpuGemm(std::vector<float> a, const Shape &aShape, std::vector<float> b,
             const Shape &bShape, std::vector<float> *bias,
             std::vector<float> *c, const Shape &cShape,
             const GemmOptions &options) {
  TensorView biasView;
  if (bias)
    biasView = makeView(bias->data(), {int64_t(bias->size())});
  Status status = cpu::gemm(
      makeView(a.data(), aShape), makeView(b.data(), bShape),
      bias ? &biasView : nullptr, makeView(c->data(), cShape), options);
  ASSERT_TRUE(status.ok()) << status.toString();
}

// cuda::gemm against cpu::gemm on random operands; C starts random, so
// that overwriting is checked too.
void checkGemm(DType dtype, const Shape &aShape, const Shape &bShape,
               const GemmOptions &options, bool withBias, unsigned seed = 1) {
  SCOPED_TRACE(describe(dtype, aShape, bShape, options) +
               (withBias ? " + bias" : ""));
  Shape cShape = productShape(aShape, bShape, options);
  int64_t n = cShape.back();
  std::vector<float> a = randomValues(numElements(aShape), dtype, -1, 1, seed);
  std::vector<float> b =
      randomValues(numElements(bShape), dtype, -1, 1, seed + 1);
  std::vector<float> bias = randomValues(n, dtype, -1, 1, seed + 2);
  std::vector<float> c =
      randomValues(numElements(cShape), dtype, -1, 1, seed + 3);
  DeviceTensor da(dtype, aShape, a), db(dtype, bShape, b), dc(dtype, cShape, c);
  DeviceTensor dbias(dtype, {n}, bias);
  TensorView biasView = dbias.view();
  HETC_EXPECT_CUDA_OK(cuda::gemm(da.view(), db.view(),
                                 withBias ? &biasView : nullptr, dc.view(),
                                 options));
  cpuGemm(a, aShape, b, bShape, withBias ? &bias : nullptr, &c, cShape,
          options);
  expectMatches(dc.readFloats(), c, dtype, "C");
}

Shape matA(int64_t m, int64_t k, bool trans) {
  return trans ? Shape{k, m} : Shape{m, k};
}
Shape matB(int64_t k, int64_t n, bool trans) {
  return trans ? Shape{n, k} : Shape{k, n};
}

TEST(CudaGemm, AllTransposesOddSizes) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kFloatTypes)
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        GemmOptions o;
        o.transA = ta;
        o.transB = tb;
        checkGemm(dtype, matA(37, 19, ta), matB(19, 53, tb), o, false);
      }
}

TEST(CudaGemm, SeveralTiles) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kFloatTypes)
    for (bool tb : {false, true}) {
      GemmOptions o;
      o.transB = tb;
      checkGemm(dtype, {130, 200}, matB(200, 260, tb), o, true);
    }
}

TEST(CudaGemm, BatchedBroadcast) {
  HETC_REQUIRE_CUDA();
  const int64_t m = 37, k = 19, n = 53;
  struct Case {
    Shape batchA, batchB;
    bool transA, transB;
  };
  const Case cases[] = {
      {{2, 3}, {}, false, false},           // folds into one [6M, K] product
      {{2, 3}, {}, true, true},             // strided batches, B shared
      {{1}, {4}, false, false},             // A shared by B's batches
      {{2, 3}, {2, 3}, false, true},        // no broadcasting
      {{2, 1}, {3}, false, false},          // outer loop over A's batches
      {{3, 1}, {1, 4}, true, false},        // outer loop, inner B batches
      {{2}, {3, 1}, false, true},           // outer B, inner A
      {{2, 1, 3}, {1, 2, 3}, false, false}, // a size-1 dimension between
  };
  for (DType dtype : kFloatTypes)
    for (const Case &c : cases) {
      GemmOptions o;
      o.transA = c.transA;
      o.transB = c.transB;
      Shape a = c.batchA, b = c.batchB;
      Shape ma = matA(m, k, c.transA), mb = matB(k, n, c.transB);
      a.insert(a.end(), ma.begin(), ma.end());
      b.insert(b.end(), mb.begin(), mb.end());
      checkGemm(dtype, a, b, o, /*withBias=*/c.transB);
    }
}

TEST(CudaGemm, AccumulateAlphaBias) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kFloatTypes)
    for (bool accumulate : {false, true})
      for (bool withBias : {false, true}) {
        GemmOptions o;
        o.alpha = 0.5f;
        o.accumulate = accumulate;
        checkGemm(dtype, {37, 19}, {19, 53}, o, withBias);
        o.transA = true;
        checkGemm(dtype, {2, 3, 19, 37}, {19, 53}, o, withBias);
      }
}

// K = 0: C = bias, C + bias, 0 or C unchanged.
TEST(CudaGemm, EmptyInnerDimension) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kFloatTypes)
    for (bool accumulate : {false, true})
      for (bool withBias : {false, true}) {
        GemmOptions o;
        o.accumulate = accumulate;
        checkGemm(dtype, {2, 37, 0}, {0, 53}, o, withBias);
      }
}

// A cached plan is reused with other pointers (of the same alignment).
TEST(CudaGemm, SecondCallUsesItsOwnOperands) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kFloatTypes) {
    GemmOptions o;
    o.transB = true;
    checkGemm(dtype, {45, 64}, {72, 64}, o, true, 10);
    checkGemm(dtype, {45, 64}, {72, 64}, o, true, 20);
  }
}

// A, B and C start 1 element past cudaMalloc's 256-byte alignment (the
// bias stays aligned, as the executor's arena keeps every buffer).
TEST(CudaGemm, UnalignedOperands) {
  HETC_REQUIRE_CUDA();
  const int64_t m = 33, k = 24, n = 40;
  for (DType dtype : kFloatTypes) {
    SCOPED_TRACE(dtypeName(dtype));
    std::vector<float> a = randomValues(m * k + 1, dtype, -1, 1, 1);
    std::vector<float> b = randomValues(k * n + 1, dtype, -1, 1, 2);
    std::vector<float> bias = randomValues(n, dtype, -1, 1, 3);
    std::vector<float> c(m * n + 1, 0.0f);
    DeviceTensor da(dtype, {m * k + 1}, a), db(dtype, {k * n + 1}, b),
        dbias(dtype, {n}, bias), dc(dtype, {m * n + 1}, c);
    size_t e = dtypeSize(dtype);
    auto shifted = [&](const DeviceTensor &t, Shape shape) {
      return TensorView(static_cast<char *>(t.view().data) + e, dtype,
                        std::move(shape));
    };
    TensorView biasView = dbias.view();
    HETC_EXPECT_CUDA_OK(cuda::gemm(shifted(da, {m, k}), shifted(db, {k, n}),
                                   &biasView, shifted(dc, {m, n}),
                                   GemmOptions()));
    std::vector<float> want(m * n, 0.0f);
    cpuGemm(std::vector<float>(a.begin() + 1, a.end()), {m, k},
            std::vector<float>(b.begin() + 1, b.end()), {k, n}, &bias, &want,
            {m, n}, GemmOptions());
    std::vector<float> got = dc.readFloats();
    EXPECT_EQ(got[0], 0.0f) << "wrote before C";
    expectMatches(std::vector<float>(got.begin() + 1, got.end()), want, dtype,
                  "C");
  }
}

// Products large enough for internal/AlignedRows.h whose rows hold an odd
// number of 16-bit elements: M, N and K padded in turn (the result, B and A
// copied), also with a bias over the padded rows, when C accumulates, with
// A transposed, and batched (not staged: the same numbers).
TEST(CudaGemm, LargeProductsWithOddRowsAreStaged) {
  HETC_REQUIRE_CUDA();
  const int64_t m = 600, k = 1001, n = 517;
  ASSERT_GE(m * n * (k - 1), internal::kMinStagedMultiplyAdds);
  for (DType dtype : {DType::kBF16, DType::kF16})
    for (bool tb : {false, true}) {
      GemmOptions o;
      o.transB = tb;
      checkGemm(dtype, {m, k}, matB(k, n, tb), o, true);
      o.accumulate = true;
      checkGemm(dtype, {m, k}, matB(k, n, tb), o, false, 5);
    }
  GemmOptions transposedA;
  transposedA.transA = true;
  checkGemm(DType::kBF16, {1000, 601}, {1000, 520}, transposedA, true, 7);
  checkGemm(DType::kBF16, {2, 300, k}, {2, k, n}, GemmOptions(), false, 9);
}

//===----------------------------------------------------------------------===//
// biasGrad
//===----------------------------------------------------------------------===//

// The largest column sum of |dy|: the scale of f32 summation-order error.
double columnAbsSum(const std::vector<float> &dy, int64_t cols) {
  std::vector<double> sums(cols, 0.0);
  for (size_t i = 0; i < dy.size(); ++i)
    sums[i % cols] += std::fabs(dy[i]);
  return *std::max_element(sums.begin(), sums.end());
}

TEST(CudaBiasGrad, MatchesCpu) {
  HETC_REQUIRE_CUDA();
  const Shape shapes[] = {{3, 37, 53}, {4096, 70}, {5, 3000}, {53}, {0, 7}};
  for (DType dtype : kFloatTypes)
    for (const Shape &shape : shapes)
      for (bool accumulate : {false, true}) {
        SCOPED_TRACE(std::string(dtypeName(dtype)) + " " +
                     shapeToString(shape) + (accumulate ? " accumulate" : ""));
        int64_t cols = shape.back();
        std::vector<float> dy = randomValues(numElements(shape), dtype);
        std::vector<float> dbias = randomValues(cols, dtype, -1, 1, 99);
        DeviceTensor ddy(dtype, shape, dy), ddbias(dtype, {cols}, dbias);
        HETC_EXPECT_CUDA_OK(
            cuda::biasGrad(ddy.view(), ddbias.view(), accumulate));
        ASSERT_TRUE(cpu::biasGrad(makeView(dy.data(), shape),
                                  makeView(dbias.data(), {cols}), accumulate)
                        .ok());
        expectClose(ddbias.readFloats(), dbias, storageTolerance(dtype),
                    1e-5 * std::max(1.0, columnAbsSum(dy, cols)), "dbias");
      }
}

TEST(CudaBiasGrad, Deterministic) {
  HETC_REQUIRE_CUDA();
  for (DType dtype : kFloatTypes) {
    std::vector<float> dy = randomValues(8192 * 96, dtype);
    DeviceTensor ddy(dtype, {8, 1024, 96}, dy), first(dtype, {96}),
        second(dtype, {96});
    HETC_EXPECT_CUDA_OK(cuda::biasGrad(ddy.view(), first.view(), false));
    HETC_EXPECT_CUDA_OK(cuda::biasGrad(ddy.view(), second.view(), false));
    std::vector<float> a = first.readFloats(), b = second.readFloats();
    for (size_t i = 0; i < a.size(); ++i)
      ASSERT_EQ(std::memcmp(&a[i], &b[i], sizeof(float)), 0) << "column " << i;
  }
}

//===----------------------------------------------------------------------===//
// gemmWithEpilogue, one test per dtype: the GELU epilogues against
// cpu::gemm composed with cpu::unary(kGeluTanh) and its backward. An
// epilogue this cuBLASLt cannot run for a dtype (UNIMPLEMENTED) skips.
//===----------------------------------------------------------------------===//

class CudaGemmEpilogue : public ::testing::TestWithParam<DType> {};

#define HETC_SKIP_IF_UNSUPPORTED(status)                                       \
  do {                                                                         \
    if ((status).code() == StatusCode::kUnimplemented)                         \
      GTEST_SKIP() << (status).toString();                                     \
    ASSERT_TRUE((status).ok()) << (status).toString();                         \
  } while (false)

std::vector<float> geluTanh(std::vector<float> x) {
  std::vector<float> y(x.size());
  Shape shape{int64_t(x.size())};
  EXPECT_TRUE(cpu::unary(UnaryOp::kGeluTanh, makeView(x.data(), shape),
                         makeView(y.data(), shape))
                  .ok());
  return y;
}

// cuBLASLt's GELU may use the GPU's approximate tanh (absolute error up to
// about 5e-4) instead of tanhf: `slack` on top of the storage rounding.
double geluTolerance(DType dtype, double slack) {
  return relTolerance(dtype) + slack;
}

void expectGeluMatches(const std::vector<float> &got,
                       const std::vector<float> &want, DType dtype,
                       const char *what, double slack = 2e-3) {
  double rtol = geluTolerance(dtype, slack);
  expectClose(got, want, rtol, rtol * std::max(1.0, maxAbs(want)), what);
}

struct EpilogueOperands {
  Shape aShape, bShape, cShape;
  std::vector<float> a, b, bias;
};

EpilogueOperands makeOperands(DType dtype, Shape aShape, Shape bShape,
                              const GemmOptions &o) {
  EpilogueOperands ops;
  ops.cShape = productShape(aShape, bShape, o);
  ops.a = randomValues(numElements(aShape), dtype, -1, 1, 5);
  ops.b = randomValues(numElements(bShape), dtype, -1, 1, 6);
  ops.bias = randomValues(ops.cShape.back(), dtype, -1, 1, 7);
  ops.aShape = std::move(aShape);
  ops.bShape = std::move(bShape);
  return ops;
}

// kNone and kBias are gemm; the GELU forwards are gelu(gemm).
TEST_P(CudaGemmEpilogue, Forward) {
  HETC_REQUIRE_CUDA();
  DType dtype = GetParam();
  const GemmEpilogue epilogues[] = {GemmEpilogue::kNone, GemmEpilogue::kBias,
                                    GemmEpilogue::kGelu,
                                    GemmEpilogue::kGeluBias};
  for (GemmEpilogue epilogue : epilogues)
    for (bool tb : {false, true}) {
      SCOPED_TRACE(std::string(gemmEpilogueName(epilogue)) +
                   (tb ? " transB" : ""));
      GemmOptions o;
      o.transB = tb;
      o.alpha = 0.75f;
      EpilogueOperands ops =
          makeOperands(dtype, {2, 37, 19}, matB(19, 53, tb), o);
      bool withBias = epilogue == GemmEpilogue::kBias ||
                      epilogue == GemmEpilogue::kGeluBias;
      DeviceTensor da(dtype, ops.aShape, ops.a), db(dtype, ops.bShape, ops.b),
          dbias(dtype, {53}, ops.bias), dc(dtype, ops.cShape);
      TensorView biasView = dbias.view();
      GemmEpilogueArgs args;
      args.epilogue = epilogue;
      args.bias = withBias ? &biasView : nullptr;
      Status status =
          cuda::gemmWithEpilogue(da.view(), db.view(), args, dc.view(), o);
      HETC_SKIP_IF_UNSUPPORTED(status);
      std::vector<float> want(numElements(ops.cShape), 0.0f);
      cpuGemm(ops.a, ops.aShape, ops.b, ops.bShape,
              withBias ? &ops.bias : nullptr, &want, ops.cShape, o);
      if (epilogue == GemmEpilogue::kGelu ||
          epilogue == GemmEpilogue::kGeluBias)
        want = geluTanh(want);
      expectGeluMatches(dc.readFloats(), want, dtype, "C");
    }
}

// C = gelu(pre), aux = pre = x @ w + b; folded ([2, M, K] @ [K, N]) and
// strided batches (A transposed).
TEST_P(CudaGemmEpilogue, GeluAuxBias) {
  HETC_REQUIRE_CUDA();
  DType dtype = GetParam();
  for (bool ta : {false, true}) {
    SCOPED_TRACE(ta ? "transA" : "");
    GemmOptions o;
    o.transA = ta;
    o.transB = true;
    Shape aShape = matA(37, 19, ta);
    aShape.insert(aShape.begin(), 2);
    EpilogueOperands ops = makeOperands(dtype, aShape, {56, 19}, o);
    DeviceTensor da(dtype, ops.aShape, ops.a), db(dtype, ops.bShape, ops.b),
        dbias(dtype, {56}, ops.bias), dc(dtype, ops.cShape),
        daux(dtype, ops.cShape);
    TensorView biasView = dbias.view(), auxView = daux.view();
    GemmEpilogueArgs args;
    args.epilogue = GemmEpilogue::kGeluAuxBias;
    args.bias = &biasView;
    args.aux = &auxView;
    Status status =
        cuda::gemmWithEpilogue(da.view(), db.view(), args, dc.view(), o);
    HETC_SKIP_IF_UNSUPPORTED(status);
    std::vector<float> pre(numElements(ops.cShape), 0.0f);
    cpuGemm(ops.a, ops.aShape, ops.b, ops.bShape, &ops.bias, &pre, ops.cShape,
            o);
    expectMatches(daux.readFloats(), pre, dtype, "aux");
    expectGeluMatches(dc.readFloats(), geluTanh(pre), dtype, "C");
  }
}

// The MLP's first layer backward: dpre = gelu'(pre) * (dh @ W2), db1 =
// column sums of dpre.
TEST_P(CudaGemmEpilogue, DGeluBGrad) {
  HETC_REQUIRE_CUDA();
  DType dtype = GetParam();
  const int64_t m = 37, k = 24, n = 64;
  GemmOptions o;
  EpilogueOperands ops = makeOperands(dtype, {m, k}, {k, n}, o);
  std::vector<float> aux = randomValues(m * n, dtype, -3, 3, 8);
  DeviceTensor da(dtype, ops.aShape, ops.a), db(dtype, ops.bShape, ops.b),
      daux(dtype, {m, n}, aux), dc(dtype, {m, n}), dgrad(dtype, {n});
  TensorView auxView = daux.view(), gradView = dgrad.view();
  GemmEpilogueArgs args;
  args.epilogue = GemmEpilogue::kDGeluBGrad;
  args.aux = &auxView;
  args.biasGrad = &gradView;
  Status status =
      cuda::gemmWithEpilogue(da.view(), db.view(), args, dc.view(), o);
  HETC_SKIP_IF_UNSUPPORTED(status);

  std::vector<float> prod(m * n, 0.0f), want(m * n, 0.0f);
  cpuGemm(ops.a, ops.aShape, ops.b, ops.bShape, nullptr, &prod, {m, n}, o);
  ASSERT_TRUE(cpu::unaryBackward(
                  UnaryOp::kGeluTanh, makeView(aux.data(), {m, n}),
                  makeView(prod.data(), {m, n}), makeView(want.data(), {m, n}))
                  .ok());
  std::vector<float> wantGrad(n, 0.0f);
  for (int64_t i = 0; i < m * n; ++i)
    wantGrad[i % n] += want[i];
  // gelu' carries the tanh error times up to ~3|x| for |x| <= 3.
  expectGeluMatches(dc.readFloats(), want, dtype, "C", 5e-3);
  double rtol = geluTolerance(dtype, 5e-3);
  expectClose(dgrad.readFloats(), wantGrad, rtol,
              rtol * std::max(1.0, columnAbsSum(want, n)), "bias gradient");
}

// Weight gradients with the bias gradient: kBGradA for W [out, in]
// (dW = dy^T @ x), kBGradB for W [in, out] (dW = x^T @ dy); both sum dy.
TEST_P(CudaGemmEpilogue, BiasGradients) {
  HETC_REQUIRE_CUDA();
  DType dtype = GetParam();
  const int64_t rows = 64, in = 37, out = 53;
  std::vector<float> x = randomValues(rows * in, dtype, -1, 1, 11);
  std::vector<float> dy = randomValues(rows * out, dtype, -1, 1, 12);
  std::vector<float> wantGrad(out, 0.0f);
  for (int64_t i = 0; i < rows * out; ++i)
    wantGrad[i % out] += dy[i];
  DeviceTensor dx(dtype, {rows, in}, x), ddy(dtype, {rows, out}, dy),
      dgrad(dtype, {out});
  TensorView gradView = dgrad.view();
  GemmOptions o;
  o.transA = true;
  for (GemmEpilogue epilogue : {GemmEpilogue::kBGradA, GemmEpilogue::kBGradB}) {
    SCOPED_TRACE(gemmEpilogueName(epilogue));
    bool a = epilogue == GemmEpilogue::kBGradA;
    Shape wShape = a ? Shape{out, in} : Shape{in, out};
    DeviceTensor dw(dtype, wShape);
    GemmEpilogueArgs args;
    args.epilogue = epilogue;
    args.biasGrad = &gradView;
    const DeviceTensor &lhs = a ? ddy : dx, &rhs = a ? dx : ddy;
    Status status =
        cuda::gemmWithEpilogue(lhs.view(), rhs.view(), args, dw.view(), o);
    HETC_SKIP_IF_UNSUPPORTED(status);
    std::vector<float> want(numElements(wShape), 0.0f);
    cpuGemm(a ? dy : x, a ? Shape{rows, out} : Shape{rows, in}, a ? x : dy,
            a ? Shape{rows, in} : Shape{rows, out}, nullptr, &want, wShape, o);
    expectMatches(dw.readFloats(), want, dtype, "dW");
    expectClose(dgrad.readFloats(), wantGrad, relTolerance(dtype),
                1e-5 * std::max(1.0, columnAbsSum(dy, out)), "bias gradient");
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaGemmEpilogue,
                         ::testing::Values(DType::kF32, DType::kBF16,
                                           DType::kF16),
                         [](const ::testing::TestParamInfo<DType> &info) {
                           return std::string(dtypeName(info.param));
                         });

//===----------------------------------------------------------------------===//
// Validation: checked on the host before any CUDA call, so these run
// without a GPU. The data pointer is never dereferenced.
//===----------------------------------------------------------------------===//

float placeholder[1];

TensorView fake(DType dtype, Shape shape) {
  return TensorView(placeholder, dtype, std::move(shape));
}

void expectInvalid(const Status &status, const std::string &needle) {
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.toString();
  EXPECT_NE(status.message().find(needle), std::string::npos)
      << status.toString() << " lacks \"" << needle << "\"";
}

TEST(CudaGemmValidation, Gemm) {
  const DType f = DType::kF32;
  GemmOptions o;
  expectInvalid(
      cuda::gemm(fake(f, {4, 5}), fake(f, {6, 7}), nullptr, fake(f, {4, 7}), o),
      "gemm: inner dimensions differ");
  expectInvalid(cuda::gemm(fake(f, {4, 5}), fake(DType::kBF16, {5, 7}), nullptr,
                           fake(f, {4, 7}), o),
                "gemm: B must be f32 like A");
  expectInvalid(cuda::gemm(fake(DType::kI64, {4, 5}), fake(DType::kI64, {5, 7}),
                           nullptr, fake(DType::kI64, {4, 7}), o),
                "gemm: A must be f32, bf16 or f16");
  expectInvalid(
      cuda::gemm(fake(f, {5}), fake(f, {5, 7}), nullptr, fake(f, {7}), o),
      "gemm: A must have rank >= 2");
  expectInvalid(
      cuda::gemm(fake(f, {4, 5}), fake(f, {5, 7}), nullptr, fake(f, {7, 4}), o),
      "gemm: C must have shape [4,7]");
  expectInvalid(cuda::gemm(fake(f, {2, 4, 5}), fake(f, {3, 5, 7}), nullptr,
                           fake(f, {2, 4, 7}), o),
                "gemm: batch dimensions");
  TensorView bias = fake(f, {4});
  expectInvalid(
      cuda::gemm(fake(f, {4, 5}), fake(f, {5, 7}), &bias, fake(f, {4, 7}), o),
      "gemm: bias must have shape [7]");
  TensorView halfBias = fake(DType::kF16, {7});
  expectInvalid(cuda::gemm(fake(f, {4, 5}), fake(f, {5, 7}), &halfBias,
                           fake(f, {4, 7}), o),
                "gemm: bias must be f32 like C");
}

TEST(CudaGemmValidation, BiasGrad) {
  expectInvalid(
      cuda::biasGrad(fake(DType::kF32, {4, 7}), fake(DType::kF32, {4}), false),
      "bias_grad: dbias must have shape [7]");
  expectInvalid(
      cuda::biasGrad(fake(DType::kBF16, {4, 7}), fake(DType::kF32, {7}), false),
      "bias_grad: dbias must be bf16 like dy");
  expectInvalid(
      cuda::biasGrad(fake(DType::kI32, {4, 7}), fake(DType::kI32, {7}), false),
      "bias_grad: dy must be f32, bf16 or f16");
}

TEST(CudaGemmValidation, Epilogue) {
  const DType h = DType::kBF16;
  TensorView a = fake(h, {4, 5}), b = fake(h, {5, 16}), c = fake(h, {4, 16});
  TensorView bias = fake(h, {16}), aux = fake(h, {4, 16}), grad = fake(h, {16});
  GemmOptions o;
  GemmEpilogueArgs args;

  args.epilogue = GemmEpilogue::kGeluBias;
  expectInvalid(cuda::gemmWithEpilogue(a, b, args, c, o),
                "gemm_with_epilogue: gelu_bias needs args.bias");
  args.bias = &bias;
  args.aux = &aux;
  expectInvalid(cuda::gemmWithEpilogue(a, b, args, c, o),
                "gelu_bias takes no args.aux");

  args.epilogue = GemmEpilogue::kGeluAuxBias;
  GemmOptions acc;
  acc.accumulate = true;
  expectInvalid(cuda::gemmWithEpilogue(a, b, args, c, acc),
                "accumulate is not supported");
  TensorView oddB = fake(h, {5, 12}), oddC = fake(h, {4, 12}),
             oddBias = fake(h, {12}), oddAux = fake(h, {4, 12});
  GemmEpilogueArgs odd = args;
  odd.bias = &oddBias;
  odd.aux = &oddAux;
  expectInvalid(cuda::gemmWithEpilogue(a, oddB, odd, oddC, o),
                "needs N to be a multiple of 8");
  TensorView wrongAux = fake(h, {16, 4});
  args.aux = &wrongAux;
  expectInvalid(cuda::gemmWithEpilogue(a, b, args, c, o),
                "aux must have shape [4,16]");
  TensorView emptyA = fake(h, {4, 0}), emptyB = fake(h, {0, 16});
  args.aux = &aux;
  expectInvalid(cuda::gemmWithEpilogue(emptyA, emptyB, args, c, o),
                "non-empty");

  GemmEpilogueArgs grad1;
  grad1.epilogue = GemmEpilogue::kDGeluBGrad;
  grad1.aux = &aux;
  grad1.biasGrad = &grad;
  GemmOptions half;
  half.alpha = 0.5f;
  expectInvalid(cuda::gemmWithEpilogue(a, b, grad1, c, half),
                "dgelu_bgrad needs alpha = 1");
  TensorView batchedA = fake(h, {2, 4, 5}), batchedB = fake(h, {2, 5, 16}),
             batchedC = fake(h, {2, 4, 16});
  grad1.aux = &batchedC;
  expectInvalid(cuda::gemmWithEpilogue(batchedA, batchedB, grad1, batchedC, o),
                "needs a single product");

  GemmEpilogueArgs grad2;
  grad2.epilogue = GemmEpilogue::kBGradB;
  grad2.biasGrad = &grad;
  GemmOptions tb;
  tb.transB = true;
  TensorView bT = fake(h, {16, 5});
  expectInvalid(cuda::gemmWithEpilogue(a, bT, grad2, c, tb),
                "bgradb needs B not transposed");
  grad2.epilogue = GemmEpilogue::kBGradA;
  TensorView gradM = fake(h, {4});
  grad2.biasGrad = &gradM;
  expectInvalid(cuda::gemmWithEpilogue(a, b, grad2, c, o),
                "bgrada needs A transposed");
  grad2.biasGrad = &grad;
  GemmOptions ta;
  ta.transA = true;
  TensorView aT = fake(h, {5, 4});
  expectInvalid(cuda::gemmWithEpilogue(aT, b, grad2, c, ta),
                "bias gradient must have shape [4]");
}

} // namespace
} // namespace hetc::runtime::cuda::test
