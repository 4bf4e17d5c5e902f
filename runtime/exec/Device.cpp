//===- Device.cpp - allocation counts shared by every device --------------===//

#include "runtime/exec/Device.h"

#include <algorithm>

namespace hetc::runtime::exec {

void Device::noteAllocated(void *data, int64_t bytes) {
  allocations_[data] = bytes;
  allocated_ += bytes;
  peakAllocated_ = std::max(peakAllocated_, allocated_);
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
