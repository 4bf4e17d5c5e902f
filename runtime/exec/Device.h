//===- Device.h - where a rank's arena lives and its kernels run -*- C++ -*-===//
//
// A rank runs on one Device: the host (CpuDevice) or a GPU (CudaDevice,
// runtime/exec/cuda/). The device owns the memory of the rank's arena, moves
// bytes between it and the host, names the kernels that run on it and runs
// the step's compute launches — on a GPU enqueued on the rank's stream and,
// from the second step on, replayed as CUDA graphs. Calls come from the
// rank's thread after bind().
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_DEVICE_H
#define HETC_RUNTIME_EXEC_DEVICE_H

#include "runtime/base/Status.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace hetc::runtime::exec {

class KernelRegistry;

class Device {
public:
  virtual ~Device() = default;

  /// "cpu", "cuda:0", "cuda:0 (33 of 132 SMs, memory cap 20.0 GiB)".
  virtual std::string describe() const = 0;
  /// Whether arena memory is host memory (kernels and views may be read by
  /// the host directly).
  virtual bool hostMemory() const = 0;
  /// The kernels that run on this device.
  virtual const KernelRegistry &registry() const = 0;

  /// Makes this device current on the calling thread (a GPU, its stream and
  /// its SM partition); every other call runs on a thread that called it.
  virtual Status bind() = 0;

  /// `bytes` zero-filled bytes aligned to 256; RESOURCE_EXHAUSTED past the
  /// device's memory (or its cap).
  virtual Status allocate(int64_t bytes, void **data) = 0;
  virtual void release(void *data) = 0;
  /// Copies between host memory and this device's memory, in order with
  /// the launches enqueued so far.
  virtual Status copyToDevice(void *dst, const void *src, size_t bytes) = 0;
  virtual Status copyToHost(void *dst, const void *src, size_t bytes) = 0;
  /// Copies between two places of this device's memory, in order with the
  /// launches.
  virtual Status copyOnDevice(void *dst, const void *src, size_t bytes) = 0;

  /// Runs `launch`, which enqueues span `span`'s kernels (a run of compute
  /// instructions between two that cross ranks). The same span must
  /// enqueue the same kernels on the same buffers every step: a GPU device
  /// captures it as a graph on its second run and replays that graph after.
  virtual Status runSpan(int span, const std::function<Status()> &launch) = 0;

  /// Waits until everything enqueued so far is done.
  virtual Status synchronize() = 0;

  /// Launch timing (hetrun --profile). From startTiming() on, mark() notes
  /// how far the device has got in the work enqueued so far and returns the
  /// note's index: the host's clock here, an event on the stream on a GPU
  /// (which then runs every span as launches: a graph would hide them).
  /// Once synchronize() has returned, markedTime() is when the device got
  /// there, on the host's steady clock; forgetMarks() starts a new list.
  using TimePoint = std::chrono::steady_clock::time_point;
  virtual void startTiming() {}
  virtual Status mark(size_t *index);
  virtual Status markedTime(size_t index, TimePoint *at) const;
  virtual void forgetMarks() { hostMarks_.clear(); }

  /// Bytes allocated now and at most so far (arena and kernel scratch;
  /// not the memory of libraries such as cuBLAS or NCCL).
  int64_t allocatedBytes() const { return allocated_; }
  int64_t peakAllocatedBytes() const { return peakAllocated_; }

protected:
  /// What allocate and release record, for the counts above.
  void noteAllocated(void *data, int64_t bytes);
  /// Whether this device allocated `data` (and had not released it).
  bool noteReleased(void *data);

private:
  std::vector<TimePoint> hostMarks_;
  std::unordered_map<void *, int64_t> allocations_;
  int64_t allocated_ = 0, peakAllocated_ = 0;
};

/// The host, running `registry`'s kernels (which must take host memory).
std::unique_ptr<Device> createCpuDevice(const KernelRegistry &registry);

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_DEVICE_H
