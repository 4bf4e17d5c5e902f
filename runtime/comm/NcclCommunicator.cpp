//===- NcclCommunicator.cpp - NCCL between GPUs, one rank each ------------===//

#include "runtime/comm/NcclCommunicator.h"

#include "runtime/comm/internal/CallChecks.h"
#include "runtime/comm/internal/CommErrors.h"
#include "runtime/comm/internal/PollUntil.h"

#include <nccl.h>

#include <cstdio>
#include <cstring>
#include <map>

namespace hetc::runtime::comm {
namespace {

using internal::Clock;
using internal::CollectiveCall;
using internal::CollectiveKind;

// The bootstrap tag of the pair channels' unique ids. A group's id goes
// with a tag from its fingerprint instead (groupTag), so that members
// setting up different groups get a mismatch.
constexpr int64_t kChannelIdTag = int64_t(0x4e43434c) << 32; // "NCCL"

struct MessageHeader {
  int64_t tag;
  uint64_t bytes;
};

Status cudaError(cudaError_t error, int rank, const char *callText,
                 const char *file, int line) {
  std::string call(callText, std::strcspn(callText, "("));
  StatusCode code = error == cudaErrorMemoryAllocation
                        ? StatusCode::kResourceExhausted
                        : StatusCode::kInternal;
  return internal::libraryError(code, rank, call.c_str(), file, line,
                                std::string(cudaGetErrorName(error)) + ": " +
                                    cudaGetErrorString(error));
}

Status ncclError(ncclResult_t result, ncclComm_t comm, int rank,
                 const char *callText, const char *file, int line) {
  std::string call(callText, std::strcspn(callText, "("));
  // Invalid arguments or usage are this code's bug; the rest come from the
  // system, the network or a peer.
  StatusCode code = result == ncclInvalidArgument || result == ncclInvalidUsage
                        ? StatusCode::kInternal
                        : StatusCode::kUnavailable;
  return internal::libraryError(code, rank, call.c_str(), file, line,
                                std::string(ncclGetErrorString(result)) + " (" +
                                    ncclGetLastError(comm) + ")");
}

// Stream.h's HETC_CUDA_RETURN_IF_ERROR does not name the rank; this does.
#define HETC_RANK_CUDA_RETURN_IF_ERROR(call)                                   \
  do {                                                                         \
    cudaError_t hetc_rank_cuda_error_ = (call);                                \
    if (hetc_rank_cuda_error_ != cudaSuccess)                                  \
      return cudaError(hetc_rank_cuda_error_, rank_, #call, __FILE__,         \
                       __LINE__);                                              \
  } while (false)

// Non-blocking communicators answer ncclInProgress while a call is still
// being posted; settle() waits for that.
#define HETC_NCCL_RETURN_IF_ERROR(comm, call)                                  \
  do {                                                                         \
    ncclResult_t hetc_nccl_result_ = (call);                                   \
    if (hetc_nccl_result_ != ncclSuccess &&                                    \
        hetc_nccl_result_ != ncclInProgress)                                   \
      return ncclError(hetc_nccl_result_, comm, rank_, #call, __FILE__,        \
                       __LINE__);                                              \
  } while (false)

ncclDataType_t ncclType(DType dtype) {
  switch (dtype) {
  case DType::kF32:
    return ncclFloat32;
  case DType::kF64:
    return ncclFloat64;
  case DType::kI64:
    return ncclInt64;
  case DType::kI32:
    return ncclInt32;
  case DType::kBF16:
    return ncclBfloat16;
  case DType::kF16:
    return ncclFloat16;
  case DType::kBool:
    break;
  }
  return ncclUint8;
}

// The bootstrap tag of a group's setup message.
int64_t groupTag(const std::vector<int> &group) {
  return static_cast<int64_t>(internal::groupFingerprint(group) >> 1);
}

ncclConfig_t nonBlockingConfig() {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  return config;
}

/// One direction between two ranks: a two-rank communicator (the sender is
/// its rank 0) and the stream its messages go on.
struct Channel {
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
};

class NcclCommunicator final : public Communicator {
public:
  NcclCommunicator(Communicator &bootstrap, int device, cudaStream_t stream,
                   std::chrono::milliseconds timeout)
      : bootstrap_(bootstrap), rank_(bootstrap.rank()),
        size_(bootstrap.worldSize()), device_(device), stream_(stream),
        timeout_(timeout), sendChannels_(size_), recvChannels_(size_) {}
  ~NcclCommunicator() override;

  /// Creates the pair channels and the buffers of the headers.
  Status initialize();

  int rank() const override { return rank_; }
  int worldSize() const override { return size_; }

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
  // Refuses calls after a failure and makes the rank's GPU current (calls
  // may come from any thread, one at a time).
  Status startCall();
  // Waits until `comm` has posted its last call (ncclInProgress is over).
  Status settle(ncclComm_t comm, Clock::time_point deadline,
                const std::string &what, const std::string &waitedFor);
  // Waits until the work on `stream` so far is done, watching `comm` for
  // errors. After a timeout the communicator is unusable: its kernels may
  // still write the caller's buffers until abort() stops them.
  Status finish(cudaStream_t stream, ncclComm_t comm,
                Clock::time_point deadline, const std::string &what,
                const std::string &waitedFor);
  // recv's payload part: `bytes` bytes from the channel into `data`.
  Status receivePayload(Channel &channel, void *data, size_t bytes,
                        Clock::time_point deadline, const std::string &what,
                        const std::string &waitedFor);
  Status groupComm(const std::vector<int> &group, int member,
                   Clock::time_point deadline, const std::string &what,
                   ncclComm_t *comm);
  // Checks the call; returns the caller's member index and the group's
  // communicator.
  Status startCollective(const std::vector<int> &group,
                         const CollectiveCall &call, Clock::time_point deadline,
                         int *member, ncclComm_t *comm);
  Status createChannels();
  // Waits, up to the timeout, for the sends still on their channels.
  bool drainChannels();
  // Every NCCL communicator made so far; abort() and the destructor end them.
  std::vector<ncclComm_t *> allComms();

  Communicator &bootstrap_;
  const int rank_;
  const int size_;
  const int device_;
  cudaStream_t stream_;
  const std::chrono::milliseconds timeout_;
  std::vector<Channel> sendChannels_; // by peer
  std::vector<Channel> recvChannels_; // by peer
  std::map<std::vector<int>, ncclComm_t> groupComms_;
  cudaEvent_t done_ = nullptr; // recorded where a wait ends
  MessageHeader *deviceHeader_ = nullptr;
  MessageHeader *hostHeader_ = nullptr; // pinned, for its copy to the host
  Status broken_;                       // after a timeout or an abort
};

NcclCommunicator::~NcclCommunicator() {
  cudaSetDevice(device_);
  // Destroying waits for pending operations; only a healthy communicator
  // whose sends have all been received has none that could hang it.
  const bool drained = broken_.ok() && drainChannels();
  for (ncclComm_t *comm : allComms()) {
    if (drained)
      ncclCommDestroy(*comm);
    else
      ncclCommAbort(*comm);
    *comm = nullptr;
  }
  for (auto *channels : {&sendChannels_, &recvChannels_})
    for (Channel &channel : *channels)
      if (channel.stream)
        cudaStreamDestroy(channel.stream);
  if (done_)
    cudaEventDestroy(done_);
  cudaFree(deviceHeader_);
  cudaFreeHost(hostHeader_);
}

std::vector<ncclComm_t *> NcclCommunicator::allComms() {
  std::vector<ncclComm_t *> comms;
  for (auto *channels : {&sendChannels_, &recvChannels_})
    for (Channel &channel : *channels)
      if (channel.comm)
        comms.push_back(&channel.comm);
  for (auto &entry : groupComms_)
    if (entry.second)
      comms.push_back(&entry.second);
  return comms;
}

bool NcclCommunicator::drainChannels() {
  bool timedOut = false;
  Status drained = internal::pollUntil(
      Clock::now() + timeout_,
      [&](bool *done) {
        *done = true;
        for (const Channel &channel : sendChannels_)
          if (channel.stream) {
            cudaError_t query = cudaStreamQuery(channel.stream);
            if (query != cudaSuccess && query != cudaErrorNotReady)
              HETC_RANK_CUDA_RETURN_IF_ERROR(query);
            *done = *done && query == cudaSuccess;
          }
        return okStatus();
      },
      &timedOut);
  if (!drained.ok() || timedOut) {
    std::fprintf(stderr, "rank %d: %s\n", rank_,
                 drained.ok() ? "NCCL messages were never received"
                              : drained.toString().c_str());
    return false;
  }
  return true;
}

Status NcclCommunicator::initialize() {
  // On failure the destructor aborts what was made.
  Status created = createChannels();
  if (!created.ok())
    broken_ = created;
  return created;
}

Status NcclCommunicator::createChannels() {
  HETC_RANK_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
  HETC_RANK_CUDA_RETURN_IF_ERROR(
      cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
  HETC_RANK_CUDA_RETURN_IF_ERROR(cudaMalloc(
      reinterpret_cast<void **>(&deviceHeader_), sizeof(MessageHeader)));
  HETC_RANK_CUDA_RETURN_IF_ERROR(cudaMallocHost(
      reinterpret_cast<void **>(&hostHeader_), sizeof(MessageHeader)));
  const auto deadline = Clock::now() + timeout_;

  // Every rank makes the ids of its outgoing channels and sends them
  // (buffered), then receives those of its incoming ones.
  std::vector<ncclUniqueId> sendIds(size_), recvIds(size_);
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_)
      continue;
    HETC_NCCL_RETURN_IF_ERROR(nullptr, ncclGetUniqueId(&sendIds[peer]));
    HETC_RETURN_IF_ERROR(bootstrap_.send(peer, &sendIds[peer],
                                         sizeof(ncclUniqueId), kChannelIdTag),
                         "setting up NCCL");
  }
  for (int peer = 0; peer < size_; ++peer)
    if (peer != rank_)
      HETC_RETURN_IF_ERROR(bootstrap_.recv(peer, &recvIds[peer],
                                           sizeof(ncclUniqueId), kChannelIdTag),
                           "setting up NCCL");

  ncclConfig_t config = nonBlockingConfig();
  HETC_NCCL_RETURN_IF_ERROR(nullptr, ncclGroupStart());
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_)
      continue;
    HETC_NCCL_RETURN_IF_ERROR(
        nullptr, ncclCommInitRankConfig(&sendChannels_[peer].comm, 2,
                                        sendIds[peer], 0, &config));
    HETC_NCCL_RETURN_IF_ERROR(
        nullptr, ncclCommInitRankConfig(&recvChannels_[peer].comm, 2,
                                        recvIds[peer], 1, &config));
  }
  HETC_NCCL_RETURN_IF_ERROR(nullptr, ncclGroupEnd());
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_)
      continue;
    std::string waitedFor = detail::concat("rank ", peer);
    for (Channel *channel : {&sendChannels_[peer], &recvChannels_[peer]}) {
      HETC_RETURN_IF_ERROR(
          settle(channel->comm, deadline, "NCCL setup", waitedFor));
      HETC_RANK_CUDA_RETURN_IF_ERROR(
          cudaStreamCreateWithFlags(&channel->stream, cudaStreamNonBlocking));
    }
  }
  return okStatus();
}

Status NcclCommunicator::startCall() {
  HETC_RETURN_IF_ERROR(broken_);
  HETC_RANK_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
  return okStatus();
}

Status NcclCommunicator::settle(ncclComm_t comm, Clock::time_point deadline,
                                const std::string &what,
                                const std::string &waitedFor) {
  ncclResult_t state = ncclInProgress;
  bool timedOut = false;
  HETC_RETURN_IF_ERROR(internal::pollUntil(
      deadline,
      [&](bool *done) {
        HETC_NCCL_RETURN_IF_ERROR(comm, ncclCommGetAsyncError(comm, &state));
        *done = state != ncclInProgress;
        return okStatus();
      },
      &timedOut));
  if (timedOut) {
    broken_ = internal::waitedTooLong(rank_, timeout_, what, waitedFor);
    return broken_;
  }
  if (state != ncclSuccess)
    return broken_ = ncclError(state, comm, rank_, "ncclCommGetAsyncError",
                               __FILE__, __LINE__);
  return okStatus();
}

Status NcclCommunicator::finish(cudaStream_t stream, ncclComm_t comm,
                                Clock::time_point deadline,
                                const std::string &what,
                                const std::string &waitedFor) {
  HETC_RETURN_IF_ERROR(settle(comm, deadline, what, waitedFor));
  HETC_RANK_CUDA_RETURN_IF_ERROR(cudaEventRecord(done_, stream));
  bool timedOut = false;
  HETC_RETURN_IF_ERROR(internal::pollUntil(
      deadline,
      [&](bool *done) {
        cudaError_t query = cudaEventQuery(done_);
        if (query != cudaErrorNotReady)
          HETC_RANK_CUDA_RETURN_IF_ERROR(query);
        ncclResult_t state = ncclSuccess;
        HETC_NCCL_RETURN_IF_ERROR(comm, ncclCommGetAsyncError(comm, &state));
        if (state != ncclSuccess && state != ncclInProgress)
          return broken_ =
                     ncclError(state, comm, rank_, "ncclCommGetAsyncError",
                               __FILE__, __LINE__);
        *done = query == cudaSuccess;
        return okStatus();
      },
      &timedOut));
  if (timedOut) {
    broken_ = internal::waitedTooLong(rank_, timeout_, what, waitedFor);
    return broken_;
  }
  return okStatus();
}

Status NcclCommunicator::send(int peer, const void *data, size_t bytes,
                              int64_t tag) {
  HETC_RETURN_IF_ERROR(
      internal::checkPeer(rank_, size_, "send", peer, data, bytes));
  HETC_RETURN_IF_ERROR(startCall());
  const auto deadline = Clock::now() + timeout_;
  Channel &channel = sendChannels_[peer];
  const std::string what = detail::concat("send of tag ", tag);
  const std::string waitedFor = detail::concat("rank ", peer);

  // The staging copy is made on the caller's stream, so `data` may be
  // reused by whatever the caller enqueues next; it is freed on the
  // channel's stream once the message is out.
  const MessageHeader header{tag, bytes};
  char *staging = nullptr;
  HETC_RANK_CUDA_RETURN_IF_ERROR(cudaMallocAsync(reinterpret_cast<void **>(&staging),
                                            sizeof(header) + bytes, stream_));
  HETC_RANK_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(staging, &header, sizeof(header),
                                            cudaMemcpyHostToDevice, stream_));
  if (bytes > 0)
    HETC_RANK_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(staging + sizeof(header), data,
                                              bytes, cudaMemcpyDeviceToDevice,
                                              stream_));
  HETC_RANK_CUDA_RETURN_IF_ERROR(cudaEventRecord(done_, stream_));
  HETC_RANK_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(channel.stream, done_, 0));
  HETC_NCCL_RETURN_IF_ERROR(channel.comm,
                            ncclSend(staging, sizeof(header), ncclUint8, 1,
                                     channel.comm, channel.stream));
  HETC_RETURN_IF_ERROR(settle(channel.comm, deadline, what, waitedFor));
  if (bytes > 0) {
    HETC_NCCL_RETURN_IF_ERROR(
        channel.comm, ncclSend(staging + sizeof(header), bytes, ncclUint8, 1,
                               channel.comm, channel.stream));
    HETC_RETURN_IF_ERROR(settle(channel.comm, deadline, what, waitedFor));
  }
  HETC_RANK_CUDA_RETURN_IF_ERROR(cudaFreeAsync(staging, channel.stream));
  return okStatus();
}

Status NcclCommunicator::receivePayload(Channel &channel, void *data,
                                        size_t bytes,
                                        Clock::time_point deadline,
                                        const std::string &what,
                                        const std::string &waitedFor) {
  if (bytes == 0)
    return okStatus();
  HETC_NCCL_RETURN_IF_ERROR(
      channel.comm,
      ncclRecv(data, bytes, ncclUint8, 0, channel.comm, channel.stream));
  return finish(channel.stream, channel.comm, deadline, what, waitedFor);
}

Status NcclCommunicator::recv(int peer, void *data, size_t bytes, int64_t tag) {
  HETC_RETURN_IF_ERROR(
      internal::checkPeer(rank_, size_, "recv", peer, data, bytes));
  HETC_RETURN_IF_ERROR(startCall());
  const auto deadline = Clock::now() + timeout_;
  Channel &channel = recvChannels_[peer];
  const std::string what =
      detail::concat("recv of tag ", tag, " (", bytes, " bytes)");
  const std::string waitedFor = detail::concat("rank ", peer);

  HETC_NCCL_RETURN_IF_ERROR(
      channel.comm, ncclRecv(deviceHeader_, sizeof(MessageHeader), ncclUint8, 0,
                             channel.comm, channel.stream));
  HETC_RETURN_IF_ERROR(settle(channel.comm, deadline, what, waitedFor));
  HETC_RANK_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(hostHeader_, deviceHeader_, sizeof(MessageHeader),
                      cudaMemcpyDeviceToHost, channel.stream));
  HETC_RETURN_IF_ERROR(
      finish(channel.stream, channel.comm, deadline, what, waitedFor));
  const MessageHeader header = *hostHeader_;
  if (header.tag != tag || header.bytes != bytes) {
    // Take the mismatched payload off the channel, so that the next
    // message from `peer` is read from its start.
    if (header.bytes > 0) {
      void *sink = nullptr;
      HETC_RANK_CUDA_RETURN_IF_ERROR(
          cudaMallocAsync(&sink, header.bytes, channel.stream));
      HETC_RETURN_IF_ERROR(receivePayload(channel, sink, header.bytes, deadline,
                                          what, waitedFor));
      HETC_RANK_CUDA_RETURN_IF_ERROR(cudaFreeAsync(sink, channel.stream));
    }
    return internal::messageMismatch(rank_, peer, tag, bytes, header.tag,
                                     header.bytes);
  }
  // The payload lands after the caller's earlier work on `data`.
  HETC_RANK_CUDA_RETURN_IF_ERROR(cudaEventRecord(done_, stream_));
  HETC_RANK_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(channel.stream, done_, 0));
  return receivePayload(channel, data, bytes, deadline, what, waitedFor);
}

Status NcclCommunicator::groupComm(const std::vector<int> &group, int member,
                                   Clock::time_point deadline,
                                   const std::string &what, ncclComm_t *comm) {
  if (auto found = groupComms_.find(group); found != groupComms_.end()) {
    *comm = found->second;
    return okStatus();
  }
  ncclUniqueId id;
  const int64_t tag = groupTag(group);
  const std::string context = "setting up NCCL for " + what;
  if (member == 0) {
    HETC_NCCL_RETURN_IF_ERROR(nullptr, ncclGetUniqueId(&id));
    for (size_t m = 1; m < group.size(); ++m)
      HETC_RETURN_IF_ERROR(bootstrap_.send(group[m], &id, sizeof(id), tag),
                           context);
  } else {
    HETC_RETURN_IF_ERROR(bootstrap_.recv(group[0], &id, sizeof(id), tag),
                         context);
  }
  ncclConfig_t config = nonBlockingConfig();
  HETC_NCCL_RETURN_IF_ERROR(
      nullptr, ncclCommInitRankConfig(comm, static_cast<int>(group.size()), id,
                                      member, &config));
  groupComms_.emplace(group, *comm);
  return settle(*comm, deadline, context,
                "ranks " + internal::groupToString(group));
}

Status NcclCommunicator::startCollective(const std::vector<int> &group,
                                         const CollectiveCall &call,
                                         Clock::time_point deadline,
                                         int *member, ncclComm_t *comm) {
  HETC_RETURN_IF_ERROR(
      internal::checkCollective(rank_, size_, group, call, member));
  HETC_RETURN_IF_ERROR(startCall());
  return groupComm(group, *member, deadline,
                   internal::collectiveOverGroup(call.kind, group), comm);
}

Status NcclCommunicator::allReduceSum(const std::vector<int> &group,
                                      DType dtype, void *data, int64_t count) {
  const CollectiveCall call{
      CollectiveKind::kAllReduce, dtype, {count}, data, data};
  const auto deadline = Clock::now() + timeout_;
  int member = 0;
  ncclComm_t comm;
  HETC_RETURN_IF_ERROR(startCollective(group, call, deadline, &member, &comm));
  HETC_NCCL_RETURN_IF_ERROR(comm,
                            ncclAllReduce(data, data, count, ncclType(dtype),
                                          ncclSum, comm, stream_));
  return finish(stream_, comm, deadline,
                internal::collectiveOverGroup(call.kind, group),
                "ranks " + internal::groupToString(group));
}

Status NcclCommunicator::reduceScatterSum(const std::vector<int> &group,
                                          DType dtype, const void *input,
                                          void *output,
                                          const std::vector<int64_t> &counts) {
  const CollectiveCall call{CollectiveKind::kReduceScatter, dtype, counts,
                            input, output};
  const auto deadline = Clock::now() + timeout_;
  int member = 0;
  ncclComm_t comm;
  HETC_RETURN_IF_ERROR(startCollective(group, call, deadline, &member, &comm));
  const size_t elementSize = dtypeSize(dtype);
  // Member i is the root of the reduction of its own part.
  HETC_NCCL_RETURN_IF_ERROR(comm, ncclGroupStart());
  for (size_t i = 0; i < counts.size(); ++i)
    if (counts[i] > 0)
      HETC_NCCL_RETURN_IF_ERROR(
          comm, ncclReduce(static_cast<const char *>(input) +
                               call.offsetOf(static_cast<int>(i)) * elementSize,
                           output, counts[i], ncclType(dtype), ncclSum,
                           static_cast<int>(i), comm, stream_));
  HETC_NCCL_RETURN_IF_ERROR(comm, ncclGroupEnd());
  return finish(stream_, comm, deadline,
                internal::collectiveOverGroup(call.kind, group),
                "ranks " + internal::groupToString(group));
}

Status NcclCommunicator::allGather(const std::vector<int> &group, DType dtype,
                                   const void *input, void *output,
                                   const std::vector<int64_t> &counts) {
  const CollectiveCall call{CollectiveKind::kAllGather, dtype, counts, input,
                            output};
  const auto deadline = Clock::now() + timeout_;
  int member = 0;
  ncclComm_t comm;
  HETC_RETURN_IF_ERROR(startCollective(group, call, deadline, &member, &comm));
  const size_t elementSize = dtypeSize(dtype);
  // Member i broadcasts its part into everyone's output.
  HETC_NCCL_RETURN_IF_ERROR(comm, ncclGroupStart());
  for (size_t i = 0; i < counts.size(); ++i)
    if (counts[i] > 0)
      HETC_NCCL_RETURN_IF_ERROR(
          comm,
          ncclBroadcast(input,
                        static_cast<char *>(output) +
                            call.offsetOf(static_cast<int>(i)) * elementSize,
                        counts[i], ncclType(dtype), static_cast<int>(i), comm,
                        stream_));
  HETC_NCCL_RETURN_IF_ERROR(comm, ncclGroupEnd());
  return finish(stream_, comm, deadline,
                internal::collectiveOverGroup(call.kind, group),
                "ranks " + internal::groupToString(group));
}

void NcclCommunicator::abort(const std::string &reason) {
  cudaSetDevice(device_);
  // Stops this rank's kernels, which may wait for peers forever.
  for (ncclComm_t *comm : allComms()) {
    ncclCommAbort(*comm);
    *comm = nullptr;
  }
  broken_ = internal::rankFailed(rank_, reason);
  bootstrap_.abort(reason);
}

} // namespace

Status createNcclCommunicator(Communicator &bootstrap, int cudaDevice,
                              cudaStream_t stream,
                              std::unique_ptr<Communicator> *communicator,
                              std::chrono::milliseconds timeout) {
  auto nccl = std::make_unique<NcclCommunicator>(bootstrap, cudaDevice, stream,
                                                 timeout);
  HETC_RETURN_IF_ERROR(nccl->initialize());
  *communicator = std::move(nccl);
  return okStatus();
}

} // namespace hetc::runtime::comm
