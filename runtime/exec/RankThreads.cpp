//===- RankThreads.cpp ----------------------------------------------------===//

#include "runtime/exec/RankThreads.h"

namespace hetc::runtime::exec {

RankThreads::RankThreads(int lanes, std::function<void(int)> setup) {
  setup(0);
  for (int lane = 1; lane < lanes; ++lane)
    threads_.emplace_back([this, lane, setup] { serve(lane, setup); });
}

RankThreads::~RankThreads() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  started_.notify_all();
  for (std::thread &thread : threads_)
    thread.join();
}

void RankThreads::serve(int lane, const std::function<void(int)> &setup) {
  setup(lane);
  uint64_t done = 0;
  for (;;) {
    const std::function<void(int)> *task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      started_.wait(lock, [&] { return stopping_ || generation_ != done; });
      if (stopping_)
        return;
      done = generation_;
      task = task_;
    }
    (*task)(lane);
    std::lock_guard<std::mutex> lock(mutex_);
    if (--pending_ == 0)
      finished_.notify_one();
  }
}

void RankThreads::run(const std::function<void(int)> &task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    task_ = &task;
    pending_ = static_cast<int>(threads_.size());
    ++generation_;
  }
  started_.notify_all();
  task(0);
  std::unique_lock<std::mutex> lock(mutex_);
  finished_.wait(lock, [&] { return pending_ == 0; });
}

} // namespace hetc::runtime::exec
