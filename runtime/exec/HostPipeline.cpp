//===- HostPipeline.cpp ---------------------------------------------------===//
//
// Waits only point back in program order, so the earliest launch not yet
// done always has what it waits for: the lanes cannot deadlock.
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/HostPipeline.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace hetc::runtime::exec {
namespace {

/// Bytes of the device's arena or of the host's.
struct ByteRange {
  bool host = false;
  int64_t begin = 0, end = 0;

  bool overlaps(const ByteRange &other) const {
    return host == other.host && begin < other.end && other.begin < end;
  }
};

struct Access {
  std::vector<ByteRange> reads, writes;
};

ByteRange rangeOf(const hetc::pkg::Buffer &buffer) {
  return {buffer.host(), buffer.offset(),
          buffer.offset() + package::bufferBytes(buffer)};
}

Access accessOf(const hetc::pkg::Program &program,
                const hetc::pkg::Instruction &inst) {
  Access access;
  for (int id : inst.operands())
    access.reads.push_back(rangeOf(program.buffers(id)));
  for (int id : inst.results())
    access.writes.push_back(rangeOf(program.buffers(id)));
  return access;
}

bool anyOverlap(const std::vector<ByteRange> &a,
                const std::vector<ByteRange> &b) {
  return std::any_of(a.begin(), a.end(), [&](const ByteRange &range) {
    return std::any_of(b.begin(), b.end(), [&](const ByteRange &other) {
      return range.overlaps(other);
    });
  });
}

/// Whether `later` must wait for `earlier`: one writes bytes the other
/// reads or writes.
bool conflicts(const Access &earlier, const Access &later) {
  return anyOverlap(earlier.writes, later.reads) ||
         anyOverlap(earlier.writes, later.writes) ||
         anyOverlap(earlier.reads, later.writes);
}

HostLane laneOf(const hetc::pkg::Program &program,
                const hetc::pkg::Instruction &inst) {
  if (inst.kernel() != "copy")
    return HostLane::kCompute;
  bool fromHost = program.buffers(inst.operands(0)).host();
  bool toHost = program.buffers(inst.results(0)).host();
  if (!fromHost && toHost)
    return HostLane::kToHost;
  if (fromHost && !toHost)
    return HostLane::kToDevice;
  return HostLane::kCompute;
}

} // namespace

HostPipeline::HostPipeline(const hetc::pkg::Program &program, int begin,
                           int end) {
  struct Placed {
    Access access;
    int lane = 0, position = 0;
  };
  std::vector<Placed> placed;
  for (int i = begin; i < end; ++i) {
    const hetc::pkg::Instruction &inst = program.instructions(i);
    Launch launch;
    launch.instruction = i;
    launch.lane = laneOf(program, inst);
    int lane = static_cast<int>(launch.lane);
    Access access = accessOf(program, inst);
    for (const Placed &earlier : placed)
      if (earlier.lane != lane && conflicts(earlier.access, access))
        launch.waitFor[earlier.lane] =
            std::max(launch.waitFor[earlier.lane], earlier.position + 1);
    placed.push_back(
        {std::move(access), lane, static_cast<int>(lanes_[lane].size())});
    lanes_[lane].push_back(launch);
  }
}

Status
HostPipeline::run(const std::function<Status()> &bindThread,
                  const std::function<Status(int instruction)> &run) const {
  std::mutex mutex;
  std::condition_variable changed;
  std::array<int, kHostLanes> done{};
  Status firstError = okStatus();
  auto fail = [&](Status status) {
    std::lock_guard<std::mutex> lock(mutex);
    if (firstError.ok())
      firstError = std::move(status);
  };
  auto runLane = [&](int lane) {
    for (const Launch &launch : lanes_[lane]) {
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] {
          if (!firstError.ok())
            return true;
          for (int other = 0; other < kHostLanes; ++other)
            if (done[other] < launch.waitFor[other])
              return false;
          return true;
        });
        if (!firstError.ok())
          return;
      }
      Status status = run(launch.instruction);
      bool ok = status.ok();
      if (ok) {
        std::lock_guard<std::mutex> lock(mutex);
        ++done[lane];
      } else {
        fail(std::move(status));
      }
      changed.notify_all();
      if (!ok)
        return;
    }
  };
  std::vector<std::thread> copyLanes;
  for (HostLane lane : {HostLane::kToHost, HostLane::kToDevice}) {
    int index = static_cast<int>(lane);
    if (lanes_[index].empty())
      continue;
    copyLanes.emplace_back([&, index] {
      if (Status bound = bindThread(); !bound.ok()) {
        fail(std::move(bound));
        changed.notify_all();
        return;
      }
      runLane(index);
    });
  }
  runLane(static_cast<int>(HostLane::kCompute));
  for (std::thread &thread : copyLanes)
    thread.join();
  return firstError;
}

} // namespace hetc::runtime::exec
