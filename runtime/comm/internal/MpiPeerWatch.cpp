//===- MpiPeerWatch.cpp ---------------------------------------------------===//

#ifdef HETC_HAVE_MPI

#include "runtime/comm/internal/MpiPeerWatch.h"

#include <algorithm>
#include <cstdio>

namespace hetc::runtime::comm::internal {
namespace {

constexpr int kBeatTag = 1;

int64_t nowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

} // namespace

MpiPeerWatch::MpiPeerWatch(MPI_Comm comm, int rank, int size,
                           std::chrono::milliseconds stallTimeout,
                           std::vector<std::string> hosts)
    : comm_(comm), rank_(rank), size_(size), stallTimeout_(stallTimeout),
      // Several beats per timeout, at most one a second.
      period_(std::min<std::chrono::milliseconds>(
          std::chrono::seconds(1),
          std::max<std::chrono::milliseconds>(std::chrono::milliseconds(20),
                                              stallTimeout / 8))),
      hosts_(std::move(hosts)), heardAt_(new std::atomic<int64_t>[size]),
      outgoing_(size, 0), sends_(size, MPI_REQUEST_NULL) {
  int64_t now = nowNanos();
  for (int peer = 0; peer < size; ++peer)
    heardAt_[peer].store(now);
  thread_ = std::thread([this] { run(); });
}

MpiPeerWatch::~MpiPeerWatch() {
  stopping_ = true;
  thread_.join();
  // A beat to a peer that is gone may never complete: withdraw it.
  for (MPI_Request &request : sends_)
    if (request != MPI_REQUEST_NULL) {
      MPI_Cancel(&request);
      MPI_Request_free(&request);
    }
  MPI_Comm_free(&comm_);
}

void MpiPeerWatch::run() {
  auto next = std::chrono::steady_clock::now();
  while (!stopping_) {
    beat();
    listen();
    next += period_;
    while (!stopping_ && std::chrono::steady_clock::now() < next) {
      listen();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
}

void MpiPeerWatch::beat() {
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_)
      continue;
    int done = 1;
    if (sends_[peer] != MPI_REQUEST_NULL)
      MPI_Test(&sends_[peer], &done, MPI_STATUS_IGNORE);
    if (!done)
      continue; // the last beat is still on its way
    ++outgoing_[peer];
    MPI_Isend(&outgoing_[peer], 1, MPI_INT64_T, peer, kBeatTag, comm_,
              &sends_[peer]);
  }
}

void MpiPeerWatch::listen() {
  for (;;) {
    int arrived = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, kBeatTag, comm_, &arrived, &status) !=
            MPI_SUCCESS ||
        !arrived)
      return;
    int64_t count = 0;
    MPI_Recv(&count, 1, MPI_INT64_T, status.MPI_SOURCE, kBeatTag, comm_,
             MPI_STATUS_IGNORE);
    if (status.MPI_SOURCE >= 0 && status.MPI_SOURCE < size_)
      heardAt_[status.MPI_SOURCE].store(nowNanos());
  }
}

int MpiPeerWatch::stalled(const std::vector<int> &peers) const {
  int64_t silentSince = nowNanos() - stallTimeout_ / std::chrono::nanoseconds(1);
  for (int peer : peers)
    if (peer != rank_ && peer >= 0 && peer < size_ &&
        heardAt_[peer].load() < silentSince)
      return peer;
  return -1;
}

std::string MpiPeerWatch::describeStall(int peer) const {
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%g",
                static_cast<double>(stallTimeout_.count()) / 1000.0);
  std::string host = peer < static_cast<int>(hosts_.size()) &&
                             !hosts_[peer].empty()
                         ? " (host " + hosts_[peer] + ")"
                         : "";
  return "rank " + std::to_string(peer) + host +
         ", which has sent no heartbeat for " + seconds +
         " s: stopped, frozen, or gone";
}

} // namespace hetc::runtime::comm::internal

#endif // HETC_HAVE_MPI
