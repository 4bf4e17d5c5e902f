//===- CheckpointTensorsTest.cpp - sharded state joined into tensors ------===//

#include "runtime/exec/CheckpointTensors.h"

#include "TestUtil.h"

#include <cstring>

namespace hetc::runtime::test {
namespace {

using exec::RankTensors;
using hetc::package::NamedTensor;

NamedTensor f32(const std::string &name, Shape shape,
                std::vector<float> values) {
  NamedTensor t;
  t.name = name;
  t.dtype = "F32";
  t.shape = std::move(shape);
  t.data.resize(values.size() * sizeof(float));
  std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}

std::vector<float> floats(const NamedTensor &t) {
  std::vector<float> values(t.data.size() / sizeof(float));
  std::memcpy(values.data(), t.data.data(), t.data.size());
  return values;
}

// Stage 0 (rank 0) holds w whole; stage 1 (ranks 1 and 2) holds p [2, 3]
// with its moments in pieces, given out of order.
std::vector<RankTensors> shardedRanks() {
  RankTensors r0, r1, r2;
  r0.rank = 0;
  r0.parameters = {f32("w", {2}, {1, 2})};
  r0.optimizerState = {f32("w.adam_m", {2}, {0.5f, 0.25f}),
                       f32("optimizer.step", {}, {3})};
  r1.rank = 1;
  r1.parameters = {f32("p", {2, 3}, {1, 2, 3, 4, 5, 6})};
  r1.optimizerState = {f32("p.adam_m[4:6]", {2}, {14, 15}),
                       f32("optimizer.step", {}, {3})};
  r2.rank = 2;
  r2.parameters = {f32("p", {2, 3}, {1, 2, 3, 4, 5, 6})};
  r2.optimizerState = {f32("p.adam_m[0:4]", {4}, {10, 11, 12, 13}),
                       f32("p.adam_m[4:4]", {0}, {}),
                       f32("optimizer.step", {}, {3})};
  return {r0, r1, r2};
}

TEST(CheckpointTensors, PiecesJoinIntoTheParametersShape) {
  exec::CheckpointTensors checkpoint;
  HETC_ASSERT_OK(exec::assembleCheckpoint(shardedRanks(), &checkpoint));
  ASSERT_EQ(checkpoint.parameters.size(), 2u);
  EXPECT_EQ(checkpoint.parameters[0].name, "w");
  EXPECT_EQ(checkpoint.parameters[1].name, "p");
  ASSERT_EQ(checkpoint.optimizerState.size(), 3u);
  EXPECT_EQ(checkpoint.optimizerState[0].name, "w.adam_m");
  EXPECT_EQ(checkpoint.optimizerState[1].name, "optimizer.step");
  const NamedTensor &m = checkpoint.optimizerState[2];
  EXPECT_EQ(m.name, "p.adam_m");
  EXPECT_EQ(m.dtype, "F32");
  EXPECT_EQ(m.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(floats(m), (std::vector<float>{10, 11, 12, 13, 14, 15}));
}

TEST(CheckpointTensors, StateOfNoParameterStaysFlat) {
  std::vector<RankTensors> ranks(2);
  ranks[0].optimizerState = {f32("momentum[0:1]", {1}, {7})};
  ranks[1].rank = 1;
  ranks[1].optimizerState = {f32("momentum[1:3]", {2}, {8, 9})};
  exec::CheckpointTensors checkpoint;
  HETC_ASSERT_OK(exec::assembleCheckpoint(ranks, &checkpoint));
  ASSERT_EQ(checkpoint.optimizerState.size(), 1u);
  EXPECT_EQ(checkpoint.optimizerState[0].shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(floats(checkpoint.optimizerState[0]),
            (std::vector<float>{7, 8, 9}));
}

TEST(CheckpointTensors, GapsAndOverlapsAreErrors) {
  std::vector<RankTensors> gap = shardedRanks();
  gap[1].optimizerState[0] = f32("p.adam_m[5:6]", {1}, {15});
  exec::CheckpointTensors checkpoint;
  EXPECT_TRUE(isError(exec::assembleCheckpoint(gap, &checkpoint),
                      StatusCode::kDataLoss,
                      "optimizer state 'p.adam_m': no rank holds elements "
                      "[4, 5)"));

  std::vector<RankTensors> tail = shardedRanks();
  tail[1].optimizerState.erase(tail[1].optimizerState.begin());
  EXPECT_TRUE(isError(exec::assembleCheckpoint(tail, &checkpoint),
                      StatusCode::kDataLoss,
                      "optimizer state 'p.adam_m': no rank holds elements "
                      "[4, 6) (parameter 'p' gives it 6 elements)"));

  std::vector<RankTensors> overlap = shardedRanks();
  overlap[1].optimizerState[0] = f32("p.adam_m[3:6]", {3}, {13, 14, 15});
  EXPECT_TRUE(isError(exec::assembleCheckpoint(overlap, &checkpoint),
                      StatusCode::kDataLoss,
                      "optimizer state 'p.adam_m': elements [3, 4) are held "
                      "by rank 2 and rank 1"));

  std::vector<RankTensors> mixed = shardedRanks();
  mixed[0].optimizerState.push_back(
      f32("p.adam_m", {2, 3}, {0, 0, 0, 0, 0, 0}));
  EXPECT_TRUE(isError(exec::assembleCheckpoint(mixed, &checkpoint),
                      StatusCode::kInvalidArgument,
                      "optimizer state 'p.adam_m' is held whole by rank 0 and "
                      "in pieces by rank 1"));

  std::vector<RankTensors> misshapen = shardedRanks();
  misshapen[1].optimizerState[0] = f32("p.adam_m[4:6]", {1, 2}, {14, 15});
  EXPECT_TRUE(isError(exec::assembleCheckpoint(misshapen, &checkpoint),
                      StatusCode::kInvalidArgument,
                      "optimizer state piece 'p.adam_m[4:6]' on rank 1 has "
                      "shape [1,2]"));
}

// Full sharding: the parameter itself lives in pieces; the package gives its
// shape, and its state follows it.
TEST(CheckpointTensors, ParameterPiecesJoinIntoTheShapeThePackageGives) {
  std::vector<RankTensors> ranks(2);
  ranks[0].parameters = {f32("p[0:4]", {4}, {1, 2, 3, 4})};
  ranks[0].optimizerState = {f32("p.adam_m[0:4]", {4}, {10, 11, 12, 13})};
  ranks[0].wholeShapes = {{"p[0:4]", {3, 2}}, {"p.adam_m[0:4]", {3, 2}}};
  ranks[1].rank = 1;
  ranks[1].parameters = {f32("p[4:6]", {2}, {5, 6})};
  ranks[1].optimizerState = {f32("p.adam_m[4:6]", {2}, {14, 15})};
  ranks[1].wholeShapes = {{"p[4:6]", {3, 2}}, {"p.adam_m[4:6]", {3, 2}}};
  exec::CheckpointTensors checkpoint;
  HETC_ASSERT_OK(exec::assembleCheckpoint(ranks, &checkpoint));
  ASSERT_EQ(checkpoint.parameters.size(), 1u);
  EXPECT_EQ(checkpoint.parameters[0].name, "p");
  EXPECT_EQ(checkpoint.parameters[0].shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(floats(checkpoint.parameters[0]),
            (std::vector<float>{1, 2, 3, 4, 5, 6}));
  ASSERT_EQ(checkpoint.optimizerState.size(), 1u);
  EXPECT_EQ(checkpoint.optimizerState[0].shape, (std::vector<int64_t>{3, 2}));

  ranks[1].parameters.clear();
  EXPECT_TRUE(isError(exec::assembleCheckpoint(ranks, &checkpoint),
                      StatusCode::kDataLoss,
                      "parameter 'p': no rank holds elements [4, 6) (the "
                      "package gives it 6 elements)"));
}

} // namespace
} // namespace hetc::runtime::test
