//===- RankMemory.cpp - the memory a rank's program needs -----------------===//
//
// A model of the compiler's arena for one rank (docs/planner.md, "Memory",
// has its accuracy against the compiler). The arena holds the persistent
// buffers (parameters, optimizer state, the token ids and labels of every
// micro-batch) and the activations of one step, whose peak this model finds
// by walking the rank's op list segment by segment: what the compiler keeps
// alive where the live set is largest (the end of a forward, the start and
// end of each segment's backward, the gradient accumulation and reduction).
//
//===----------------------------------------------------------------------===//

#include "planner/CostModel.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

namespace hetc::planner {

namespace {

/// Token ids and labels are int64.
constexpr int64_t kTokenBytes = 8;

/// The share of the live activations' bytes that the compiler's greedy
/// placement leaves unused between them: 0 to 16% on the test fixtures,
/// 2.5% at the median (docs/planner.md, "Memory").
constexpr double kPlacementGaps = 0.03;

/// One segment of the stage, as the walk sees it (bytes per sample unless
/// said otherwise).
struct SegmentSizes {
  /// Kept from the forward to the backward: the activations the backward
  /// reads, or with recompute only the segment's input.
  int64_t kept = 0;
  /// With recompute, the activations rebuilt right before its backward.
  int64_t rebuilt = 0;
  /// The gradient arriving at the segment and the one it produces.
  int64_t gradientIn = 0;
  int64_t gradientOut = 0;
  /// Its parameters' gradients, whole (bytes).
  int64_t parameterBytes = 0;
};

/// The profile counts f32 activations; `elementBytes` is the stage's.
std::vector<SegmentSizes> segmentSizesOf(const ModelProfile &profile,
                                         const Stage &stage,
                                         int64_t elementBytes) {
  auto activations = [&](int64_t f32Bytes) {
    return f32Bytes / kElementBytes * elementBytes;
  };
  auto boundary = [&](int64_t segment) {
    return segment < 0 ? 0
                       : activations(profile.segments[segment].boundaryBytes);
  };
  std::vector<SegmentSizes> sizes;
  for (int64_t s = stage.firstSegment; s < stage.endSegment; ++s) {
    const SegmentCost &cost = profile.segments[s];
    SegmentSizes segment;
    // hetg-recompute keeps each segment's incoming boundary and rebuilds
    // the rest from it.
    int64_t saved = activations(cost.savedActivationBytes);
    segment.kept = stage.recompute ? boundary(s - 1) : saved;
    segment.rebuilt = stage.recompute ? saved : 0;
    segment.gradientIn = boundary(s);
    segment.gradientOut = boundary(s - 1);
    segment.parameterBytes = cost.parameterBytes;
    sizes.push_back(segment);
  }
  return sizes;
}

/// The parameter bytes a rank of stage `s` holds: the stage's, and its
/// shard of them. Tied parameters the stages split are whole on every rank
/// reading them: those another stage owns add a copy, those owned here
/// leave the shards.
struct HeldParameters {
  int64_t stageBytes = 0;
  int64_t shardBytes = 0;
  /// Of the shard, the tied parameters the stages split.
  int64_t tiedBytes = 0;
};

HeldParameters heldParameters(const ModelProfile &profile, const Plan &plan,
                              int64_t s, int64_t replica) {
  const Stage &stage = plan.stages[s];
  SegmentCost range = profile.range(stage.firstSegment, stage.endSegment);
  int64_t tiedBytes = 0, ownedTiedBytes = 0, ownedTiedElements = 0;
  for (const TiedParameter &tied : tiedParameters(profile, plan)) {
    if (!llvm::is_contained(tied.stages, s))
      continue;
    tiedBytes += tied.parameter->bytes;
    if (tied.stages.front() == s) {
      ownedTiedBytes += tied.parameter->bytes;
      ownedTiedElements += tied.parameter->elements;
    }
  }
  HeldParameters held;
  held.tiedBytes = tiedBytes;
  held.stageBytes = range.parameterBytes + tiedBytes - ownedTiedBytes;
  held.shardBytes = held.stageBytes;
  int64_t shardable = range.parameters - ownedTiedElements;
  if (stage.replicas.size() > 1 && shardable > 0)
    // In double: count * bytes overflows int64 past ~1.5e9 parameters.
    held.shardBytes =
        tiedBytes +
        static_cast<int64_t>(
            static_cast<double>(shardCounts(stage, shardable)[replica]) *
            static_cast<double>(range.parameterBytes - ownedTiedBytes) /
            static_cast<double>(shardable));
  return held;
}

} // namespace

std::vector<TiedParameter> tiedParameters(const ModelProfile &profile,
                                          const Plan &plan) {
  std::vector<TiedParameter> tied;
  for (const SharedParameter &parameter : profile.sharedParameters) {
    TiedParameter split{&parameter, {}};
    for (int64_t segment : parameter.segments)
      for (const auto &[s, stage] : llvm::enumerate(plan.stages))
        if (segment >= stage.firstSegment && segment < stage.endSegment &&
            !llvm::is_contained(split.stages, static_cast<int64_t>(s)))
          split.stages.push_back(static_cast<int64_t>(s));
    if (split.stages.size() > 1)
      tied.push_back(std::move(split));
  }
  return tied;
}

int64_t CostModel::rankMemoryBytes(const Plan &plan,
                                   const RankSchedule &schedule) const {
  const Stage &stage = plan.stages[schedule.stage];
  const Replica &replica = stage.replicas[schedule.replica];
  Precision precision = precisionOf(stage);
  int64_t elementBytes = activationElementBytes(precision);
  std::vector<SegmentSizes> segments =
      segmentSizesOf(profile_, stage, elementBytes);
  bool replicated = stage.replicas.size() > 1;
  bool shardsParameters = replicated && plan.sharding == ShardingKind::Full;
  bool lastStage =
      schedule.stage + 1 == static_cast<int64_t>(plan.stages.size());

  // The copy of a tied parameter another stage owns has its gradient
  // appear in the stage's first segment reading it.
  for (const TiedParameter &tied : tiedParameters(profile_, plan)) {
    if (!llvm::is_contained(tied.stages, schedule.stage) ||
        tied.stages.front() == schedule.stage)
      continue;
    const SharedParameter &parameter = *tied.parameter;
    int64_t reader = *llvm::find_if(parameter.segments, [&](int64_t s) {
      return s >= stage.firstSegment;
    });
    segments[reader - stage.firstSegment].parameterBytes += parameter.bytes;
  }

  auto [stageBytes, shardBytes, tiedBytes] =
      heldParameters(profile_, plan, schedule.stage, schedule.replica);
  int64_t keptPerSample = 0;
  for (const SegmentSizes &segment : segments)
    keptPerSample += segment.kept;
  int64_t firstParameters = segments.front().parameterBytes;
  int64_t inputPerSample = segments.front().gradientOut;
  int64_t outputPerSample = lastStage ? 0 : segments.back().gradientIn;

  // An offloading stage keeps the optimizer state in host memory, but for
  // that of the tied parameters it shares with other stages.
  int64_t persistent = (shardsParameters ? shardBytes : stageBytes) +
                       profile_.optimizerStatePerParameterByte *
                           (stage.offloadOptimizer ? tiedBytes : shardBytes);
  // In bf16 or f16 the forward reads the parameters through low-precision
  // copies, which the backward reads again.
  if (precision != Precision::F32)
    persistent += stageBytes / kElementBytes * elementBytes;
  int64_t tokenBytes = replica.numSamples * profile_.seqLen * kTokenBytes;
  if (schedule.stage == 0)
    persistent += tokenBytes;
  if (lastStage)
    persistent += tokenBytes;

  // Full sharding: one segment's parameters at a time, gathered right
  // before the segment reads them (hetd-schedule-collectives), and this
  // rank's pieces of them joined into the gather's input; the largest
  // segment's bound the forward.
  int64_t gathered = 0;
  if (shardsParameters)
    for (const SegmentSizes &segment : segments)
      gathered = std::max(gathered, segment.parameterBytes);
  int64_t gatherInput =
      stageBytes > 0 ? static_cast<int64_t>(static_cast<double>(gathered) *
                                            static_cast<double>(shardBytes) /
                                            static_cast<double>(stageBytes))
                     : 0;

  int64_t saved = 0;     // activations kept by micro-batches in flight
  int64_t received = 0;  // messages waiting for their computation
  int64_t gradients = 0; // accumulated (whole, or this rank's shard)
  int64_t peak = 0;
  auto live = [&](int64_t transient) {
    peak =
        std::max(peak, persistent + saved + received + gradients + transient);
  };
  for (const ScheduledOp &op : schedule.ops) {
    int64_t samples = schedule.microBatches[op.microBatch].numSamples;
    switch (op.kind) {
    case ScheduledOp::Kind::Recv:
      received +=
          op.numSamples * (op.gradient ? outputPerSample : inputPerSample);
      live(0);
      break;
    case ScheduledOp::Kind::Send:
      break;
    case ScheduledOp::Kind::Forward:
      // The received input is the first segment's first kept activation.
      received -= std::min(received, samples * inputPerSample);
      live(gathered + gatherInput);
      saved += samples * keptPerSample;
      live(gathered + samples * outputPerSample);
      break;
    case ScheduledOp::Kind::Backward: {
      received -= std::min(received, samples * outputPerSample);
      live(gathered + gatherInput + samples * outputPerSample);
      // Segment by segment, last first: the activations it reads die and
      // its parameters' gradients appear. At its start all of them are
      // counted, a bound: some appear only as its activations die. Under
      // full sharding the segment's gathered parameters live through it,
      // and its gradients, joined into one flat copy, leave for their
      // reduce-scatter right after it.
      int64_t fresh = 0;
      for (const SegmentSizes &segment : llvm::reverse(segments)) {
        int64_t group = shardsParameters ? segment.parameterBytes : 0;
        fresh = (shardsParameters ? 0 : fresh) + segment.parameterBytes;
        live(group + fresh +
             samples *
                 (segment.rebuilt + segment.gradientIn + segment.gradientOut));
        saved -= samples * segment.kept;
        live(group + fresh + samples * segment.gradientOut);
        if (shardsParameters)
          live(2 * fresh + samples * segment.gradientOut);
      }
      int64_t gradientOut = samples * inputPerSample;
      if (shardsParameters) {
        gradients = shardBytes;
      } else {
        // Adding to the running sum makes each new sum beside the old one
        // and the addend, in parameter order: the first parameter is in
        // the stage's first segment, whose whole parameters bound it (a
        // token embedding is one tensor).
        if (gradients > 0)
          live(fresh + firstParameters + gradientOut);
        gradients = stageBytes;
      }
      break;
    }
    }
  }
  // Optimizer sharding: the reduce-scatter joins the summed gradients into
  // one flat copy.
  if (replicated && !shardsParameters)
    live(stageBytes);
  // The compiler places activations greedily, which leaves gaps.
  int64_t activations = peak - persistent;
  return persistent + activations +
         static_cast<int64_t>(kPlacementGaps *
                              static_cast<double>(activations));
}

int64_t CostModel::offloadedStateBytes(const Plan &plan, int64_t stage,
                                       int64_t replica) const {
  if (!plan.stages[stage].offloadOptimizer)
    return 0;
  HeldParameters held = heldParameters(profile_, plan, stage, replica);
  return profile_.optimizerStatePerParameterByte *
         (held.shardBytes - held.tiedBytes);
}

int64_t CostModel::offloadedHostBytes(const Plan &plan, int64_t stage,
                                      int64_t replica) const {
  int64_t state = offloadedStateBytes(plan, stage, replica);
  if (state == 0)
    return 0;
  // Two pieces are on the host at once, one updated while the next is
  // copied in: each its parameter and gradient copies and the new
  // parameter. A piece is at most one parameter, which the largest
  // segment's parameters bound, and both at most the shard.
  const Stage &held = plan.stages[stage];
  int64_t largest = 0;
  for (int64_t s = held.firstSegment; s < held.endSegment; ++s)
    largest = std::max(largest, profile_.segments[s].parameterBytes);
  int64_t shard = state / profile_.optimizerStatePerParameterByte;
  return state + 3 * std::min(shard, 2 * largest);
}

} // namespace hetc::planner
