//===- MemoryPlanner.h - static arena layout of one step --------*- C++ -*-===//
//
// Places the buffers of a straight-line step at byte offsets of one arena.
// Persistent buffers (parameters, optimizer state, constants, inputs) get a
// region of their own at the start, in request order, never reused. Each
// activation lives over an inclusive range of steps; two activations whose
// ranges intersect never share a byte. Activations are placed greedily,
// largest first (TFLite's arena planner): each goes into the smallest gap
// between the buffers already placed that are live at the same time, or
// after the last of them when no gap fits.
//
// Plain C++: no MLIR, so the planner is unit-tested on its own.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PASSES_CONVERSION_HETGRAPHTOHETEXEC_MEMORYPLANNER_MEMORYPLANNER_H
#define HETC_PASSES_CONVERSION_HETGRAPHTOHETEXEC_MEMORYPLANNER_MEMORYPLANNER_H

#include <cstdint>
#include <vector>

namespace hetc::lower {

/// Offsets the planner produces are multiples of this.
constexpr int64_t kArenaAlignment = 64;

/// `bytes` rounded up to a multiple of `alignment`.
int64_t alignTo(int64_t bytes, int64_t alignment = kArenaAlignment);

struct BufferRequest {
  int64_t bytes = 0;
  /// Lives for the whole run, in the persistent region.
  bool persistent = false;
  /// For activations: the first and last step (inclusive) that touch it.
  int64_t firstUse = 0;
  int64_t lastUse = 0;

  static BufferRequest persistentBuffer(int64_t bytes) {
    return {bytes, true, 0, 0};
  }
  static BufferRequest activation(int64_t bytes, int64_t firstUse,
                                  int64_t lastUse) {
    return {bytes, false, firstUse, lastUse};
  }
};

struct MemoryPlan {
  /// Byte offset of each request, in request order.
  std::vector<int64_t> offsets;
  /// End of the persistent region, aligned: activations start here.
  int64_t persistentBytes = 0;
  /// Bytes of the arena: the largest offset + size of any buffer, rounded up
  /// to the alignment.
  int64_t arenaBytes = 0;
};

/// Plans `requests` (activation ranges must satisfy firstUse <= lastUse).
MemoryPlan planMemory(const std::vector<BufferRequest> &requests);

/// Lower bound of any plan: the persistent region plus, over all steps, the
/// largest sum of aligned sizes of the activations live at that step.
int64_t maxLiveBytes(const std::vector<BufferRequest> &requests);

/// Upper bound without reuse: the sum of all aligned sizes.
int64_t naiveBytes(const std::vector<BufferRequest> &requests);

} // namespace hetc::lower

#endif // HETC_PASSES_CONVERSION_HETGRAPHTOHETEXEC_MEMORYPLANNER_MEMORYPLANNER_H
