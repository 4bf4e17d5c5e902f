//===- HetDist.h - hetd dialect -------------------------------------------===//
//
// The one header users of the hetd dialect include.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_DIALECTS_HETDIST_HETDIST_H
#define HETC_DIALECTS_HETDIST_HETDIST_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/HetDist/HetDistDialect.h.inc"

namespace hetc::hetd {

/// The channel between ranks that communication ops read and write.
struct ChannelResource
    : mlir::SideEffects::Resource::Base<ChannelResource> {
  llvm::StringRef getName() final { return "hetd.channel"; }
};

/// Discardable attributes of the distribution level.
/// On functions: the rank a function is the program of.
constexpr llvm::StringLiteral kRankAttr = "hetd.rank";
/// On functions: the pipeline stage (stage and rank functions) and replica.
constexpr llvm::StringLiteral kStageAttr = "hetd.stage";
constexpr llvm::StringLiteral kReplicaAttr = "hetd.replica";
/// On stage functions: "forward" or "backward"; and the micro-batch size.
constexpr llvm::StringLiteral kPhaseAttr = "hetd.phase";
constexpr llvm::StringLiteral kMicroBatchAttr = "hetd.micro_batch";
/// On rank functions: the plan's device name and the rank's sample range.
constexpr llvm::StringLiteral kDeviceAttr = "hetd.device";
constexpr llvm::StringLiteral kSamplesAttr = "hetd.samples";
/// On stage function arguments and results: what a value is to the rank
/// calling the function ("boundary", "boundary_grad", "saved").
constexpr llvm::StringLiteral kRoleAttr = "hetd.role";
/// On stage function arguments, with full sharding: the parameter passed in
/// (gathered by the rank before the call).
constexpr llvm::StringLiteral kParameterAttr = "hetd.parameter";
/// On rank function arguments (input_ids, labels): the global sample of
/// row 0.
constexpr llvm::StringLiteral kFirstSampleAttr = "hetd.first_sample";
/// On globals holding a 1-D piece `NAME[begin:end]` of a sharded tensor:
/// NAME's shape (the package records it so checkpoints can rejoin NAME).
constexpr llvm::StringLiteral kWholeShapeAttr = "hetd.whole_shape";
/// On globals that live in the rank's host memory, not its device's (an
/// offloaded optimizer state).
constexpr llvm::StringLiteral kHostAttr = "hetd.host";
/// On rank functions and train steps: a forward-only copy that computes
/// the loss and changes nothing, for validation; its program runs in the
/// arena of the training program of the same rank.
constexpr llvm::StringLiteral kEvalAttr = "hetd.eval";
/// On modules: the plan, as JSON.
constexpr llvm::StringLiteral kPlanAttr = "hetd.plan";

} // namespace hetc::hetd

#define GET_OP_CLASSES
#include "dialects/HetDist/HetDistOps.h.inc"

#endif // HETC_DIALECTS_HETDIST_HETDIST_H
