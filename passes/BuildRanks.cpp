//===- BuildRanks.cpp - one function per rank from the global schedule ----===//
//
// The plan's schedule is computed once (planner/Schedule.h) and read here
// rank by rank, so the sends of one rank and the receives of its peer come
// from the same list and match by construction. Each rank's function calls
// its stage's forward and backward once per micro-batch, in the schedule's
// order, then reduces the stage's gradients over its replicas and updates
// its shard of the parameters.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/RankBuilder.h"

#include <set>

namespace hetc {
#define GEN_PASS_DEF_HETDBUILDRANKS
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
namespace mlp = mlir::ml_program;
using planner::ScheduledOp;


/// The message tag: unique per ordered pair of ranks within a step.
static int64_t messageTag(const ScheduledOp &op) {
  return 2 * op.firstSample + (op.gradient ? 1 : 0);
}

static StringRef roleOf(func::FuncOp func, unsigned arg) {
  if (func.getArgAttr(arg, hetd::kParameterAttr))
    return "parameter";
  if (auto name = func.getArgAttrOfType<StringAttr>(arg, hetg::kNameAttr))
    return name.getValue();
  if (auto role = func.getArgAttrOfType<StringAttr>(arg, hetd::kRoleAttr))
    return role.getValue();
  return "";
}

/// The parameters whose gradients a stage's backward returns, in order.
static SmallVector<mlp::GlobalOp> parametersOf(func::FuncOp backward,
                                               ModuleOp module) {
  SmallVector<mlp::GlobalOp> parameters;
  for (unsigned i = 0; i < backward.getNumResults(); ++i)
    if (auto owner =
            backward.getResultAttrOfType<FlatSymbolRefAttr>(i, hetg::kGradientOfAttr))
      parameters.push_back(
          SymbolTable::lookupNearestSymbolFrom<mlp::GlobalOp>(module, owner));
  return parameters;
}

RankBuilder::RankBuilder(ModuleOp module, const planner::Plan &plan,
                         const planner::RankSchedule &schedule,
                         const OptimizerSettings &settings,
                         const StageFunctions &stages,
                         const DenseMap<Operation *, SmallVector<int64_t>>
                             &tiedGroups)
    : module(module), plan(plan), schedule(schedule), settings(settings),
      stages(stages), builder(module.getContext()), loc(module.getLoc()),
      tiedGroups(tiedGroups) {}

SmallVector<int64_t> RankBuilder::stageGroup() const {
  SmallVector<int64_t> group;
  for (size_t i = 0; i < stage().replicas.size(); ++i)
    group.push_back(plan.rankOf(schedule.stage, i));
  return group;
}

Value RankBuilder::argument(Type type, StringRef name, int64_t firstSample) {
  MLIRContext *context = module.getContext();
  unsigned index = rankFunc.getNumArguments();
  NamedAttribute attrs[] = {
      {StringAttr::get(context, hetg::kNameAttr), StringAttr::get(context, name)},
      {StringAttr::get(context, hetd::kFirstSampleAttr),
       builder.getI64IntegerAttr(firstSample)}};
  (void)rankFunc.insertArgument(index, type, DictionaryAttr::get(context, attrs),
                                loc);
  return rankFunc.getArgument(index);
}

LogicalResult RankBuilder::receive(const ScheduledOp &op) {
  // The piece has the type of the stage input (or of the gradient of its
  // output) with the message's samples as rows.
  func::FuncOp reader = op.gradient ? functions.backward : functions.forward;
  StringRef role = op.gradient ? "boundary_grad" : "boundary";
  auto it = llvm::find_if(llvm::seq(reader.getNumArguments()),
                          [&](unsigned i) { return roleOf(reader, i) == role; });
  if (it == llvm::seq(reader.getNumArguments()).end())
    return reader.emitError("stage ")
           << schedule.stage << " receives "
           << (op.gradient ? "a gradient" : "an activation")
           << " but @" << reader.getName() << " takes none";
  auto type = llvm::dyn_cast<RankedTensorType>(reader.getArgumentTypes()[*it]);
  if (!type || type.getRank() == 0)
    return reader.emitError("argument #")
           << *it << " (hetd.role = \"" << role
           << "\") must be a tensor whose dimension 0 is the samples, got "
           << reader.getArgumentTypes()[*it];
  SmallVector<int64_t> shape(type.getShape());
  shape[0] = op.numSamples;
  Value piece = hetd::RecvOp::create(builder, loc, type.clone(shape),
                                     op.peer, messageTag(op));
  MicroBatchState &state = microBatches[op.microBatch];
  (op.gradient ? state.gradientPieces : state.activationPieces)
      .push_back({op.firstSample, piece});
  return success();
}

FailureOr<Value>
RankBuilder::joinPieces(SmallVector<std::pair<int64_t, Value>> &pieces,
                        int64_t microBatch, bool gradient) {
  // Only the first stage's forward and the last stage's backward receive
  // nothing.
  func::FuncOp reader = gradient ? functions.backward : functions.forward;
  if (pieces.empty())
    return reader.emitError("takes ")
           << (gradient ? "a gradient (hetd.role = \"boundary_grad\")"
                        : "an activation (hetd.role = \"boundary\")")
           << " but stage " << schedule.stage << " receives none for rank "
           << schedule.rank << "'s micro-batch " << microBatch;
  llvm::sort(pieces, [](auto &a, auto &b) { return a.first < b.first; });
  if (pieces.size() == 1)
    return pieces.front().second;
  SmallVector<Value> values;
  for (auto &piece : pieces)
    values.push_back(piece.second);
  return Value(hetg::ConcatOp::create(builder, loc, values, 0));
}

Value RankBuilder::resultWithRole(func::CallOp call, StringRef role) {
  func::FuncOp callee = call.getCallee() == functions.forward.getName()
                            ? functions.forward
                            : functions.backward;
  for (unsigned i = 0; i < callee.getNumResults(); ++i) {
    auto attr = callee.getResultAttrOfType<StringAttr>(i, hetd::kRoleAttr);
    auto name = callee.getResultAttrOfType<StringAttr>(i, hetg::kNameAttr);
    if ((attr && attr.getValue() == role) || (name && name.getValue() == role))
      return call.getResult(i);
  }
  return Value();
}

LogicalResult RankBuilder::compute(const ScheduledOp &op) {
  bool backward = op.kind == ScheduledOp::Kind::Backward;
  func::FuncOp callee = backward ? functions.backward : functions.forward;
  MicroBatchState &state = microBatches[op.microBatch];
  const planner::MicroBatch &range = schedule.microBatches[op.microBatch];
  auto ids = [&](Type type, Value &slot, StringRef name) {
    if (!slot)
      slot = argument(type, name, range.firstSample);
    return slot;
  };

  SmallVector<Value> gathered;
  if (shardsParameters()) {
    FailureOr<SmallVector<Value>> values = gatherParameters(callee, backward);
    if (failed(values))
      return failure();
    gathered = std::move(*values);
  }

  SmallVector<Value> operands;
  unsigned saved = 0;
  SmallVector<Value> savedValues;
  if (backward)
    for (unsigned i = 0; i < functions.forward.getNumResults(); ++i)
      if (auto role = functions.forward.getResultAttrOfType<StringAttr>(
              i, hetd::kRoleAttr);
          role && role.getValue() == "saved")
        savedValues.push_back(state.forward.getResult(i));
  for (unsigned i = 0; i < callee.getNumArguments(); ++i) {
    StringRef role = roleOf(callee, i);
    Type type = callee.getArgumentTypes()[i];
    if (role == "input_ids") {
      operands.push_back(ids(type, state.inputIds, "input_ids"));
    } else if (role == "labels") {
      operands.push_back(ids(type, state.labels, "labels"));
    } else if (role == "boundary" || role == "boundary_grad") {
      FailureOr<Value> joined = joinPieces(
          role == "boundary" ? state.activationPieces : state.gradientPieces,
          op.microBatch, role == "boundary_grad");
      if (failed(joined))
        return failure();
      operands.push_back(*joined);
    } else if (role == "saved") {
      if (!backward)
        return callee.emitError("argument #")
               << i << " is a saved value (hetd.role = \"saved\"), which "
               << "only a backward takes";
      if (saved >= savedValues.size())
        return callee.emitError("argument #")
               << i << " is saved value #" << saved << " but @"
               << functions.forward.getName() << " returns "
               << savedValues.size() << " saved values";
      operands.push_back(savedValues[saved++]);
    } else if (role == "parameter") {
      auto owner = callee.getArgAttrOfType<FlatSymbolRefAttr>(i, hetd::kParameterAttr);
      if (!owner)
        return callee.emitError("argument #")
               << i << " has a hetd.parameter that is not a symbol reference";
      auto it = llvm::find_if(parameters, [&](mlp::GlobalOp global) {
        return global.getSymName() == owner.getValue();
      });
      if (it == parameters.end() || gathered.empty())
        return callee.emitError("argument #")
               << i << " is parameter " << owner
               << ", which is not a sharded parameter of this stage";
      operands.push_back(gathered[it - parameters.begin()]);
    } else {
      return callee.emitError("argument #")
             << i << " has no role hetd-build-ranks knows (input_ids, "
             << "labels, boundary, boundary_grad, saved, parameter)";
    }
  }
  auto call = func::CallOp::create(builder, loc, callee, operands);
  if (!backward) {
    state.forward = call;
    if (Value mbLoss = resultWithRole(call, "loss"))
      loss = loss ? Value(hetg::AddOp::create(builder, loc, loss, mbLoss))
                  : mbLoss;
    return success();
  }
  state.backward = call;
  addGradients(call);
  return success();
}

/// Adds `grads` to the running sums `sums` (the first ones start them).
static void accumulate(OpBuilder &builder, Location loc,
                       SmallVectorImpl<Value> &sums, ArrayRef<Value> grads) {
  if (sums.empty()) {
    llvm::append_range(sums, grads);
    return;
  }
  for (auto [sum, grad] : llvm::zip(sums, grads))
    sum = hetg::AddOp::create(builder, loc, sum, grad);
}

void RankBuilder::addGradients(func::CallOp call) {
  SmallVector<Value> grads, tied;
  unsigned next = 0;
  for (unsigned i = 0; i < call.getNumResults(); ++i)
    if (functions.backward.getResultAttr(i, hetg::kGradientOfAttr))
      (gradientIsTied[next++] ? tied : grads).push_back(call.getResult(i));
  accumulate(builder, loc, tiedGradients, tied);
  // Sharded parameters: each micro-batch's gradients go straight to their
  // owners, so no rank holds a stage's full gradients for long.
  if (shardsParameters()) {
    if (parameters.empty())
      return;
    Value shard = reduceScatterGradients(grads);
    shardGradients =
        shardGradients
            ? Value(hetg::AddOp::create(builder, loc, shardGradients, shard))
            : shard;
    return;
  }
  // Otherwise they add up over the rank's micro-batches.
  accumulate(builder, loc, gradients, grads);
}

LogicalResult RankBuilder::sendRows(const ScheduledOp &op) {
  MicroBatchState &state = microBatches[op.microBatch];
  func::CallOp call = op.gradient ? state.backward : state.forward;
  Value value =
      call ? resultWithRole(call, op.gradient ? "boundary_grad" : "boundary")
           : Value();
  if (!value)
    return emitError(loc) << "rank " << schedule.rank << " sends "
                          << (op.gradient ? "a gradient" : "an activation")
                          << " of micro-batch " << op.microBatch
                          << " that its stage function does not produce";
  int64_t begin =
      op.firstSample - schedule.microBatches[op.microBatch].firstSample;
  hetd::SendOp::create(builder, loc, value, begin, begin + op.numSamples,
                       op.peer, messageTag(op));
  return success();
}

bool RankBuilder::isForwardOp(const ScheduledOp &op) {
  switch (op.kind) {
  case ScheduledOp::Kind::Forward:
    return true;
  case ScheduledOp::Kind::Backward:
    return false;
  case ScheduledOp::Kind::Recv:
  case ScheduledOp::Kind::Send:
    return !op.gradient;
  }
  return false;
}

LogicalResult RankBuilder::build(bool evaluation) {
  const planner::Replica &mine = replica();
  auto it = stages.find({schedule.stage, mine.microBatch});
  if (it == stages.end())
    return module.emitError("no stage functions @stage")
           << schedule.stage << "_forward_mb" << mine.microBatch
           << " / _backward_mb" << mine.microBatch
           << "; run hetd-partition-stages on the step specialized to a "
           << "micro-batch of " << mine.microBatch;
  functions = it->second;

  MLIRContext *context = module.getContext();
  builder.setInsertionPointToEnd(module.getBody());
  rankFunc = func::FuncOp::create(
      builder, loc,
      ("rank" + Twine(schedule.rank) + (evaluation ? "_eval" : "")).str(),
      FunctionType::get(context, {}, {}));
  if (evaluation)
    rankFunc->setAttr(hetd::kEvalAttr, builder.getUnitAttr());
  rankFunc->setAttr(hetd::kRankAttr, builder.getI64IntegerAttr(schedule.rank));
  rankFunc->setAttr(hetd::kStageAttr, builder.getI64IntegerAttr(schedule.stage));
  rankFunc->setAttr(hetd::kReplicaAttr,
                    builder.getI64IntegerAttr(schedule.replica));
  rankFunc->setAttr(hetd::kDeviceAttr, builder.getStringAttr(mine.device));
  rankFunc->setAttr(hetd::kSamplesAttr,
                    builder.getDenseI64ArrayAttr(
                        {mine.firstSample, mine.firstSample + mine.numSamples}));
  builder.setInsertionPointToStart(rankFunc.addEntryBlock());

  for (mlp::GlobalOp global : parametersOf(functions.backward, module)) {
    bool tied = tiedGroups.count(global);
    (tied ? tiedParameters : parameters).push_back(global);
    gradientIsTied.push_back(tied);
  }
  groupParametersBySegment();

  microBatches.resize(schedule.microBatches.size());
  for (const ScheduledOp &op : schedule.ops) {
    if (evaluation && !isForwardOp(op))
      continue;
    LogicalResult result = success();
    switch (op.kind) {
    case ScheduledOp::Kind::Recv:
      result = receive(op);
      break;
    case ScheduledOp::Kind::Send:
      result = sendRows(op);
      break;
    case ScheduledOp::Kind::Forward:
    case ScheduledOp::Kind::Backward:
      result = compute(op);
      break;
    }
    if (failed(result))
      return failure();
  }
  if (!evaluation) {
    if (llvm::none_of(microBatches,
                      [](const MicroBatchState &m) { return m.backward; }))
      return rankFunc.emitError("rank ")
             << schedule.rank << " ran no backward, so it has no gradients";
    if (failed(update()))
      return failure();
  }

  SmallVector<Value> results;
  if (loss)
    results.push_back(loss);
  func::ReturnOp::create(builder, loc, results);
  rankFunc.setType(FunctionType::get(context, rankFunc.getArgumentTypes(),
                                     ValueRange(results).getTypes()));
  if (loss)
    rankFunc.setResultAttr(0, hetg::kNameAttr, builder.getStringAttr("loss"));
  return success();
}

namespace {

struct HetdBuildRanksPass
    : hetc::impl::HetdBuildRanksBase<HetdBuildRanksPass> {
  using HetdBuildRanksBase::HetdBuildRanksBase;

  FailureOr<planner::Plan> loadPlan(ModuleOp module) {
    llvm::Expected<planner::Plan> plan = [&]() -> llvm::Expected<planner::Plan> {
      if (!planFile.empty())
        return planner::readPlanFile(planFile);
      auto json = module->getAttrOfType<StringAttr>(hetd::kPlanAttr);
      if (!json)
        return llvm::createStringError(
            "no plan: give the plan option or a hetd.plan module attribute");
      return planner::parsePlan(json.getValue());
    }();
    if (!plan) {
      module.emitError(llvm::toString(plan.takeError()));
      return failure();
    }
    int64_t batch = plan->globalBatch, segments = 0;
    if (!plan->stages.empty()) {
      for (const planner::Replica &replica : plan->stages.front().replicas)
        batch = std::max(batch, replica.firstSample + replica.numSamples);
      segments = plan->stages.back().endSegment;
    }
    if (llvm::Error error = planner::validatePlan(*plan, batch, segments)) {
      module.emitError(llvm::toString(std::move(error)));
      return failure();
    }
    return *plan;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<OptimizerSettings> settings = OptimizerSettings::parse(
        module, optimizer, lrSchedule,
        {true, lr, weightDecay, beta1, beta2, eps, clipNorm, {}, warmupSteps,
         decaySteps, minLr});
    if (failed(settings))
      return signalPassFailure();
    FailureOr<planner::Plan> plan = loadPlan(module);
    if (failed(plan))
      return signalPassFailure();

    StageFunctions stages;
    SmallVector<mlp::GlobalOp> trained;
    for (auto func : module.getOps<func::FuncOp>()) {
      auto stage = func->getAttrOfType<IntegerAttr>(hetd::kStageAttr);
      auto phase = func->getAttrOfType<StringAttr>(hetd::kPhaseAttr);
      auto microBatch = func->getAttrOfType<IntegerAttr>(hetd::kMicroBatchAttr);
      if (!stage || !phase || !microBatch)
        continue;
      if (phase.getValue() != "forward" && phase.getValue() != "backward") {
        func.emitError("has hetd.phase \"")
            << phase.getValue() << "\"; expected \"forward\" or \"backward\"";
        return signalPassFailure();
      }
      StagePair &pair = stages[{stage.getInt(), microBatch.getInt()}];
      (phase.getValue() == "forward" ? pair.forward : pair.backward) = func;
      func.setPrivate();
      if (stage.getInt() < 0 ||
          stage.getInt() >= static_cast<int64_t>(plan->stages.size())) {
        func.emitError("is a function of stage ")
            << stage.getInt() << " but the plan has "
            << plan->stages.size() << " stages";
        return signalPassFailure();
      }
      if (phase.getValue() != "backward")
        continue;
      for (unsigned i = 0; i < func.getNumResults(); ++i) {
        auto owner =
            func.getResultAttrOfType<FlatSymbolRefAttr>(i, hetg::kGradientOfAttr);
        if (!owner)
          continue;
        auto global =
            SymbolTable::lookupNearestSymbolFrom<mlp::GlobalOp>(module, owner);
        Type type = func.getResultTypes()[i];
        if (!global || global.getType() != type ||
            !llvm::isa<RankedTensorType>(type)) {
          func.emitError("result #")
              << i << " is the gradient of " << owner
              << ", which is not an ml_program.global of its type " << type;
          return signalPassFailure();
        }
      }
      llvm::append_range(trained, parametersOf(func, module));
    }
    for (auto &[key, pair] : stages)
      if (!pair.forward || !pair.backward) {
        module.emitError("stage ")
            << key.first << " with micro-batch " << key.second
            << " has only a " << (pair.forward ? "forward" : "backward")
            << " function";
        return signalPassFailure();
      }
    for (int64_t s = 0; s < static_cast<int64_t>(plan->stages.size()); ++s)
      if (llvm::none_of(stages,
                        [&](auto &entry) { return entry.first.first == s; })) {
        module.emitError("the plan has ")
            << plan->stages.size() << " stages but no function is of stage "
            << s << "; cut the step into as many stages with "
            << "hetd-partition-stages";
        return signalPassFailure();
      }
    makeParametersMutable(module, trained);

    // A parameter several stages read: its gradient adds up over the
    // ranks of all of them.
    DenseMap<Operation *, SmallVector<int64_t>> tiedGroups;
    DenseMap<Operation *, std::set<int64_t>> readers;
    for (auto &[key, pair] : stages)
      for (mlp::GlobalOp global : parametersOf(pair.backward, module))
        readers[global].insert(key.first);
    for (auto &[global, stageSet] : readers) {
      if (stageSet.size() < 2)
        continue;
      SmallVector<int64_t> &group = tiedGroups[global];
      for (int64_t stage : stageSet)
        for (size_t i = 0; i < plan->stages[stage].replicas.size(); ++i)
          group.push_back(plan->rankOf(stage, i));
      llvm::sort(group);
    }

    if (plan->sharding == planner::ShardingKind::Full)
      for (auto &[key, pair] : stages) {
        if (plan->stages[key.first].replicas.size() < 2)
          continue;
        SmallVector<mlp::GlobalOp> sharded;
        for (mlp::GlobalOp global : parametersOf(pair.backward, module))
          if (!tiedGroups.count(global))
            sharded.push_back(global);
        for (func::FuncOp func : {pair.forward, pair.backward})
          takeParametersAsArguments(func, sharded);
      }

    std::vector<planner::RankSchedule> schedule = planner::buildSchedule(*plan);
    // Ranks block on their receives: a schedule whose messages do not match
    // pair by pair would hang the job, so it never reaches a program.
    if (llvm::Error error = planner::checkScheduleMatches(*plan, schedule)) {
      module.emitError("the schedule of the plan is inconsistent: ")
          << llvm::toString(std::move(error));
      return signalPassFailure();
    }
    auto buildRank = [&](const planner::RankSchedule &rank, bool eval) {
      return RankBuilder(module, *plan, rank, *settings, stages, tiedGroups)
          .build(eval);
    };
    for (const planner::RankSchedule &rank : schedule)
      if (failed(buildRank(rank, false)) ||
          (evaluation && failed(buildRank(rank, true))))
        return signalPassFailure();
  }
};

} // namespace
