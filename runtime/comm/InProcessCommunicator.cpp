//===- InProcessCommunicator.cpp - ranks as threads of one process --------===//

#include "runtime/comm/InProcessCommunicator.h"

#include "runtime/comm/internal/CallChecks.h"
#include "runtime/comm/internal/CommErrors.h"
#include "runtime/comm/internal/MemberOrderSum.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

namespace hetc::runtime::comm {
namespace {

using internal::CollectiveCall;
using internal::CollectiveKind;
using Clock = std::chrono::steady_clock;

struct Message {
  int64_t tag;
  std::vector<char> bytes;
};

/// One collective call of one group: the members' arguments and the
/// counters of its two rendezvous (everyone arrived; everyone done reading
/// the others' buffers).
struct Rendezvous {
  explicit Rendezvous(size_t members) : calls(members) {}

  std::vector<std::optional<CollectiveCall>> calls; // by member index
  int arrived = 0;
  int doneReading = 0;
  int departed = 0;
  // The error of a member that stopped waiting before everyone arrived
  // (timeout, abort): the call can no longer complete, and later arrivals
  // must not publish buffers for it. Such entries stay in the world, which
  // is failing anyway.
  std::optional<Status> abandoned;
  std::vector<char> sum; // all_reduce: the result; member i sums slice i
};

/// The group's members and the call's position in the group's sequence.
using RendezvousKey = std::pair<std::vector<int>, uint64_t>;

enum class WaitEnd { kReady, kAborted, kTimedOut, kStalled };

int64_t nowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             Clock::now().time_since_epoch())
      .count();
}

struct World {
  World(int size, std::chrono::milliseconds timeout,
        std::chrono::milliseconds stallTimeout)
      : size(size), timeout(timeout), stallTimeout(stallTimeout),
        wakeups(size), mailboxes(size * size), heartbeats(size) {
    for (std::atomic<int64_t> &beat : heartbeats)
      beat = nowNanos();
  }

  void beat(int rank) { heartbeats[rank].store(nowNanos()); }

  // With `lock` held: waits until `ready()`, an abort, `timeout` after
  // `start`, or until a rank of `watched()` (those still awaited) has been
  // silent for `stallTimeout` (named in `*stalled`), in that order of
  // precedence. The waiting rank beats while it waits.
  template <typename Ready, typename Watched>
  WaitEnd wait(std::unique_lock<std::mutex> &lock, int rank,
               Clock::time_point start, Ready ready, Watched watched,
               int *stalled) {
    const auto deadline = start + timeout;
    const auto poll = std::min<Clock::duration>(stallTimeout / 4,
                                                std::chrono::seconds(1));
    for (;;) {
      beat(rank);
      if (ready())
        return WaitEnd::kReady;
      if (failure)
        return WaitEnd::kAborted;
      auto now = Clock::now();
      if (now >= deadline)
        return WaitEnd::kTimedOut;
      int64_t silentSince = nowNanos() - stallTimeout / std::chrono::nanoseconds(1);
      for (int peer : watched())
        if (heartbeats[peer].load() < silentSince) {
          *stalled = peer;
          return WaitEnd::kStalled;
        }
      wakeups[rank].wait_until(lock, std::min(deadline, now + poll));
    }
  }

  void wake(const std::vector<int> &ranks) {
    for (int r : ranks)
      wakeups[r].notify_all();
  }

  const int size;
  const std::chrono::milliseconds timeout, stallTimeout;
  std::mutex mutex;
  // One per rank: a rank's thread waits only on its own, and whoever
  // changes what a rank waits for wakes that rank.
  std::vector<std::condition_variable> wakeups;
  std::vector<std::deque<Message>> mailboxes; // [from * size + to]
  std::map<RendezvousKey, Rendezvous> rendezvous;
  std::optional<Status> failure; // set by the first abort
  // By rank: when it last completed work or waited (steady clock, ns).
  std::vector<std::atomic<int64_t>> heartbeats;
};

// Rank `peer` has been silent for `world.stallTimeout`.
Status peerStalled(int rank, const World &world, const std::string &what,
                   int peer) {
  return makeStatus(StatusCode::kDeadlineExceeded, "rank ", rank, " waited in ",
                    what, " for rank ", peer, ", which has shown no progress "
                    "for ", world.stallTimeout.count() / 1000.0,
                    " s (stuck in a kernel, or stopped; --comm-timeout sets "
                    "the limit)");
}

// "rank 3" or "ranks {1,3}": the members that have not arrived.
std::string missingMembers(const Rendezvous &rv,
                           const std::vector<int> &group) {
  std::vector<int> missing;
  for (size_t m = 0; m < group.size(); ++m)
    if (!rv.calls[m])
      missing.push_back(group[m]);
  return internal::namedRanks(missing);
}

// Every member runs this on the same calls, so all reach the same verdict.
Status checkCallsMatch(const Rendezvous &rv, int rank,
                       const std::vector<int> &group, const std::string &what) {
  const CollectiveCall &first = *rv.calls[0];
  for (size_t m = 1; m < group.size(); ++m)
    if (!rv.calls[m]->matches(first))
      return failedPrecondition("rank ", rank, ": ", what, ": rank ", group[0],
                                " called ", first.describe(), " but rank ",
                                group[m], " called ", rv.calls[m]->describe(),
                                ": the ranks' programs do not match");
  return okStatus();
}

// Member `member`'s share of the work once everyone has arrived: reads every
// member's input, writes only what is its own (its output, or its slice of
// the all_reduce result).
void contribute(Rendezvous &rv, int member) {
  const CollectiveCall &call = *rv.calls[member];
  const size_t elementSize = dtypeSize(call.dtype);
  const int64_t members = static_cast<int64_t>(rv.calls.size());
  std::vector<const void *> inputs;
  for (const auto &c : rv.calls)
    inputs.push_back(c->input);
  switch (call.kind) {
  case CollectiveKind::kAllReduce: {
    int64_t count = call.counts[0];
    int64_t begin = count * member / members;
    int64_t end = count * (member + 1) / members;
    internal::sumInMemberOrder(call.dtype, inputs, begin, end - begin,
                               rv.sum.data() + begin * elementSize);
    break;
  }
  case CollectiveKind::kReduceScatter:
    internal::sumInMemberOrder(call.dtype, inputs, call.offsetOf(member),
                               call.counts[member], call.output);
    break;
  case CollectiveKind::kAllGather:
    for (int64_t m = 0; m < members; ++m)
      if (call.counts[m] > 0)
        std::memcpy(static_cast<char *>(call.output) +
                        call.offsetOf(m) * elementSize,
                    rv.calls[m]->input, call.counts[m] * elementSize);
    break;
  }
}

class InProcessCommunicator final : public Communicator {
public:
  InProcessCommunicator(std::shared_ptr<World> world, int rank)
      : world_(std::move(world)), rank_(rank) {}

  int rank() const override { return rank_; }
  int worldSize() const override { return world_->size; }

  Status send(int peer, const void *data, size_t bytes, int64_t tag) override;
  Status recv(int peer, void *data, size_t bytes, int64_t tag) override;

  Status allReduceSum(const std::vector<int> &group, DType dtype, void *data,
                      int64_t count) override {
    return collective(group,
                      {CollectiveKind::kAllReduce, dtype, {count}, data, data});
  }
  Status reduceScatterSum(const std::vector<int> &group, DType dtype,
                          const void *input, void *output,
                          const std::vector<int64_t> &counts) override {
    return collective(
        group, {CollectiveKind::kReduceScatter, dtype, counts, input, output});
  }
  Status allGather(const std::vector<int> &group, DType dtype,
                   const void *input, void *output,
                   const std::vector<int64_t> &counts) override {
    return collective(
        group, {CollectiveKind::kAllGather, dtype, counts, input, output});
  }

  void abort(const std::string &reason) override;
  void noteProgress() override { world_->beat(rank_); }

private:
  Status collective(const std::vector<int> &group, const CollectiveCall &call);

  std::shared_ptr<World> world_;
  int rank_;
  // The position of this rank's next call in each group's sequence; the
  // members of a group count alike, so the n-th calls meet.
  std::map<std::vector<int>, uint64_t> nextCall_;
};

Status InProcessCommunicator::send(int peer, const void *data, size_t bytes,
                                   int64_t tag) {
  HETC_RETURN_IF_ERROR(
      internal::checkPeer(rank_, world_->size, "send", peer, data, bytes));
  const char *begin = static_cast<const char *>(data);
  Message message{tag, std::vector<char>(begin, begin + bytes)};
  {
    std::lock_guard<std::mutex> lock(world_->mutex);
    if (world_->failure)
      return *world_->failure;
    world_->mailboxes[rank_ * world_->size + peer].push_back(
        std::move(message));
  }
  world_->wakeups[peer].notify_all();
  return okStatus();
}

Status InProcessCommunicator::recv(int peer, void *data, size_t bytes,
                                   int64_t tag) {
  HETC_RETURN_IF_ERROR(
      internal::checkPeer(rank_, world_->size, "recv", peer, data, bytes));
  World &world = *world_;
  const auto start = Clock::now();
  std::unique_lock<std::mutex> lock(world.mutex);
  if (world.failure)
    return *world.failure;
  std::deque<Message> &mailbox = world.mailboxes[peer * world.size + rank_];
  int stalled = -1;
  switch (world.wait(
      lock, rank_, start, [&] { return !mailbox.empty(); },
      [&] { return std::vector<int>{peer}; }, &stalled)) {
  case WaitEnd::kAborted:
    return *world.failure;
  case WaitEnd::kTimedOut:
    return internal::recvTimedOut(rank_, world.timeout, peer, tag, bytes);
  case WaitEnd::kStalled:
    return peerStalled(rank_, world,
                       "recv of tag " + std::to_string(tag) + " (" +
                           std::to_string(bytes) + " bytes)",
                       stalled);
  case WaitEnd::kReady:
    break;
  }
  // A mismatched message is consumed too: the error ends the job anyway.
  Message message = std::move(mailbox.front());
  mailbox.pop_front();
  lock.unlock();
  if (message.tag != tag || message.bytes.size() != bytes)
    return internal::messageMismatch(rank_, peer, tag, bytes, message.tag,
                                     message.bytes.size());
  if (bytes > 0)
    std::memcpy(data, message.bytes.data(), bytes);
  return okStatus();
}

Status InProcessCommunicator::collective(const std::vector<int> &group,
                                         const CollectiveCall &call) {
  int member = 0;
  HETC_RETURN_IF_ERROR(
      internal::checkCollective(rank_, world_->size, group, call, &member));
  World &world = *world_;
  const int members = static_cast<int>(group.size());
  const std::string what = internal::collectiveOverGroup(call.kind, group);
  const auto start = Clock::now();
  const RendezvousKey key{group, nextCall_[group]++};

  std::unique_lock<std::mutex> lock(world.mutex);
  if (world.failure)
    return *world.failure;
  Rendezvous &rv =
      world.rendezvous.try_emplace(key, group.size()).first->second;
  auto givenUp = [&] {
    return makeStatus(rv.abandoned->code(), "rank ", rank_, ": ", what,
                      " was given up: ", rv.abandoned->message());
  };
  if (rv.abandoned)
    return givenUp();

  // Rendezvous 1: every member has published its arguments.
  rv.calls[member] = call;
  if (++rv.arrived == members)
    world.wake(group);
  int stalled = -1;
  WaitEnd end = world.wait(
      lock, rank_, start,
      [&] { return rv.arrived == members || rv.abandoned; },
      [&] {
        std::vector<int> missing;
        for (size_t m = 0; m < group.size(); ++m)
          if (!rv.calls[m])
            missing.push_back(group[m]);
        return missing;
      },
      &stalled);
  if (rv.arrived < members) {
    if (world.failure)
      end = WaitEnd::kAborted;
    if (rv.abandoned && end != WaitEnd::kAborted)
      return givenUp();
    // Before returning, make sure nobody will read this member's buffers.
    rv.abandoned = end == WaitEnd::kAborted ? *world.failure
                   : end == WaitEnd::kStalled
                       ? peerStalled(rank_, world, what, stalled)
                       : internal::waitedTooLong(rank_, world.timeout, what,
                                                 missingMembers(rv, group));
    world.wake(group);
    return *rv.abandoned;
  }
  auto depart = [&] {
    if (++rv.departed == members)
      world.rendezvous.erase(key);
  };
  if (Status match = checkCallsMatch(rv, rank_, group, what); !match.ok()) {
    depart();
    return match;
  }
  const size_t sumBytes = call.kind == CollectiveKind::kAllReduce
                              ? call.counts[0] * dtypeSize(call.dtype)
                              : 0;
  if (rv.sum.size() != sumBytes) // the first member here allocates
    rv.sum.resize(sumBytes);
  lock.unlock();
  contribute(rv, member);

  // Rendezvous 2: nobody reads the others' buffers any more. No deadline:
  // every member has arrived and only computes, and leaving early would let
  // the caller free buffers that others still read.
  lock.lock();
  if (++rv.doneReading == members)
    world.wake(group);
  world.wakeups[rank_].wait(lock, [&] { return rv.doneReading == members; });
  lock.unlock();
  if (sumBytes > 0)
    std::memcpy(call.output, rv.sum.data(), sumBytes);
  lock.lock();
  depart();
  return okStatus();
}

void InProcessCommunicator::abort(const std::string &reason) {
  {
    std::lock_guard<std::mutex> lock(world_->mutex);
    if (!world_->failure)
      world_->failure = internal::rankFailed(rank_, reason);
  }
  for (auto &wakeup : world_->wakeups)
    wakeup.notify_all();
}

} // namespace

std::vector<std::unique_ptr<Communicator>>
createInProcessWorld(int worldSize, std::chrono::milliseconds timeout,
                     std::chrono::milliseconds stallTimeout) {
  std::vector<std::unique_ptr<Communicator>> ranks;
  if (worldSize < 1)
    return ranks;
  auto world = std::make_shared<World>(worldSize, timeout, stallTimeout);
  for (int r = 0; r < worldSize; ++r)
    ranks.push_back(std::make_unique<InProcessCommunicator>(world, r));
  return ranks;
}

} // namespace hetc::runtime::comm
