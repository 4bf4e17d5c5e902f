//===- CommKernelsTest.cpp - communication launches checked before step 0 -===//

#include "runtime/comm/InProcessCommunicator.h"
#include "runtime/exec/Executor.h"

#include "ProgramBuilder.h"
#include "TestUtil.h"

namespace hetc::runtime::test {
namespace {

using exec::RankExecutor;

// Rank 1 of three, with an f32 buffer `x` [6] and an i64 buffer `ids` [6].
struct Rank1 {
  ProgramBuilder b{3, 1, 2};
  int x, ids;
  Rank1() {
    b.setSamples(1, 1);
    b.setLoss(-1);
    x = b.f32("x", {6});
    ids = b.buffer("ids", pkg::I64, {6}, pkg::ACTIVATION);
  }
  pkg::Instruction &send(int peer, int64_t tag) {
    pkg::Instruction &inst = b.launch("send", {x}, {});
    setInt(inst, "peer", peer);
    setInt(inst, "tag", tag);
    return inst;
  }
  pkg::Instruction &collective(const std::string &kernel, int in, int out,
                               std::vector<int64_t> group,
                               std::vector<int64_t> counts = {}) {
    pkg::Instruction &inst = b.launch(kernel, {in}, {out});
    setInts(inst, "group", group);
    if (!counts.empty())
      setInts(inst, "counts", counts);
    return inst;
  }
  Status create(comm::Communicator *communicator = nullptr) {
    package =
        multiRankPackage({ProgramBuilder(3, 1, 2), b, ProgramBuilder(3, 1, 2)});
    return RankExecutor::create(package, 1, exec::cpuKernelRegistry(), &rank,
                                communicator);
  }
  exec::LoadedPackage package;
  std::unique_ptr<RankExecutor> rank;
};

TEST(CommKernels, PeersAreOtherRanksOfThePackage) {
  Rank1 outside;
  outside.send(3, 0);
  EXPECT_TRUE(isError(outside.create(), StatusCode::kInvalidArgument,
                      "rank1.pb: instruction 0 (send) at loc(\"test\":1:1): "
                      "rank 1 sends to peer 3, which is not a rank of the "
                      "package (3 ranks)"));
  Rank1 self;
  self.send(1, 0);
  EXPECT_TRUE(isError(self.create(), StatusCode::kInvalidArgument,
                      "rank 1 sends to itself"));
  Rank1 tag;
  pkg::Instruction &recv = tag.b.launch("recv", {}, {tag.x});
  setInt(recv, "peer", 0);
  setInt(recv, "tag", -1);
  EXPECT_TRUE(isError(tag.create(), StatusCode::kInvalidArgument,
                      "instruction 0 (recv) at loc(\"test\":1:1): tag -1 is "
                      "negative"));
  Rank1 missing;
  missing.send(0, 0).mutable_attributes()->erase("tag");
  EXPECT_TRUE(isError(missing.create(), StatusCode::kInvalidArgument,
                      "attribute 'tag' is missing"));
}

TEST(CommKernels, GroupsAreIncreasingRanksIncludingThisOne) {
  Rank1 unsorted;
  unsorted.collective("all_reduce", unsorted.x, unsorted.x, {0, 2, 1});
  EXPECT_TRUE(isError(unsorted.create(), StatusCode::kInvalidArgument,
                      "instruction 0 (all_reduce) at loc(\"test\":1:1): group "
                      "[0,2,1] is not in strictly increasing order"));
  Rank1 without;
  without.collective("all_reduce", without.x, without.x, {0, 2});
  EXPECT_TRUE(isError(without.create(), StatusCode::kInvalidArgument,
                      "group [0,2] does not include rank 1"));
  Rank1 outside;
  outside.collective("all_reduce", outside.x, outside.x, {1, 4});
  EXPECT_TRUE(isError(outside.create(), StatusCode::kInvalidArgument,
                      "group member 4 is not a rank of the package (3 ranks)"));
}

TEST(CommKernels, CountsMatchTheGroupAndTheBuffers) {
  Rank1 size;
  int piece = size.b.f32("piece", {2});
  size.collective("reduce_scatter", size.x, piece, {0, 1, 2}, {4, 2});
  EXPECT_TRUE(isError(size.create(), StatusCode::kInvalidArgument,
                      "counts [4,2] has 2 entries for a group of 3"));
  Rank1 negative;
  piece = negative.b.f32("piece", {2});
  negative.collective("reduce_scatter", negative.x, piece, {0, 1, 2},
                      {4, 2, -1});
  EXPECT_TRUE(isError(negative.create(), StatusCode::kInvalidArgument,
                      "counts [4,2,-1] has a negative count"));
  Rank1 operand;
  piece = operand.b.f32("piece", {2});
  operand.collective("reduce_scatter", operand.x, piece, {0, 1, 2}, {2, 2, 1});
  EXPECT_TRUE(isError(operand.create(), StatusCode::kInvalidArgument,
                      "instruction 0 (reduce_scatter) at loc(\"test\":1:1): "
                      "operand 0 (buffer 0 'x', 6 elements) must hold "
                      "sum(counts) = 5 elements"));
  Rank1 result;
  piece = result.b.f32("piece", {2});
  result.collective("reduce_scatter", result.x, piece, {0, 1, 2}, {3, 3, 0});
  EXPECT_TRUE(isError(result.create(), StatusCode::kInvalidArgument,
                      "result 0 (buffer 2 'piece', 2 elements) must hold "
                      "counts[1] (rank 1's part) = 3 elements"));
  Rank1 gather;
  int full = gather.b.f32("full", {7});
  gather.collective("all_gather", gather.x, full, {1, 2}, {6, 0});
  EXPECT_TRUE(isError(gather.create(), StatusCode::kInvalidArgument,
                      "result 0 (buffer 2 'full', 7 elements) must hold "
                      "sum(counts) = 6 elements"));
}

TEST(CommKernels, ReductionsSumFloatsInPlace) {
  Rank1 integers;
  integers.collective("all_reduce", integers.ids, integers.ids, {0, 1});
  EXPECT_TRUE(isError(integers.create(), StatusCode::kInvalidArgument,
                      "all_reduce sums F32 or F64, not I64 (buffer 1 'ids')"));
  Rank1 elsewhere;
  int y = elsewhere.b.f32("y", {6});
  elsewhere.collective("all_reduce", elsewhere.x, y, {0, 1});
  EXPECT_TRUE(isError(elsewhere.create(), StatusCode::kInvalidArgument,
                      "result 0 (buffer 2 'y') must be operand 0's bytes "
                      "(buffer 0 'x'): all_reduce sums in place"));
  // all_gather moves bytes of any dtype.
  Rank1 gather;
  int all = gather.b.buffer("all", pkg::I64, {12}, pkg::ACTIVATION);
  gather.collective("all_gather", gather.ids, all, {0, 1}, {6, 6});
  EXPECT_TRUE(isError(gather.create(), StatusCode::kFailedPrecondition,
                      "crosses ranks, but the rank has no communicator"));
}

TEST(CommKernels, TheCommunicatorIsThisRanksOfTheWholeWorld) {
  Rank1 valid;
  valid.send(2, 5);
  EXPECT_TRUE(isError(valid.create(), StatusCode::kFailedPrecondition,
                      "rank 1: rank1.pb: instruction 0 (send) at "
                      "loc(\"test\":1:1) crosses ranks, but the rank has no "
                      "communicator"));
  auto world = comm::createInProcessWorld(3, std::chrono::seconds(1), std::chrono::seconds(1));
  EXPECT_TRUE(isError(valid.create(world[0].get()),
                      StatusCode::kInvalidArgument,
                      "rank 1 of a package of 3 ranks was given the "
                      "communicator of rank 0 of 3"));
  HETC_ASSERT_OK(valid.create(world[1].get()));
}

} // namespace
} // namespace hetc::runtime::test
