//===- RankMemoryTest.cpp - the memory model against the compiler ---------===//
//
// CostModel::rankMemoryBytes models the arena the compiler plans for each
// rank. test/unit/Inputs/memory-model/ holds the compiler's side: the
// fixtures' profiles and, per plan, the arena `hetc compile` printed for
// each rank (regenerate.sh writes them; test/planner/memory-model.test
// checks they are current). Every rank is within 5% but those listed in
// kExceptions, which say why.
//
//===----------------------------------------------------------------------===//

#include "planner/CostModel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

using namespace hetc::planner;

namespace {

const std::string kInputs =
    std::string(HETC_SOURCE_DIR) + "/test/unit/Inputs/memory-model/";

struct CompiledRank {
  std::string model, optimizer, plan;
  int64_t rank = 0;
  int64_t arenaBytes = 0;
};

std::vector<CompiledRank> readArenas() {
  std::vector<CompiledRank> ranks;
  auto file = llvm::MemoryBuffer::getFile(kInputs + "compiler-arenas.txt");
  EXPECT_TRUE(static_cast<bool>(file));
  if (!file)
    return ranks;
  llvm::SmallVector<llvm::StringRef> lines;
  (*file)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef line : lines) {
    if (line.starts_with("#"))
      continue;
    llvm::SmallVector<llvm::StringRef> fields;
    line.split(fields, ' ');
    EXPECT_EQ(fields.size(), 5u) << line.str();
    CompiledRank rank{fields[0].str(), fields[1].str(), fields[2].str()};
    EXPECT_FALSE(fields[3].getAsInteger(10, rank.rank));
    EXPECT_FALSE(fields[4].getAsInteger(10, rank.arenaBytes));
    ranks.push_back(rank);
  }
  return ranks;
}

/// The largest error allowed where 5% is not reached, and why.
struct Exception {
  const char *plan;
  int64_t rank;
  double tolerance;
  const char *why;
};

const Exception kExceptions[] = {
    {"test/e2e/Inputs/replicas-2-1-3.json", 5, 0.08,
     "the live peak is modelled within 0.3%, but the compiler's greedy "
     "placement leaves 7.8% of this arena in gaps (3% is modelled)"},
    {"test/e2e/Inputs/offload-optimizer.json", 5, 0.08,
     "replicas-2-1-3.json's rank 5 again: the offload is on other stages"},
    {"models/plans/demo-box-gpt2-tiny.json", 1, 0.06,
     "the live peak is modelled within 0.7%; the placement leaves 7.0% of "
     "the arena in gaps"},
};

TEST(RankMemory, ModelsTheCompilersArenaPerRank) {
  std::map<std::string, ModelProfile> profiles;
  std::vector<CompiledRank> compiled = readArenas();
  ASSERT_FALSE(compiled.empty());
  for (const CompiledRank &expected : compiled) {
    SCOPED_TRACE(expected.plan + " (" + expected.model + ", " +
                 expected.optimizer + ") rank " +
                 std::to_string(expected.rank));
    auto [it, inserted] = profiles.try_emplace(expected.model);
    if (inserted) {
      llvm::Expected<ModelProfile> profile =
          readModelProfileFile(kInputs + expected.model + ".profile.json");
      ASSERT_TRUE(static_cast<bool>(profile))
          << llvm::toString(profile.takeError());
      it->second = *profile;
    }
    ModelProfile profile = it->second;
    profile.optimizerStatePerParameterByte =
        expected.optimizer == "sgd" ? 0 : 2;

    Plan plan;
    llvm::StringRef layout = expected.plan;
    if (layout.consume_front("devices=")) {
      // hetc compile --devices N.
      int64_t devices = 0;
      ASSERT_FALSE(layout.getAsInteger(10, devices));
      plan = dataParallelPlan(devices, 8, profile.numSegments());
    } else {
      llvm::Expected<Plan> parsed =
          readPlanFile(std::string(HETC_SOURCE_DIR) + "/" + expected.plan);
      ASSERT_TRUE(static_cast<bool>(parsed))
          << llvm::toString(parsed.takeError());
      plan = *parsed;
    }
    std::vector<RankSchedule> schedule = buildSchedule(plan);
    ASSERT_LT(expected.rank, static_cast<int64_t>(schedule.size()));

    Cluster noDevices;
    CostModel cost(noDevices, profile);
    int64_t modelled = cost.rankMemoryBytes(plan, schedule[expected.rank]);
    double error = static_cast<double>(modelled - expected.arenaBytes) /
                   static_cast<double>(expected.arenaBytes);
    const Exception *exception = llvm::find_if(kExceptions, [&](auto &e) {
      return expected.plan == e.plan && expected.rank == e.rank;
    });
    bool excepted = exception != std::end(kExceptions);
    EXPECT_LE(std::abs(error), excepted ? exception->tolerance : 0.05)
        << "model " << modelled << " bytes, compiler " << expected.arenaBytes
        << " bytes: " << error * 100 << "%"
        << (excepted ? std::string(" (allowed: ") + exception->why + ")" : "");
  }
}

TEST(RankMemory, OffloadedHostBytesBoundTheCompilersHostArena) {
  // The host arenas `hetc inspect` reports for llama-deep under
  // test/e2e/Inputs/offload-optimizer.json (AdamW, batch 8 x 16): the state
  // alone falls short of them, the state with two pieces in flight (one
  // updated, the next copied in) does not.
  llvm::Expected<ModelProfile> profile =
      readModelProfileFile(kInputs + "llama-deep-op17.profile.json");
  ASSERT_TRUE(static_cast<bool>(profile))
      << llvm::toString(profile.takeError());
  profile->optimizerStatePerParameterByte = 2;
  llvm::Expected<Plan> plan = readPlanFile(
      std::string(HETC_SOURCE_DIR) + "/test/e2e/Inputs/offload-optimizer.json");
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  Cluster noDevices;
  CostModel cost(noDevices, *profile);
  struct Rank {
    int64_t stage, replica, hostArena;
  };
  for (Rank rank :
       {Rank{0, 0, 132672}, Rank{0, 1, 77888}, Rank{1, 0, 260160}}) {
    SCOPED_TRACE("stage " + std::to_string(rank.stage) + " replica " +
                 std::to_string(rank.replica));
    EXPECT_LT(cost.offloadedStateBytes(*plan, rank.stage, rank.replica),
              rank.hostArena);
    EXPECT_GE(cost.offloadedHostBytes(*plan, rank.stage, rank.replica),
              rank.hostArena);
  }
}

} // namespace
