//===- DeterminismTest.cpp - bit-identical results for any thread count ----===//
//
// Every parallel kernel must produce the same bits with 1, 2 and 3 threads:
// outputs have one writer each and sums run in an order fixed by the data.
// Shapes are large enough that the loops really split.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Attention.h"
#include "runtime/cpu/CrossEntropy.h"
#include "runtime/cpu/Elementwise.h"
#include "runtime/cpu/Gemm.h"
#include "runtime/cpu/Gather.h"
#include "runtime/cpu/Norms.h"
#include "runtime/cpu/Optimizers.h"
#include "runtime/cpu/Reduce.h"
#include "runtime/cpu/Softmax.h"
#include "runtime/cpu/Threading.h"

#include "TestUtil.h"

#include <cstring>

namespace hetc::runtime::test {
namespace {

// Runs `kernel` (filling the returned vectors) with each thread count and
// expects identical bits.
void expectSameForThreadCounts(
    const std::function<std::vector<std::vector<float>>()> &kernel) {
  int saved = cpu::numThreads();
  HETC_ASSERT_OK(cpu::setNumThreads(1));
  std::vector<std::vector<float>> reference = kernel();
  for (int threads : {2, 3}) {
    HETC_ASSERT_OK(cpu::setNumThreads(threads));
    EXPECT_EQ(cpu::numThreads(), threads);
    std::vector<std::vector<float>> got = kernel();
    ASSERT_EQ(got.size(), reference.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_EQ(0, std::memcmp(got[i].data(), reference[i].data(),
                               sizeof(float) * got[i].size()))
          << "output " << i << " differs with " << threads << " threads";
  }
  HETC_ASSERT_OK(cpu::setNumThreads(saved));
}

TEST(Determinism, Reductions) {
  F32 x = randomF32({64, 300});
  expectSameForThreadCounts([&] {
    F32 cols({300}), rows({64});
    EXPECT_TRUE(cpu::reduce(cpu::ReduceOp::kSum, x.view(), {0}, false, cols.view()).ok());
    EXPECT_TRUE(cpu::reduce(cpu::ReduceOp::kMean, x.view(), {1}, false, rows.view()).ok());
    return std::vector<std::vector<float>>{cols.v, rows.v};
  });
}

TEST(Determinism, SoftmaxAndNorms) {
  F32 x = randomF32({96, 200}), scale = randomF32({200}), dy = randomF32({96, 200});
  expectSameForThreadCounts([&] {
    F32 y({96, 200}), mean({96}), rstd({96}), dx({96, 200}), ds({200}), db({200});
    TensorView sv = scale.view(), mv = mean.view(), rv = rstd.view(),
               dsv = ds.view(), dbv = db.view();
    EXPECT_TRUE(cpu::layerNorm(x.view(), &sv, nullptr, -1, 1e-5f, y.view(), &mv, &rv).ok());
    EXPECT_TRUE(cpu::layerNormBackward(x.view(), &sv, mean.view(), rstd.view(), dy.view(),
                                       -1, dx.view(), &dsv, &dbv, false).ok());
    F32 p({96, 200});
    EXPECT_TRUE(cpu::softmax(x.view(), 0, p.view()).ok());
    return std::vector<std::vector<float>>{y.v, dx.v, ds.v, db.v, p.v};
  });
}

TEST(Determinism, Attention) {
  F32 q = randomF32({2, 2, 100, 16}), k = randomF32({2, 2, 100, 16}),
      v = randomF32({2, 2, 100, 16}), dout = randomF32({2, 2, 100, 16});
  expectSameForThreadCounts([&] {
    F32 out({2, 2, 100, 16}), lse({2, 2, 100}), dq(q.shape), dk(k.shape), dv(v.shape);
    TensorView lv = lse.view();
    cpu::AttentionOptions o{0.25f, true};
    EXPECT_TRUE(cpu::attention(q.view(), k.view(), v.view(), nullptr, o, out.view(), &lv).ok());
    EXPECT_TRUE(cpu::attentionBackward(q.view(), k.view(), v.view(), nullptr, o, out.view(),
                                       lse.view(), dout.view(), dq.view(), dk.view(),
                                       dv.view()).ok());
    return std::vector<std::vector<float>>{out.v, dq.v, dk.v, dv.v};
  });
}

// Products cut into row blocks, into row and column blocks (fewer rows than
// four blocks' worth: a weight gradient's shape), and batched.
TEST(Determinism, MatrixProducts) {
  F32 a = randomF32({600, 64}), b = randomF32({64, 500}), x = randomF32({600, 48});
  F32 batchA = randomF32({3, 70, 20}), batchB = randomF32({3, 20, 30});
  expectSameForThreadCounts([&] {
    F32 rows({600, 500}), weightGrad({64, 48}), batched({3, 70, 30});
    EXPECT_TRUE(cpu::gemm(a.view(), b.view(), nullptr, rows.view(), {}).ok());
    cpu::GemmOptions transA;
    transA.transA = true;
    EXPECT_TRUE(cpu::gemm(a.view(), x.view(), nullptr, weightGrad.view(), transA).ok());
    EXPECT_TRUE(cpu::gemm(batchA.view(), batchB.view(), nullptr, batched.view(), {}).ok());
    return std::vector<std::vector<float>>{rows.v, weightGrad.v, batched.v};
  });
}

TEST(Determinism, VectorizedUnaryOps) {
  F32 x = randomF32({70000}, -6.0f, 6.0f), dy = randomF32({70000});
  expectSameForThreadCounts([&] {
    F32 y({70000}), dx({70000});
    EXPECT_TRUE(cpu::unary(cpu::UnaryOp::kGeluErf, x.view(), y.view()).ok());
    EXPECT_TRUE(
        cpu::unaryBackward(cpu::UnaryOp::kGeluErf, x.view(), dy.view(), dx.view()).ok());
    return std::vector<std::vector<float>>{y.v, dx.v};
  });
}

TEST(Determinism, CrossEntropyEmbeddingAndClipping) {
  F32 logits = randomF32({300, 50});
  I64 labels = randomIndices({300}, 0, 50);
  I64 ids = randomIndices({4, 300}, 0, 20);
  F32 dout = randomF32({4, 300, 96});
  F32 g1 = randomF32({40000}), g2 = randomF32({17});
  expectSameForThreadCounts([&] {
    F32 loss(Shape{}), dlogits({300, 50}), dtable({20, 96});
    F32 one({}, {1.0f});
    EXPECT_TRUE(cpu::crossEntropy(logits.view(), labels.view(), {}, loss.view(), nullptr).ok());
    EXPECT_TRUE(cpu::crossEntropyBackward(logits.view(), labels.view(), {}, one.view(),
                                          nullptr, dlogits.view()).ok());
    EXPECT_TRUE(cpu::embeddingBackward(dout.view(), ids.view(), dtable.view(), false).ok());
    double norm = 0;
    EXPECT_TRUE(cpu::sumOfSquares({g1.view(), g2.view()}, &norm).ok());
    float normBits = static_cast<float>(norm);
    std::vector<float> normHi = {normBits, static_cast<float>(norm - normBits)};
    return std::vector<std::vector<float>>{loss.v, dlogits.v, dtable.v, normHi};
  });
}

TEST(Threading, RejectsZeroThreads) {
  EXPECT_TRUE(isError(cpu::setNumThreads(0), StatusCode::kInvalidArgument,
                      "setNumThreads: the thread count must be >= 1, got 0"));
}

} // namespace
} // namespace hetc::runtime::test
