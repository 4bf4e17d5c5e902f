//===- MpiPeerWatch.h - signs of life between MPI processes -----*- C++ -*-===//
//
// A process under MPI cannot see whether a peer it waits for is stopped
// (SIGSTOP, a frozen or unreachable host) or merely busy: a long step, a
// checkpoint being written. Each process therefore runs a thread that
// sends every peer a heartbeat several times per stall timeout (at most
// once a second), on a communicator of its own. A peer is alive while its
// heartbeats arrive, whatever its main thread does; one silent for the
// stall timeout is named by whoever waits for it. (A peer whose main thread
// is stuck while its heartbeats go on is caught by the per-wait limit.)
// Needs MPI_THREAD_MULTIPLE.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_COMM_INTERNAL_MPIPEERWATCH_H
#define HETC_RUNTIME_COMM_INTERNAL_MPIPEERWATCH_H

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace hetc::runtime::comm::internal {

class MpiPeerWatch {
public:
  /// Takes `comm` (a duplicate of the world, freed on stop) and starts the
  /// thread. `hosts[r]` names rank r's host, for messages.
  MpiPeerWatch(MPI_Comm comm, int rank, int size,
               std::chrono::milliseconds stallTimeout,
               std::vector<std::string> hosts);
  ~MpiPeerWatch();
  MpiPeerWatch(const MpiPeerWatch &) = delete;
  MpiPeerWatch &operator=(const MpiPeerWatch &) = delete;

  /// The first of `peers` whose heartbeats stopped for the stall timeout;
  /// -1 when none did.
  int stalled(const std::vector<int> &peers) const;
  /// "rank 2 (host node3), which has sent no heartbeat for 30 s: stopped,
  /// frozen, or gone".
  std::string describeStall(int peer) const;

private:
  void run();
  void beat();
  void listen();

  MPI_Comm comm_;
  int rank_, size_;
  std::chrono::milliseconds stallTimeout_, period_;
  std::vector<std::string> hosts_;
  std::atomic<bool> stopping_{false};
  // Per peer: when its last heartbeat arrived (steady-clock nanoseconds).
  std::unique_ptr<std::atomic<int64_t>[]> heardAt_;
  // Per peer: the beat being sent (a count) and its request.
  std::vector<int64_t> outgoing_;
  std::vector<MPI_Request> sends_;
  std::thread thread_;
};

} // namespace hetc::runtime::comm::internal

#endif // HETC_RUNTIME_COMM_INTERNAL_MPIPEERWATCH_H
