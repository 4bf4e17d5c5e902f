//===- FuzzPlan.cpp - plan JSON, as hetc compile --plan reads it ----------===//
//
// Parses a plan, validates it as hetd-build-ranks does before it schedules,
// and builds and checks the schedule of a valid one.
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

#include "planner/Plan.h"
#include "planner/Schedule.h"

using namespace hetc::planner;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::Expected<Plan> plan =
      parsePlan(llvm::StringRef(reinterpret_cast<const char *>(data), size));
  if (!plan) {
    llvm::consumeError(plan.takeError());
    return 0;
  }
  int64_t batch = plan->globalBatch, segments = 0;
  if (!plan->stages.empty()) {
    for (const Replica &replica : plan->stages.front().replicas)
      batch = std::max(batch, replica.firstSample + replica.numSamples);
    segments = plan->stages.back().endSegment;
  }
  if (llvm::Error error = validatePlan(*plan, batch, segments)) {
    llvm::consumeError(std::move(error));
    return 0;
  }
  // A schedule's size grows with the micro-batches: bound the work per
  // input, not what the parser accepts.
  if (batch > 4096 || plan->numRanks() > 256)
    return 0;
  std::vector<RankSchedule> schedule = buildSchedule(*plan);
  llvm::consumeError(checkScheduleMatches(*plan, schedule));
  return 0;
}
