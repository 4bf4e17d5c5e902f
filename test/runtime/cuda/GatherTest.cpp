//===- GatherTest.cpp - CUDA Gather against the CPU backend ---------------===//

#include "runtime/cpu/Gather.h"
#include "runtime/cuda/Gather.h"

#include "test/runtime/cuda/CudaTestUtil.h"

namespace hetc::runtime::cuda::test {
namespace {

const DType kFloatTypes[] = {DType::kF32, DType::kBF16, DType::kF16};

struct GatherCase {
  Shape data;
  Shape indices;
  int64_t axis;
};

// Rows of 1 to 769 elements (copy units of every width), inner dimensions
// after the axis, scalar indices.
const GatherCase kCases[] = {
    {{7, 5}, {2, 3}, 0},     {{3, 6, 4}, {5}, 1},   {{3, 6, 4}, {2, 2}, -1},
    {{11, 150}, {4, 9}, 0},  {{4}, {}, 0},          {{9, 3}, {17}, 0},
    {{40, 769}, {3, 33}, 0}, {{2, 50, 8}, {64}, 1}, {{1000, 64}, {2, 300}, 0},
};

std::vector<int64_t> randomIndices(int64_t count, int64_t lo, int64_t hi,
                                   unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int64_t> dist(lo, hi - 1);
  std::vector<int64_t> v(static_cast<size_t>(count));
  for (int64_t &x : v)
    x = dist(gen);
  return v;
}

void writeIndices(DeviceTensor &t, DType dtype, const std::vector<int64_t> &v) {
  if (dtype == DType::kI64) {
    t.write(v);
    return;
  }
  std::vector<int32_t> narrow(v.begin(), v.end());
  t.write(narrow);
}

Shape gatheredShape(const GatherCase &c) {
  int64_t a =
      c.axis < 0 ? c.axis + static_cast<int64_t>(c.data.size()) : c.axis;
  Shape s(c.data.begin(), c.data.begin() + a);
  s.insert(s.end(), c.indices.begin(), c.indices.end());
  s.insert(s.end(), c.data.begin() + a + 1, c.data.end());
  return s;
}

// Negative and repeated indices on purpose.
std::vector<int64_t> caseIndices(const GatherCase &c, unsigned seed) {
  int64_t a =
      c.axis < 0 ? c.axis + static_cast<int64_t>(c.data.size()) : c.axis;
  int64_t dim = c.data[a];
  std::vector<int64_t> idx =
      randomIndices(numElements(c.indices), -dim, dim, seed);
  if (!idx.empty())
    idx.front() = idx.back() = dim - 1;
  return idx;
}

std::string label(const GatherCase &c, DType dtype, DType indexType) {
  return shapeToString(c.data) + "[" + shapeToString(c.indices) + "] axis " +
         std::to_string(c.axis) + " " + dtypeName(dtype) + " indices " +
         dtypeName(indexType);
}

TEST(CudaGather, FloatsMatchCpu) {
  HETC_REQUIRE_CUDA();
  for (const GatherCase &c : kCases)
    for (DType dtype : kFloatTypes)
      for (DType indexType : {DType::kI64, DType::kI32}) {
        SCOPED_TRACE(label(c, dtype, indexType));
        std::vector<float> data = randomValues(numElements(c.data), dtype);
        std::vector<int64_t> idx = caseIndices(c, 41);
        Shape os = gatheredShape(c);
        std::vector<float> want(numElements(os));
        ASSERT_TRUE(cpu::gather(makeView(data.data(), c.data),
                                makeView(idx.data(), c.indices), c.axis,
                                makeView(want.data(), os))
                        .ok());
        DeviceTensor dData(dtype, c.data, data), dIdx(indexType, c.indices),
            dOut(dtype, os);
        writeIndices(dIdx, indexType, idx);
        HETC_EXPECT_CUDA_OK(
            gather(dData.view(), dIdx.view(), c.axis, dOut.view()));
        expectClose(dOut.readFloats(), want, 0, 0, "out");
      }
}

// Any dtype is copied bit for bit.
template <typename T> void checkRawGather(DType dtype) {
  SCOPED_TRACE(dtypeName(dtype));
  Shape shape{5, 3};
  std::vector<T> data(15);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<T>(i % 2 == 0 ? i : 1);
  std::vector<int64_t> idx = {4, -5, 2, 2};
  std::vector<T> want(12);
  ASSERT_TRUE(cpu::gather(TensorView(data.data(), dtype, shape),
                          makeView(idx.data(), {4}), 0,
                          TensorView(want.data(), dtype, {4, 3}))
                  .ok());
  DeviceTensor dData(dtype, shape), dIdx(DType::kI64, {4}), dOut(dtype, {4, 3});
  dData.write(data);
  dIdx.write(idx);
  HETC_EXPECT_CUDA_OK(gather(dData.view(), dIdx.view(), 0, dOut.view()));
  EXPECT_EQ(dOut.read<T>(), want);
}

TEST(CudaGather, AnyDTypeMatchesCpu) {
  HETC_REQUIRE_CUDA();
  checkRawGather<int64_t>(DType::kI64);
  checkRawGather<int32_t>(DType::kI32);
  checkRawGather<uint8_t>(DType::kBool);
  checkRawGather<double>(DType::kF64);
}

// Indices are not checked on the device: an index out of range gives a zero
// row and is skipped by the backward pass.
TEST(CudaGather, IndexOutOfRangeGivesZeroRowAndNoGradient) {
  HETC_REQUIRE_CUDA();
  DeviceTensor data(DType::kF32, {3, 2}, {1, 2, 3, 4, 5, 6});
  DeviceTensor idx(DType::kI64, {4}), out(DType::kF32, {4, 2});
  idx.write(std::vector<int64_t>{2, 3, -4, 0});
  HETC_EXPECT_CUDA_OK(gather(data.view(), idx.view(), 0, out.view()));
  EXPECT_EQ(out.readFloats(), (std::vector<float>{5, 6, 0, 0, 0, 0, 1, 2}));
  DeviceTensor dout(DType::kF32, {4, 2}, {1, 1, 2, 2, 3, 3, 4, 4});
  DeviceTensor ddata(DType::kF32, {3, 2}, {9, 9, 9, 9, 9, 9});
  HETC_EXPECT_CUDA_OK(gatherBackward(dout.view(), idx.view(), 0, ddata.view(),
                                     /*accumulate=*/false));
  EXPECT_EQ(ddata.readFloats(), (std::vector<float>{4, 4, 0, 0, 1, 1}));
}

void checkGatherBackward(const GatherCase &c, DType dtype, DType indexType,
                         bool accumulate) {
  SCOPED_TRACE(label(c, dtype, indexType) + (accumulate ? " accumulate" : ""));
  std::vector<int64_t> idx = caseIndices(c, 42);
  Shape os = gatheredShape(c);
  std::vector<float> dout =
      randomValues(numElements(os), dtype, -1.0f, 1.0f, 43);
  std::vector<float> ddata =
      randomValues(numElements(c.data), dtype, -1.0f, 1.0f, 44);
  DeviceTensor dDout(dtype, os, dout), dIdx(indexType, c.indices),
      dDdata(dtype, c.data, ddata);
  writeIndices(dIdx, indexType, idx);
  HETC_EXPECT_CUDA_OK(gatherBackward(dDout.view(), dIdx.view(), c.axis,
                                     dDdata.view(), accumulate));
  ASSERT_TRUE(cpu::gatherBackward(makeView(dout.data(), os),
                                  makeView(idx.data(), c.indices), c.axis,
                                  makeView(ddata.data(), c.data), accumulate)
                  .ok());
  expectClose(dDdata.readFloats(), ddata, storageTolerance(dtype, 1e-5), 1e-5,
              "ddata");
}

TEST(CudaGather, BackwardMatchesCpu) {
  HETC_REQUIRE_CUDA();
  for (const GatherCase &c : kCases)
    for (DType dtype : kFloatTypes)
      for (bool accumulate : {false, true})
        checkGatherBackward(c, dtype, DType::kI64, accumulate);
  checkGatherBackward(kCases[3], DType::kF32, DType::kI32, true);
}

// GPT-2's shapes, with ids from a small range so that most rows repeat, and
// one id repeated at every position.
TEST(CudaEmbedding, ForwardAndBackwardMatchCpu) {
  HETC_REQUIRE_CUDA();
  struct EmbeddingCase {
    int64_t vocab, width, tokens, idRange;
  };
  const EmbeddingCase cases[] = {
      {50257, 24, 8192, 50257}, {50257, 24, 4096, 30}, {1000, 768, 512, 1000},
      {300, 769, 257, 1},       {64, 8, 3000, 64},
  };
  for (const EmbeddingCase &e : cases)
    for (DType dtype : kFloatTypes)
      for (DType idType : {DType::kI64, DType::kI32}) {
        SCOPED_TRACE(std::to_string(e.vocab) + "x" + std::to_string(e.width) +
                     " tokens " + std::to_string(e.tokens) + " ids < " +
                     std::to_string(e.idRange) + " " + dtypeName(dtype) + " " +
                     dtypeName(idType));
        Shape tableShape{e.vocab, e.width}, ids{2, e.tokens / 2};
        Shape os{2, e.tokens / 2, e.width};
        int64_t tokens = numElements(ids);
        std::vector<int64_t> id = randomIndices(tokens, 0, e.idRange, 45);
        std::vector<float> table =
            randomValues(e.vocab * e.width, dtype, -1.0f, 1.0f, 46);
        std::vector<float> want(tokens * e.width);
        ASSERT_TRUE(cpu::embedding(makeView(table.data(), tableShape),
                                   makeView(id.data(), ids),
                                   makeView(want.data(), os))
                        .ok());
        DeviceTensor dTable(dtype, tableShape, table), dIds(idType, ids),
            dOut(dtype, os);
        writeIndices(dIds, idType, id);
        HETC_EXPECT_CUDA_OK(embedding(dTable.view(), dIds.view(), dOut.view()));
        expectClose(dOut.readFloats(), want, 0, 0, "out");

        std::vector<float> dout =
            randomValues(tokens * e.width, dtype, -1.0f, 1.0f, 47);
        DeviceTensor dDout(dtype, os, dout);
        for (bool accumulate : {false, true}) {
          std::vector<float> dtable = table; // as the accumulated gradient
          DeviceTensor dDtable(dtype, tableShape, dtable);
          HETC_EXPECT_CUDA_OK(embeddingBackward(dDout.view(), dIds.view(),
                                                dDtable.view(), accumulate));
          ASSERT_TRUE(cpu::embeddingBackward(
                          makeView(dout.data(), os), makeView(id.data(), ids),
                          makeView(dtable.data(), tableShape), accumulate)
                          .ok());
          // A row summed over n tokens rounds n times on the CPU, once here.
          expectClose(dDtable.readFloats(), dtable,
                      storageTolerance(dtype, 1e-5), 1e-4, "dtable");
        }
      }
}

// The gradient of repeated ids sums in a fixed order: the same bits on
// every run.
TEST(CudaEmbedding, BackwardIsReproducible) {
  HETC_REQUIRE_CUDA();
  Shape tableShape{100, 96}, ids{4096}, os{4096, 96};
  DeviceTensor dIds(DType::kI64, ids);
  dIds.write(randomIndices(4096, 0, 100, 48));
  DeviceTensor dout(DType::kF32, os,
                    randomValues(4096 * 96, DType::kF32, -1.0f, 1.0f, 49));
  DeviceTensor dtable(DType::kF32, tableShape);
  HETC_EXPECT_CUDA_OK(
      embeddingBackward(dout.view(), dIds.view(), dtable.view(), false));
  std::vector<float> first = dtable.readFloats();
  for (int i = 0; i < 3; ++i) {
    HETC_EXPECT_CUDA_OK(
        embeddingBackward(dout.view(), dIds.view(), dtable.view(), false));
    std::vector<float> again = dtable.readFloats();
    EXPECT_EQ(
        std::memcmp(first.data(), again.data(), first.size() * sizeof(float)),
        0);
  }
}

TEST(CudaGather, Errors) {
  HETC_REQUIRE_CUDA();
  DeviceTensor data(DType::kF32, {4, 3}), idx(DType::kI64, {2});
  DeviceTensor idxF(DType::kF32, {2}), out(DType::kF32, {2, 3});
  DeviceTensor outWrong(DType::kF32, {3, 3}), outHalf(DType::kF16, {2, 3});
  DeviceTensor dataI(DType::kI64, {4, 3}), outI(DType::kI64, {2, 3});
  DeviceTensor table3(DType::kF32, {4, 3, 1});
  auto expectInvalid = [](const Status &status, const char *name) {
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.toString();
    EXPECT_NE(status.message().find(name), std::string::npos)
        << status.message();
  };
  expectInvalid(gather(data.view(), idxF.view(), 0, out.view()), "gather");
  expectInvalid(gather(data.view(), idx.view(), 0, outWrong.view()), "gather");
  expectInvalid(gather(data.view(), idx.view(), 0, outHalf.view()), "gather");
  expectInvalid(gather(data.view(), idx.view(), 2, out.view()), "gather");
  expectInvalid(gatherBackward(outI.view(), idx.view(), 0, dataI.view(), false),
                "gather_backward");
  expectInvalid(
      gatherBackward(outWrong.view(), idx.view(), 0, data.view(), true),
      "gather_backward");
  expectInvalid(embedding(table3.view(), idx.view(), out.view()), "embedding");
  expectInvalid(embedding(data.view(), idxF.view(), out.view()), "embedding");
  expectInvalid(embeddingBackward(out.view(), idxF.view(), data.view(), false),
                "embedding_backward");
}

// Each reduction over repeated and negative indices, f32 and i64, as the
// CPU backend computes it; replacing also in bf16.
TEST(CudaScatterND, MatchesCpu) {
  HETC_REQUIRE_CUDA();
  Shape shape{6, 5, 3}, idxShape{4, 2}, updShape{4, 3};
  std::vector<int64_t> idx = {0, 1, 5, -1, 0, 1, 2, 3};
  for (ScatterReduction reduction :
       {ScatterReduction::kNone, ScatterReduction::kAdd, ScatterReduction::kMul,
        ScatterReduction::kMax, ScatterReduction::kMin}) {
    SCOPED_TRACE(static_cast<int>(reduction));
    std::vector<float> data = randomValues(numElements(shape), DType::kF32);
    std::vector<float> upd = randomValues(numElements(updShape), DType::kF32);
    std::vector<float> want(data.size());
    if (reduction == ScatterReduction::kNone)
      idx[4] = 3; // ONNX leaves repeated indices undefined when replacing
    ASSERT_TRUE(cpu::scatterND(makeView(data.data(), shape),
                               makeView(idx.data(), idxShape),
                               makeView(upd.data(), updShape), reduction,
                               makeView(want.data(), shape))
                    .ok());
    DeviceTensor dData(DType::kF32, shape, data), dIdx(DType::kI64, idxShape),
        dUpd(DType::kF32, updShape, upd), dOut(DType::kF32, shape);
    dIdx.write(idx);
    HETC_EXPECT_CUDA_OK(scatterND(dData.view(), dIdx.view(), dUpd.view(),
                                  reduction, dOut.view()));
    expectClose(dOut.readFloats(), want, 0, 0, "out");
    idx[4] = 0;
  }
  std::vector<int64_t> ints = {1, 2, 3}, intIdx = {2, 0, 2}, intUpd = {7, 8, 9};
  DeviceTensor dInts(DType::kI64, {3}), dIntIdx(DType::kI32, {3, 1}),
      dIntUpd(DType::kI64, {3}), dIntOut(DType::kI64, {3});
  dInts.write(ints);
  dIntIdx.write(std::vector<int32_t>(intIdx.begin(), intIdx.end()));
  dIntUpd.write(intUpd);
  HETC_EXPECT_CUDA_OK(scatterND(dInts.view(), dIntIdx.view(), dIntUpd.view(),
                                ScatterReduction::kAdd, dIntOut.view()));
  EXPECT_EQ(dIntOut.read<int64_t>(), (std::vector<int64_t>{9, 2, 19}));
}

} // namespace
} // namespace hetc::runtime::cuda::test
