//===- Status.h - error propagation for the runtime -------------*- C++ -*-===//
//
// Every runtime entry point that can fail on user data (shapes, indices, files,
// device and communicator errors) returns a Status instead of asserting. An OK
// status carries nothing and costs a compare; an error carries a code and a
// message, and callers on the way up prepend context ("layer_norm: ", "rank 3:
// ") so the final message reads outermost-first.
//
//   HETC_RETURN_IF_ERROR(gemm(a, b, nullptr, c, opts), "block ", i, " qkv");
//   return invalidArgument("gemm: inner dimensions differ: ", k1, " vs ", k2);
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_BASE_STATUS_H
#define HETC_RUNTIME_BASE_STATUS_H

#include <sstream>
#include <string>
#include <utility>

namespace hetc::runtime {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,    // bad shape, dtype, attribute, option
  kOutOfRange,         // an index or a value outside its domain (token id >= V)
  kNotFound,           // a file or a named thing that is absent
  kFailedPrecondition, // the object is not in a state to do this (loader not open)
  kDataLoss,           // a file whose contents cannot be what was promised
  kResourceExhausted,  // allocation or mapping failed
  kUnimplemented,      // a valid request this build does not support
  kInternal,           // a broken invariant of the runtime itself
  kUnavailable,        // a device or peer that is not reachable
  kDeadlineExceeded,   // a wait for another rank ran past its timeout
  kAborted,            // another rank failed and ended the job
};

// "INVALID_ARGUMENT", ...
const char *statusCodeName(StatusCode code);

class [[nodiscard]] Status {
public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string &message() const { return message_; }

  // "INVALID_ARGUMENT: gemm: inner dimensions differ ..." or "OK".
  std::string toString() const;

  // Prepends `context: ` to the message of an error; no-op when OK.
  Status &annotate(const std::string &context);

private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status okStatus() { return Status(); }

namespace detail {
template <typename... Args> std::string concat(const Args &...args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
inline Status annotateWith(Status status) { return status; }
template <typename... Args>
Status annotateWith(Status status, const Args &...context) {
  status.annotate(concat(context...));
  return status;
}
} // namespace detail

// Error builders: the arguments are streamed into the message.
template <typename... Args>
Status makeStatus(StatusCode code, const Args &...args) {
  return Status(code, detail::concat(args...));
}
template <typename... Args> Status invalidArgument(const Args &...args) {
  return makeStatus(StatusCode::kInvalidArgument, args...);
}
template <typename... Args> Status outOfRange(const Args &...args) {
  return makeStatus(StatusCode::kOutOfRange, args...);
}
template <typename... Args> Status notFound(const Args &...args) {
  return makeStatus(StatusCode::kNotFound, args...);
}
template <typename... Args> Status failedPrecondition(const Args &...args) {
  return makeStatus(StatusCode::kFailedPrecondition, args...);
}
template <typename... Args> Status dataLoss(const Args &...args) {
  return makeStatus(StatusCode::kDataLoss, args...);
}
template <typename... Args> Status resourceExhausted(const Args &...args) {
  return makeStatus(StatusCode::kResourceExhausted, args...);
}
template <typename... Args> Status unimplemented(const Args &...args) {
  return makeStatus(StatusCode::kUnimplemented, args...);
}
template <typename... Args> Status internalError(const Args &...args) {
  return makeStatus(StatusCode::kInternal, args...);
}

// An error from errno after a failed system call: "<what>: <strerror>".
Status errnoStatus(int err, const std::string &what);

} // namespace hetc::runtime

// Evaluates `expr` (a Status); on error returns it from the enclosing function,
// with the optional trailing arguments streamed in front as context. Context
// arguments are evaluated only on error.
#define HETC_RETURN_IF_ERROR(expr, ...)                                        \
  do {                                                                         \
    ::hetc::runtime::Status hetc_status_ = (expr);                             \
    if (!hetc_status_.ok())                                                    \
      return ::hetc::runtime::detail::annotateWith(std::move(hetc_status_),    \
                                                   ##__VA_ARGS__);             \
  } while (false)

// Short spelling. Other libraries (protobuf's stubs) define a macro of this
// name; code that includes them uses HETC_RETURN_IF_ERROR.
#ifndef RETURN_IF_ERROR
#define RETURN_IF_ERROR(expr, ...) HETC_RETURN_IF_ERROR(expr, ##__VA_ARGS__)
#endif

#endif // HETC_RUNTIME_BASE_STATUS_H
