//===- GatherTest.cpp - gather, scatter_nd, embedding, gradients ----------===//

#include "runtime/cpu/Gather.h"

#include "TestUtil.h"

namespace hetc::runtime::test {
namespace {

// numpy.take(data, indices, axis) on float data, in double.
std::vector<double> referenceGather(const std::vector<double> &data, const Shape &ds,
                                    const I64 &idx, int64_t axis, Shape *outShape) {
  int64_t outer = numElements(Shape(ds.begin(), ds.begin() + axis));
  int64_t dim = ds[axis];
  int64_t inner = numElements(Shape(ds.begin() + axis + 1, ds.end()));
  *outShape = Shape(ds.begin(), ds.begin() + axis);
  outShape->insert(outShape->end(), idx.shape.begin(), idx.shape.end());
  outShape->insert(outShape->end(), ds.begin() + axis + 1, ds.end());
  std::vector<double> out;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i : idx.v)
      for (int64_t c = 0; c < inner; ++c)
        out.push_back(data[(o * dim + (i < 0 ? i + dim : i)) * inner + c]);
  return out;
}

struct GatherCase {
  Shape data;
  Shape indices;
  int64_t axis;
};

void PrintTo(const GatherCase &c, std::ostream *os) {
  *os << shapeToString(c.data) << "[" << shapeToString(c.indices) << "] axis "
      << c.axis;
}

class Gathers : public ::testing::TestWithParam<GatherCase> {};

TEST_P(Gathers, ForwardAndBackwardMatchReference) {
  const GatherCase &p = GetParam();
  F32 data = randomF32(p.data);
  int64_t axis = p.axis < 0 ? p.axis + static_cast<int64_t>(p.data.size()) : p.axis;
  int64_t dim = p.data[axis];
  // Negative and repeated indices on purpose.
  I64 idx = randomIndices(p.indices, -dim, dim);
  idx.v[0] = idx.v.back() = dim - 1;
  Shape os;
  std::vector<double> want = referenceGather(data.asDouble(), p.data, idx, axis, &os);
  F32 out(os);
  HETC_ASSERT_OK(cpu::gather(data.view(), idx.view(), p.axis, out.view()));
  EXPECT_TRUE(allClose(out.v, want, 0, 0));

  // Gather is linear: d(sum w * gather(data)) / d data is a scatter-add of w.
  F32 dout = randomF32(os), ddata(p.data);
  HETC_ASSERT_OK(cpu::gatherBackward(dout.view(), idx.view(), p.axis, ddata.view(), false));
  std::vector<double> w = dout.asDouble();
  std::vector<double> wantGrad = numericGrad(
      [&](const std::vector<double> &x) {
        Shape unused;
        return weightedSum(referenceGather(x, p.data, idx, axis, &unused), w);
      },
      data.asDouble());
  EXPECT_TRUE(allClose(ddata.v, wantGrad, 1e-5, 1e-5));
}

INSTANTIATE_TEST_SUITE_P(
    Gather, Gathers,
    ::testing::Values(GatherCase{{7, 5}, {2, 3}, 0}, GatherCase{{3, 6, 4}, {5}, 1},
                      GatherCase{{3, 6, 4}, {2, 2}, -1},
                      GatherCase{{11, 150}, {4, 9}, 0}, GatherCase{{4}, {}, 0}));

TEST(Gather, HandComputedAnyDtype) {
  I64 data({3, 2}, {10, 11, 20, 21, 30, 31});
  I32 idx({2}, {2, -3});
  I64 out({2, 2});
  HETC_ASSERT_OK(cpu::gather(data.view(), idx.view(), 0, out.view()));
  EXPECT_EQ(out.v, (std::vector<int64_t>{30, 31, 10, 11}));
  I64 cols({3, 1});
  I64 one({1}, {1});
  HETC_ASSERT_OK(cpu::gather(data.view(), one.view(), 1, cols.view()));
  EXPECT_EQ(cols.v, (std::vector<int64_t>{11, 21, 31}));
}

TEST(Embedding, LookupAndBackwardWithRepeatedIds) {
  F32 table = randomF32({6, 70});
  I64 ids({2, 3}, {5, 0, 5, 2, 5, 0});
  F32 out({2, 3, 70});
  HETC_ASSERT_OK(cpu::embedding(table.view(), ids.view(), out.view()));
  for (int64_t t = 0; t < 6; ++t)
    for (int64_t c = 0; c < 70; ++c)
      ASSERT_EQ(out.v[t * 70 + c], table.v[ids.v[t] * 70 + c]);
  F32 dout = randomF32({2, 3, 70});
  F32 dtable = F32::full({6, 70}, 9.0f); // overwritten without accumulate
  HETC_ASSERT_OK(cpu::embeddingBackward(dout.view(), ids.view(), dtable.view(), false));
  std::vector<double> want(6 * 70, 0.0);
  for (int64_t t = 0; t < 6; ++t)
    for (int64_t c = 0; c < 70; ++c)
      want[ids.v[t] * 70 + c] += dout.v[t * 70 + c];
  EXPECT_TRUE(allClose(dtable.v, want, 1e-6, 1e-6));
  HETC_ASSERT_OK(cpu::embeddingBackward(dout.view(), ids.view(), dtable.view(), true));
  for (double &x : want)
    x *= 2;
  EXPECT_TRUE(allClose(dtable.v, want, 1e-6, 1e-6));
}

TEST(Embedding, TokenIdOutOfVocabularyIsAnError) {
  F32 table({256, 4}), out({1, 3, 4});
  I64 ids({1, 3}, {1, 256, 2});
  out.v.assign(out.v.size(), 7.0f);
  EXPECT_TRUE(isError(cpu::embedding(table.view(), ids.view(), out.view()),
                      StatusCode::kOutOfRange,
                      "embedding: token id 256 at position 1 is out of range for a "
                      "vocabulary of 256"));
  EXPECT_EQ(out.v, std::vector<float>(12, 7.0f)); // nothing written
  F32 dtable({256, 4});
  EXPECT_TRUE(isError(cpu::embeddingBackward(out.view(), ids.view(), dtable.view(), false),
                      StatusCode::kOutOfRange, "embedding_backward: token id 256"));
  F32 flatTable({256});
  EXPECT_TRUE(isError(cpu::embedding(flatTable.view(), ids.view(), out.view()),
                      StatusCode::kInvalidArgument,
                      "embedding: table must be [V, E], got f32[256]"));
}

TEST(Gather, Errors) {
  F32 data({4, 3}), out({2, 3});
  I64 idx({2}, {0, -5});
  EXPECT_TRUE(isError(cpu::gather(data.view(), idx.view(), 0, out.view()),
                      StatusCode::kOutOfRange,
                      "gather: index -5 at position 1 is out of range for axis 0 of "
                      "size 4"));
  I64 ok({2}, {0, 1});
  F32 wrong({3, 2});
  EXPECT_TRUE(isError(cpu::gather(data.view(), ok.view(), 0, wrong.view()),
                      StatusCode::kInvalidArgument,
                      "gather: gathering i64[2] along axis 0 of f32[4,3] gives shape "
                      "[2,3], not [3,2]"));
  EXPECT_TRUE(isError(cpu::gather(data.view(), ok.view(), 2, out.view()),
                      StatusCode::kInvalidArgument,
                      "gather: axis 2 is out of range for rank 2"));
  F32 fidx({2});
  EXPECT_TRUE(isError(cpu::gather(data.view(), fidx.view(), 0, out.view()),
                      StatusCode::kInvalidArgument,
                      "gather: indices must be i64 or i32, got f32[2]"));
}

// ONNX's ScatterND examples: whole rows (depth 1) and single elements
// (depth 2), negative indices, and each reduction applying repeated
// indices in order.
TEST(ScatterND, ReplacesSlicesAndElements) {
  F32 data({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  I64 rows({2, 1}, {-1, 1});
  F32 updates({2, 2}, {10, 11, 12, 13}), out({4, 2});
  HETC_ASSERT_OK(cpu::scatterND(data.view(), rows.view(), updates.view(),
                                ScatterReduction::kNone, out.view()));
  EXPECT_EQ(out.v, (std::vector<float>{1, 2, 12, 13, 5, 6, 10, 11}));
  I32 cells({3, 2}, {0, 1, 3, 0, 0, 1});
  F32 values({3}, {-1, -2, -3});
  HETC_ASSERT_OK(cpu::scatterND(data.view(), cells.view(), values.view(),
                                ScatterReduction::kAdd, out.view()));
  EXPECT_EQ(out.v, (std::vector<float>{1, -2, 3, 4, 5, 6, 5, 8}));
  // In place, as the lowering may place out on data.
  HETC_ASSERT_OK(cpu::scatterND(data.view(), cells.view(), values.view(),
                                ScatterReduction::kMul, data.view()));
  EXPECT_EQ(data.v, (std::vector<float>{1, 6, 3, 4, 5, 6, -14, 8}));
}

TEST(ScatterND, ReductionsOnIntegers) {
  I64 data({3}, {5, 5, 5});
  I64 idx({4, 1}, {0, 2, 0, 1});
  I64 updates({4}, {7, 1, 9, 5});
  I64 out({3});
  HETC_ASSERT_OK(cpu::scatterND(data.view(), idx.view(), updates.view(),
                                ScatterReduction::kMax, out.view()));
  EXPECT_EQ(out.v, (std::vector<int64_t>{9, 5, 5}));
  HETC_ASSERT_OK(cpu::scatterND(data.view(), idx.view(), updates.view(),
                                ScatterReduction::kMin, out.view()));
  EXPECT_EQ(out.v, (std::vector<int64_t>{5, 5, 1}));
}

TEST(ScatterND, Errors) {
  F32 data({4, 2}), out({4, 2}), updates({1, 2});
  I64 idx({1, 1}, {4});
  EXPECT_TRUE(isError(cpu::scatterND(data.view(), idx.view(), updates.view(),
                                     ScatterReduction::kNone, out.view()),
                      StatusCode::kOutOfRange,
                      "scatter_nd: index 4 of tuple 0 is out of range for "
                      "dimension 0 of size 4"));
  F32 wrong({2, 2});
  I64 ok({1, 1}, {0});
  EXPECT_TRUE(isError(cpu::scatterND(data.view(), ok.view(), wrong.view(),
                                     ScatterReduction::kNone, out.view()),
                      StatusCode::kInvalidArgument,
                      "scatter_nd: updates must be f32 [1,2], got f32[2,2]"));
  I64 deep({1, 3}, {0, 0, 0});
  EXPECT_TRUE(isError(cpu::scatterND(data.view(), deep.view(), updates.view(),
                                     ScatterReduction::kNone, out.view()),
                      StatusCode::kInvalidArgument,
                      "scatter_nd: indices i64[1,3] must end in a dimension of "
                      "at most the rank of f32[4,2]"));
}

} // namespace
} // namespace hetc::runtime::test
