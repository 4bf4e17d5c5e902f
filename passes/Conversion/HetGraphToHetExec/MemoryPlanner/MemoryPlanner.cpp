//===- MemoryPlanner.cpp - static arena layout of one step ----------------===//

#include "passes/Conversion/HetGraphToHetExec/MemoryPlanner/MemoryPlanner.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

namespace hetc::lower {

int64_t alignTo(int64_t bytes, int64_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

namespace {

bool liveTogether(const BufferRequest &a, const BufferRequest &b) {
  return a.firstUse <= b.lastUse && b.firstUse <= a.lastUse;
}

} // namespace

MemoryPlan planMemory(const std::vector<BufferRequest> &requests) {
  MemoryPlan plan;
  plan.offsets.assign(requests.size(), 0);

  int64_t cursor = 0;
  std::vector<size_t> activations;
  for (size_t i = 0; i < requests.size(); ++i) {
    if (!requests[i].persistent) {
      activations.push_back(i);
      continue;
    }
    plan.offsets[i] = cursor;
    plan.arenaBytes = std::max(plan.arenaBytes, cursor + requests[i].bytes);
    cursor += alignTo(requests[i].bytes);
  }
  plan.persistentBytes = cursor;

  // Largest first; ties by first use then request order, so plans are
  // deterministic.
  std::stable_sort(activations.begin(), activations.end(),
                   [&](size_t a, size_t b) {
                     if (requests[a].bytes != requests[b].bytes)
                       return requests[a].bytes > requests[b].bytes;
                     return requests[a].firstUse < requests[b].firstUse;
                   });

  // Offsets relative to the activation region.
  std::vector<size_t> placed;
  std::vector<std::pair<int64_t, int64_t>> conflicts; // [begin, end)
  for (size_t index : activations) {
    const BufferRequest &request = requests[index];
    conflicts.clear();
    for (size_t other : placed)
      if (liveTogether(request, requests[other])) {
        int64_t begin = plan.offsets[other] - plan.persistentBytes;
        conflicts.push_back({begin, begin + requests[other].bytes});
      }
    std::sort(conflicts.begin(), conflicts.end());

    int64_t size = request.bytes;
    int64_t best = -1;
    int64_t bestGap = std::numeric_limits<int64_t>::max();
    int64_t gapStart = 0;
    for (auto [begin, end] : conflicts) {
      int64_t gap = begin - gapStart;
      if (gap >= size && gap < bestGap) {
        best = gapStart;
        bestGap = gap;
      }
      gapStart = std::max(gapStart, alignTo(end));
    }
    int64_t offset = best >= 0 ? best : gapStart;
    plan.offsets[index] = plan.persistentBytes + offset;
    plan.arenaBytes =
        std::max(plan.arenaBytes, plan.offsets[index] + request.bytes);
    placed.push_back(index);
  }
  plan.arenaBytes = alignTo(plan.arenaBytes);
  return plan;
}

int64_t maxLiveBytes(const std::vector<BufferRequest> &requests) {
  int64_t persistent = 0;
  // Sweep over steps: +size at firstUse, -size after lastUse.
  std::map<int64_t, int64_t> delta;
  for (const BufferRequest &request : requests) {
    if (request.persistent) {
      persistent += alignTo(request.bytes);
      continue;
    }
    delta[request.firstUse] += alignTo(request.bytes);
    delta[request.lastUse + 1] -= alignTo(request.bytes);
  }
  int64_t live = 0, peak = 0;
  for (auto [step, change] : delta) {
    live += change;
    peak = std::max(peak, live);
  }
  return persistent + peak;
}

int64_t naiveBytes(const std::vector<BufferRequest> &requests) {
  return std::accumulate(requests.begin(), requests.end(), int64_t(0),
                         [](int64_t sum, const BufferRequest &request) {
                           return sum + alignTo(request.bytes);
                         });
}

} // namespace hetc::lower
