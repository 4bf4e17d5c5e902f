//===- NcclCommunicator.h - NCCL between GPUs, one rank each ----*- C++ -*-===//
//
// Data pointers are device pointers of the rank's GPU. A call enqueues its
// work behind what is already on the rank's stream; receives and
// collectives return once it is done (polled against the timeout), sends
// once work enqueued on the stream after them may reuse the buffer. Built
// only when CUDA is enabled.
//
// Sends are buffered, as Communicator requires: every ordered pair of ranks
// has its own two-rank NCCL communicator and stream, so a send waiting for
// its receiver holds up nothing else; the sender copies the message to a
// staging buffer and returns without waiting. NCCL carries no tags, so each
// message is a 16-byte header (tag, size) and then the payload on that
// pair's channel; the receiver checks the header like the other backends.
//
// Collectives: each group gets its own NCCL communicator on first use, from
// a unique id that the group's first member sends the others over the
// bootstrap communicator (only the members take part, where ncclCommSplit
// would need every rank). all_reduce is ncclAllReduce, whose order is
// NCCL's (every member still gets the same bits: NCCL computes each element
// once and copies it); the uneven reduce_scatter is a group of ncclReduce,
// one per member as root, and the uneven all_gather a group of
// ncclBroadcast.
//
// Every NCCL communicator is non-blocking (config.blocking = 0), so that
// its setup and its errors are polled against the timeout too. abort()
// aborts them all and then the bootstrap communicator, which tells the
// other ranks.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_COMM_NCCLCOMMUNICATOR_H
#define HETC_RUNTIME_COMM_NCCLCOMMUNICATOR_H

#include "runtime/comm/Communicator.h"

#include <cuda_runtime_api.h>

#include <chrono>
#include <memory>

namespace hetc::runtime::comm {

/// Sets up this rank's NCCL communicator over the ranks of `bootstrap`
/// (collective: every rank calls it). Rank r's GPU is `cudaDevice`, its
/// work goes on `stream`. The 2(n-1) pair channels are created here, all
/// at once. `bootstrap` carries the setup messages, now and whenever a
/// group is used for the first time: it must outlive the communicator and
/// carry nothing else meanwhile.
Status createNcclCommunicator(
    Communicator &bootstrap, int cudaDevice, cudaStream_t stream,
    std::unique_ptr<Communicator> *communicator,
    std::chrono::milliseconds timeout = std::chrono::minutes(5));

} // namespace hetc::runtime::comm

#endif // HETC_RUNTIME_COMM_NCCLCOMMUNICATOR_H
