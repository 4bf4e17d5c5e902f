//===- Profile.h - the launches of a run, timed ------------------*- C++ -*-===//
//
// `hetrun --profile`: every launch of every step is timed on the rank that
// runs it (a compute launch on the CPU backend from its start to its end, a
// communication launch including its wait) and recorded with the bytes it
// moves. The records become a Chrome trace in the format of `hetc plan
// --trace` (one process per rank, named by its device; thread 0 compute,
// thread 1 communication; complete events in microseconds), so that a
// predicted and a measured step open side by side, and a summary table of
// the time per kernel.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_PROFILE_H
#define HETC_RUNTIME_EXEC_PROFILE_H

#include "runtime/package/hetpkg.pb.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace hetc::runtime::exec {

struct LaunchRecord {
  int rank = 0;
  int64_t step = 0;     // the step (from 0); -1 - batch for an evaluation
  int instruction = 0;  // index in the rank's program
  bool evaluation = false;
  bool communication = false; // a send, receive or collective
  double start = 0.0;   // seconds since the job started
  double seconds = 0.0;
  int64_t bytes = 0;    // communication: the bytes sent or received
};

/// One rank's records, appended by its thread only.
class RankProfile {
public:
  explicit RankProfile(std::chrono::steady_clock::time_point origin)
      : origin_(origin) {}
  using Clock = std::chrono::steady_clock;
  double since(Clock::time_point at) const {
    return std::chrono::duration<double>(at - origin_).count();
  }
  void add(LaunchRecord record) { records_.push_back(record); }
  const std::vector<LaunchRecord> &records() const { return records_; }

private:
  Clock::time_point origin_;
  std::vector<LaunchRecord> records_;
};

/// The Chrome trace of `records` (of any ranks of the package whose
/// manifest and programs are given): each launch an "X" event named by its
/// kernel, with the instruction, its source location and its bytes.
std::string chromeTrace(const hetc::pkg::Manifest &manifest,
                        const std::vector<hetc::pkg::Program> &programs,
                        const std::vector<hetc::pkg::Program> &evalPrograms,
                        const std::vector<LaunchRecord> &records);

/// The time per kernel over `records`, largest first: launches, total
/// milliseconds, share of all launches' time, the achieved GFLOP/s (from
/// each launch's FLOP count) and for communication the bandwidth. `steps` is the number of training steps they span.
std::string profileSummary(const std::vector<hetc::pkg::Program> &programs,
                           const std::vector<hetc::pkg::Program> &evalPrograms,
                           const std::vector<LaunchRecord> &records,
                           int64_t steps);

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_PROFILE_H
