//===- MpiPeerWatch.h - signs of life between MPI processes -----*- C++ -*-===//
//
// A process under MPI cannot see whether a peer it waits for is stopped
// (SIGSTOP, a frozen or unreachable host) or merely busy: a long step, a
// checkpoint being written. Each process therefore runs a thread that
// sends every peer a heartbeat several times per stall timeout (at most
// once a second), on a communicator of its own; a beat carries the step
// its sender is in. A peer is alive while its heartbeats arrive, whatever
// its main thread does; one silent for the stall timeout is named by
// whoever waits for it. (A peer whose main thread is stuck while its
// heartbeats go on is caught by the per-wait limit.)
//
// A peer on the same host is also watched as a process (a pidfd, checked
// to be the same process by its start time): when it ends, killed or
// crashed, the watch reports it at once, before the launcher tears the job
// down, and every wait for it ends. Needs MPI_THREAD_MULTIPLE.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_COMM_INTERNAL_MPIPEERWATCH_H
#define HETC_RUNTIME_COMM_INTERNAL_MPIPEERWATCH_H

#include <mpi.h>
#include <poll.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace hetc::runtime::comm::internal {

/// Who each rank is: its host, and its process for the peers on one host.
struct MpiRankIdentity {
  std::string host;
  int64_t pid = 0;
  int64_t startTicks = 0; // the process's start time (/proc/PID/stat)
};

class MpiPeerWatch {
public:
  /// Called, from the watch's thread, when a peer's process ends: "rank 0
  /// (host n1, in step 4) lost " + describeLoss(peer).
  using LossReporter = std::function<void(const std::string &)>;

  /// Takes `comm` (a duplicate of the world, freed on stop) and starts the
  /// thread. `ranks[r]` identifies rank r.
  MpiPeerWatch(MPI_Comm comm, int rank, int size,
               std::chrono::milliseconds stallTimeout,
               std::vector<MpiRankIdentity> ranks, LossReporter reportLoss);
  ~MpiPeerWatch();
  MpiPeerWatch(const MpiPeerWatch &) = delete;
  MpiPeerWatch &operator=(const MpiPeerWatch &) = delete;

  /// This process starts step `step` (0-based); its next beats say so.
  void noteStep(int64_t step) { step_.store(step); }

  /// The first of `peers` whose process ended or whose heartbeats stopped
  /// for the stall timeout; -1 when none did.
  int lost(const std::vector<int> &peers) const;
  /// "rank 2 (host node3, in step 7), which has sent no heartbeat for 30 s:
  /// stopped, frozen, or gone", or "..., whose process (pid 811) has ended".
  std::string describeLoss(int peer) const;

  /// Where this process is, for messages: "rank 0 (host node1, in step 7)".
  std::string describeSelf() const;

  /// A process's start time in clock ticks since boot; 0 if unknown.
  static int64_t processStartTicks(int64_t pid);

private:
  void run();
  void beat();
  void listen();
  void watchProcesses();
  void waitForExits(std::chrono::milliseconds timeout);
  std::string describeRank(int rank, int64_t step) const;

  MPI_Comm comm_;
  int rank_, size_;
  std::chrono::milliseconds stallTimeout_, period_;
  std::vector<MpiRankIdentity> ranks_;
  LossReporter reportLoss_;
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> step_{-1};
  // Per peer: when its last heartbeat arrived (steady-clock nanoseconds),
  // the step it was in, whether its process has ended.
  std::unique_ptr<std::atomic<int64_t>[]> heardAt_;
  std::unique_ptr<std::atomic<int64_t>[]> peerStep_;
  std::unique_ptr<std::atomic<bool>[]> ended_;
  // The peers on this host whose processes are watched, and a pidfd of
  // each (an entry goes when its process ends).
  std::vector<int> watchedPeers_;
  std::vector<pollfd> watchedProcesses_;
  // Per peer: the beat being sent (a count) and its request.
  std::vector<int64_t> outgoing_;
  std::vector<MPI_Request> sends_;
  std::thread thread_;
};

} // namespace hetc::runtime::comm::internal

#endif // HETC_RUNTIME_COMM_INTERNAL_MPIPEERWATCH_H
