//===- Plan.h - the distribution plan: stages, replicas, shards -*- C++ -*-===//
//
// A plan says how one training step is spread over devices (DESIGN.md, "Plan
// semantics"): a chain of pipeline stages, each owning a contiguous range of
// the compiler's segments and a list of replicas; each replica is one device
// that owns a contiguous sample range of the global batch, processes it in
// micro-batches of its own size, and holds a fraction of the stage's
// training state. Ranks are numbered stage by stage, replica by replica.
//
// Plans are JSON (docs/plan-format.md). Parsing checks the syntax and the
// field types; validation checks a plan against a model and a batch.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PLANNER_PLAN_H
#define HETC_PLANNER_PLAN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hetc::planner {

/// The micro-batch order of the pipeline.
enum class ScheduleKind {
  /// One forward, one backward: a replica keeps at most as many micro-batches
  /// in flight as there are stages after it (more only where uneven
  /// micro-batches would otherwise stall).
  OneForwardOneBackward,
  /// Every forward of the step, then every backward.
  GPipe,
};

/// What of a stage's training state is sharded over its replicas.
enum class ShardingKind {
  /// Optimizer state and the reduced gradients are sharded (ZeRO-2):
  /// reduce-scatter, shard update, all-gather of the parameters.
  Optimizer,
  /// Parameters too (FSDP-style): a segment's parameters are all-gathered
  /// before use and freed after. The gathers and reduce-scatters are
  /// collectives over the stage's replicas, so the replicas run in lockstep:
  /// the same number of micro-batches, computed in the same order.
  Full,
};

/// The type a stage's float ops compute in. Parameters, their gradients
/// and the optimizer state stay f32 in every precision.
enum class Precision { F32, F16, BF16 };

/// "f32", "f16", "bf16".
llvm::StringRef precisionName(Precision precision);
/// The precision named `name` ("f32", "f16" or "bf16"); nullopt otherwise.
std::optional<Precision> parsePrecision(llvm::StringRef name);

struct Replica {
  /// The device's name: unique within the plan.
  std::string device;
  /// The global sample range [firstSample, firstSample + numSamples).
  int64_t firstSample = 0;
  int64_t numSamples = 0;
  /// Samples per micro-batch; divides numSamples.
  int64_t microBatch = 0;
  /// Fraction of the stage's training state this replica holds, in [0, 1];
  /// the fractions of one stage sum to 1.
  double shard = 0;

  int64_t numMicroBatches() const { return numSamples / microBatch; }
};

struct Stage {
  /// Segments [firstSegment, endSegment) of the compiler's segment chain.
  int64_t firstSegment = 0;
  int64_t endSegment = 0;
  /// Recompute the stage's activations in the backward pass instead of
  /// keeping them (hetg-recompute on the stage's segments).
  bool recompute = false;
  /// Keep the stage's optimizer state in host memory and run its update on
  /// the host: each step the rank's gradient shard and parameter piece go
  /// to the host and the updated piece comes back.
  bool offloadOptimizer = false;
  /// What the stage computes in; unset, the compiler's `--precision`
  /// decides (f32 unless it says otherwise).
  std::optional<Precision> precision;
  std::vector<Replica> replicas;
};

struct Plan {
  /// B: samples per step; 0 when the plan file does not say.
  int64_t globalBatch = 0;
  ScheduleKind schedule = ScheduleKind::OneForwardOneBackward;
  ShardingKind sharding = ShardingKind::Optimizer;
  std::vector<Stage> stages;

  int64_t numRanks() const;
  /// The rank of replica `replica` of stage `stage`.
  int64_t rankOf(int64_t stage, int64_t replica) const;
  /// The stage and replica of `rank`.
  std::pair<int64_t, int64_t> stageAndReplicaOf(int64_t rank) const;
};

/// Parses plan JSON. Errors name the field ("stages[1].replicas[0].samples")
/// and say what was expected.
llvm::Expected<Plan> parsePlan(llvm::StringRef json);
/// Reads and parses the plan file `path`; errors name the file.
llvm::Expected<Plan> readPlanFile(llvm::StringRef path);

/// Whether the replicas of stage `stage` run in lockstep: under Full
/// sharding, with several replicas, every call of theirs is bracketed by
/// collectives over them.
bool inLockstep(const Plan &plan, size_t stage);

/// Checks `plan` for a step of `globalBatch` samples over a chain of
/// `numSegments` segments: segment ranges cover the chain in order without
/// gaps; each stage's sample ranges partition [0, globalBatch); micro-batches
/// divide their replica's samples; shard fractions are in [0, 1] and sum to
/// 1 per stage; no device appears twice; a stated global_batch matches;
/// under Full sharding, the replicas of a stage have equally many
/// micro-batches.
/// Each violation is one line of the error, naming the stage and replica.
llvm::Error validatePlan(const Plan &plan, int64_t globalBatch,
                         int64_t numSegments);

/// Plain data parallelism: one stage over all segments, `devices` replicas
/// named "device<i>" with near-equal contiguous sample ranges (the first
/// `globalBatch % devices` get one more), each one micro-batch, shard
/// fractions proportional to the samples. Needs devices <= globalBatch.
Plan dataParallelPlan(int64_t devices, int64_t globalBatch,
                      int64_t numSegments);

/// The plan as JSON in the format parsePlan reads (stable key order).
std::string printPlan(const Plan &plan);

/// Splits `numElements` over a stage's replicas by their shard fractions:
/// counts sum to numElements; each is floor(fraction * numElements) plus one
/// for the largest remainders (ties to the lower replica index).
std::vector<int64_t> shardCounts(const Stage &stage, int64_t numElements);

/// Of `counts` (shardCounts: replica i holds the next counts[i] elements of
/// the flat vector), each replica's elements within [begin, end).
std::vector<int64_t> countsWithin(llvm::ArrayRef<int64_t> counts, int64_t begin,
                                  int64_t end);

} // namespace hetc::planner

#endif // HETC_PLANNER_PLAN_H
