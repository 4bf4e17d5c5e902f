//===- MpiPeerWatch.cpp ---------------------------------------------------===//

#ifdef HETC_HAVE_MPI

#include "runtime/comm/internal/MpiPeerWatch.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <sys/syscall.h>
#include <unistd.h>

namespace hetc::runtime::comm::internal {
namespace {

constexpr int kBeatTag = 1;

int64_t nowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A pidfd of `pid`: readable once the process ends. -1 where the kernel
// has none (before Linux 5.3) or the process is not ours to watch.
int openProcess(int64_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0));
#else
  (void)pid;
  return -1;
#endif
}

} // namespace

int64_t MpiPeerWatch::processStartTicks(int64_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(file)),
                   std::istreambuf_iterator<char>());
  // Field 2, the command, is in parentheses and may hold spaces; field 22,
  // the start time, is the 20th after it.
  size_t close = stat.rfind(')');
  if (close == std::string::npos)
    return 0;
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  for (int i = 0; i < 20 && fields >> field; ++i) {
  }
  return field.empty() ? 0 : std::strtoll(field.c_str(), nullptr, 10);
}

MpiPeerWatch::MpiPeerWatch(MPI_Comm comm, int rank, int size,
                           std::chrono::milliseconds stallTimeout,
                           std::vector<MpiRankIdentity> ranks,
                           LossReporter reportLoss)
    : comm_(comm), rank_(rank), size_(size), stallTimeout_(stallTimeout),
      // Several beats per timeout, at most one a second.
      period_(std::min<std::chrono::milliseconds>(
          std::chrono::seconds(1),
          std::max<std::chrono::milliseconds>(std::chrono::milliseconds(20),
                                              stallTimeout / 8))),
      ranks_(std::move(ranks)), reportLoss_(std::move(reportLoss)),
      heardAt_(new std::atomic<int64_t>[size]),
      peerStep_(new std::atomic<int64_t>[size]),
      ended_(new std::atomic<bool>[size]),
      outgoing_(size, 0), sends_(size, MPI_REQUEST_NULL) {
  int64_t now = nowNanos();
  for (int peer = 0; peer < size; ++peer) {
    heardAt_[peer].store(now);
    peerStep_[peer].store(-1);
    ended_[peer].store(false);
  }
  watchProcesses();
  thread_ = std::thread([this] { run(); });
}

void MpiPeerWatch::watchProcesses() {
  const MpiRankIdentity &self = ranks_[rank_];
  for (int peer = 0; peer < size_; ++peer) {
    const MpiRankIdentity &other = ranks_[peer];
    if (peer == rank_ || other.host != self.host || other.pid <= 0)
      continue;
    int fd = openProcess(other.pid);
    // Only the very process: a pid of another namespace that shares the
    // host name, or a pid reused, has another start time.
    if (fd < 0)
      continue;
    if (other.startTicks == 0 ||
        processStartTicks(other.pid) != other.startTicks) {
      close(fd);
      continue;
    }
    watchedPeers_.push_back(peer);
    watchedProcesses_.push_back({fd, POLLIN, 0});
  }
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
  for (const pollfd &process : watchedProcesses_)
    close(process.fd);
}

void MpiPeerWatch::run() {
  auto next = std::chrono::steady_clock::now();
  while (!stopping_) {
    beat();
    listen();
    next += period_;
    while (!stopping_ && std::chrono::steady_clock::now() < next) {
      listen();
      waitForExits(std::chrono::milliseconds(5));
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
    outgoing_[peer] = step_.load();
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
    int64_t step = -1;
    MPI_Recv(&step, 1, MPI_INT64_T, status.MPI_SOURCE, kBeatTag, comm_,
             MPI_STATUS_IGNORE);
    if (status.MPI_SOURCE >= 0 && status.MPI_SOURCE < size_) {
      heardAt_[status.MPI_SOURCE].store(nowNanos());
      peerStep_[status.MPI_SOURCE].store(step);
    }
  }
}

void MpiPeerWatch::waitForExits(std::chrono::milliseconds timeout) {
  if (watchedProcesses_.empty()) {
    std::this_thread::sleep_for(timeout);
    return;
  }
  if (::poll(watchedProcesses_.data(), watchedProcesses_.size(),
             static_cast<int>(timeout.count())) <= 0)
    return;
  for (size_t i = watchedProcesses_.size(); i-- > 0;) {
    if (!(watchedProcesses_[i].revents & (POLLIN | POLLHUP | POLLERR)))
      continue;
    int peer = watchedPeers_[i];
    close(watchedProcesses_[i].fd);
    watchedProcesses_.erase(watchedProcesses_.begin() + i);
    watchedPeers_.erase(watchedPeers_.begin() + i);
    ended_[peer].store(true);
    if (reportLoss_)
      reportLoss_(describeSelf() + " lost " + describeLoss(peer));
  }
}

int MpiPeerWatch::lost(const std::vector<int> &peers) const {
  int64_t silentSince = nowNanos() - stallTimeout_ / std::chrono::nanoseconds(1);
  for (int peer : peers)
    if (peer != rank_ && peer >= 0 && peer < size_ &&
        (ended_[peer].load() || heardAt_[peer].load() < silentSince))
      return peer;
  return -1;
}

std::string MpiPeerWatch::describeRank(int rank, int64_t step) const {
  std::string where = ranks_[rank].host.empty() ? "" : "host " + ranks_[rank].host + ", ";
  where += step < 0 ? "before its first step" : "in step " + std::to_string(step + 1);
  return "rank " + std::to_string(rank) + " (" + where + ")";
}

std::string MpiPeerWatch::describeSelf() const {
  return describeRank(rank_, step_.load());
}

std::string MpiPeerWatch::describeLoss(int peer) const {
  std::string who = describeRank(peer, peerStep_[peer].load());
  if (ended_[peer].load())
    return who + ", whose process (pid " + std::to_string(ranks_[peer].pid) +
           ") has ended: killed or crashed";
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%g",
                static_cast<double>(stallTimeout_.count()) / 1000.0);
  return who + ", which has sent no heartbeat for " + seconds +
         " s: stopped, frozen, or gone";
}

} // namespace hetc::runtime::comm::internal

#endif // HETC_HAVE_MPI
