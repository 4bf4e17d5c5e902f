//===- CommErrors.cpp -----------------------------------------------------===//

#include "runtime/comm/internal/CommErrors.h"

#include <cstring>

namespace hetc::runtime::comm::internal {

Status messageMismatch(int rank, int peer, int64_t expectedTag,
                       size_t expectedBytes, int64_t receivedTag,
                       size_t receivedBytes) {
  return failedPrecondition(
      "rank ", rank, " expected message tag ", expectedTag, " (", expectedBytes,
      " bytes) from rank ", peer, " but received tag ", receivedTag, " (",
      receivedBytes, " bytes): the two ranks' programs do not match");
}

Status waitedTooLong(int rank, std::chrono::milliseconds timeout,
                     const std::string &what, const std::string &waitedFor) {
  return makeStatus(StatusCode::kDeadlineExceeded, "rank ", rank, " waited ",
                    timeout.count() / 1000.0, " s in ", what, " for ",
                    waitedFor);
}

Status recvTimedOut(int rank, std::chrono::milliseconds timeout, int peer,
                    int64_t tag, size_t bytes) {
  return waitedTooLong(
      rank, timeout,
      detail::concat("recv of tag ", tag, " (", bytes, " bytes)"),
      detail::concat("rank ", peer));
}

Status rankFailed(int failedRank, const std::string &reason) {
  return makeStatus(StatusCode::kAborted, "rank ", failedRank,
                    " failed: ", reason);
}

Status libraryError(StatusCode code, int rank, const char *call,
                    const char *file, int line, const std::string &detail) {
  // The file name alone: build paths say nothing to the reader.
  const char *slash = std::strrchr(file, '/');
  return makeStatus(code, "rank ", rank, ": ", call, " failed at ",
                    slash ? slash + 1 : file, ":", line, ": ", detail);
}

} // namespace hetc::runtime::comm::internal
