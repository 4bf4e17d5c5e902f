//===- RankThreads.h - the local ranks stepping in parallel -----*- C++ -*-===//
//
// The ranks a process hosts run each step at the same time, one thread
// each: they wait on each other's messages. A step of a small model takes
// about a millisecond, so the threads persist across steps and meet at a
// barrier; creating them per step would cost more than the step and start
// a fresh OpenMP team in every rank every step.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_RANKTHREADS_H
#define HETC_RUNTIME_EXEC_RANKTHREADS_H

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace hetc::runtime::exec {

/// `lanes` lanes: lane 0 is the calling thread, lanes 1.. are threads of
/// their own. Not thread-safe: one caller.
class RankThreads {
public:
  /// Starts the threads; every lane calls `setup(lane)` once, lane 0 right
  /// here, the others on their thread before their first task.
  RankThreads(int lanes, std::function<void(int)> setup);
  /// Stops and joins the threads.
  ~RankThreads();
  RankThreads(const RankThreads &) = delete;
  RankThreads &operator=(const RankThreads &) = delete;

  /// Runs task(lane) on every lane at once; returns when all are done.
  void run(const std::function<void(int)> &task);

private:
  void serve(int lane, const std::function<void(int)> &setup);

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable started_, finished_;
  const std::function<void(int)> *task_ = nullptr;
  uint64_t generation_ = 0; // counts run() calls
  int pending_ = 0;         // threads still running the current task
  bool stopping_ = false;
};

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_RANKTHREADS_H
