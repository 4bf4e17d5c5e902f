//===- CostModel.h - predicted times and memory of a plan -------*- C++ -*-===//
//
// How long each piece of a training step takes on a device of a cluster and
// how much memory a rank needs, from the model's segment profile and the
// cluster's spec figures. The search ranks candidate plans with it and the
// simulator replays a plan's schedule under it.
//
// Compute: a stage computes in its precision (f32, bf16 or f16) at the
// GPU's peak in it: the bf16 or f16 tensor rate where the GPU has one, else
// its f32 rate. A segment range's forward or backward for n samples is the
// sum of its op kinds, each a roofline per op: a fixed time per launch,
// then max(FLOPs / (peak * kernel efficiency), bytes / bandwidth), so small
// micro-batches pay their launches. Where the profile does not count the
// launches, the whole range takes max(FLOPs / (peak * efficiency), bytes /
// bandwidth), where efficiency = maxEfficiency * F / (F +
// halfEfficiencyFlops) grows with the FLOPs F of the call; both parameters
// are per GPU type, with defaults, and measurements can calibrate them.
// Where a measured profile covers a call (its device type, precision and
// every segment of the range), the call takes the measured seconds
// instead, and a measured kernel kind its measured rate.
// Transfers: the latency of the link between the devices + bytes / the
// bandwidth of the slowest channel on the way (LinkChannels.h);
// their senders only copy the message into a buffer meanwhile.
// Collectives: rings in member order (all-reduce: a ring or a tree, the
// faster), each step as long as its slowest transfer, where transfers that
// cross one channel of the links (LinkChannels.h) share it.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PLANNER_COSTMODEL_H
#define HETC_PLANNER_COSTMODEL_H

#include "planner/Cluster.h"
#include "planner/KernelRoofline.h"
#include "planner/LinkChannels.h"
#include "planner/MeasuredProfile.h"
#include "planner/ModelProfile.h"
#include "planner/Schedule.h"

#include "llvm/ADT/StringMap.h"

namespace hetc::planner {

/// Bytes of an element of parameters, gradients and optimizer state (f32 in
/// every precision), and of activations in f32 (the model profile's unit).
constexpr int64_t kElementBytes = 4;

/// Bytes of an activation element in `precision`.
int64_t activationElementBytes(Precision precision);

/// The fastest precision a device has: bf16, else f16 on tensor cores, else
/// f32.
Precision trainingPrecision(const GpuSpec &gpu);

/// The low precision a stage on `gpus` trains in: bf16 when every one of
/// them has it, else f16.
Precision lowPrecisionFor(llvm::ArrayRef<const GpuSpec *> gpus);

/// The precision a cost model gives stages whose plan does not say: one
/// for all, or (nullopt) lowPrecisionFor each stage's devices.
using PrecisionChoice = std::optional<Precision>;

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

/// A shared parameter (a tied weight) that a plan's stages split: every
/// rank of each stage reading it keeps it whole, with its gradient and
/// optimizer state, and an all-reduce over all of them sums the gradient
/// before the update.
struct TiedParameter {
  const SharedParameter *parameter = nullptr;
  std::vector<int64_t> stages; // reading it, increasing; the first owns it
};
std::vector<TiedParameter> tiedParameters(const ModelProfile &profile,
                                          const Plan &plan);

class CostModel {
public:
  CostModel(const Cluster &cluster, const ModelProfile &profile,
            PrecisionChoice precision = Precision::F32);

  const Cluster &cluster() const { return cluster_; }
  const ModelProfile &profile() const { return profile_; }

  /// Fits `type`'s efficiency curve to measurements (least squares on the
  /// achieved fraction of peak).
  void calibrate(llvm::StringRef type, llvm::ArrayRef<Measurement> points);
  const Efficiency &efficiency(llvm::StringRef type) const;

  /// The roofline per op of `type`: the defaults, or fitted to its
  /// measured kernels.
  const KernelRoofline &kernelRoofline(llvm::StringRef type) const;

  /// Times calls by `measured` where it covers them, and calibrates each
  /// measured type's roofline per op by its kernels and its efficiency
  /// curve by its calls for the rest. `measured` must outlive the cost
  /// model and describe its model profile's shape.
  void useMeasurements(const MeasuredProfile &measured);

  /// The precision of a stage on the devices `devices` (cluster indices)
  /// whose plan does not say.
  Precision precisionOn(llvm::ArrayRef<int> devices) const;
  /// The precision `stage` computes in: its own, or precisionOn its devices.
  Precision precisionOf(const Stage &stage) const;

  /// Seconds of the forward (or backward) of segments [first, end) for
  /// `samples` samples on `device` in `precision` (default: precisionOn
  /// the device alone) at the GPU's peak in it (tensor cores for bf16 and
  /// f16 where it has them); with `recompute`, the backward also runs the
  /// forward again. Measured segment calls come first, then the rates of
  /// measured kernel kinds, then the roofline of the whole range.
  double
  computeSeconds(int device, int64_t firstSegment, int64_t endSegment,
                 bool backward, int64_t samples, bool recompute = false,
                 std::optional<Precision> precision = std::nullopt) const;
  /// Seconds to move `bytes` from `from` to `to` (0 when they are equal):
  /// their link's latency, then the bytes at the slowest channel's
  /// bandwidth on the way.
  double transferSeconds(int from, int to, int64_t bytes) const;
  /// Seconds a sender on `device` spends on a message of `bytes`: copying
  /// it into the communicator's buffer (a read and a write of its memory);
  /// the transfer itself goes on without it.
  double stagingSeconds(int device, int64_t bytes) const;
  /// The link a ring over `devices` (in member order) is timed by: the
  /// slowest between consecutive members; null for a single device.
  const Link *ringLink(llvm::ArrayRef<int> devices) const;
  /// Collectives over `devices` (in member order): the all-reduce as the
  /// faster of a ring and a tree over the slowest link, the others as
  /// rings. A ring's step takes as long as its slowest transfer, and the
  /// transfers of one step that cross the same channel share it. `bytes`
  /// is the whole buffer; uneven ones take each member's part.
  double allReduceSeconds(llvm::ArrayRef<int> devices, int64_t bytes) const;
  double reduceScatterSeconds(llvm::ArrayRef<int> devices,
                              llvm::ArrayRef<int64_t> partBytes) const;
  double allGatherSeconds(llvm::ArrayRef<int> devices,
                          llvm::ArrayRef<int64_t> partBytes) const;
  /// Under full sharding, the gathers (or reduce-scatters) of one call of
  /// `stage` over its replicas' `devices`: one per segment with parameters,
  /// as the compiler groups them, each replica holding its shard's part of
  /// the segment's.
  double segmentCollectivesSeconds(const Stage &stage,
                                   llvm::ArrayRef<int> devices,
                                   bool gather) const;
  /// The optimizer update of `elements` parameter elements on `device`
  /// (memory bound: reads and writes the parameter, gradient and state).
  /// `offloaded` (with optimizer state to offload: not SGD), it runs on the
  /// device's host instead, piece by piece, while the next piece's gradient
  /// and parameter go to the host and the last one's update comes back
  /// over the host link: the longer of the copies and the host's update.
  double optimizerSeconds(int device, int64_t elements,
                          bool offloaded = false) const;

  /// Bytes rank `schedule.rank` of `plan` needs: its parameters (whole, or
  /// its pieces with full sharding, plus the gathered stage around a call),
  /// gradients, optimizer state shard, the activations its micro-batches in
  /// flight keep for the backward (most at once along its op list; only the
  /// stage's input with recompute), message buffers and the largest
  /// segment's working memory; in bf16 or f16 the activations take two
  /// bytes an element and the parameters' low-precision copies are added.
  /// A model of the compiler's memory planner for the same plan, within 5%
  /// on the test fixtures.
  int64_t rankMemoryBytes(const Plan &plan,
                          const RankSchedule &schedule) const;
  /// Bytes of optimizer state replica `replica` of stage `stage` keeps in
  /// its node's host memory: its state shard where the stage offloads it
  /// (but for the tied parameters the stages split, which stay on the
  /// device), else none.
  int64_t offloadedStateBytes(const Plan &plan, int64_t stage,
                              int64_t replica) const;
  /// Bytes of host memory that replica needs: its offloaded state and, at
  /// most, the copies of two pieces (one updated, the next copied in).
  int64_t offloadedHostBytes(const Plan &plan, int64_t stage,
                             int64_t replica) const;

private:
  const Cluster &cluster_;
  const ModelProfile &profile_;
  PrecisionChoice precision_;
  llvm::StringMap<Efficiency> efficiencies_;
  llvm::StringMap<KernelRoofline> kernelRooflines_;
  const MeasuredProfile *measured_ = nullptr;
  LinkChannels channels_;

  /// A ring reduce-scatter or all-gather over `devices` with a part of
  /// `partBytes` each.
  double unevenRingSeconds(llvm::ArrayRef<int> devices,
                           llvm::ArrayRef<int64_t> partBytes) const;

  /// The measured seconds of the call, where `measured_` covers it.
  std::optional<double> measuredSeconds(const GpuSpec &gpu,
                                        Precision precision,
                                        int64_t firstSegment,
                                        int64_t endSegment, bool backward,
                                        int64_t samples, bool recompute) const;
  /// The call as the sum of its op kinds, each at the rate its launches
  /// achieved on the device type in `precision` (FLOPs per second, or
  /// bytes per second for kinds that count no FLOPs), or by the per-op
  /// roofline where that kind was not measured (by the range's roofline
  /// where the profile does not count its launches); nullopt where the
  /// profile has no kinds, or neither counts their launches nor was a
  /// kernel of the type and precision measured.
  std::optional<double> kernelSeconds(const GpuSpec &gpu, Precision precision,
                                      const SegmentCost &range, bool backward,
                                      int64_t samples, bool recompute) const;
  /// max(compute at the efficiency curve, bytes over memory bandwidth).
  double rooflineSeconds(const GpuSpec &gpu, Precision precision, double flops,
                         double bytes) const;
};

} // namespace hetc::planner

#endif // HETC_PLANNER_COSTMODEL_H
