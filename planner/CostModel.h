//===- CostModel.h - predicted times and memory of a plan -------*- C++ -*-===//
//
// How long each piece of a training step takes on a device of a cluster and
// how much memory a rank needs, from the model's segment profile and the
// cluster's spec figures. The search ranks candidate plans with it and the
// simulator replays a plan's schedule under it.
//
// Compute: a device trains in bf16 where it has it, else fp16 where it has
// tensor cores, else fp32. A segment range's forward or backward for n
// samples takes max(FLOPs / (peak * efficiency), bytes / bandwidth), where
// efficiency = maxEfficiency * F / (F + halfEfficiencyFlops) grows with the
// FLOPs F of the call (small kernels do not fill a GPU); both parameters
// are per GPU type, with defaults, and measurements can calibrate them.
// Transfers: latency + bytes / bandwidth of the link between the devices.
// Collectives: rings over the slowest link between consecutive members.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PLANNER_COSTMODEL_H
#define HETC_PLANNER_COSTMODEL_H

#include "planner/Cluster.h"
#include "planner/ModelProfile.h"
#include "planner/Schedule.h"

#include "llvm/ADT/StringMap.h"

namespace hetc::planner {

/// Bytes of an element of parameters, gradients, optimizer state and
/// activations: the compiler trains in fp32 today.
constexpr int64_t kElementBytes = 4;

/// The precision a device trains in.
enum class Precision { F32, F16, BF16 };
Precision trainingPrecision(const GpuSpec &gpu);

/// A GPU type's efficiency curve.
struct Efficiency {
  double maxEfficiency = 0.6;
  double halfEfficiencyFlops = 2e9;
};

/// One measured call, to calibrate a GPU type's efficiency curve.
struct Measurement {
  double flops;
  double seconds;
};

class CostModel {
public:
  CostModel(const Cluster &cluster, const ModelProfile &profile);

  const Cluster &cluster() const { return cluster_; }
  const ModelProfile &profile() const { return profile_; }

  /// Fits `type`'s efficiency curve to measurements (least squares on the
  /// achieved fraction of peak).
  void calibrate(llvm::StringRef type, llvm::ArrayRef<Measurement> points);
  const Efficiency &efficiency(llvm::StringRef type) const;

  /// Seconds of the forward (or backward) of segments [first, end) for
  /// `samples` samples on `device`; with `recompute`, the backward also
  /// runs the forward again.
  double computeSeconds(int device, int64_t firstSegment, int64_t endSegment,
                        bool backward, int64_t samples,
                        bool recompute = false) const;
  /// Seconds to move `bytes` from `from` to `to` (0 when they are equal).
  double transferSeconds(int from, int to, int64_t bytes) const;
  /// Ring collectives over `devices` (in member order). `bytes` is the
  /// whole buffer; uneven ones take each member's part.
  double allReduceSeconds(llvm::ArrayRef<int> devices, int64_t bytes) const;
  double reduceScatterSeconds(llvm::ArrayRef<int> devices,
                              llvm::ArrayRef<int64_t> partBytes) const;
  double allGatherSeconds(llvm::ArrayRef<int> devices,
                          llvm::ArrayRef<int64_t> partBytes) const;
  /// The optimizer update of `elements` parameter elements on `device`
  /// (memory bound: reads and writes the parameter, gradient and state).
  double optimizerSeconds(int device, int64_t elements) const;

  /// Bytes rank `schedule.rank` of `plan` needs: its parameters (whole, or
  /// its pieces with full sharding, plus the gathered stage around a call),
  /// gradients, optimizer state shard, the activations its micro-batches in
  /// flight keep for the backward (most at once along its op list; only the
  /// stage's input with recompute), message buffers and the largest
  /// segment's working memory. A model of the compiler's memory planner for
  /// the same plan, within 5% on the test fixtures.
  int64_t rankMemoryBytes(const Plan &plan,
                          const RankSchedule &schedule) const;

private:
  const Cluster &cluster_;
  const ModelProfile &profile_;
  llvm::StringMap<Efficiency> efficiencies_;
};

} // namespace hetc::planner

#endif // HETC_PLANNER_COSTMODEL_H
