//===- PartitionStages.cpp - per-stage forward and backward functions -----===//
//
// A pipeline stage runs its forward for a micro-batch, passes the activation
// on, and later runs its backward when the gradient comes back. So the
// differentiated step is cut twice: by stage (the plan's segment ranges) and
// by phase (forward ops vs the gradient ops hetg-autodiff marked with the
// segment they differentiate). Every op lands in one (stage, phase) function;
// what one function reads from another becomes an argument of the reader and
// a result of the writer, and only three kinds of values may do that: the
// activation crossing a cut, its gradient coming back, and the values a
// stage's backward reads from its own forward. Anything computed from the
// parameters alone or the inputs alone is recomputed where it is read. A
// parameter read in several stages (a tied embedding) gets a partial
// gradient from each: the sums joining them are left out, and the ranks
// add the partials up across stages.
//
//===----------------------------------------------------------------------===//

#include "passes/DataDependence.h"
#include "passes/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace hetc {
#define GEN_PASS_DEF_HETDPARTITIONSTAGES
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;

namespace {

/// Partial gradients that no stage's backward computes.
constexpr int64_t kNoStage = -1;

enum class Phase { Forward, Backward };

/// Where an op of the step runs.
struct Place {
  int64_t stage;
  Phase phase;
  bool operator==(const Place &other) const {
    return stage == other.stage && phase == other.phase;
  }
};

std::string describe(Place place) {
  return "the " +
         std::string(place.phase == Phase::Forward ? "forward" : "backward") +
         " of stage " + std::to_string(place.stage);
}

/// One function being built: the clones of its ops, its arguments and its
/// results, in order.
struct StageFunction {
  Place place;
  func::FuncOp func;
  IRMapping mapping;
  SmallVector<Value> results;
  SmallVector<DictionaryAttr> resultAttrs;
  DenseSet<Value> returned; // original values already among the results

  Block &body() { return func.getBody().front(); }

  Value addArgument(Value original, DictionaryAttr attrs) {
    unsigned index = func.getNumArguments();
    (void)func.insertArgument(index, original.getType(), attrs,
                              original.getLoc());
    Value arg = func.getArgument(index);
    mapping.map(original, arg);
    return arg;
  }

  /// Makes `original` (already mapped here) a result, once.
  void addResult(Value original, DictionaryAttr attrs) {
    if (!returned.insert(original).second)
      return;
    results.push_back(mapping.lookup(original));
    resultAttrs.push_back(attrs);
  }
};

class StagePartitioner {
public:
  StagePartitioner(func::FuncOp step, ArrayRef<int64_t> stageStarts)
      : step(step), stageStarts(stageStarts), dependence(step.getBody().front()) {}

  LogicalResult run();

private:
  int64_t numStages() const { return stageStarts.size() + 1; }
  int64_t stageOfSegment(int64_t segment) const {
    return llvm::upper_bound(stageStarts, segment) - stageStarts.begin();
  }
  std::optional<Place> placeOf(Operation *op) const;
  bool isRecomputable(Operation *op) const;
  StageFunction &function(Place place) {
    return functions[place.stage * 2 + (place.phase == Phase::Backward)];
  }
  LogicalResult createFunctions();
  LogicalResult cloneOps(StageFunction &target);
  FailureOr<Value> lookupOrImport(StageFunction &target, Value value,
                                  Operation *user);
  void findCrossStageSums();
  void collectPartials(Value grad,
                       DenseMap<int64_t, SmallVector<Value>> &partials);
  int64_t firstReader(FlatSymbolRefAttr global);
  LogicalResult addParameterGradients();
  void finish();

  func::FuncOp step;
  ArrayRef<int64_t> stageStarts;
  DataDependence dependence;
  int64_t microBatch = 0;
  SmallVector<StageFunction> functions; // forward, backward per stage
  /// The activation entering each stage (none for stage 0), original value.
  SmallVector<Value> boundaryIn;
  /// The gradient arriving in each stage's backward from the next stage.
  SmallVector<Value> boundaryGradIn;
  /// The adds joining a parameter's gradient contributions of different
  /// stages: no stage computes them.
  DenseSet<Operation *> crossStageSums;
};

std::optional<Place> StagePartitioner::placeOf(Operation *op) const {
  if (auto segment = op->getAttrOfType<IntegerAttr>(hetg::kSegmentAttr))
    return Place{stageOfSegment(segment.getInt()), Phase::Forward};
  for (StringRef name : {hetg::kGradSegmentAttr, hetg::kRecomputedAttr})
    if (auto segment = op->getAttrOfType<IntegerAttr>(name))
      return Place{stageOfSegment(segment.getInt()), Phase::Backward};
  return std::nullopt;
}

/// Side-effect-free ops whose results are not activations: any function can
/// compute them again from its parameters and inputs.
bool StagePartitioner::isRecomputable(Operation *op) const {
  return op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
         llvm::none_of(op->getResults(), [&](Value v) {
           return dependence.isActivation(v);
         });
}

LogicalResult StagePartitioner::createFunctions() {
  Block &block = step.getBody().front();
  auto ids = llvm::find_if(block.getArguments(), [&](BlockArgument arg) {
    auto name = step.getArgAttrOfType<StringAttr>(arg.getArgNumber(), hetg::kNameAttr);
    return name && name.getValue() == "input_ids";
  });
  if (ids == block.args_end())
    return step.emitError("hetd-partition-stages needs an argument named "
                          "input_ids (hetg.name) to know the micro-batch");
  auto idsType = llvm::dyn_cast<RankedTensorType>((*ids).getType());
  if (!idsType || idsType.getRank() == 0 || idsType.isDynamicDim(0))
    return step.emitError("input_ids must be a tensor whose static dimension "
                          "0 is the micro-batch, got ")
           << (*ids).getType();
  microBatch = idsType.getDimSize(0);

  MLIRContext *context = step.getContext();
  OpBuilder builder(step);
  for (int64_t s = 0; s < numStages(); ++s) {
    for (Phase phase : {Phase::Forward, Phase::Backward}) {
      std::string name =
          ("stage" + Twine(s) +
           (phase == Phase::Forward ? "_forward_mb" : "_backward_mb") +
           Twine(microBatch))
              .str();
      auto func = func::FuncOp::create(builder, step.getLoc(), name,
                                       FunctionType::get(context, {}, {}));
      func.addEntryBlock();
      func->setAttr(hetd::kStageAttr, builder.getI64IntegerAttr(s));
      func->setAttr(hetd::kPhaseAttr,
                    builder.getStringAttr(phase == Phase::Forward
                                              ? "forward"
                                              : "backward"));
      func->setAttr(hetd::kMicroBatchAttr, builder.getI64IntegerAttr(microBatch));
      functions.push_back({Place{s, phase}, func});
    }
  }
  boundaryIn.assign(numStages(), Value());
  boundaryGradIn.assign(numStages(), Value());
  return success();
}

DictionaryAttr roleAttr(MLIRContext *context, StringRef role) {
  return DictionaryAttr::get(
      context, {NamedAttribute(StringAttr::get(context, hetd::kRoleAttr),
                               StringAttr::get(context, role))});
}

FailureOr<Value> StagePartitioner::lookupOrImport(StageFunction &target,
                                                  Value value,
                                                  Operation *user) {
  if (Value mapped = target.mapping.lookupOrNull(value))
    return mapped;
  MLIRContext *context = step.getContext();
  Place to = target.place;

  // The step's inputs: an argument of whichever function reads them.
  if (auto arg = llvm::dyn_cast<BlockArgument>(value)) {
    DictionaryAttr attrs = step.getArgAttrDict(arg.getArgNumber());
    return target.addArgument(value, attrs ? attrs : DictionaryAttr::get(context));
  }

  Operation *producer = value.getDefiningOp();
  if (isRecomputable(producer)) {
    for (Value operand : producer->getOperands())
      if (failed(lookupOrImport(target, operand, user)))
        return failure();
    OpBuilder builder = OpBuilder::atBlockEnd(&target.body());
    Operation *clone = builder.clone(*producer, target.mapping);
    for (StringRef name : {hetg::kSegmentAttr, hetg::kGradSegmentAttr, hetg::kRecomputedAttr})
      clone->removeAttr(name);
    return target.mapping.lookup(value);
  }

  std::optional<Place> from = placeOf(producer);
  auto crossing = [&]() {
    InFlightDiagnostic diag = user->emitError("this op runs in ")
                              << describe(to) << " but reads a value of "
                              << (from ? describe(*from)
                                       : std::string("no stage"));
    diag.attachNote(producer->getLoc()) << "the value is produced here";
    diag.attachNote() << "only the activation crossing a stage boundary, its "
                         "gradient and a stage's own saved activations may "
                         "pass between stage functions";
    return diag;
  };
  if (!from)
    return crossing();

  // The activation leaving the previous stage enters this one.
  if (to.phase == Phase::Forward && from->phase == Phase::Forward &&
      from->stage == to.stage - 1) {
    if (boundaryIn[to.stage] && boundaryIn[to.stage] != value)
      return crossing() << "; stage " << to.stage
                        << " already receives another activation";
    boundaryIn[to.stage] = value;
    function(*from).addResult(value, roleAttr(context, "boundary"));
    return target.addArgument(value, roleAttr(context, "boundary"));
  }
  // A gradient that a stage passes back unchanged (the backward of an add
  // is its incoming gradient) is relayed through it: the stage after this
  // one receives it and sends it on.
  if (to.phase == Phase::Backward && from->phase == Phase::Backward &&
      from->stage > to.stage + 1) {
    Place relay{to.stage + 1, Phase::Backward};
    if (failed(lookupOrImport(function(relay), value, user)))
      return failure();
    from = relay;
  }
  // The gradient of the activation leaving this stage comes back.
  if (to.phase == Phase::Backward && from->phase == Phase::Backward &&
      from->stage == to.stage + 1) {
    if (boundaryGradIn[to.stage] && boundaryGradIn[to.stage] != value)
      return crossing() << "; stage " << to.stage
                        << " already receives another gradient";
    boundaryGradIn[to.stage] = value;
    function(*from).addResult(value, roleAttr(context, "boundary_grad"));
    return target.addArgument(value, roleAttr(context, "boundary_grad"));
  }
  // The backward reads what its own forward computed or received.
  if (to.phase == Phase::Backward) {
    StageFunction &forward = function({to.stage, Phase::Forward});
    bool received = from->phase == Phase::Forward &&
                    from->stage == to.stage - 1 &&
                    boundaryIn[to.stage] == value;
    if (*from == Place{to.stage, Phase::Forward} || received) {
      forward.addResult(value, roleAttr(context, "saved"));
      return target.addArgument(value, roleAttr(context, "saved"));
    }
  }
  return crossing();
}

LogicalResult StagePartitioner::cloneOps(StageFunction &target) {
  Block &block = step.getBody().front();
  for (Operation &op : block.without_terminator()) {
    std::optional<Place> place = placeOf(&op);
    // Recomputable ops are cloned where they are read instead.
    if (!place || !(*place == target.place) || isRecomputable(&op) ||
        crossStageSums.contains(&op))
      continue;
    for (Value operand : op.getOperands())
      if (failed(lookupOrImport(target, operand, &op)))
        return failure();
    OpBuilder builder = OpBuilder::atBlockEnd(&target.body());
    builder.clone(op, target.mapping);
  }
  return success();
}

/// The stage of the backward computing `value`, if a backward does.
static std::optional<int64_t> backwardStageOf(
    Value value, function_ref<std::optional<Place>(Operation *)> placeOf) {
  Operation *producer = value.getDefiningOp();
  std::optional<Place> place = producer ? placeOf(producer) : std::nullopt;
  if (!place || place->phase != Phase::Backward)
    return std::nullopt;
  return place->stage;
}

/// A parameter's gradient is a tree of adds over its contributions (one per
/// reading op); an add whose operands come from different stages' backwards
/// joins partial gradients, and so does every add above it.
void StagePartitioner::findCrossStageSums() {
  auto placeFn = [&](Operation *op) { return placeOf(op); };
  std::function<bool(Value)> spansStages = [&](Value value) -> bool {
    auto add = value.getDefiningOp<hetg::AddOp>();
    if (!add)
      return false;
    if (crossStageSums.contains(add))
      return true;
    bool crossing = spansStages(add.getLhs()) || spansStages(add.getRhs());
    std::optional<int64_t> lhs = backwardStageOf(add.getLhs(), placeFn);
    std::optional<int64_t> rhs = backwardStageOf(add.getRhs(), placeFn);
    crossing |= lhs && rhs && *lhs != *rhs;
    if (crossing)
      crossStageSums.insert(add);
    return crossing;
  };
  Operation *terminator = step.getBody().front().getTerminator();
  for (Value grad : terminator->getOperands().drop_front())
    spansStages(grad);
}

/// The partial gradients a parameter's gradient `grad` adds up, by stage.
void StagePartitioner::collectPartials(
    Value grad, DenseMap<int64_t, SmallVector<Value>> &partials) {
  if (auto add = grad.getDefiningOp<hetg::AddOp>();
      add && crossStageSums.contains(add)) {
    collectPartials(add.getLhs(), partials);
    collectPartials(add.getRhs(), partials);
    return;
  }
  std::optional<int64_t> stage =
      backwardStageOf(grad, [&](Operation *op) { return placeOf(op); });
  partials[stage.value_or(kNoStage)].push_back(grad);
}

/// The stage of the first forward op reading `global`; the last stage when
/// none does.
int64_t StagePartitioner::firstReader(FlatSymbolRefAttr global) {
  for (int64_t s = 0; s < numStages(); ++s) {
    WalkResult walk = function({s, Phase::Forward}).func.walk(
        [&](ml_program::GlobalLoadConstOp load) {
          return load.getGlobalAttr() == global ? WalkResult::interrupt()
                                                : WalkResult::advance();
        });
    if (walk.wasInterrupted())
      return s;
  }
  return numStages() - 1;
}

/// Each parameter gradient the step returns becomes a result of the
/// backward of every stage contributing to it: the stage's partial sum.
LogicalResult StagePartitioner::addParameterGradients() {
  Operation *terminator = step.getBody().front().getTerminator();
  MLIRContext *context = step.getContext();
  for (unsigned i = 1; i < terminator->getNumOperands(); ++i) {
    auto owner = step.getResultAttrOfType<FlatSymbolRefAttr>(i, hetg::kGradientOfAttr);
    if (!owner)
      return step.emitError("result #")
             << i << " is not a parameter gradient (hetg.gradient_of); run "
             << "hetg-autodiff before hetd-partition-stages";
    DenseMap<int64_t, SmallVector<Value>> partials;
    collectPartials(terminator->getOperand(i), partials);
    // A gradient no backward computes (zero) goes with a stage reading the
    // parameter.
    if (auto none = partials.find(kNoStage); none != partials.end()) {
      SmallVector<Value> values = std::move(none->second);
      partials.erase(none);
      llvm::append_range(partials[firstReader(owner)], values);
    }
    SmallVector<int64_t> stages;
    for (auto &entry : partials)
      stages.push_back(entry.first);
    llvm::sort(stages);
    for (int64_t stage : stages) {
      StageFunction &backward = function({stage, Phase::Backward});
      Value sum;
      for (Value partial : partials[stage]) {
        FailureOr<Value> mapped =
            lookupOrImport(backward, partial, terminator);
        if (failed(mapped))
          return failure();
        OpBuilder builder = OpBuilder::atBlockEnd(&backward.body());
        sum = sum ? Value(hetg::AddOp::create(builder, step.getLoc(), sum,
                                              *mapped))
                  : *mapped;
      }
      backward.results.push_back(sum);
      backward.resultAttrs.push_back(DictionaryAttr::get(
          context, {NamedAttribute(StringAttr::get(context, hetg::kGradientOfAttr),
                                   owner)}));
    }
  }
  return success();
}

void StagePartitioner::finish() {
  for (StageFunction &f : functions) {
    OpBuilder builder = OpBuilder::atBlockEnd(&f.body());
    func::ReturnOp::create(builder, step.getLoc(), f.results);
    f.func.setType(FunctionType::get(step.getContext(),
                                     f.body().getArgumentTypes(),
                                     ValueRange(f.results).getTypes()));
    f.func.setAllResultAttrs(f.resultAttrs);
  }
}

LogicalResult StagePartitioner::run() {
  Operation *terminator = step.getBody().front().getTerminator();
  if (terminator->getNumOperands() == 0)
    return step.emitError("hetd-partition-stages needs a step returning the "
                          "loss and the parameter gradients; run "
                          "hetg-autodiff first");
  if (failed(createFunctions()))
    return failure();
  MLIRContext *context = step.getContext();
  // The loss leaves the last stage's forward first; every stage's backward
  // is built after its forward and after the next stage's backward.
  Value loss = terminator->getOperand(0);
  for (int64_t s = 0; s < numStages(); ++s)
    if (failed(cloneOps(function({s, Phase::Forward}))))
      return failure();
  findCrossStageSums();
  StageFunction &last = function({numStages() - 1, Phase::Forward});
  std::optional<Place> lossPlace =
      loss.getDefiningOp() ? placeOf(loss.getDefiningOp()) : std::nullopt;
  if (!lossPlace || !(*lossPlace == last.place))
    return step.emitError("the loss is not computed in the last stage's "
                          "forward; does the last segment end the step?");
  // A loss of the parameters alone is recomputable, so not cloned yet.
  FailureOr<Value> lastLoss = lookupOrImport(last, loss, terminator);
  if (failed(lastLoss))
    return failure();
  last.results.insert(last.results.begin(), *lastLoss);
  last.resultAttrs.insert(last.resultAttrs.begin(),
                          DictionaryAttr::get(context,
                                              {NamedAttribute(
                                                  StringAttr::get(context,
                                                                  hetg::kNameAttr),
                                                  StringAttr::get(context,
                                                                  "loss"))}));
  for (int64_t s = numStages() - 1; s >= 0; --s)
    if (failed(cloneOps(function({s, Phase::Backward}))))
      return failure();
  if (failed(addParameterGradients()))
    return failure();
  finish();
  return success();
}

struct HetdPartitionStagesPass
    : hetc::impl::HetdPartitionStagesBase<HetdPartitionStagesPass> {
  using HetdPartitionStagesBase::HetdPartitionStagesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> steps;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && !func->hasAttr(hetd::kStageAttr))
        steps.push_back(func);
    if (steps.size() != 1) {
      module.emitError("hetd-partition-stages needs one training-step "
                       "function, found ")
          << steps.size();
      return signalPassFailure();
    }
    SmallVector<int64_t> starts(stageStarts.begin(), stageStarts.end());
    for (auto [i, start] : llvm::enumerate(starts))
      if (start <= 0 || (i > 0 && starts[i - 1] >= start)) {
        module.emitError("stage-starts must be increasing segment numbers "
                         "> 0");
        return signalPassFailure();
      }
    if (auto segments = steps[0]->getAttrOfType<ArrayAttr>("hetg.segments");
        !segments || (!starts.empty() &&
                      starts.back() >= static_cast<int64_t>(segments.size()))) {
      steps[0].emitError("hetd-partition-stages needs a step segmented by "
                         "hetg-segment with more segments than the last "
                         "stage start");
      return signalPassFailure();
    }
    if (failed(StagePartitioner(steps[0], starts).run()))
      return signalPassFailure();
    steps[0].erase();
  }
};

} // namespace
