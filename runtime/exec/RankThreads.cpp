//===- RankThreads.cpp ----------------------------------------------------===//

#include "runtime/exec/RankThreads.h"

namespace hetc::runtime::exec {

RankThreads::RankThreads(int lanes, std::function<void(int)> setup)
    : shared_(std::make_shared<Shared>()) {
  shared_->busy.assign(static_cast<size_t>(lanes), false);
  for (int lane = 0; lane < lanes; ++lane)
    threads_.emplace_back(serve, shared_, lane, setup);
}

RankThreads::~RankThreads() {
  {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    shared_->stopping = true;
  }
  shared_->started.notify_all();
  for (size_t lane = 0; lane < threads_.size(); ++lane) {
    bool left = false;
    for (int abandoned : abandoned_)
      left |= abandoned == static_cast<int>(lane);
    if (left)
      threads_[lane].detach();
    else
      threads_[lane].join();
  }
}

void RankThreads::serve(std::shared_ptr<Shared> shared, int lane,
                        std::function<void(int)> setup) {
  setup(lane);
  uint64_t done = 0;
  for (;;) {
    const std::function<void(int)> *task;
    {
      std::unique_lock<std::mutex> lock(shared->mutex);
      shared->started.wait(
          lock, [&] { return shared->stopping || shared->generation != done; });
      if (shared->stopping)
        return;
      done = shared->generation;
      task = shared->task;
    }
    (*task)(lane);
    std::lock_guard<std::mutex> lock(shared->mutex);
    shared->busy[lane] = false;
    --shared->pending;
    // Every lane that finishes wakes run(), which checks for a failure.
    shared->finished.notify_one();
    if (shared->stopping)
      return;
  }
}

bool RankThreads::run(const std::function<void(int)> &task,
                      const std::atomic<bool> *failed,
                      std::chrono::milliseconds grace) {
  if (!abandoned_.empty())
    return false;
  std::unique_lock<std::mutex> lock(shared_->mutex);
  shared_->task = &task;
  shared_->pending = static_cast<int>(threads_.size());
  shared_->busy.assign(threads_.size(), true);
  ++shared_->generation;
  shared_->started.notify_all();
  // Lanes report as they finish; a failure starts the grace period.
  auto doneOrFailed = [&] {
    return shared_->pending == 0 || (failed && failed->load());
  };
  shared_->finished.wait(lock, doneOrFailed);
  if (shared_->pending > 0 &&
      !shared_->finished.wait_for(lock, grace,
                                  [&] { return shared_->pending == 0; })) {
    for (size_t lane = 0; lane < shared_->busy.size(); ++lane)
      if (shared_->busy[lane])
        abandoned_.push_back(static_cast<int>(lane));
    return false;
  }
  return true;
}

std::vector<int> RankThreads::abandoned() const { return abandoned_; }

} // namespace hetc::runtime::exec
