//===- CostModel.cpp - predicted times of a step's pieces -----------------===//
//
// Compute follows an efficiency curve per GPU type, transfers and
// collectives follow the alpha-beta model of the cluster's links
// (docs/planner.md, "Cost model", has the formulas and the defaults' why).
// The memory side of the model is RankMemory.cpp.
//
//===----------------------------------------------------------------------===//

#include "planner/CostModel.h"
#include "planner/Minimize.h"

#include "llvm/ADT/SmallVector.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace hetc::planner {

int64_t activationElementBytes(Precision precision) {
  return precision == Precision::F32 ? kElementBytes : 2;
}

Precision lowPrecisionFor(llvm::ArrayRef<const GpuSpec *> gpus) {
  return llvm::all_of(gpus, [](const GpuSpec *gpu) {
           return gpu->supportsBf16();
         })
             ? Precision::BF16
             : Precision::F16;
}

Precision trainingPrecision(const GpuSpec &gpu) {
  if (gpu.supportsBf16())
    return Precision::BF16;
  // Tensor cores make FP16 faster than FP32; without them it is not worth it.
  if (gpu.fp16Tflops > gpu.fp32Tflops)
    return Precision::F16;
  return Precision::F32;
}

namespace {

/// Peak FLOP/s in the precision the GPU trains fastest in: the reference
/// the efficiency curves are stated against.
double peakFlops(const GpuSpec &gpu) {
  return peakFlopsIn(gpu, trainingPrecision(gpu));
}

/// Fraction of peak a large training step reaches on each GPU family
/// (docs/planner.md, "Cost model", says where each figure comes from).
double defaultMaxEfficiency(llvm::StringRef type) {
  if (type.starts_with("A100") || type == "P40")
    return 0.5;
  if (type.starts_with("V100") || type == "L4" || type == "T4")
    return 0.3;
  return 0.4; // Hopper, workstation and GeForce parts
}

/// The curve's half point as a fixed cost per call: a call of F FLOPs takes
/// (F + half) / (peak * max) seconds, so half = overhead * peak * max.
constexpr double kCallOverheadSeconds = 20e-6;

Efficiency defaultEfficiency(const GpuSpec &gpu) {
  Efficiency curve;
  curve.maxEfficiency = gpu.maxEfficiency > 0 ? gpu.maxEfficiency
                                              : defaultMaxEfficiency(gpu.type);
  curve.halfEfficiencyFlops =
      kCallOverheadSeconds * peakFlops(gpu) * curve.maxEfficiency;
  return curve;
}

double achievedFraction(const Efficiency &curve, double flops) {
  return curve.maxEfficiency * flops / (flops + curve.halfEfficiencyFlops);
}

/// For a fixed half point, the max efficiency minimizing the squared error
/// of the fractions is a closed form; returns it and the error.
std::pair<double, double> bestMaxEfficiency(llvm::ArrayRef<double> flops,
                                            llvm::ArrayRef<double> fractions,
                                            double half) {
  double dot = 0, norm = 0;
  for (auto [f, e] : llvm::zip(flops, fractions)) {
    double shape = f / (f + half);
    dot += e * shape;
    norm += shape * shape;
  }
  double maxEfficiency = norm > 0 ? dot / norm : 0;
  double error = 0;
  for (auto [f, e] : llvm::zip(flops, fractions)) {
    double residual = e - maxEfficiency * f / (f + half);
    error += residual * residual;
  }
  return {maxEfficiency, error};
}

/// The slowest link between consecutive members of a ring.
const Link *slowestRingLink(const Cluster &cluster,
                            llvm::ArrayRef<int> devices) {
  const Link *slowest = nullptr;
  for (size_t i = 0; i < devices.size(); ++i) {
    int from = devices[i], to = devices[(i + 1) % devices.size()];
    if (from == to)
      continue;
    const Link &link = cluster.linkBetween(from, to);
    if (!slowest || link.bandwidthGBps < slowest->bandwidthGBps ||
        (link.bandwidthGBps == slowest->bandwidthGBps &&
         link.latencyUs > slowest->latencyUs))
      slowest = &link;
  }
  return slowest;
}

/// One step of a ring over `devices` (in member order): every member
/// passes `bytes` to the next at once. Transfers crossing one channel share
/// it (a ring out of topology order crosses a node's port or a datacenter
/// link more than once), so each transfer takes its link's latency plus the
/// bytes of every transfer on its busiest channel over that channel's
/// bandwidth, and the step waits for the slowest.
double ringStepSeconds(const LinkChannels &channels,
                       llvm::ArrayRef<int> devices, double bytes) {
  size_t p = devices.size();
  // Crossings per channel in a scratch table that is reset after use: the
  // search times rings of thousands of members many times over.
  thread_local std::vector<int> crossings;
  crossings.resize(std::max<size_t>(crossings.size(), channels.size()), 0);
  llvm::SmallVector<int, 5> path;
  auto hopPath = [&](size_t i) {
    path.clear();
    channels.path(devices[i], devices[(i + 1) % p], path);
  };
  for (size_t i = 0; i < p; ++i) {
    hopPath(i);
    for (int channel : path)
      ++crossings[channel];
  }
  double slowest = 0;
  for (size_t i = 0; i < p; ++i) {
    hopPath(i);
    if (path.empty())
      continue;
    double busiest = 0;
    for (int channel : path)
      busiest =
          std::max(busiest, crossings[channel] * bytes /
                                (channels.link(channel).bandwidthGBps * 1e9));
    // The path's last channel is on the link between the two devices.
    const Link &link = channels.link(path.back());
    slowest = std::max(slowest, link.latencyUs * 1e-6 + busiest);
  }
  for (size_t i = 0; i < p; ++i) {
    hopPath(i);
    for (int channel : path)
      crossings[channel] = 0;
  }
  return slowest;
}

} // namespace

CostModel::CostModel(const Cluster &cluster, const ModelProfile &profile,
                     PrecisionChoice precision)
    : cluster_(cluster), profile_(profile), precision_(precision),
      channels_(cluster) {
  for (const Device &device : cluster.devices)
    efficiencies_.try_emplace(device.gpu.type, defaultEfficiency(device.gpu));
}

void CostModel::calibrate(llvm::StringRef type,
                          llvm::ArrayRef<Measurement> points) {
  // The cluster's figures for the type (they may override the catalog's).
  const GpuSpec *gpu = findGpu(type);
  for (const Device &device : cluster_.devices)
    if (device.gpu.type == type)
      gpu = &device.gpu;
  // Without a peak the timings say nothing about efficiency.
  if (!gpu || peakFlops(*gpu) <= 0)
    return;
  std::vector<double> flops, fractions;
  for (const Measurement &point : points)
    if (point.flops > 0 && point.seconds > 0) {
      flops.push_back(point.flops);
      fractions.push_back(point.flops / (peakFlops(*gpu) * point.seconds));
    }
  if (flops.empty())
    return;

  // The error is one-dimensional in the half point once the max efficiency
  // is solved for: scan it on a log grid, then refine around the best.
  auto errorAt = [&](double logHalf) {
    return bestMaxEfficiency(flops, fractions, std::exp(logHalf)).second;
  };
  double half =
      std::exp(scanThenRefine(std::log(1.0), std::log(1e18), 360, errorAt));
  efficiencies_[type] = {bestMaxEfficiency(flops, fractions, half).first, half};
}

const KernelRoofline &CostModel::kernelRoofline(llvm::StringRef type) const {
  static const KernelRoofline defaults;
  auto it = kernelRooflines_.find(type);
  return it == kernelRooflines_.end() ? defaults : it->second;
}

const Efficiency &CostModel::efficiency(llvm::StringRef type) const {
  static const Efficiency fallback;
  auto it = efficiencies_.find(type);
  return it == efficiencies_.end() ? fallback : it->second;
}

void CostModel::useMeasurements(const MeasuredProfile &measured) {
  measured_ = &measured;
  // The curves are fractions of the peak in each type's training
  // precision: only calls in it calibrate them.
  llvm::StringMap<Precision> trainedIn;
  for (const Device &device : cluster_.devices)
    trainedIn.try_emplace(device.gpu.type, trainingPrecision(device.gpu));
  llvm::StringMap<std::vector<Measurement>> points;
  for (const MeasuredCall &call : measured.calls()) {
    auto type = trainedIn.find(call.deviceType);
    if (type == trainedIn.end() || type->second != call.precision)
      continue;
    const SegmentCost &segment = profile_.segments[call.segment];
    double flops = call.pass == Pass::Forward ? segment.forwardFlops
                                              : segment.backwardFlops;
    points[call.deviceType].push_back(
        {flops * static_cast<double>(call.microBatch), call.seconds});
  }
  for (const auto &[type, typePoints] : points)
    calibrate(type, typePoints);
  // Each measured type's kernels, in every precision, fit its roofline
  // per op.
  llvm::StringMap<std::vector<MeasuredKernel>> kernels;
  for (const MeasuredKernel &kernel : measured.kernels())
    kernels[kernel.deviceType].push_back(kernel);
  for (const auto &[type, typeKernels] : kernels) {
    auto device = llvm::find_if(
        cluster_.devices, [&](const Device &d) { return d.gpu.type == type; });
    if (device != cluster_.devices.end())
      kernelRooflines_[type] = fitKernelRoofline(device->gpu, typeKernels);
  }
}

std::optional<double>
CostModel::measuredSeconds(const GpuSpec &gpu, Precision precision,
                           int64_t firstSegment, int64_t endSegment,
                           bool backward, int64_t samples,
                           bool recompute) const {
  if (!measured_)
    return std::nullopt;
  std::vector<Pass> passes = {backward ? Pass::Backward : Pass::Forward};
  if (backward && recompute)
    passes.push_back(Pass::Forward);
  double total = 0;
  for (Pass pass : passes)
    for (int64_t segment = firstSegment; segment < endSegment; ++segment) {
      std::optional<double> seconds =
          measured_->seconds(gpu.type, precision, pass, segment, samples);
      if (!seconds)
        return std::nullopt;
      total += *seconds;
    }
  return total;
}

Precision CostModel::precisionOn(llvm::ArrayRef<int> devices) const {
  if (precision_)
    return *precision_;
  std::vector<const GpuSpec *> gpus;
  for (int device : devices)
    gpus.push_back(&cluster_.devices[device].gpu);
  return lowPrecisionFor(gpus);
}

Precision CostModel::precisionOf(const Stage &stage) const {
  if (stage.precision)
    return *stage.precision;
  std::vector<int> devices;
  for (const Replica &replica : stage.replicas)
    if (int device = cluster_.deviceIndex(replica.device); device >= 0)
      devices.push_back(device);
  return precisionOn(devices);
}

namespace {

/// The launches of an op kind in a call: of the forward, or of the
/// backward (with the forward again where it is recomputed).
int64_t passLaunches(const KindCost &kind, bool backward, bool recompute) {
  if (!backward)
    return kind.forwardOps;
  return kind.backwardOps + (recompute ? kind.forwardOps : 0);
}

/// The FLOPs and f32 bytes per sample of a segment range or an op kind in
/// it: of the forward, or of the backward (with the forward again where it
/// is recomputed).
template <typename Cost>
std::pair<double, double> passWork(const Cost &cost, bool backward,
                                   bool recompute) {
  if (!backward)
    return {cost.forwardFlops, cost.forwardBytes};
  if (!recompute)
    return {cost.backwardFlops, cost.backwardBytes};
  return {cost.backwardFlops + cost.forwardFlops,
          cost.backwardBytes + cost.forwardBytes};
}

} // namespace

double CostModel::rooflineSeconds(const GpuSpec &gpu, Precision precision,
                                  double flops, double bytes) const {
  double peak = peakFlopsIn(gpu, precision);
  // The curve's half point is a fixed time per call at the reference peak:
  // it scales with the peak of the precision computed in.
  Efficiency curve = efficiency(gpu.type);
  if (double reference = peakFlops(gpu); reference > 0)
    curve.halfEfficiencyFlops *= peak / reference;
  double computeTime = 0;
  if (flops > 0)
    computeTime = flops / (peak * achievedFraction(curve, flops));
  double memoryTime = bytes / (gpu.memoryBandwidthGBps * 1e9);
  return std::max(computeTime, memoryTime);
}

std::optional<double> CostModel::kernelSeconds(const GpuSpec &gpu,
                                               Precision precision,
                                               const SegmentCost &range,
                                               bool backward, int64_t samples,
                                               bool recompute) const {
  bool measuredKernels =
      measured_ && measured_->hasKernels(gpu.type, precision);
  bool counted = llvm::any_of(range.kinds, [](const auto &entry) {
    return entry.second.forwardOps > 0 || entry.second.backwardOps > 0;
  });
  if (range.kinds.empty() || (!measuredKernels && !counted))
    return std::nullopt;
  double n = static_cast<double>(samples);
  double byteScale = static_cast<double>(activationElementBytes(precision)) /
                     static_cast<double>(kElementBytes);
  double total = 0;
  for (const auto &[name, kind] : range.kinds) {
    auto [flopsPerSample, bytesPerSample] = passWork(kind, backward, recompute);
    double flops = flopsPerSample * n, bytes = bytesPerSample * n * byteScale;
    if (flops <= 0 && bytes <= 0)
      continue;
    // A kind that counts FLOPs goes at its measured FLOP rate, one that
    // counts none at its byte rate, each at the call's size.
    std::optional<double> measuredPer =
        measuredKernels
            ? measured_->kernelSecondsPer(gpu.type, precision, name, samples,
                                          /*perFlop=*/flops > 0)
            : std::nullopt;
    int64_t launches = passLaunches(kind, backward, recompute);
    if (measuredPer)
      total += (flops > 0 ? flops : bytes) * *measuredPer;
    else if (launches > 0)
      total += kernelRoofline(gpu.type).seconds(gpu, precision, flops, bytes,
                                                launches);
    else
      total += rooflineSeconds(gpu, precision, flops, bytes);
  }
  return total;
}

double CostModel::computeSeconds(int device, int64_t firstSegment,
                                 int64_t endSegment, bool backward,
                                 int64_t samples, bool recompute,
                                 std::optional<Precision> precision) const {
  const GpuSpec &gpu = cluster_.devices[device].gpu;
  Precision computedIn = precision.value_or(precisionOn(device));
  if (std::optional<double> measured =
          measuredSeconds(gpu, computedIn, firstSegment, endSegment, backward,
                          samples, recompute))
    return *measured;
  SegmentCost range = profile_.range(firstSegment, endSegment);
  if (std::optional<double> byKinds =
          kernelSeconds(gpu, computedIn, range, backward, samples, recompute))
    return *byKinds;
  auto [flopsPerSample, bytesPerSample] = passWork(range, backward, recompute);
  // The profile counts f32 bytes; bf16 and f16 stages move half of them.
  return rooflineSeconds(gpu, computedIn, flopsPerSample * samples,
                         bytesPerSample * samples *
                             activationElementBytes(computedIn) /
                             kElementBytes);
}

double CostModel::transferSeconds(int from, int to, int64_t bytes) const {
  if (from == to)
    return 0;
  // The link's latency, the bytes at the slowest channel on the way (a
  // datacenter's uplink may be slower than its link to the other).
  llvm::SmallVector<int, 5> path;
  channels_.path(from, to, path);
  double slowest = std::numeric_limits<double>::infinity();
  for (int channel : path)
    slowest = std::min(slowest, channels_.link(channel).bandwidthGBps);
  return cluster_.linkBetween(from, to).latencyUs * 1e-6 +
         static_cast<double>(bytes) / (slowest * 1e9);
}

double CostModel::stagingSeconds(int device, int64_t bytes) const {
  return 2 * static_cast<double>(bytes) /
         (cluster_.devices[device].gpu.memoryBandwidthGBps * 1e9);
}

const Link *CostModel::ringLink(llvm::ArrayRef<int> devices) const {
  return slowestRingLink(cluster_, devices);
}

double CostModel::allReduceSeconds(llvm::ArrayRef<int> devices,
                                   int64_t bytes) const {
  const Link *link = slowestRingLink(cluster_, devices);
  if (!link)
    return 0;
  // Ring all-reduce: a reduce-scatter then an all-gather of n / p each,
  // 2 (p - 1) steps. Tree all-reduce: the whole buffer reduced up a binary
  // tree and broadcast down it, pipelined, 2 log2(p) steps over the
  // slowest link. The communicators take the faster (NCCL's tuning, MPI's
  // algorithms).
  double p = static_cast<double>(devices.size());
  double n = static_cast<double>(bytes), beta = link->bandwidthGBps * 1e9;
  double alpha = link->latencyUs * 1e-6;
  double ring = 2 * (p - 1) * ringStepSeconds(channels_, devices, n / p);
  double tree = 2 * n / beta + 2 * std::ceil(std::log2(p)) * alpha;
  return std::min(ring, tree);
}

double CostModel::unevenRingSeconds(llvm::ArrayRef<int> devices,
                                    llvm::ArrayRef<int64_t> partBytes) const {
  assert(partBytes.size() == devices.size() && "one part per member");
  if (devices.size() < 2)
    return 0;
  // p - 1 steps, each member passing one part to the next; with uneven
  // parts every step waits for the largest.
  double largest = static_cast<double>(*llvm::max_element(partBytes));
  return static_cast<double>(devices.size() - 1) *
         ringStepSeconds(channels_, devices, largest);
}

double
CostModel::reduceScatterSeconds(llvm::ArrayRef<int> devices,
                                llvm::ArrayRef<int64_t> partBytes) const {
  return unevenRingSeconds(devices, partBytes);
}

double CostModel::allGatherSeconds(llvm::ArrayRef<int> devices,
                                   llvm::ArrayRef<int64_t> partBytes) const {
  return unevenRingSeconds(devices, partBytes);
}

double CostModel::segmentCollectivesSeconds(const Stage &stage,
                                            llvm::ArrayRef<int> devices,
                                            bool gather) const {
  int64_t total =
      profile_.range(stage.firstSegment, stage.endSegment).parameters;
  std::vector<int64_t> counts = shardCounts(stage, total);
  double seconds = 0;
  int64_t begin = 0;
  for (int64_t s = stage.firstSegment; s < stage.endSegment; ++s) {
    int64_t end = begin + profile_.segments[s].parameters;
    if (end == begin)
      continue;
    std::vector<int64_t> partBytes = countsWithin(counts, begin, end);
    for (int64_t &part : partBytes)
      part *= kElementBytes;
    seconds += gather ? allGatherSeconds(devices, partBytes)
                      : reduceScatterSeconds(devices, partBytes);
    begin = end;
  }
  return seconds;
}

double CostModel::optimizerSeconds(int device, int64_t elements,
                                   bool offloaded) const {
  // Reads parameter, gradient and state, writes parameter and state (AdamW:
  // 7 fp32 values per element; SGD: 3).
  double valuesPerElement = 3 + 2 * profile_.optimizerStatePerParameterByte;
  double bytes =
      valuesPerElement * kElementBytes * static_cast<double>(elements);
  // SGD keeps no state, so its update stays on the device.
  if (!offloaded || profile_.optimizerStatePerParameterByte == 0)
    return bytes / (cluster_.devices[device].gpu.memoryBandwidthGBps * 1e9);
  // The gradient and parameter pieces down and the updated pieces up, beside
  // the host's update of the piece before (runtime/exec/HostPipeline.h):
  // the longer of the two.
  const Node &node = cluster_.nodes[cluster_.devices[device].node];
  double transfer = node.hostLink.seconds(3 * kElementBytes * elements);
  return std::max(transfer, bytes / (node.hostUpdateGBps * 1e9));
}

} // namespace hetc::planner
