//===- CommErrors.h - the errors every communicator reports -----*- C++ -*-===//
//
// The messages of Communicator.h's failure contract, written once so that
// every backend says the same thing: a mismatched message, a wait past the
// timeout, another rank's failure, and an error code of MPI, CUDA or NCCL
// converted at the boundary.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_COMM_INTERNAL_COMMERRORS_H
#define HETC_RUNTIME_COMM_INTERNAL_COMMERRORS_H

#include "runtime/base/Status.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace hetc::runtime::comm::internal {

/// FAILED_PRECONDITION: "rank 1 expected message tag 7 (4096 bytes) from
/// rank 0 but received tag 9 (2048 bytes): the two ranks' programs do not
/// match".
Status messageMismatch(int rank, int peer, int64_t expectedTag,
                       size_t expectedBytes, int64_t receivedTag,
                       size_t receivedBytes);

/// DEADLINE_EXCEEDED: "rank 2 waited 30 s in <what> for <waitedFor>", e.g.
/// what = "reduce_scatter over ranks {1,2,3}", waitedFor = "rank 3".
Status waitedTooLong(int rank, std::chrono::milliseconds timeout,
                     const std::string &what, const std::string &waitedFor);

/// waitedTooLong for a receive: "rank 1 waited 0.2 s in recv of tag 7
/// (4096 bytes) for rank 0".
Status recvTimedOut(int rank, std::chrono::milliseconds timeout, int peer,
                    int64_t tag, size_t bytes);

/// ABORTED: "rank R failed: <reason>".
Status rankFailed(int failedRank, const std::string &reason);

/// An error code from a library at the communicator's boundary:
/// "rank 2: MPI_Isend failed at MpiCommunicator.cpp:120: <detail>".
Status libraryError(StatusCode code, int rank, const char *call,
                    const char *file, int line, const std::string &detail);

} // namespace hetc::runtime::comm::internal

#endif // HETC_RUNTIME_COMM_INTERNAL_COMMERRORS_H
