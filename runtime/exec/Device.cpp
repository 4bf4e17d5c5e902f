//===- Device.cpp - allocation counts and host-clock marks ----------------===//

#include "runtime/exec/Device.h"

#include <algorithm>

namespace hetc::runtime::exec {

void Device::noteAllocated(void *data, int64_t bytes) {
  allocations_[data] = bytes;
  allocated_ += bytes;
  peakAllocated_ = std::max(peakAllocated_, allocated_);
}

Status Device::mark(size_t *index) {
  *index = hostMarks_.size();
  hostMarks_.push_back(std::chrono::steady_clock::now());
  return okStatus();
}

Status Device::markedTime(size_t index, TimePoint *at) const {
  if (index >= hostMarks_.size())
    return failedPrecondition("no launch-timing mark ", index);
  *at = hostMarks_[index];
  return okStatus();
}

bool Device::noteReleased(void *data) {
  auto found = allocations_.find(data);
  if (found == allocations_.end())
    return false;
  allocated_ -= found->second;
  allocations_.erase(found);
  return true;
}

} // namespace hetc::runtime::exec
