//===- SearchSpace.h - the pieces the planning strategies share -*- C++ -*-===//
//
// A candidate plan is built in two steps. A *layout* fixes the stages: which
// devices form each one and which segments it computes. The candidate
// builder then turns a layout into a plan: each replica's batch share and
// micro-batch size, recompute and optimizer offload per stage and the state
// shard fractions, and predicts its step time analytically. The search, the
// baselines and the exhaustive search differ only in the layouts and options
// they try; all of them judge their best candidates with the simulator
// (CandidateEvaluation.cpp). docs/planner.md, "Search", has the reasoning.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PLANNER_SEARCHSPACE_H
#define HETC_PLANNER_SEARCHSPACE_H

#include "planner/LinkChannels.h"
#include "planner/Search.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <limits>
#include <optional>

namespace hetc::planner {

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

/// The devices of one stage, in ring order, and its segments.
struct StageDevices {
  std::vector<int> devices;
  int64_t firstSegment = 0;
  int64_t endSegment = 0;
};
using StageLayout = std::vector<StageDevices>;

/// Device indices where each node's devices are consecutive (grouped by GPU
/// type, or in any sequence of types in small nodes), as are the nodes of
/// one datacenter and the alike nodes of one datacenter: stages are runs of
/// consecutive devices, so the slow links (between nodes, between
/// datacenters) fall between stages unless a stage needs more devices than
/// a node holds. At most `maxOrders` distinct orders, which differ in the
/// order of datacenters, of node kinds within one, and of GPU types within
/// a node.
std::vector<std::vector<int>> deviceOrders(const Cluster &cluster,
                                           size_t maxOrders);

/// `order` with the second half of the devices its first node leads with
/// moved to its end, so that the first and last stages can share that node
/// (a tied embedding and LM head then sum their gradients inside it); empty
/// where the first node leads with fewer than two devices.
std::vector<int> wrappedOrder(const Cluster &cluster,
                              llvm::ArrayRef<int> order);

/// Cuts `order` into at most about `maxUnits` runs that no stage boundary
/// splits: single devices on small clusters; on large ones, equal pieces of
/// a node's GPUs of one type, or blocks of consecutive alike nodes.
std::vector<std::vector<int>> splitIntoUnits(const Cluster &cluster,
                                             llvm::ArrayRef<int> order,
                                             size_t maxUnits);

/// Layouts whose stages are consecutive runs of `units` over consecutive
/// segment ranges, every device fitting in memory at one sample per
/// micro-batch (with recompute or optimizer offload where allowed and
/// needed), minimizing the slowest stage's predicted compute, transfers and
/// update:
///   - for each stage count 1..maxStages, the best with any number of
///     units per stage (a suffix of the units may stay idle);
///   - for each stage count dividing the number of units, the best with
///     as many units in every stage (equal replica counts when the units
///     are equal, which lets the sample ranges of all stages line up).
/// Memory and update times are those of `sharding`: under full sharding a
/// stage's replicas shard the parameters and their gradients too, so larger
/// groups fit, and gather them around every call.
std::vector<StageLayout> splitStages(const CostModel &cost,
                                     const PlanRequest &request,
                                     llvm::ArrayRef<std::vector<int>> units,
                                     int64_t maxStages, ShardingKind sharding);

//===----------------------------------------------------------------------===//
// Candidates
//===----------------------------------------------------------------------===//

/// How the batch of a stage is split over its replicas.
enum class ShareRule {
  Equal,      // B / replicas each (Megatron-like)
  Throughput, // proportional to each device's samples per second
  /// When every stage has as many replicas, the i-th replicas of all stages
  /// form a pipeline: each gets the same sample range in every stage, in
  /// proportion to its slowest device's rate. Aligned ranges let 1F1B run
  /// the pipelines side by side; otherwise as Throughput.
  Pipelines,
};

/// How a stage's training state is split over its replicas.
enum class ShardRule {
  Even,       // 1 / replicas each
  FreeMemory, // proportional to each device's free memory (Cephalo-like)
  /// As even as free memory allows: every replica the same fraction except
  /// those whose free memory holds less; ring collectives wait for the
  /// largest part, so this is the fastest split that fits.
  Balanced,
};

struct CandidateOptions {
  ShareRule shares = ShareRule::Throughput;
  ShardRule shards = ShardRule::Balanced;
  /// Micro-batches per replica aimed at: each replica's micro-batch is the
  /// largest divisor of its share that gives at least this many (fewer
  /// where memory forces a smaller one, one per sample at most).
  int64_t microBatches = 1;
  ScheduleKind schedule = ScheduleKind::OneForwardOneBackward;
  /// Under full sharding the replicas of a stage run in lockstep: their
  /// shares are multiples of one micro-batch count (dividing the batch),
  /// and memory makes that count larger rather than one replica's
  /// micro-batch smaller.
  ShardingKind sharding = ShardingKind::Optimizer;
};

/// The device that lacks the most memory in a candidate.
struct MemoryShortfall {
  int device = -1;
  int64_t neededBytes = 0;
  int64_t usableBytes = 0;

  int64_t missingBytes() const { return neededBytes - usableBytes; }
};

/// What the analytical estimate knows of one stage of a candidate, each
/// figure its slowest replica's.
struct StageTimes {
  double busy = 0;     // its micro-batches' compute and message copies
  double forward = 0;  // one micro-batch's, its send on included
  double backward = 0; // one micro-batch's, its send back included
  double ownForward = 0, ownBackward = 0; // the same without the sends
  double update = 0;                      // after its last backward
  int64_t microBatches = 0;
  /// The channels its activations cross to the next stage, and its
  /// gradients to the previous one.
  llvm::SmallVector<int, 4> forwardChannels, backwardChannels;
};

/// The step of a candidate of `stages` whose messages take
/// `channelSeconds` on each channel of the links they cross
/// (docs/planner.md, "analytical step estimate"): the bottleneck stage
/// with the others' fill and drain, each stage's 1F1B round trips, each
/// boundary's messages one after another on its busiest channel, and the
/// busiest channel.
double estimateStep(llvm::ArrayRef<StageTimes> stages,
                    const llvm::DenseMap<int, double> &channelSeconds,
                    ScheduleKind schedule);

struct Candidate {
  Plan plan;
  /// The cluster index of each replica's device, stage by stage.
  std::vector<std::vector<int>> devices;
  CandidateOptions options;
  double estimatedSeconds = std::numeric_limits<double>::infinity();
  std::optional<MemoryShortfall> shortfall;

  bool fits() const { return !shortfall; }
  StageLayout layout() const;
  /// Whether adjacent stages split the batch at the same samples. 1F1B
  /// throttles each replica to a few micro-batches in flight, so where the
  /// ranges differ a replica can wait on another's late micro-batches in a
  /// chain across the stage; the analytical estimate does not see that.
  bool rangesAligned() const;
};

/// Turns layouts into plans and predicts their step time and memory
/// analytically (linear in the number of devices; alike devices of a stage
/// share their cost-model calls).
class CandidateBuilder {
public:
  CandidateBuilder(const CostModel &cost, const PlanRequest &request);

  const CostModel &cost() const { return cost_; }
  const PlanRequest &request() const { return request_; }

  /// The plan of `layout`; none when a stage has more devices than the
  /// batch has samples. `shares`, when given, are each replica's samples
  /// (stage by stage) instead of the options' rule.
  std::optional<Candidate>
  build(const StageLayout &layout, const CandidateOptions &options,
        const std::vector<std::vector<int64_t>> *shares = nullptr) const;

  /// Re-derives what follows from the replicas' samples and micro-batches
  /// after an edit: contiguous sample ranges, recompute, shards, memory and
  /// the estimate. Micro-batches that no longer divide their share, or no
  /// longer fit, are made smaller.
  void finish(Candidate &candidate) const;

  /// Bytes the device may use.
  int64_t usableBytes(int device) const;
  /// Bytes of the node's host memory the plan may use.
  int64_t usableHostBytes(int node) const;
  /// CostModel::rankMemoryBytes of each replica of `stage` on the op list
  /// the plan's schedule gives it when nothing stalls (no schedule of the
  /// whole plan needed).
  std::vector<int64_t> estimatedRankBytes(const Candidate &candidate,
                                          size_t stage) const;

private:
  struct StageCosts;
  class StageMemory;
  void assignShares(Candidate &candidate, size_t stage,
                    const std::vector<int64_t> *shares) const;
  void alignPipelines(Candidate &candidate) const;
  void chooseMicroBatches(Candidate &candidate, size_t stage) const;
  /// Rounds the stage's shares to multiples of `count` micro-batches each
  /// (count divides the batch), in proportion to the shares they had.
  void lockstep(Candidate &candidate, size_t stage, int64_t count) const;
  bool fitMemory(Candidate &candidate, size_t stage) const;
  /// fitMemory in lockstep: more micro-batches for every replica.
  bool fitLockstep(Candidate &candidate, size_t stage) const;
  /// Where the stage does not fit as it is: recompute, optimizer offload
  /// (where the hosts hold the state) or both, whichever fits and the
  /// estimate finds fastest.
  void decideMemorySaving(Candidate &candidate, size_t stage) const;
  /// Whether every node's host memory holds the optimizer state of the
  /// replicas on it whose stages offload it.
  bool hostsHoldOffloadedState(const Candidate &candidate) const;
  void balanceShares(Candidate &candidate, size_t stage) const;
  void assignShards(Candidate &candidate, size_t stage) const;
  double estimateSeconds(const Candidate &candidate) const;

  const CostModel &cost_;
  PlanRequest request_;
  LinkChannels channels_;
};

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

/// The verdict on a candidate: exact memory per rank on the schedule the
/// compiler builds and the simulated step; or, for plans too large to
/// simulate, the analytical prediction where it can be trusted.
struct Evaluation {
  std::optional<MemoryShortfall> shortfall;
  SimulationResult result;
  /// Neither simulated nor trustworthy analytically.
  bool unknown = false;
};

/// The work of building and simulating a plan's schedule and checking its
/// memory grows with its micro-batches times its ranks and with the square
/// of its stages' replica counts; past this a plan is predicted
/// analytically (about a second of simulation on one core).
constexpr double kMaxSimulationCost = 2e8;
/// The chosen plan is simulated up to this (about ten seconds).
constexpr double kMaxFinalSimulationCost = 1e10;
double simulationCost(const Plan &plan);

llvm::Expected<Evaluation>
evaluate(const CandidateBuilder &builder, const Candidate &candidate,
         double maxSimulationCost = kMaxSimulationCost);

/// Keeps the best of the candidates offered, and the closest miss.
class BestCandidate {
public:
  explicit BestCandidate(const CandidateBuilder &builder) : builder_(builder) {}

  /// Judges `candidate`: its step seconds, infinity where it does not fit
  /// or cannot be judged.
  llvm::Expected<double> offer(const Candidate &candidate);
  /// Records a candidate that does not fit, for the error message.
  void miss(const MemoryShortfall &shortfall);

  bool found() const { return best_.has_value(); }
  /// The simulation work spent so far (simulationCost of each plan).
  double simulationSpent() const { return simulationSpent_; }
  double stepSeconds() const {
    return best_ ? result_.stepSeconds
                 : std::numeric_limits<double>::infinity();
  }
  /// The best candidates of distinct layouts with their step seconds, best
  /// first: where local search starts.
  const std::vector<std::pair<double, Candidate>> &leaders() const {
    return leaders_;
  }
  /// The best plan with its prediction (simulated if at all affordable),
  /// or why nothing fits.
  llvm::Expected<PlanResult> take();

private:
  static constexpr size_t kLeaders = 3;
  void rememberLeader(double seconds, const Candidate &candidate);

  const CandidateBuilder &builder_;
  std::optional<Candidate> best_;
  SimulationResult result_;
  bool bestSimulated_ = false;
  std::vector<std::pair<double, Candidate>> leaders_;
  std::optional<MemoryShortfall> closestMiss_;
  double simulationSpent_ = 0;
};

//===----------------------------------------------------------------------===//
// Strategies
//===----------------------------------------------------------------------===//

/// The candidates each baseline tries (Baselines.cpp); for
/// Strategy::Search, those of all three.
std::vector<Candidate> baselineCandidates(const CandidateBuilder &builder,
                                          Strategy strategy);

/// Offers the candidates the analytical estimate ranks best until
/// `maxCandidates` are judged or `simulationBudget` is spent; records the
/// misses.
llvm::Error offerBest(BestCandidate &best, std::vector<Candidate> candidates,
                      size_t maxCandidates, double simulationBudget);

/// The largest divisor of `n` that is at most `limit` (at least 1).
int64_t largestDivisorAtMost(int64_t n, int64_t limit);

/// The micro-batch count of a stage of `replicas` in lockstep aiming at
/// `target`: the largest divisor of the batch up to it that leaves every
/// replica a sample per micro-batch.
int64_t lockstepCount(int64_t batch, size_t replicas, int64_t target);
/// Whether every replica of `stage` has as many micro-batches.
bool equalCounts(const Stage &stage);

/// The candidates of `layout` with the share and shard rules and the
/// sharding of `base`, one per micro-batch count worth trying (stopping at
/// the first that does not build); with `gpipeWhereUneven`, also under GPipe
/// where the sample ranges of adjacent stages differ (1F1B chains replicas
/// there).
void addCandidates(const CandidateBuilder &builder, const StageLayout &layout,
                   const CandidateOptions &base, bool gpipeWhereUneven,
                   std::vector<Candidate> &candidates);

/// The micro-batch counts worth trying for a plan of `stages` stages whose
/// largest share is `maxShare` samples.
std::vector<int64_t> microBatchTargets(int64_t stages, int64_t maxShare);

} // namespace hetc::planner

#endif // HETC_PLANNER_SEARCHSPACE_H
