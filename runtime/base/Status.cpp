//===- Status.cpp ---------------------------------------------------------===//

#include "runtime/base/Status.h"

#include <cerrno>
#include <cstring>

namespace hetc::runtime {

const char *statusCodeName(StatusCode code) {
  switch (code) {
  case StatusCode::kOk:
    return "OK";
  case StatusCode::kInvalidArgument:
    return "INVALID_ARGUMENT";
  case StatusCode::kOutOfRange:
    return "OUT_OF_RANGE";
  case StatusCode::kNotFound:
    return "NOT_FOUND";
  case StatusCode::kFailedPrecondition:
    return "FAILED_PRECONDITION";
  case StatusCode::kDataLoss:
    return "DATA_LOSS";
  case StatusCode::kResourceExhausted:
    return "RESOURCE_EXHAUSTED";
  case StatusCode::kUnimplemented:
    return "UNIMPLEMENTED";
  case StatusCode::kInternal:
    return "INTERNAL";
  case StatusCode::kUnavailable:
    return "UNAVAILABLE";
  case StatusCode::kDeadlineExceeded:
    return "DEADLINE_EXCEEDED";
  case StatusCode::kAborted:
    return "ABORTED";
  }
  return "UNKNOWN";
}

std::string Status::toString() const {
  if (ok())
    return "OK";
  return std::string(statusCodeName(code_)) + ": " + message_;
}

Status &Status::annotate(const std::string &context) {
  if (!ok() && !context.empty())
    message_ = context + ": " + message_;
  return *this;
}

Status errnoStatus(int err, const std::string &what) {
  StatusCode code = StatusCode::kInternal;
  switch (err) {
  case ENOENT:
  case ENOTDIR:
    code = StatusCode::kNotFound;
    break;
  case EACCES:
  case EPERM:
  case EISDIR:
  case EINVAL:
    code = StatusCode::kInvalidArgument;
    break;
  case ENOMEM:
  case EMFILE:
  case ENFILE:
    code = StatusCode::kResourceExhausted;
    break;
  default:
    break;
  }
  return Status(code, what + ": " + std::strerror(err));
}

} // namespace hetc::runtime
