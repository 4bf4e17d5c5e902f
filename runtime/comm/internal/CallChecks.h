//===- CallChecks.h - argument checks of every communicator -----*- C++ -*-===//
//
// Every communicator validates its arguments the same way and with the same
// messages before touching the transport, so a bad call reads the same
// whichever backend runs it.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_COMM_INTERNAL_CALLCHECKS_H
#define HETC_RUNTIME_COMM_INTERNAL_CALLCHECKS_H

#include "runtime/base/Status.h"
#include "runtime/base/Tensor.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hetc::runtime::comm::internal {

enum class CollectiveKind { kAllReduce, kReduceScatter, kAllGather };

// "all_reduce", "reduce_scatter", "all_gather" (the hetd op names).
const char *collectiveName(CollectiveKind kind);

/// One member's arguments to a collective. all_reduce has one count and
/// `input == output` (in place).
struct CollectiveCall {
  CollectiveKind kind;
  DType dtype;
  std::vector<int64_t> counts;
  const void *input;
  void *output;

  int64_t totalCount() const;
  // Elements before member `member`'s part: counts[0] + ... + counts[member-1].
  int64_t offsetOf(int member) const;
  // "reduce_scatter(f32, counts {5,0,3})", "all_reduce(f64, count 8)".
  std::string describe() const;
  // Same kind, dtype and counts (the buffers may differ).
  bool matches(const CollectiveCall &other) const;
};

/// "{0,2,3}".
std::string groupToString(const std::vector<int> &group);
/// "rank 3" for one rank, "ranks {1,3}" for several.
std::string namedRanks(const std::vector<int> &ranks);
/// FNV-1a of the members: what ranks setting up a group's communicator
/// exchange, so that members setting up different groups notice.
uint64_t groupFingerprint(const std::vector<int> &group);
/// "reduce_scatter over ranks {1,2,3}".
std::string collectiveOverGroup(CollectiveKind kind,
                                const std::vector<int> &group);

/// INVALID_ARGUMENT unless `peer` is another rank of the world and `data` is
/// non-null (or `bytes` is 0). `op` is "send" or "recv".
Status checkPeer(int rank, int worldSize, const char *op, int peer,
                 const void *data, size_t bytes);

/// INVALID_ARGUMENT unless `group` is non-empty, increasing, inside the
/// world and holds `rank`; the counts are one per member and non-negative;
/// reductions are over f32 or f64; buffers are non-null where they hold
/// elements. Sets `*memberIndex` to rank's position in `group`.
Status checkCollective(int rank, int worldSize, const std::vector<int> &group,
                       const CollectiveCall &call, int *memberIndex);

} // namespace hetc::runtime::comm::internal

#endif // HETC_RUNTIME_COMM_INTERNAL_CALLCHECKS_H
