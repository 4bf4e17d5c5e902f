//===- HostPipeline.h - a host span's copies beside its kernels -*- C++ -*-===//
//
// On a device whose memory is not the host's, an offloaded optimizer update
// is a span of launches on the host: copies of each piece's parameter and
// gradient to the host, the host's kernel on them, the updated piece copied
// back. Run one after another, the host computes while no copy moves and
// the copies wait while the host computes. A HostPipeline runs such a span
// in three lanes side by side: copies to the host, host kernels, copies to
// the device. Each lane keeps program order, and a launch first waits for
// the launches of the other lanes that come before it in the program and
// share bytes with it (one of the two writes them), so the span computes
// exactly what it computes in program order, while the next piece's copies
// run beside this piece's update.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_HOSTPIPELINE_H
#define HETC_RUNTIME_EXEC_HOSTPIPELINE_H

#include "runtime/base/Status.h"
#include "runtime/package/Package.h"

#include <array>
#include <functional>
#include <vector>

namespace hetc::runtime::exec {

enum class HostLane { kToHost = 0, kCompute = 1, kToDevice = 2 };
constexpr int kHostLanes = 3;

class HostPipeline {
public:
  /// A launch of the span and what it waits for: per lane, how many of
  /// that lane's launches must be done first.
  struct Launch {
    int instruction = 0;
    HostLane lane = HostLane::kCompute;
    std::array<int, kHostLanes> waitFor{};
  };

  HostPipeline() = default;
  /// The lanes of instructions [begin, end) of `program`: copies whose
  /// operand is on the device and result on the host go to the host, the
  /// other way to the device, everything else computes on the host.
  HostPipeline(const hetc::pkg::Program &program, int begin, int end);

  /// The span's launches, per lane, in program order.
  const std::vector<Launch> &lane(HostLane lane) const {
    return lanes_[static_cast<int>(lane)];
  }

  /// Runs every launch by `run` (its instruction index): the compute lane
  /// on the calling thread, each copy lane on a thread of its own that
  /// first calls `bindThread`. The first error stops every lane and is
  /// returned once all have stopped.
  Status run(const std::function<Status()> &bindThread,
             const std::function<Status(int instruction)> &run) const;

private:
  std::array<std::vector<Launch>, kHostLanes> lanes_;
};

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_HOSTPIPELINE_H
