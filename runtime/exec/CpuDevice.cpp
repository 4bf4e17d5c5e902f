//===- CpuDevice.cpp - ranks on the host ----------------------------------===//

#include "runtime/exec/Device.h"

#include "runtime/base/CpuFeatures.h"

#include <cstdlib>
#include <cstring>

#include <sys/mman.h>

namespace hetc::runtime::exec {
namespace {

constexpr int64_t kAlignment = 256;
constexpr int64_t kHugePage = int64_t{2} << 20;

class CpuDevice final : public Device {
public:
  explicit CpuDevice(const KernelRegistry &registry) : registry_(registry) {}

  std::string describe() const override { return "cpu"; }
  bool hostMemory() const override { return true; }
  const KernelRegistry &registry() const override { return registry_; }
  Status bind() override { return checkCpuFeatures(); }

  Status allocate(int64_t bytes, void **data) override {
    // aligned_alloc wants a non-zero multiple of the alignment.
    // An arena of huge pages where it is large: the matrix products read
    // their operands across it, and with 4 KiB pages the TLB misses cost
    // them a tenth of their speed.
    int64_t alignment = bytes >= kHugePage ? kHugePage : kAlignment;
    int64_t rounded = std::max<int64_t>(
        alignment, (bytes + alignment - 1) / alignment * alignment);
    void *memory = std::aligned_alloc(static_cast<size_t>(alignment),
                                      static_cast<size_t>(rounded));
    if (!memory)
      return resourceExhausted("cannot allocate ", bytes, " bytes");
#ifdef MADV_HUGEPAGE
    if (alignment == kHugePage)
      madvise(memory, static_cast<size_t>(rounded), MADV_HUGEPAGE);
#endif
    std::memset(memory, 0, static_cast<size_t>(rounded));
    noteAllocated(memory, bytes);
    *data = memory;
    return okStatus();
  }
  void release(void *data) override {
    noteReleased(data);
    std::free(data);
  }

  Status copyToDevice(void *dst, const void *src, size_t bytes) override {
    if (bytes)
      std::memcpy(dst, src, bytes);
    return okStatus();
  }
  Status copyToHost(void *dst, const void *src, size_t bytes) override {
    return copyToDevice(dst, src, bytes);
  }
  Status copyOnDevice(void *dst, const void *src, size_t bytes) override {
    return copyToDevice(dst, src, bytes);
  }

  Status runSpan(int, const std::function<Status()> &launch) override {
    return launch();
  }
  Status synchronize() override { return okStatus(); }

private:
  const KernelRegistry &registry_;
};

} // namespace

std::unique_ptr<Device> createCpuDevice(const KernelRegistry &registry) {
  return std::make_unique<CpuDevice>(registry);
}

} // namespace hetc::runtime::exec
