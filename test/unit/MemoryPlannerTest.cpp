//===- MemoryPlannerTest.cpp - the static arena planner -------------------===//
//
// Hand-computed layouts for the greedy best-fit rule, then properties on
// random steps: no two buffers live at once share a byte, offsets are
// aligned, and the peak lies between the largest live set and the sum of all
// sizes.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/HetGraphToHetExec/MemoryPlanner/MemoryPlanner.h"

#include <gtest/gtest.h>

#include <random>

using hetc::lower::alignTo;
using hetc::lower::BufferRequest;
using hetc::lower::kArenaAlignment;
using hetc::lower::maxLiveBytes;
using hetc::lower::MemoryPlan;
using hetc::lower::naiveBytes;
using hetc::lower::planMemory;

namespace {

TEST(MemoryPlanner, PersistentBuffersAreAlignedInOrder) {
  std::vector<BufferRequest> requests = {BufferRequest::persistentBuffer(10),
                                         BufferRequest::persistentBuffer(64),
                                         BufferRequest::persistentBuffer(1)};
  MemoryPlan plan = planMemory(requests);
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0, 64, 128}));
  EXPECT_EQ(plan.persistentBytes, 192);
  EXPECT_EQ(plan.arenaBytes, 192);
}

TEST(MemoryPlanner, ActivationsStartAfterThePersistentRegion) {
  std::vector<BufferRequest> requests = {BufferRequest::activation(10, 0, 0),
                                         BufferRequest::persistentBuffer(100)};
  MemoryPlan plan = planMemory(requests);
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{128, 0}));
  EXPECT_EQ(plan.persistentBytes, 128);
  EXPECT_EQ(plan.arenaBytes, 192);
}

TEST(MemoryPlanner, ChainReusesTheBytesOfDeadBuffers) {
  // a -> b -> c: a and c never live together, so c takes a's place; b, the
  // largest, is placed first.
  std::vector<BufferRequest> requests = {BufferRequest::activation(100, 0, 1),
                                         BufferRequest::activation(200, 1, 2),
                                         BufferRequest::activation(100, 2, 3)};
  MemoryPlan plan = planMemory(requests);
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{256, 0, 256}));
  EXPECT_EQ(plan.arenaBytes, 384);
  EXPECT_EQ(naiveBytes(requests), 128 + 256 + 128);
  EXPECT_EQ(maxLiveBytes(requests), 384);
}

TEST(MemoryPlanner, PicksTheSmallestGapThatFits) {
  // B and D die at step 2, leaving gaps of 640 bytes [1024, 1664) and 256
  // bytes [2176, 2432) between A, C and E; F (150 bytes, steps 5-9) goes into
  // the smaller one, not the first.
  std::vector<BufferRequest> requests = {
      BufferRequest::activation(1000, 0, 9), // A
      BufferRequest::activation(600, 0, 2),  // B
      BufferRequest::activation(500, 0, 9),  // C
      BufferRequest::activation(200, 0, 2),  // D
      BufferRequest::activation(160, 0, 9),  // E
      BufferRequest::activation(150, 5, 9),  // F
  };
  MemoryPlan plan = planMemory(requests);
  EXPECT_EQ(plan.offsets,
            (std::vector<int64_t>{0, 1024, 1664, 2176, 2432, 2176}));
  EXPECT_EQ(plan.arenaBytes, 2624);
}

TEST(MemoryPlanner, EmptyStepHasAnEmptyArena) {
  MemoryPlan plan = planMemory({});
  EXPECT_EQ(plan.arenaBytes, 0);
  EXPECT_TRUE(plan.offsets.empty());
}

TEST(MemoryPlanner, BoundsOnKnownCases) {
  // Everything live at once: no reuse is possible.
  std::vector<BufferRequest> requests = {BufferRequest::activation(64, 0, 3),
                                         BufferRequest::activation(64, 1, 2),
                                         BufferRequest::activation(64, 2, 3)};
  MemoryPlan plan = planMemory(requests);
  EXPECT_EQ(plan.arenaBytes, 192);
  EXPECT_EQ(maxLiveBytes(requests), 192);
}

bool overlap(int64_t a, int64_t aBytes, int64_t b, int64_t bBytes) {
  return a < b + bBytes && b < a + aBytes;
}

TEST(MemoryPlanner, RandomStepsArePlannedSafely) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 500; ++trial) {
    int steps = 1 + rng() % 20;
    int count = 1 + rng() % 40;
    std::vector<BufferRequest> requests;
    for (int i = 0; i < count; ++i) {
      int64_t bytes = 1 + rng() % 2000;
      if (rng() % 5 == 0) {
        requests.push_back(BufferRequest::persistentBuffer(bytes));
        continue;
      }
      int64_t first = rng() % steps;
      int64_t last = first + rng() % (steps - first);
      requests.push_back(BufferRequest::activation(bytes, first, last));
    }
    MemoryPlan plan = planMemory(requests);
    ASSERT_EQ(plan.offsets.size(), requests.size());
    for (size_t i = 0; i < requests.size(); ++i) {
      const BufferRequest &a = requests[i];
      EXPECT_EQ(plan.offsets[i] % kArenaAlignment, 0);
      EXPECT_LE(plan.offsets[i] + a.bytes, plan.arenaBytes);
      if (!a.persistent) {
        EXPECT_GE(plan.offsets[i], plan.persistentBytes);
      }
      for (size_t j = i + 1; j < requests.size(); ++j) {
        const BufferRequest &b = requests[j];
        bool together = a.persistent || b.persistent ||
                        (a.firstUse <= b.lastUse && b.firstUse <= a.lastUse);
        if (together) {
          EXPECT_FALSE(
              overlap(plan.offsets[i], a.bytes, plan.offsets[j], b.bytes))
              << "trial " << trial << ": buffers " << i << " and " << j;
        }
      }
    }
    EXPECT_GE(plan.arenaBytes, maxLiveBytes(requests)) << "trial " << trial;
    EXPECT_LE(plan.arenaBytes, naiveBytes(requests)) << "trial " << trial;
    EXPECT_EQ(plan.arenaBytes % kArenaAlignment, 0);
  }
}

} // namespace
