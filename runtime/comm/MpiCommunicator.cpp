//===- MpiCommunicator.cpp - one rank per MPI process ---------------------===//
//
// A message is a 16-byte header (the 64-bit tag and the size: MPI tags are
// only guaranteed up to 32767) followed by the payload in chunks of at most
// 1 GiB (MPI counts are int), all sent from one staging copy. The receiver
// takes the header, checks it, then receives the payload straight into the
// caller's buffer.
//
// A group other than the whole world gets its own MPI communicator on first
// use, from MPI_Comm_create_group: collective over the members only (unlike
// MPI_Comm_split, which every rank of the parent would have to call). It
// cannot time out, so the members first exchange a small ready message,
// polled against the timeout; once every member is known to be there, the
// creation cannot hang.
//
// Waits also watch the peers they wait for (internal/MpiPeerWatch.h): one
// whose heartbeats stopped for the stall timeout, or whose process ended,
// ends the wait at once, named, instead of at the per-wait limit.
//
// MPI's reduction order is the implementation's: Open MPI's default
// all-reduce algorithms give every member the same bits in practice, but
// MPI does not promise it (reduce_scatter results are per member anyway).
//
//===----------------------------------------------------------------------===//

#include "runtime/comm/MpiCommunicator.h"

#ifdef HETC_HAVE_MPI

#include "runtime/comm/internal/CallChecks.h"
#include "runtime/comm/internal/CommErrors.h"
#include "runtime/comm/internal/MpiPeerWatch.h"
#include "runtime/comm/internal/PollUntil.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include <unistd.h>

namespace hetc::runtime::comm {
namespace {

using internal::Clock;
using internal::CollectiveCall;
using internal::CollectiveKind;

// MPI tags of the communicator's own traffic.
constexpr int kHeaderTag = 1;
constexpr int kPayloadTag = 2;
constexpr int kGroupReadyTag = 3;
constexpr int kCreateGroupTag = 4;

constexpr size_t kMaxChunkBytes = size_t(1) << 30;

struct MessageHeader {
  int64_t tag;
  uint64_t bytes;
};

Status mpiError(int code, int rank, const char *callText, const char *file,
                int line) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  // The function's name, without its arguments.
  std::string call(callText, std::strcspn(callText, "("));
  return internal::libraryError(StatusCode::kUnavailable, rank, call.c_str(),
                                file, line, std::string(text, length));
}

#define HETC_MPI_RETURN_IF_ERROR(call)                                         \
  do {                                                                         \
    int hetc_mpi_code_ = (call);                                               \
    if (hetc_mpi_code_ != MPI_SUCCESS)                                         \
      return mpiError(hetc_mpi_code_, rank_, #call, __FILE__, __LINE__);       \
  } while (false)

MPI_Datatype mpiType(DType dtype) {
  switch (dtype) {
  case DType::kF32:
    return MPI_FLOAT;
  case DType::kF64:
    return MPI_DOUBLE;
  case DType::kI64:
    return MPI_INT64_T;
  case DType::kI32:
    return MPI_INT32_T;
  case DType::kBF16:
  case DType::kF16:
    return MPI_UINT16_T; // moved, never reduced
  case DType::kBool:
    break;
  }
  return MPI_UINT8_T;
}

std::vector<int> toIntCounts(const std::vector<int64_t> &counts) {
  return std::vector<int>(counts.begin(), counts.end());
}

/// What MPI may still use after a call gave up on it: the count arrays of a
/// collective that timed out (MPI cannot cancel collectives), the staging
/// of messages never received. Such failures end the process, so this is
/// kept until then instead of freed under MPI's feet.
struct Abandoned {
  std::vector<MPI_Request> requests;
  std::vector<std::vector<int>> arrays;
  std::unique_ptr<char[]> staging;
};

void keepUntilExit(Abandoned abandoned) {
  static std::mutex mutex;
  static auto *kept = new std::vector<Abandoned>();
  std::lock_guard<std::mutex> lock(mutex);
  kept->push_back(std::move(abandoned));
}

class MpiCommunicator final : public Communicator {
public:
  /// `watch` (may be null) watches the peers for signs of life.
  MpiCommunicator(MPI_Comm world, int rank, int size,
                  std::chrono::milliseconds timeout,
                  std::unique_ptr<internal::MpiPeerWatch> watch)
      : world_(world), rank_(rank), size_(size), timeout_(timeout),
        watch_(std::move(watch)) {}
  ~MpiCommunicator() override;

  int rank() const override { return rank_; }
  int worldSize() const override { return size_; }
  void noteStep(int64_t step) override {
    if (watch_)
      watch_->noteStep(step);
  }

  Status send(int peer, const void *data, size_t bytes, int64_t tag) override;
  Status recv(int peer, void *data, size_t bytes, int64_t tag) override;
  Status allReduceSum(const std::vector<int> &group, DType dtype, void *data,
                      int64_t count) override;
  Status reduceScatterSum(const std::vector<int> &group, DType dtype,
                          const void *input, void *output,
                          const std::vector<int64_t> &counts) override;
  Status allGather(const std::vector<int> &group, DType dtype,
                   const void *input, void *output,
                   const std::vector<int64_t> &counts) override;
  void abort(const std::string &reason) override;

private:
  /// A send's staging copy, alive until all of its MPI_Isends complete.
  struct PendingSend {
    std::unique_ptr<char[]> staging;
    std::vector<MPI_Request> requests;
  };
  // Checks done at the start of every call, and frees the staging of
  // completed sends.
  Status startCall();
  Status isend(PendingSend &pending, const char *data, int bytes, int peer,
               int mpiTag);
  Status reapSends();
  /// Polls `request` until it completes, `deadline` passes (`*timedOut`)
  /// or one of `peers` stops sending heartbeats (`*stalled`, the peer).
  Status poll(MPI_Request *request, const std::vector<int> &peers,
              Clock::time_point deadline, bool *timedOut, int *stalled);
  /// The error of a wait for `what` that `peer`'s silence ended.
  Status peerStalled(const std::string &what, int peer) const;
  Status receive(void *data, int bytes, int peer, int mpiTag,
                 Clock::time_point deadline, bool *timedOut);
  // Receives `bytes` bytes in chunks into `data`, or, with `discard`, all
  // into the first chunk of `data`.
  Status receivePayload(char *data, size_t bytes, bool discard, int peer,
                        Clock::time_point deadline, bool *timedOut);
  // Checks the call; returns the caller's member index and the group's
  // communicator.
  Status startCollective(const std::vector<int> &group,
                         const CollectiveCall &call, Clock::time_point deadline,
                         int *member, MPI_Comm *comm);
  Status groupComm(const std::vector<int> &group, const std::string &what,
                   Clock::time_point deadline, MPI_Comm *comm);
  Status finishCollective(MPI_Request request, const std::vector<int> &group,
                          const std::string &what, Clock::time_point deadline,
                          std::vector<std::vector<int>> arrays);

  MPI_Comm world_; // a duplicate of MPI_COMM_WORLD, for this object alone
  int rank_;
  int size_;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<internal::MpiPeerWatch> watch_;
  std::vector<PendingSend> pendingSends_;
  std::map<std::vector<int>, MPI_Comm> groupComms_;
  // After a collective timed out, its request may still complete into the
  // caller's buffers: every later call returns this error.
  Status broken_;
};

MpiCommunicator::~MpiCommunicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized)
    return;
  // The staging buffers must outlive their sends, which complete once the
  // peers receive them: wait for that up to the timeout.
  const auto deadline = Clock::now() + timeout_;
  bool timedOut = false;
  Status reaped = internal::pollUntil(
      deadline,
      [&](bool *done) {
        HETC_RETURN_IF_ERROR(reapSends());
        *done = pendingSends_.empty();
        return okStatus();
      },
      &timedOut);
  if (!reaped.ok())
    std::fprintf(stderr, "%s\n", reaped.toString().c_str());
  if (!pendingSends_.empty())
    std::fprintf(stderr, "rank %d: %zu messages were never received\n", rank_,
                 pendingSends_.size());
  for (PendingSend &pending : pendingSends_)
    keepUntilExit(
        {std::move(pending.requests), {}, std::move(pending.staging)});
  for (auto &entry : groupComms_)
    MPI_Comm_free(&entry.second);
  MPI_Comm_free(&world_);
}

Status MpiCommunicator::startCall() {
  HETC_RETURN_IF_ERROR(broken_);
  return reapSends();
}

Status MpiCommunicator::isend(PendingSend &pending, const char *data, int bytes,
                              int peer, int mpiTag) {
  MPI_Request request;
  HETC_MPI_RETURN_IF_ERROR(
      MPI_Isend(data, bytes, MPI_BYTE, peer, mpiTag, world_, &request));
  pending.requests.push_back(request);
  return okStatus();
}

Status MpiCommunicator::reapSends() {
  for (size_t i = 0; i < pendingSends_.size();) {
    std::vector<MPI_Request> &requests = pendingSends_[i].requests;
    int done = 0;
    HETC_MPI_RETURN_IF_ERROR(MPI_Testall(static_cast<int>(requests.size()),
                                         requests.data(), &done,
                                         MPI_STATUSES_IGNORE));
    if (done) {
      pendingSends_[i] = std::move(pendingSends_.back());
      pendingSends_.pop_back();
    } else {
      ++i;
    }
  }
  return okStatus();
}

Status MpiCommunicator::poll(MPI_Request *request, const std::vector<int> &peers,
                             Clock::time_point deadline, bool *timedOut,
                             int *stalled) {
  *stalled = -1;
  return internal::pollUntil(
      deadline,
      [&](bool *done) {
        int flag = 0;
        HETC_MPI_RETURN_IF_ERROR(MPI_Test(request, &flag, MPI_STATUS_IGNORE));
        if (!flag && watch_)
          *stalled = watch_->lost(peers);
        *done = flag != 0 || *stalled >= 0;
        return okStatus();
      },
      timedOut);
}

Status MpiCommunicator::peerStalled(const std::string &what, int peer) const {
  return makeStatus(StatusCode::kDeadlineExceeded, "rank ", rank_, ": ", what,
                    ": waiting for ", watch_->describeLoss(peer));
}

Status MpiCommunicator::receive(void *data, int bytes, int peer, int mpiTag,
                                Clock::time_point deadline, bool *timedOut) {
  MPI_Request request;
  HETC_MPI_RETURN_IF_ERROR(
      MPI_Irecv(data, bytes, MPI_BYTE, peer, mpiTag, world_, &request));
  int stalled = -1;
  HETC_RETURN_IF_ERROR(poll(&request, {peer}, deadline, timedOut, &stalled));
  if (*timedOut || stalled >= 0) {
    // Withdraw the receive so that MPI never writes `data` after we return.
    MPI_Cancel(&request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  }
  if (stalled >= 0)
    return peerStalled("recv from rank " + std::to_string(peer), stalled);
  return okStatus();
}

Status MpiCommunicator::receivePayload(char *data, size_t bytes, bool discard,
                                       int peer, Clock::time_point deadline,
                                       bool *timedOut) {
  *timedOut = false;
  for (size_t offset = 0; offset < bytes && !*timedOut;
       offset += kMaxChunkBytes) {
    int chunk = static_cast<int>(std::min(kMaxChunkBytes, bytes - offset));
    HETC_RETURN_IF_ERROR(receive(discard ? data : data + offset, chunk, peer,
                                 kPayloadTag, deadline, timedOut));
  }
  return okStatus();
}

Status MpiCommunicator::send(int peer, const void *data, size_t bytes,
                             int64_t tag) {
  HETC_RETURN_IF_ERROR(
      internal::checkPeer(rank_, size_, "send", peer, data, bytes));
  HETC_RETURN_IF_ERROR(startCall());
  pendingSends_.push_back(
      {std::unique_ptr<char[]>(new char[sizeof(MessageHeader) + bytes]), {}});
  PendingSend &pending = pendingSends_.back();
  char *staging = pending.staging.get();
  MessageHeader header{tag, bytes};
  std::memcpy(staging, &header, sizeof(header));
  if (bytes > 0)
    std::memcpy(staging + sizeof(header), data, bytes);
  HETC_RETURN_IF_ERROR(
      isend(pending, staging, sizeof(header), peer, kHeaderTag));
  for (size_t offset = 0; offset < bytes; offset += kMaxChunkBytes) {
    int chunk = static_cast<int>(std::min(kMaxChunkBytes, bytes - offset));
    HETC_RETURN_IF_ERROR(isend(pending, staging + sizeof(header) + offset,
                               chunk, peer, kPayloadTag));
  }
  return okStatus();
}

Status MpiCommunicator::recv(int peer, void *data, size_t bytes, int64_t tag) {
  HETC_RETURN_IF_ERROR(
      internal::checkPeer(rank_, size_, "recv", peer, data, bytes));
  HETC_RETURN_IF_ERROR(startCall());
  const auto deadline = Clock::now() + timeout_;
  MessageHeader header{};
  bool timedOut = false;
  HETC_RETURN_IF_ERROR(
      receive(&header, sizeof(header), peer, kHeaderTag, deadline, &timedOut));
  if (!timedOut && (header.tag != tag || header.bytes != bytes)) {
    // Take the mismatched payload off the wire, so that the next message
    // from `peer` is read from its start.
    std::unique_ptr<char[]> sink(
        new char[std::min<size_t>(header.bytes, kMaxChunkBytes)]);
    HETC_RETURN_IF_ERROR(receivePayload(sink.get(), header.bytes,
                                        /*discard=*/true, peer, deadline,
                                        &timedOut));
    return internal::messageMismatch(rank_, peer, tag, bytes, header.tag,
                                     header.bytes);
  }
  if (!timedOut)
    HETC_RETURN_IF_ERROR(receivePayload(static_cast<char *>(data), bytes,
                                        /*discard=*/false, peer, deadline,
                                        &timedOut));
  if (timedOut)
    return internal::recvTimedOut(rank_, timeout_, peer, tag, bytes);
  return okStatus();
}

Status MpiCommunicator::startCollective(const std::vector<int> &group,
                                        const CollectiveCall &call,
                                        Clock::time_point deadline, int *member,
                                        MPI_Comm *comm) {
  HETC_RETURN_IF_ERROR(
      internal::checkCollective(rank_, size_, group, call, member));
  // MPI counts and displacements are int.
  if (call.totalCount() > INT_MAX)
    return invalidArgument(
        "rank ", rank_, ": ", internal::collectiveOverGroup(call.kind, group),
        ": ", call.totalCount(), " elements exceed MPI's int counts");
  HETC_RETURN_IF_ERROR(startCall());
  return groupComm(group, internal::collectiveOverGroup(call.kind, group),
                   deadline, comm);
}

Status MpiCommunicator::groupComm(const std::vector<int> &group,
                                  const std::string &what,
                                  Clock::time_point deadline, MPI_Comm *comm) {
  if (static_cast<int>(group.size()) == size_) {
    *comm = world_;
    return okStatus();
  }
  if (auto found = groupComms_.find(group); found != groupComms_.end()) {
    *comm = found->second;
    return okStatus();
  }

  // The handshake: a ready message to and from every other member.
  const uint64_t fingerprint = internal::groupFingerprint(group);
  pendingSends_.push_back(
      {std::unique_ptr<char[]>(new char[sizeof(fingerprint)]), {}});
  PendingSend &ready = pendingSends_.back();
  std::memcpy(ready.staging.get(), &fingerprint, sizeof(fingerprint));
  std::vector<int> others;
  std::vector<uint64_t> theirs;
  std::vector<MPI_Request> requests;
  for (int member : group)
    if (member != rank_)
      others.push_back(member);
  theirs.resize(others.size());
  requests.resize(others.size());
  for (size_t i = 0; i < others.size(); ++i) {
    HETC_RETURN_IF_ERROR(isend(ready, ready.staging.get(), sizeof(fingerprint),
                               others[i], kGroupReadyTag));
    HETC_MPI_RETURN_IF_ERROR(MPI_Irecv(&theirs[i], sizeof(fingerprint),
                                       MPI_BYTE, others[i], kGroupReadyTag,
                                       world_, &requests[i]));
  }
  bool timedOut = false;
  int stalled = -1;
  HETC_RETURN_IF_ERROR(internal::pollUntil(
      deadline,
      [&](bool *done) {
        int flag = 0;
        HETC_MPI_RETURN_IF_ERROR(MPI_Testall(static_cast<int>(requests.size()),
                                             requests.data(), &flag,
                                             MPI_STATUSES_IGNORE));
        if (!flag && watch_)
          stalled = watch_->lost(others);
        *done = flag != 0 || stalled >= 0;
        return okStatus();
      },
      &timedOut));
  if (timedOut || stalled >= 0) {
    std::vector<int> missing;
    for (size_t i = 0; i < others.size(); ++i) {
      int arrived = 0;
      MPI_Test(&requests[i], &arrived, MPI_STATUS_IGNORE);
      if (!arrived) {
        MPI_Cancel(&requests[i]);
        MPI_Wait(&requests[i], MPI_STATUS_IGNORE);
        missing.push_back(others[i]);
      }
    }
    if (stalled >= 0)
      return peerStalled(what, stalled);
    return internal::waitedTooLong(rank_, timeout_, what,
                                   internal::namedRanks(missing));
  }
  for (size_t i = 0; i < others.size(); ++i)
    if (theirs[i] != fingerprint)
      return failedPrecondition("rank ", rank_, ": ", what, ": rank ",
                                others[i],
                                " is setting up a different group: the "
                                "ranks' programs do not match");

  MPI_Group worldGroup, subGroup;
  HETC_MPI_RETURN_IF_ERROR(MPI_Comm_group(world_, &worldGroup));
  HETC_MPI_RETURN_IF_ERROR(MPI_Group_incl(
      worldGroup, static_cast<int>(group.size()), group.data(), &subGroup));
  int created = MPI_Comm_create_group(world_, subGroup, kCreateGroupTag, comm);
  MPI_Group_free(&subGroup);
  MPI_Group_free(&worldGroup);
  if (created != MPI_SUCCESS)
    return mpiError(created, rank_, "MPI_Comm_create_group", __FILE__,
                    __LINE__);
  HETC_MPI_RETURN_IF_ERROR(MPI_Comm_set_errhandler(*comm, MPI_ERRORS_RETURN));
  groupComms_.emplace(group, *comm);
  return okStatus();
}

Status MpiCommunicator::finishCollective(MPI_Request request,
                                         const std::vector<int> &group,
                                         const std::string &what,
                                         Clock::time_point deadline,
                                         std::vector<std::vector<int>> arrays) {
  std::vector<int> others;
  for (int member : group)
    if (member != rank_)
      others.push_back(member);
  bool timedOut = false;
  int stalled = -1;
  HETC_RETURN_IF_ERROR(poll(&request, others, deadline, &timedOut, &stalled));
  if (!timedOut && stalled < 0)
    return okStatus();
  // MPI cannot cancel a collective: keep what it may still use, and refuse
  // every later call.
  std::string waitedFor = others.size() == 1
                              ? internal::namedRanks(others)
                              : "one of " + internal::namedRanks(others);
  broken_ = stalled >= 0
                ? peerStalled(what, stalled)
                : internal::waitedTooLong(rank_, timeout_, what, waitedFor);
  keepUntilExit({{request}, std::move(arrays), nullptr});
  return broken_;
}

Status MpiCommunicator::allReduceSum(const std::vector<int> &group, DType dtype,
                                     void *data, int64_t count) {
  const CollectiveCall call{
      CollectiveKind::kAllReduce, dtype, {count}, data, data};
  const auto deadline = Clock::now() + timeout_;
  int member = 0;
  MPI_Comm comm;
  HETC_RETURN_IF_ERROR(startCollective(group, call, deadline, &member, &comm));
  MPI_Request request;
  HETC_MPI_RETURN_IF_ERROR(
      MPI_Iallreduce(MPI_IN_PLACE, data, static_cast<int>(count),
                     mpiType(dtype), MPI_SUM, comm, &request));
  return finishCollective(request, group,
                          internal::collectiveOverGroup(call.kind, group),
                          deadline, {});
}

Status MpiCommunicator::reduceScatterSum(const std::vector<int> &group,
                                         DType dtype, const void *input,
                                         void *output,
                                         const std::vector<int64_t> &counts) {
  const CollectiveCall call{CollectiveKind::kReduceScatter, dtype, counts,
                            input, output};
  const auto deadline = Clock::now() + timeout_;
  int member = 0;
  MPI_Comm comm;
  HETC_RETURN_IF_ERROR(startCollective(group, call, deadline, &member, &comm));
  std::vector<int> receiveCounts = toIntCounts(counts);
  MPI_Request request;
  HETC_MPI_RETURN_IF_ERROR(
      MPI_Ireduce_scatter(input, output, receiveCounts.data(), mpiType(dtype),
                          MPI_SUM, comm, &request));
  return finishCollective(request, group,
                          internal::collectiveOverGroup(call.kind, group),
                          deadline, {std::move(receiveCounts)});
}

Status MpiCommunicator::allGather(const std::vector<int> &group, DType dtype,
                                  const void *input, void *output,
                                  const std::vector<int64_t> &counts) {
  const CollectiveCall call{CollectiveKind::kAllGather, dtype, counts, input,
                            output};
  const auto deadline = Clock::now() + timeout_;
  int member = 0;
  MPI_Comm comm;
  HETC_RETURN_IF_ERROR(startCollective(group, call, deadline, &member, &comm));
  std::vector<int> receiveCounts = toIntCounts(counts);
  std::vector<int> displacements(counts.size());
  for (size_t i = 0; i < counts.size(); ++i)
    displacements[i] = static_cast<int>(call.offsetOf(static_cast<int>(i)));
  MPI_Request request;
  HETC_MPI_RETURN_IF_ERROR(
      MPI_Iallgatherv(input, receiveCounts[member], mpiType(dtype), output,
                      receiveCounts.data(), displacements.data(),
                      mpiType(dtype), comm, &request));
  return finishCollective(
      request, group, internal::collectiveOverGroup(call.kind, group), deadline,
      {std::move(receiveCounts), std::move(displacements)});
}

void MpiCommunicator::abort(const std::string &reason) {
  std::fprintf(stderr, "rank %d failed: %s\n", rank_, reason.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

void finalizeMpi() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized)
    MPI_Finalize();
}

// Initializes MPI once per process and finalizes it at exit, unless
// someone else initialized it (then they finalize it). `*multiple`: whether
// threads may call MPI at once (the peer watch's heartbeats need it).
Status initializeMpi(bool *multiple) {
  static int provided = 0;
  static const Status initialized = [] {
    int already = 0;
    MPI_Initialized(&already);
    if (already) {
      MPI_Query_thread(&provided);
    } else {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (finalized)
        return failedPrecondition("MPI was finalized already");
      int code =
          MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
      if (code != MPI_SUCCESS)
        return makeStatus(StatusCode::kUnavailable,
                          "MPI_Init_thread failed with error code ", code);
      std::atexit(finalizeMpi);
    }
    // A rank's calls may come from any thread, one at a time.
    if (provided < MPI_THREAD_SERIALIZED)
      return failedPrecondition(
          "MPI provides thread level ", provided,
          "; the communicator needs MPI_THREAD_SERIALIZED");
    return okStatus();
  }();
  *multiple = provided >= MPI_THREAD_MULTIPLE;
  return initialized;
}

// Every rank's host (MPI_Get_processor_name) and process, in rank order.
std::vector<internal::MpiRankIdentity> rankIdentities(MPI_Comm comm, int size) {
  char mine[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(mine, &length);
  std::vector<char> names(static_cast<size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(),
                MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm);
  int64_t process[2] = {static_cast<int64_t>(getpid()), 0};
  process[1] = internal::MpiPeerWatch::processStartTicks(process[0]);
  std::vector<int64_t> processes(static_cast<size_t>(size) * 2);
  MPI_Allgather(process, 2, MPI_INT64_T, processes.data(), 2, MPI_INT64_T,
                comm);
  std::vector<internal::MpiRankIdentity> ranks(size);
  for (int r = 0; r < size; ++r) {
    const char *name = names.data() + static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME;
    ranks[r].host.assign(name, strnlen(name, MPI_MAX_PROCESSOR_NAME));
    ranks[r].pid = processes[2 * r];
    ranks[r].startTicks = processes[2 * r + 1];
  }
  return ranks;
}

} // namespace

bool launchedByMpi() {
  // Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE; PMIx launchers (prterun,
  // srun --mpi=pmix) set PMIX_RANK; PMI-1/2 launchers (MPICH's hydra, srun
  // --mpi=pmi2) set PMI_SIZE. SLURM_PROCID alone is not enough: srun sets it
  // without an MPI plugin too, and MPI_Init would then make every process a
  // world of its own.
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(name))
      return true;
  return false;
}

Status createMpiCommunicator(std::chrono::milliseconds timeout,
                             std::chrono::milliseconds stallTimeout,
                             std::unique_ptr<Communicator> *communicator,
                             PeerLossReporter reportLoss) {
  bool multiple = false;
  HETC_RETURN_IF_ERROR(initializeMpi(&multiple));
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // A duplicate keeps this communicator's messages apart from anyone
  // else's use of MPI_COMM_WORLD.
  MPI_Comm world;
  int code = MPI_Comm_dup(MPI_COMM_WORLD, &world);
  if (code != MPI_SUCCESS)
    return mpiError(code, rank, "MPI_Comm_dup", __FILE__, __LINE__);
  MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
  std::unique_ptr<internal::MpiPeerWatch> watch;
  if (stallTimeout.count() > 0 && multiple && size > 1) {
    MPI_Comm beats;
    code = MPI_Comm_dup(MPI_COMM_WORLD, &beats);
    if (code != MPI_SUCCESS)
      return mpiError(code, rank, "MPI_Comm_dup", __FILE__, __LINE__);
    watch = std::make_unique<internal::MpiPeerWatch>(
        beats, rank, size, stallTimeout, rankIdentities(world, size),
        std::move(reportLoss));
  }
  *communicator = std::make_unique<MpiCommunicator>(world, rank, size, timeout,
                                                    std::move(watch));
  return okStatus();
}

} // namespace hetc::runtime::comm

#else // !HETC_HAVE_MPI

namespace hetc::runtime::comm {

bool launchedByMpi() { return false; }

Status createMpiCommunicator(std::chrono::milliseconds timeout,
                             std::chrono::milliseconds stallTimeout,
                             std::unique_ptr<Communicator> *communicator,
                             PeerLossReporter) {
  return unimplemented("this build of hetc has no MPI (it was not found when "
                       "the build was configured)");
}

} // namespace hetc::runtime::comm

#endif // HETC_HAVE_MPI
