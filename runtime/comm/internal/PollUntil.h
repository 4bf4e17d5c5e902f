//===- PollUntil.h - waiting on a non-blocking operation --------*- C++ -*-===//
//
// MPI requests and CUDA events have no blocking wait with a timeout, so the
// communicators poll them. Polls come back to back at first (a message that
// is already on its way costs no sleep), then with sleeps growing to 1 ms
// (a long wait costs little CPU, which ranks oversubscribing cores need).
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_COMM_INTERNAL_POLLUNTIL_H
#define HETC_RUNTIME_COMM_INTERNAL_POLLUNTIL_H

#include "runtime/base/Status.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace hetc::runtime::comm::internal {

using Clock = std::chrono::steady_clock;

/// Calls `poll(&done)` (returning a Status) until it sets `done` or fails,
/// or `deadline` passes, which sets `*timedOut` and returns OK.
template <typename Poll>
Status pollUntil(Clock::time_point deadline, Poll &&poll, bool *timedOut) {
  *timedOut = false;
  auto pause = std::chrono::microseconds(0);
  for (int polls = 0;; ++polls) {
    bool done = false;
    HETC_RETURN_IF_ERROR(poll(&done));
    if (done)
      return okStatus();
    if (Clock::now() >= deadline) {
      *timedOut = true;
      return okStatus();
    }
    if (polls < 100) {
      std::this_thread::yield();
      continue;
    }
    pause = std::min(std::chrono::microseconds(1000),
                     std::max(std::chrono::microseconds(10), pause * 2));
    std::this_thread::sleep_for(pause);
  }
}

} // namespace hetc::runtime::comm::internal

#endif // HETC_RUNTIME_COMM_INTERNAL_POLLUNTIL_H
