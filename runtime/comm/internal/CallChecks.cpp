//===- CallChecks.cpp -----------------------------------------------------===//

#include "runtime/comm/internal/CallChecks.h"

#include <numeric>
#include <sstream>

namespace hetc::runtime::comm::internal {

const char *collectiveName(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::kAllReduce:
    return "all_reduce";
  case CollectiveKind::kReduceScatter:
    return "reduce_scatter";
  case CollectiveKind::kAllGather:
    return "all_gather";
  }
  return "collective";
}

int64_t CollectiveCall::totalCount() const {
  return std::accumulate(counts.begin(), counts.end(), int64_t(0));
}

int64_t CollectiveCall::offsetOf(int member) const {
  return std::accumulate(counts.begin(), counts.begin() + member, int64_t(0));
}

static std::string countsToString(const std::vector<int64_t> &counts) {
  std::ostringstream os;
  os << '{';
  for (size_t i = 0; i < counts.size(); ++i)
    os << (i ? "," : "") << counts[i];
  os << '}';
  return os.str();
}

std::string CollectiveCall::describe() const {
  std::ostringstream os;
  os << collectiveName(kind) << '(' << dtypeName(dtype) << ", ";
  if (kind == CollectiveKind::kAllReduce)
    os << "count " << (counts.empty() ? 0 : counts[0]);
  else
    os << "counts " << countsToString(counts);
  os << ')';
  return os.str();
}

bool CollectiveCall::matches(const CollectiveCall &other) const {
  return kind == other.kind && dtype == other.dtype && counts == other.counts;
}

std::string groupToString(const std::vector<int> &group) {
  std::ostringstream os;
  os << '{';
  for (size_t i = 0; i < group.size(); ++i)
    os << (i ? "," : "") << group[i];
  os << '}';
  return os.str();
}

std::string namedRanks(const std::vector<int> &ranks) {
  if (ranks.size() == 1)
    return "rank " + std::to_string(ranks[0]);
  return "ranks " + groupToString(ranks);
}

uint64_t groupFingerprint(const std::vector<int> &group) {
  uint64_t hash = 1469598103934665603ull;
  for (int member : group) {
    hash ^= static_cast<uint64_t>(member);
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string collectiveOverGroup(CollectiveKind kind,
                                const std::vector<int> &group) {
  return std::string(collectiveName(kind)) + " over ranks " +
         groupToString(group);
}

Status checkPeer(int rank, int worldSize, const char *op, int peer,
                 const void *data, size_t bytes) {
  if (peer < 0 || peer >= worldSize)
    return invalidArgument("rank ", rank, ": ", op, ": peer ", peer,
                           " is out of range for a world of ", worldSize,
                           " ranks");
  if (peer == rank)
    return invalidArgument("rank ", rank, ": ", op,
                           ": peer is the rank itself");
  if (!data && bytes > 0)
    return invalidArgument("rank ", rank, ": ", op, ": null buffer for ", bytes,
                           " bytes");
  return okStatus();
}

static Status checkGroup(int rank, int worldSize, const std::vector<int> &group,
                         const std::string &what, int *memberIndex) {
  if (group.empty())
    return invalidArgument(what, ": the group is empty");
  for (size_t i = 0; i < group.size(); ++i) {
    if (group[i] < 0 || group[i] >= worldSize)
      return invalidArgument(what, ": rank ", group[i],
                             " is out of range for a world of ", worldSize,
                             " ranks");
    if (i > 0 && group[i] <= group[i - 1])
      return invalidArgument(what, ": the members must be in increasing order");
  }
  for (size_t i = 0; i < group.size(); ++i)
    if (group[i] == rank) {
      *memberIndex = static_cast<int>(i);
      return okStatus();
    }
  return invalidArgument(what, ": the group does not include rank ", rank);
}

Status checkCollective(int rank, int worldSize, const std::vector<int> &group,
                       const CollectiveCall &call, int *memberIndex) {
  std::string what = detail::concat("rank ", rank, ": ",
                                    collectiveOverGroup(call.kind, group));
  HETC_RETURN_IF_ERROR(checkGroup(rank, worldSize, group, what, memberIndex));
  size_t expectedCounts =
      call.kind == CollectiveKind::kAllReduce ? 1 : group.size();
  if (call.counts.size() != expectedCounts)
    return invalidArgument(what, ": got ", call.counts.size(),
                           " counts, expected ", expectedCounts);
  for (int64_t count : call.counts)
    if (count < 0)
      return invalidArgument(what, ": negative count ", count);
  if (call.kind != CollectiveKind::kAllGather && call.dtype != DType::kF32 &&
      call.dtype != DType::kF64)
    return invalidArgument(what, ": sums only f32 and f64, got ",
                           dtypeName(call.dtype));

  int64_t mine =
      call.counts[call.kind == CollectiveKind::kAllReduce ? 0 : *memberIndex];
  int64_t inputCount =
      call.kind == CollectiveKind::kAllGather ? mine : call.totalCount();
  int64_t outputCount =
      call.kind == CollectiveKind::kReduceScatter ? mine : call.totalCount();
  if ((!call.input && inputCount > 0) || (!call.output && outputCount > 0))
    return invalidArgument(what, ": null buffer for elements");
  return okStatus();
}

} // namespace hetc::runtime::comm::internal
