//===- RankThreads.h - the local ranks stepping in parallel -----*- C++ -*-===//
//
// The ranks a process hosts run each step at the same time, one thread
// each: they wait on each other's messages. A step of a small model takes
// about a millisecond, so the threads persist across steps and meet at a
// barrier; creating them per step would cost more than the step and start
// a fresh OpenMP team in every rank every step. Every lane has a thread of
// its own, so that the caller can give up on a lane stuck in a kernel.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_RANKTHREADS_H
#define HETC_RUNTIME_EXEC_RANKTHREADS_H

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace hetc::runtime::exec {

/// `lanes` lanes, each a thread. Not thread-safe: one caller.
class RankThreads {
public:
  /// Starts the threads; every lane calls `setup(lane)` once on its thread
  /// before its first task.
  RankThreads(int lanes, std::function<void(int)> setup);
  /// Stops and joins the threads; lanes that were abandoned are left to
  /// themselves.
  ~RankThreads();
  RankThreads(const RankThreads &) = delete;
  RankThreads &operator=(const RankThreads &) = delete;

  /// Runs task(lane) on every lane at once and returns when all are done;
  /// true. Once `*failed` is set (by a task), it waits at most `grace` more:
  /// the lanes still running then are abandoned, and run returns false now
  /// and at once on every later call. An abandoned lane keeps running what
  /// it runs; its caller must end the process before that returns.
  bool run(const std::function<void(int)> &task,
           const std::atomic<bool> *failed = nullptr,
           std::chrono::milliseconds grace = {});

  /// The lanes given up on, in order.
  std::vector<int> abandoned() const;

private:
  // What the threads share, kept alive by abandoned ones too.
  struct Shared {
    std::mutex mutex;
    std::condition_variable started, finished;
    const std::function<void(int)> *task = nullptr;
    uint64_t generation = 0; // counts run() calls
    std::vector<bool> busy;  // per lane: running the current task
    int pending = 0;         // lanes still running the current task
    bool stopping = false;
  };
  static void serve(std::shared_ptr<Shared> shared, int lane,
                    std::function<void(int)> setup);

  std::shared_ptr<Shared> shared_;
  std::vector<std::thread> threads_;
  std::vector<int> abandoned_;
};

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_RANKTHREADS_H
