//===- RankBuilder.h - one rank's function from the schedule ----*- C++ -*-===//
//
// hetd-build-ranks writes each rank's function in two parts: the schedule
// walk (BuildRanks.cpp: receives, stage calls, sends) and the reduction and
// update of the stage's parameters (RankUpdate.cpp), which depends on how
// the plan shards the stage's training state.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PASSES_RANKBUILDER_H
#define HETC_PASSES_RANKBUILDER_H

#include "passes/ParameterUpdate.h"
#include "planner/Schedule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

namespace hetc {

/// A stage's forward and backward for one micro-batch size.
struct StagePair {
  mlir::func::FuncOp forward, backward;
};

using StageFunctions =
    llvm::DenseMap<std::pair<int64_t, int64_t>, StagePair>; // (stage, mb)

/// The layout of a stage's parameters as one flat vector and this rank's
/// shard of it.
struct FlatLayout {
  llvm::SmallVector<mlir::ml_program::GlobalOp> parameters;
  llvm::SmallVector<int64_t> offsets; // parameters.size() + 1 entries
  std::vector<int64_t> counts;        // elements per replica
  int64_t shardBegin = 0, shardEnd = 0;

  FlatLayout(llvm::ArrayRef<mlir::ml_program::GlobalOp> parameters,
             const planner::Stage &stage, int64_t replica);
  int64_t total() const { return offsets.back(); }
  /// This rank's elements [begin, end) of parameter `index` (flat, relative
  /// to the parameter); empty when the shard does not overlap it.
  std::pair<int64_t, int64_t> pieceOf(size_t index) const;
  /// The piece's name suffix, "[begin:end]".
  static std::string pieceSuffix(int64_t begin, int64_t end);
};

/// A part of a parameter a rank updates, and its gradient summed over
/// everyone who computed one.
struct UpdatePiece {
  mlir::ml_program::GlobalOp parameter;
  int64_t begin, end; // flat elements; the whole parameter when `whole`
  bool whole;
  mlir::Value grad;
  /// Whether its gradient counts in this rank's share of the global norm
  /// (a tied parameter's whole gradient is on several ranks).
  bool countsInNorm = true;
  /// A parameter several stages read: its update stays on the device, as
  /// its state is one global for all of them.
  bool tied = false;
};

/// What a rank has of one micro-batch while its ops run.
struct MicroBatchState {
  mlir::Value inputIds, labels;
  llvm::SmallVector<std::pair<int64_t, mlir::Value>> activationPieces,
      gradientPieces;
  mlir::func::CallOp forward, backward;
};

class RankBuilder {
public:
  /// `tiedGroups`: the parameters read by several stages, each with the
  /// ranks of all those stages (their gradients add up over all of them).
  RankBuilder(mlir::ModuleOp module, const planner::Plan &plan,
              const planner::RankSchedule &schedule,
              const OptimizerSettings &settings, const StageFunctions &stages,
              const llvm::DenseMap<mlir::Operation *,
                                   llvm::SmallVector<int64_t>> &tiedGroups);

  /// `@rank<N>`, the training step; with `evaluation`, `@rank<N>_eval`:
  /// the schedule's forward ops only, returning the loss.
  mlir::LogicalResult build(bool evaluation = false);

private:
  const planner::Stage &stage() const { return plan.stages[schedule.stage]; }
  const planner::Replica &replica() const {
    return stage().replicas[schedule.replica];
  }
  llvm::SmallVector<int64_t> stageGroup() const;
  bool shardsParameters() const {
    return plan.sharding == planner::ShardingKind::Full &&
           stage().replicas.size() > 1;
  }

  // The schedule walk (BuildRanks.cpp).
  mlir::Value argument(mlir::Type type, llvm::StringRef name,
                       int64_t firstSample);
  mlir::FailureOr<mlir::Value>
  joinPieces(llvm::SmallVector<std::pair<int64_t, mlir::Value>> &pieces,
             int64_t microBatch, bool gradient);
  mlir::LogicalResult receive(const planner::ScheduledOp &op);
  /// Whether an evaluation runs `op`: not the backward or its messages.
  static bool isForwardOp(const planner::ScheduledOp &op);
  mlir::LogicalResult compute(const planner::ScheduledOp &op);
  mlir::LogicalResult sendRows(const planner::ScheduledOp &op);
  mlir::Value resultWithRole(mlir::func::CallOp call, llvm::StringRef role);
  void addGradients(mlir::func::CallOp call);

  // Reduction and update (RankUpdate.cpp).
  mlir::LogicalResult update();
  llvm::SmallVector<UpdatePiece> gradientPieces();
  /// The norm of the gradients of every rank (0-D f32), for clipping and
  /// overflow checks.
  mlir::Value globalNorm(llvm::ArrayRef<UpdatePiece> pieces);
  mlir::Value gatherUpdatedShard(llvm::ArrayRef<mlir::Value> updatedPieces);
  /// The rank's shard of `grads` summed over the stage's replicas: one
  /// reduce-scatter of them all, or under full sharding one per parameter
  /// group, last group first (the order a backward finishes them).
  mlir::Value reduceScatterGradients(llvm::ArrayRef<mlir::Value> grads);
  /// The stage's parameters that `callee` reads gathered from their
  /// shards, one all-gather per parameter group, in the order a forward
  /// (or a backward) reads them; null for the others.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  gatherParameters(mlir::func::FuncOp callee, bool backward);
  /// Under full sharding, the runs of consecutive parameters that one
  /// segment reads first.
  void groupParametersBySegment();
  mlir::FailureOr<mlir::ml_program::GlobalOp>
  parameterPiece(mlir::ml_program::GlobalOp parameter, int64_t begin,
                 int64_t end);

  mlir::ModuleOp module;
  const planner::Plan &plan;
  const planner::RankSchedule &schedule;
  OptimizerSettings settings;
  const StageFunctions &stages;
  mlir::OpBuilder builder;
  mlir::Location loc;
  mlir::func::FuncOp rankFunc;
  StagePair functions;
  llvm::SmallVector<MicroBatchState> microBatches;
  mlir::Value loss;
  const llvm::DenseMap<mlir::Operation *, llvm::SmallVector<int64_t>>
      &tiedGroups;
  /// The stage's own parameters, in the order the backward returns their
  /// gradients, and their gradients summed over the rank's micro-batches
  /// (with sharded parameters: the rank's shard, summed over replicas).
  llvm::SmallVector<mlir::ml_program::GlobalOp> parameters;
  /// [begin, end) indices into `parameters`, covering them in order: the
  /// units of the collectives over sharded parameters (one group when they
  /// are not sharded).
  llvm::SmallVector<std::pair<size_t, size_t>> parameterGroups;
  llvm::SmallVector<mlir::Value> gradients;
  mlir::Value shardGradients;
  /// The parameters it shares with other stages, and their gradients
  /// summed over the rank's micro-batches.
  llvm::SmallVector<mlir::ml_program::GlobalOp> tiedParameters;
  llvm::SmallVector<mlir::Value> tiedGradients;
  /// Per gradient result of the backward, in order: whether its parameter
  /// is tied (looked up once, not per micro-batch).
  llvm::SmallVector<bool> gradientIsTied;
};

/// With parameters sharded over a stage's replicas (FSDP-style), the stage
/// functions read their parameters as arguments marked
/// `hetd.parameter = @p` instead of loading the globals, so that each call
/// can be given freshly gathered values.
void takeParametersAsArguments(mlir::func::FuncOp stageFunction,
                               llvm::ArrayRef<mlir::ml_program::GlobalOp> parameters);

} // namespace hetc

#endif // HETC_PASSES_RANKBUILDER_H
