//===- Plan.cpp - rank numbering, validation, data parallelism, shards ----===//

#include "planner/Plan.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace hetc::planner {

llvm::StringRef precisionName(Precision precision) {
  switch (precision) {
  case Precision::F32:
    return "f32";
  case Precision::F16:
    return "f16";
  case Precision::BF16:
    return "bf16";
  }
  return "f32";
}

std::optional<Precision> parsePrecision(llvm::StringRef name) {
  for (Precision precision : {Precision::F32, Precision::F16, Precision::BF16})
    if (name == precisionName(precision))
      return precision;
  return std::nullopt;
}

int64_t Plan::numRanks() const {
  int64_t ranks = 0;
  for (const Stage &stage : stages)
    ranks += stage.replicas.size();
  return ranks;
}

int64_t Plan::rankOf(int64_t stage, int64_t replica) const {
  int64_t rank = 0;
  for (int64_t s = 0; s < stage; ++s)
    rank += stages[s].replicas.size();
  return rank + replica;
}

std::pair<int64_t, int64_t> Plan::stageAndReplicaOf(int64_t rank) const {
  assert(rank >= 0 && rank < numRanks() && "rank out of range");
  int64_t stage = 0;
  while (rank >= static_cast<int64_t>(stages[stage].replicas.size()))
    rank -= stages[stage++].replicas.size();
  return {stage, rank};
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

namespace {

std::string rangeText(int64_t begin, int64_t end) {
  return llvm::formatv("[{0}, {1})", begin, end).str();
}

/// Fractions in messages: enough digits to show a miss of the 1e-6
/// tolerance, none of the binary noise of a sum like 0.7 + 0.2.
std::string fractionText(double fraction) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", fraction);
  return text;
}

std::string replicaName(int64_t stage, int64_t index, const Replica &replica) {
  return llvm::formatv("stage {0}, replica {1} ({2})", stage, index,
                       replica.device)
      .str();
}

void checkSegments(const Plan &plan, int64_t numSegments,
                   std::vector<std::string> &problems) {
  int64_t previousEnd = 0;
  for (const auto &[s, stage] : llvm::enumerate(plan.stages)) {
    std::string covers = rangeText(stage.firstSegment, stage.endSegment);
    if (stage.firstSegment >= stage.endSegment)
      problems.push_back(llvm::formatv(
          "stage {0} covers no segments ({1} is empty)", s, covers));
    if (s == 0 && stage.firstSegment != 0)
      problems.push_back(llvm::formatv("stage 0 covers segments {0}: the "
                                       "first stage must start at segment 0",
                                       covers));
    else if (s > 0 && stage.firstSegment > previousEnd)
      problems.push_back(llvm::formatv(
          "segments {0} belong to no stage: stage {1} must start at {2}, "
          "where stage {3} ends",
          rangeText(previousEnd, stage.firstSegment), s, previousEnd, s - 1));
    else if (s > 0 && stage.firstSegment < previousEnd)
      problems.push_back(llvm::formatv(
          "stages {0} and {1} both cover segments {2}: stage {1} must start "
          "at {3}, where stage {0} ends",
          s - 1, s,
          rangeText(stage.firstSegment,
                    std::min(previousEnd, stage.endSegment)),
          previousEnd));
    previousEnd = stage.endSegment;
  }
  const Stage &last = plan.stages.back();
  if (last.endSegment != numSegments)
    problems.push_back(llvm::formatv(
        "stage {0} covers segments {1} but the model has {2} segments "
        "(0..{3}): the last stage must end at {2}",
        plan.stages.size() - 1, rangeText(last.firstSegment, last.endSegment),
        numSegments, numSegments - 1));
}

void checkSamples(int64_t s, const Stage &stage, int64_t globalBatch,
                  std::vector<std::string> &problems) {
  std::vector<std::pair<int64_t, int64_t>> owned;
  for (const auto &[r, replica] : llvm::enumerate(stage.replicas)) {
    int64_t end = replica.firstSample + replica.numSamples;
    if (replica.firstSample < 0 || replica.numSamples < 1) {
      problems.push_back(llvm::formatv(
          "{0}: samples {1} must be a non-empty range of samples 0..{2}",
          replicaName(s, r, replica), rangeText(replica.firstSample, end),
          globalBatch - 1));
      continue;
    }
    if (end > globalBatch)
      problems.push_back(llvm::formatv(
          "{0}: samples {1} reach past the global batch of {2} (samples "
          "0..{3})",
          replicaName(s, r, replica), rangeText(replica.firstSample, end),
          globalBatch, globalBatch - 1));
    for (const auto &[q, other] :
         llvm::enumerate(llvm::ArrayRef(stage.replicas).take_front(r))) {
      int64_t begin = std::max(replica.firstSample, other.firstSample);
      int64_t stop = std::min(end, other.firstSample + other.numSamples);
      if (begin < stop)
        problems.push_back(llvm::formatv(
            "stage {0}: samples {1} are owned by both replica {2} ({3}) and "
            "replica {4} ({5})",
            s, rangeText(begin, stop), q, other.device, r, replica.device));
    }
    owned.emplace_back(replica.firstSample, end);
  }

  llvm::sort(owned);
  int64_t covered = 0;
  auto reportGap = [&](int64_t end) {
    if (covered < end)
      problems.push_back(llvm::formatv(
          "stage {0}: samples {1} belong to no replica: the replicas of a "
          "stage must split samples 0..{2} between them",
          s, rangeText(covered, end), globalBatch - 1));
  };
  for (const auto &[begin, end] : owned) {
    reportGap(std::min(begin, globalBatch));
    covered = std::max(covered, end);
  }
  reportGap(globalBatch);
}

void checkMicroBatches(int64_t s, const Stage &stage,
                       std::vector<std::string> &problems) {
  for (const auto &[r, replica] : llvm::enumerate(stage.replicas)) {
    if (replica.microBatch < 1)
      problems.push_back(
          llvm::formatv("{0}: micro_batch must be positive, got {1}",
                        replicaName(s, r, replica), replica.microBatch));
    else if (replica.numSamples % replica.microBatch != 0)
      problems.push_back(llvm::formatv(
          "{0}: micro_batch {1} does not divide its {2} samples",
          replicaName(s, r, replica), replica.microBatch, replica.numSamples));
  }
}

/// Under Full sharding each computation is bracketed by collectives over
/// the stage's replicas, so they must compute equally many micro-batches.
/// Counts are compared only once each is well defined; the other checks
/// report the rest.
void checkLockstepCounts(int64_t s, const Stage &stage,
                         std::vector<std::string> &problems) {
  auto wellDefined = [](const Replica &replica) {
    return replica.numSamples >= 1 && replica.microBatch >= 1 &&
           replica.numSamples % replica.microBatch == 0;
  };
  if (!llvm::all_of(stage.replicas, wellDefined))
    return;
  int64_t firstCount = stage.replicas.front().numMicroBatches();
  if (llvm::all_of(stage.replicas, [&](const Replica &replica) {
        return replica.numMicroBatches() == firstCount;
      }))
    return;
  std::vector<std::string> counts;
  for (const auto &[r, replica] : llvm::enumerate(stage.replicas))
    counts.push_back(
        llvm::formatv("replica {0} has {1}", r, replica.numMicroBatches()));
  problems.push_back(llvm::formatv(
      "stage {0}: with \"sharding\": \"full\" every replica needs the same "
      "number of micro-batches ({1})",
      s, llvm::join(counts, ", ")));
}

void checkShards(int64_t s, const Stage &stage,
                 std::vector<std::string> &problems) {
  double sum = 0;
  for (const auto &[r, replica] : llvm::enumerate(stage.replicas)) {
    sum += replica.shard;
    if (!(replica.shard >= 0 && replica.shard <= 1))
      problems.push_back(llvm::formatv("{0}: shard {1} is outside [0, 1]",
                                       replicaName(s, r, replica),
                                       fractionText(replica.shard)));
  }
  if (!(std::abs(sum - 1) <= 1e-6))
    problems.push_back(llvm::formatv(
        "stage {0}: shard fractions sum to {1}, not 1 (within 1e-6)", s,
        fractionText(sum)));
}

void checkDevices(const Plan &plan, std::vector<std::string> &problems) {
  llvm::StringMap<std::string> firstUse;
  for (const auto &[s, stage] : llvm::enumerate(plan.stages))
    for (const auto &[r, replica] : llvm::enumerate(stage.replicas)) {
      std::string user = llvm::formatv("stage {0}, replica {1}", s, r);
      if (replica.device.empty()) {
        problems.push_back(user + ": the device name is empty");
        continue;
      }
      auto [entry, inserted] = firstUse.try_emplace(replica.device, user);
      if (!inserted)
        problems.push_back(llvm::formatv(
            "device \"{0}\" runs both {1} and {2}: a device holds one "
            "replica",
            replica.device, entry->second, user));
    }
}

} // namespace

llvm::Error validatePlan(const Plan &plan, int64_t globalBatch,
                         int64_t numSegments) {
  std::vector<std::string> problems;
  if (globalBatch < 1)
    problems.push_back(llvm::formatv(
        "the global batch must be positive, got {0}", globalBatch));
  else if (plan.globalBatch != 0 && plan.globalBatch != globalBatch)
    problems.push_back(llvm::formatv(
        "the plan is for a global_batch of {0}, but the step has {1} samples",
        plan.globalBatch, globalBatch));

  if (plan.stages.empty())
    problems.push_back("the plan has no stages");
  else
    checkSegments(plan, numSegments, problems);

  for (const auto &[s, stage] : llvm::enumerate(plan.stages)) {
    if (stage.replicas.empty()) {
      problems.push_back(llvm::formatv("stage {0} has no replicas", s));
      continue;
    }
    if (globalBatch >= 1)
      checkSamples(s, stage, globalBatch, problems);
    checkMicroBatches(s, stage, problems);
    if (plan.sharding == ShardingKind::Full)
      checkLockstepCounts(s, stage, problems);
    checkShards(s, stage, problems);
  }
  checkDevices(plan, problems);

  if (problems.empty())
    return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 llvm::join(problems, "\n"));
}

//===----------------------------------------------------------------------===//
// Data parallelism and shard sizes
//===----------------------------------------------------------------------===//

Plan dataParallelPlan(int64_t devices, int64_t globalBatch,
                      int64_t numSegments) {
  assert(devices >= 1 && devices <= globalBatch &&
         "every device needs at least one sample");
  Plan plan;
  plan.globalBatch = globalBatch;
  Stage &stage = plan.stages.emplace_back();
  stage.endSegment = numSegments;
  int64_t next = 0;
  for (int64_t d = 0; d < devices; ++d) {
    Replica &replica = stage.replicas.emplace_back();
    replica.device = "device" + std::to_string(d);
    replica.firstSample = next;
    replica.numSamples =
        globalBatch / devices + (d < globalBatch % devices ? 1 : 0);
    replica.microBatch = replica.numSamples;
    replica.shard = static_cast<double>(replica.numSamples) / globalBatch;
    next += replica.numSamples;
  }
  return plan;
}

bool inLockstep(const Plan &plan, size_t stage) {
  return plan.sharding == ShardingKind::Full &&
         plan.stages[stage].replicas.size() > 1;
}

std::vector<int64_t> shardCounts(const Stage &stage, int64_t numElements) {
  size_t numReplicas = stage.replicas.size();
  std::vector<int64_t> counts(numReplicas, 0);
  if (numReplicas == 0)
    return counts;
  // Fractions are scaled by their sum: validation allows them to miss 1 by
  // 1e-6, which on a large tensor would be more than one element per replica.
  double total = 0;
  for (const Replica &replica : stage.replicas)
    total += replica.shard;
  assert(total > 0 && "a stage's shard fractions sum to 1");
  std::vector<double> remainders(numReplicas, 0);
  int64_t assigned = 0;
  for (size_t r = 0; r < numReplicas; ++r) {
    double quota = stage.replicas[r].shard / total * numElements;
    counts[r] = static_cast<int64_t>(std::floor(quota));
    remainders[r] = quota - counts[r];
    assigned += counts[r];
  }
  // Each remainder is below 1 and they sum to the shortfall, so no replica
  // needs two, and one with a zero fraction gets none. The largest
  // remainders (ties to the lower index) are a selection, not a sort: the
  // planner splits stages of thousands of replicas many times.
  int64_t shortfall = numElements - assigned;
  assert(shortfall >= 0 && shortfall <= static_cast<int64_t>(numReplicas));
  std::vector<size_t> byRemainder(numReplicas);
  std::iota(byRemainder.begin(), byRemainder.end(), 0);
  auto first = byRemainder.begin() + shortfall;
  std::nth_element(
      byRemainder.begin(), first, byRemainder.end(), [&](size_t a, size_t b) {
        return remainders[a] != remainders[b] ? remainders[a] > remainders[b]
                                              : a < b;
      });
  for (auto it = byRemainder.begin(); it != first; ++it)
    ++counts[*it];
  return counts;
}

std::vector<int64_t> countsWithin(llvm::ArrayRef<int64_t> counts, int64_t begin,
                                  int64_t end) {
  std::vector<int64_t> within;
  int64_t shardStart = 0;
  for (int64_t count : counts) {
    within.push_back(std::max<int64_t>(0, std::min(end, shardStart + count) -
                                              std::max(begin, shardStart)));
    shardStart += count;
  }
  return within;
}

} // namespace hetc::planner
