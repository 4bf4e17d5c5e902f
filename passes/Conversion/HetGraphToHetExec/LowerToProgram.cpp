//===- LowerToProgram.cpp - hetx-lower-to-program -------------------------===//
//
// Turns a module holding one single-rank function (a train step, or any
// func.func of hetg ops over ml_program globals) into one hetx.program:
// every value gets a buffer, every hetg op a launch, and the memory planner
// places the buffers. Arguments named input_ids/labels are the data
// loader's TOKENS/LABELS inputs, the others FEED inputs the caller writes;
// a train step returns its loss, another function output buffers.
//
// The lowering is generic: a launch's kernel is the op's name without
// `hetg.`, its params the op's inherent attributes. Only three ops are
// special: `hetg.reshape` (an alias, no launch), `hetg.constant` (a constant
// buffer) and the ml_program global accesses (the global's own buffer).
//
//===----------------------------------------------------------------------===//

#include "compiler/Lower/MemoryPlanner.h"
#include "dialects/HetExec/HetExec.h"
#include "dialects/HetGraph/HetGraph.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <limits>
#include <optional>

namespace hetc {
#define GEN_PASS_DEF_HETXLOWERTOPROGRAM
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using hetx::BufferKind;
using hetx::InputRole;

namespace {

constexpr llvm::StringLiteral kNameAttr = "hetg.name";
// hetg-optimizer marks the globals holding optimizer state with this.
constexpr llvm::StringLiteral kStateOfAttr = "hetg.state_of";

struct BufferInfo {
  std::string name;
  MemRefType type;
  BufferKind kind;
  std::optional<InputRole> role;
  int aliasOf = -1; // the buffer owning the bytes, for reshapes
  ElementsAttr init;
  Location loc;
  int64_t firstUse = std::numeric_limits<int64_t>::max();
  int64_t lastUse = -1;
};

struct LaunchInfo {
  std::string kernel;
  SmallVector<int> inputs, outputs;
  DictionaryAttr params;
  Location loc;
};

/// Whether the kernel of `op` may write result `result` over the buffer of
/// operand `operand` while reading it: elementwise kernels (broadcasting ones
/// for an operand of the result's shape) and the optimizer updates (param,
/// exp_avg, exp_avg_sq) read each element before writing it. The runtime's
/// kernels honor this contract (docs/package-format.md).
bool canWriteOver(Operation *op, unsigned operand, unsigned result) {
  if (op->getOperand(operand).getType() != op->getResult(result).getType())
    return false;
  if (op->hasTrait<OpTrait::Elementwise>() ||
      llvm::isa<hetg::AddOp, hetg::SubOp, hetg::MulOp, hetg::DivOp,
                hetg::PowOp, hetg::MinimumOp, hetg::MaximumOp, hetg::WhereOp>(op))
    return true;
  if (llvm::isa<hetg::SgdOp>(op))
    return operand == 0 && result == 0;
  if (llvm::isa<hetg::AdamWOp>(op))
    return (operand == 0 && result == 0) || (operand == 2 && result == 1) ||
           (operand == 3 && result == 2);
  return false;
}

bool isZeroSplat(ElementsAttr value) {
  auto dense = llvm::dyn_cast<DenseElementsAttr>(value);
  if (!dense || !dense.isSplat())
    return false;
  Type element = dense.getElementType();
  if (llvm::isa<FloatType>(element))
    return dense.getSplatValue<APFloat>().isZero();
  if (llvm::isa<IntegerType>(element))
    return dense.getSplatValue<APInt>().isZero();
  return false;
}

bool isBufferElementType(Type type) {
  if (type.isF16() || type.isBF16() || type.isF32() || type.isF64())
    return true;
  if (auto integer = llvm::dyn_cast<IntegerType>(type)) {
    unsigned width = integer.getWidth();
    if (integer.isUnsigned())
      return width == 8;
    return integer.isSignless() &&
           (width == 1 || width == 8 || width == 32 || width == 64);
  }
  return false;
}

class ProgramLowering {
public:
  ProgramLowering(ModuleOp module) : module(module) {}

  LogicalResult run();

private:
  LogicalResult findStep();
  LogicalResult addGlobals();
  LogicalResult addArguments();
  LogicalResult analyzeGlobalAccesses();
  LogicalResult lowerBody();
  LogicalResult lowerOp(Operation *op);
  void computeLiveness();
  void buildProgram();

  FailureOr<MemRefType> bufferType(Type type, Location loc, Twine what);
  int addBuffer(BufferInfo info);
  int rootOf(int buffer) const {
    return buffers[buffer].aliasOf >= 0 ? buffers[buffer].aliasOf : buffer;
  }
  int bufferOf(Value value) const { return buffers_.lookup(value); }
  void addCopy(int from, int to, Location loc) {
    launches.push_back({"copy", {from}, {to}, DictionaryAttr(), loc});
  }
  DictionaryAttr paramsOf(Operation *op);
  void collectReaders(Value value, SmallVectorImpl<OpOperand *> &readers);

  ModuleOp module;
  func::FuncOp step;
  Block *body = nullptr;
  std::vector<BufferInfo> buffers;
  std::vector<LaunchInfo> launches;
  DenseMap<Value, int> buffers_;
  llvm::StringMap<int> globalBuffers;
  DenseMap<Operation *, int64_t> position;
  // Global accesses: loads that copy the global's value at the load
  // (its old value is read after the global is stored), and stores whose
  // value the producing launch writes straight into the global.
  DenseSet<Operation *> snapshotLoads;
  DenseSet<Operation *> inPlaceStores;
  // value -> the buffer of the global it is written into. (Buffer ids, not
  // global names: the names' storage is local to analyzeGlobalAccesses.)
  DenseMap<Value, int> inPlaceResults;
  int tokens = -1, labels = -1, loss = -1;
  SmallVector<int> outputs; // the returned buffers other than the loss
  int numConstants = 0;
};

FailureOr<MemRefType> ProgramLowering::bufferType(Type type, Location loc,
                                                  Twine what) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return emitError(loc) << what << " has type " << type
                          << "; a program needs static ranked tensors "
                             "(run hetg-simplify with the batch and sequence "
                             "length first)";
  if (!isBufferElementType(tensor.getElementType()))
    return emitError(loc) << what << " has element type "
                          << tensor.getElementType()
                          << ", which no package dtype holds";
  return MemRefType::get(tensor.getShape(), tensor.getElementType());
}

int ProgramLowering::addBuffer(BufferInfo info) {
  buffers.push_back(std::move(info));
  return static_cast<int>(buffers.size()) - 1;
}

LogicalResult ProgramLowering::findStep() {
  for (Operation &op : module.getBody()->getOperations()) {
    if (auto func = llvm::dyn_cast<func::FuncOp>(op)) {
      if (func.isExternal())
        return func.emitOpError("is only a declaration; a program lowers "
                                "one function with a body");
      if (step) {
        InFlightDiagnostic diag = func.emitOpError(
            "is a second function; hetx-lower-to-program lowers a module "
            "holding one train-step function");
        diag.attachNote(step.getLoc()) << "the first function is here";
        return diag;
      }
      step = func;
      continue;
    }
    if (!llvm::isa<ml_program::GlobalOp>(op))
      return op.emitOpError("cannot be lowered into a hetx program; the "
                            "module may hold only ml_program globals and "
                            "one func.func");
  }
  if (!step)
    return module.emitError("the module has no function to lower");
  if (!step.getBody().hasOneBlock())
    return step.emitOpError("must have a single block to lower into a "
                            "straight-line program");
  body = &step.getBody().front();
  int64_t index = 0;
  for (Operation &op : *body)
    position[&op] = index++;
  return success();
}

LogicalResult ProgramLowering::addGlobals() {
  for (auto global : module.getOps<ml_program::GlobalOp>()) {
    std::string what = ("global @" + global.getSymName()).str();
    FailureOr<MemRefType> type =
        bufferType(global.getType(), global.getLoc(), what);
    if (failed(type))
      return failure();
    std::optional<Attribute> valueAttr = global.getValue();
    ElementsAttr init =
        valueAttr ? llvm::dyn_cast<ElementsAttr>(*valueAttr) : ElementsAttr();
    if (valueAttr && !init)
      return global.emitOpError("has an initial value that is not a tensor "
                                "of elements");
    bool isFloat = llvm::isa<FloatType>(type->getElementType());
    BufferKind kind;
    if (!global.getIsMutable()) {
      if (!init)
        return global.emitOpError("is immutable but has no value");
      kind = isFloat ? BufferKind::parameter : BufferKind::constant;
    } else if (!init || isZeroSplat(init) ||
               global->hasAttr(kStateOfAttr)) {
      // Optimizer state starts at zero and is not in the weights file.
      if (init && !isZeroSplat(init))
        return global.emitOpError("is optimizer state (hetg.state_of) but "
                                  "does not start at zero");
      kind = BufferKind::optimizer_state;
      init = ElementsAttr();
    } else if (isFloat && !llvm::isa<SplatElementsAttr>(init)) {
      kind = BufferKind::parameter;
    } else {
      return global.emitOpError(
                 "is mutable and starts at a non-zero splat or integer "
                 "value; trained parameters are float tensors with data "
                 "and optimizer state starts at zero");
    }
    globalBuffers[global.getSymName()] = addBuffer(
        {global.getSymName().str(), *type, kind, std::nullopt, -1, init,
         global.getLoc()});
  }
  return success();
}

LogicalResult ProgramLowering::addArguments() {
  for (BlockArgument arg : body->getArguments()) {
    Location loc = arg.getLoc();
    auto name =
        step.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kNameAttr);
    std::string what = "argument " + std::to_string(arg.getArgNumber());
    if (name)
      what += " ('" + name.str() + "')";
    InputRole role = InputRole::feed;
    if (name && name.getValue() == "input_ids")
      role = InputRole::tokens;
    else if (name && name.getValue() == "labels")
      role = InputRole::labels;
    FailureOr<MemRefType> type = bufferType(arg.getType(), loc, what);
    if (failed(type))
      return failure();
    if (role == InputRole::feed) {
      // Written by the caller before the step, under the argument's name.
      std::string feedName =
          name ? name.str() : "arg" + std::to_string(arg.getArgNumber());
      buffers_[arg] = addBuffer({feedName, *type, BufferKind::input, role, -1,
                                 ElementsAttr(), loc});
      continue;
    }
    if (!llvm::isa<IntegerType>(type->getElementType()) ||
        type->getElementType().isInteger(1) || type->getRank() != 2)
      return step.emitOpError()
             << what << " must be a [samples, tokens] tensor of integers, "
             << "got " << arg.getType();
    int &slot = role == InputRole::tokens ? tokens : labels;
    if (slot >= 0)
      return step.emitOpError() << what << " repeats the input '"
                                << name.getValue() << "'";
    slot = addBuffer({name.str(), *type, BufferKind::input, role, -1,
                      ElementsAttr(), loc});
    buffers_[arg] = slot;
  }
  if (labels >= 0 && tokens < 0)
    return step.emitOpError("has labels but no argument named input_ids "
                            "(hetg.name); a train step reads its tokens "
                            "from one");
  return success();
}

void ProgramLowering::collectReaders(Value value,
                                     SmallVectorImpl<OpOperand *> &readers) {
  for (OpOperand &use : value.getUses()) {
    if (auto reshape = llvm::dyn_cast<hetg::ReshapeOp>(use.getOwner()))
      collectReaders(reshape.getResult(), readers);
    else
      readers.push_back(&use);
  }
}

LogicalResult ProgramLowering::analyzeGlobalAccesses() {
  llvm::StringMap<SmallVector<Operation *>> loads;
  llvm::StringMap<ml_program::GlobalStoreOp> stores;
  DenseMap<Value, int> storedTimes;
  for (Operation &op : *body) {
    if (auto load = llvm::dyn_cast<ml_program::GlobalLoadOp>(op))
      loads[load.getGlobal().getLeafReference()].push_back(&op);
    else if (auto load = llvm::dyn_cast<ml_program::GlobalLoadConstOp>(op))
      loads[load.getGlobal().getLeafReference()].push_back(&op);
    else if (auto store = llvm::dyn_cast<ml_program::GlobalStoreOp>(op)) {
      StringRef name = store.getGlobal().getLeafReference();
      auto [it, inserted] = stores.try_emplace(name, store);
      if (!inserted) {
        InFlightDiagnostic diag =
            store.emitOpError("stores @")
            << name << " a second time in one step; a program updates each "
            << "global once";
        diag.attachNote(it->second.getLoc()) << "the first store is here";
        return diag;
      }
      ++storedTimes[store.getValue()];
    }
  }

  for (auto &[name, store] : stores) {
    int64_t storeAt = position[store];
    // A load whose value is still read after the store keeps a copy.
    for (Operation *load : loads.lookup(name)) {
      if (position[load] > storeAt)
        continue;
      SmallVector<OpOperand *> readers;
      collectReaders(load->getResult(0), readers);
      for (OpOperand *reader : readers)
        if (position[reader->getOwner()] > storeAt &&
            reader->getOwner() != store.getOperation()) {
          snapshotLoads.insert(load);
          break;
        }
    }

    // The producer may write the global directly when nothing reads the
    // global's old value after it (or only the producer itself, where its
    // kernel updates in place).
    Value value = store.getValue();
    auto result = llvm::dyn_cast<OpResult>(value);
    Operation *producer = result ? result.getOwner() : nullptr;
    if (!producer || producer->getBlock() != body ||
        !llvm::isa<hetg::HetGraphDialect>(producer->getDialect()) ||
        llvm::isa<hetg::ReshapeOp, hetg::ConstantOp>(producer) ||
        storedTimes[value] != 1)
      continue;
    int64_t producedAt = position[producer];
    bool safe = true;
    for (Operation *load : loads.lookup(name)) {
      if (position[load] > storeAt)
        continue;
      if (snapshotLoads.contains(load)) {
        safe &= position[load] < producedAt;
        continue;
      }
      SmallVector<OpOperand *> readers;
      collectReaders(load->getResult(0), readers);
      for (OpOperand *reader : readers) {
        Operation *owner = reader->getOwner();
        if (owner == store.getOperation() || position[owner] < producedAt)
          continue;
        safe &= owner == producer && reader->get() == load->getResult(0) &&
                canWriteOver(producer, reader->getOperandNumber(),
                             result.getResultNumber());
      }
    }
    if (safe) {
      inPlaceStores.insert(store);
      inPlaceResults[value] = globalBuffers.lookup(name);
    }
  }
  return success();
}

DictionaryAttr ProgramLowering::paramsOf(Operation *op) {
  NamedAttrList params;
  for (StringAttr name : op->getName().getAttributeNames()) {
    // operandSegmentSizes stays: it tells the runtime which optional
    // operands are present when an op has several.
    if (name == "resultSegmentSizes")
      continue;
    if (std::optional<Attribute> value = op->getInherentAttr(name.getValue()))
      if (*value)
        params.append(name, *value);
  }
  return params.getDictionary(op->getContext());
}

LogicalResult ProgramLowering::lowerOp(Operation *op) {
  Location loc = op->getLoc();
  if (auto load = llvm::dyn_cast<ml_program::GlobalLoadOp>(op)) {
    int global = globalBuffers.lookup(load.getGlobal().getLeafReference());
    if (!snapshotLoads.contains(op)) {
      buffers_[load.getResult()] = global;
      return success();
    }
    int copy = addBuffer({(load.getGlobal().getLeafReference().getValue() + ".old").str(),
                          buffers[global].type, BufferKind::activation,
                          std::nullopt, -1, ElementsAttr(), loc});
    addCopy(global, copy, loc);
    buffers_[load.getResult()] = copy;
    return success();
  }
  if (auto load = llvm::dyn_cast<ml_program::GlobalLoadConstOp>(op)) {
    buffers_[load.getResult()] =
        globalBuffers.lookup(load.getGlobal().getLeafReference());
    return success();
  }
  if (auto store = llvm::dyn_cast<ml_program::GlobalStoreOp>(op)) {
    int global = globalBuffers.lookup(store.getGlobal().getLeafReference());
    int value = bufferOf(store.getValue());
    if (!inPlaceStores.contains(op) && rootOf(value) != global)
      addCopy(value, global, loc);
    return success();
  }
  if (auto ret = llvm::dyn_cast<func::ReturnOp>(op)) {
    // A train step (it reads input_ids) returns its loss; another function
    // returns one loss when its single 0-D f32 result is named loss, and
    // output buffers otherwise.
    if (tokens < 0) {
      auto resultName = ret.getNumOperands() == 1
                            ? step.getResultAttrOfType<StringAttr>(0, kNameAttr)
                            : StringAttr();
      auto type = ret.getNumOperands() == 1
                      ? llvm::dyn_cast<RankedTensorType>(
                            ret.getOperand(0).getType())
                      : RankedTensorType();
      if (resultName && resultName.getValue() == "loss" && type &&
          type.getRank() == 0 && type.getElementType().isF32()) {
        loss = bufferOf(ret.getOperand(0));
        return success();
      }
      for (Value result : ret.getOperands())
        outputs.push_back(bufferOf(result));
      return success();
    }
    if (ret.getNumOperands() != 1)
      return ret.emitOpError("returns ")
             << ret.getNumOperands()
             << " values; a train step returns only its scalar loss";
    auto type = llvm::dyn_cast<RankedTensorType>(ret.getOperand(0).getType());
    if (!type || type.getRank() != 0 || !type.getElementType().isF32())
      return ret.emitOpError("returns ")
             << ret.getOperand(0).getType()
             << "; a train step returns its loss as tensor<f32>";
    loss = bufferOf(ret.getOperand(0));
    return success();
  }
  if (!llvm::isa_and_nonnull<hetg::HetGraphDialect>(op->getDialect()))
    return op->emitOpError("cannot be lowered into a hetx program; only hetg "
                           "ops, ml_program global accesses and func.return "
                           "can");
  if (op->getNumRegions() != 0)
    return op->emitOpError("has regions, which a kernel launch cannot hold");

  if (auto reshape = llvm::dyn_cast<hetg::ReshapeOp>(op)) {
    FailureOr<MemRefType> type =
        bufferType(reshape.getType(), loc, "the result");
    if (failed(type))
      return failure();
    int root = rootOf(bufferOf(reshape.getInput()));
    BufferInfo alias = buffers[root];
    alias.name = "reshape." + std::to_string(buffers.size());
    alias.type = *type;
    alias.aliasOf = root;
    alias.init = ElementsAttr();
    alias.loc = loc;
    buffers_[reshape.getResult()] = addBuffer(std::move(alias));
    return success();
  }
  if (auto constant = llvm::dyn_cast<hetg::ConstantOp>(op)) {
    FailureOr<MemRefType> type =
        bufferType(constant.getType(), loc, "the constant");
    if (failed(type))
      return failure();
    buffers_[constant.getResult()] =
        addBuffer({"constant." + std::to_string(numConstants++), *type,
                   BufferKind::constant, std::nullopt, -1,
                   constant.getValue(), loc});
    return success();
  }

  StringRef kernel = op->getName().stripDialect();
  LaunchInfo launch{kernel.str(), {}, {}, paramsOf(op), loc};
  for (Value operand : op->getOperands())
    launch.inputs.push_back(bufferOf(operand));
  for (OpResult result : op->getResults()) {
    auto target = inPlaceResults.find(result);
    if (target != inPlaceResults.end()) {
      int global = target->second;
      launch.outputs.push_back(global);
      buffers_[result] = global;
      continue;
    }
    std::string what = "result " + std::to_string(result.getResultNumber());
    FailureOr<MemRefType> type = bufferType(result.getType(), loc, what);
    if (failed(type))
      return failure();
    std::string name = kernel.str() + "." + std::to_string(launches.size());
    if (op->getNumResults() > 1)
      name += "." + std::to_string(result.getResultNumber());
    int buffer = addBuffer({name, *type, BufferKind::activation, std::nullopt,
                            -1, ElementsAttr(), loc});
    launch.outputs.push_back(buffer);
    buffers_[result] = buffer;
  }
  launches.push_back(std::move(launch));
  return success();
}

LogicalResult ProgramLowering::lowerBody() {
  for (Operation &op : *body)
    if (failed(lowerOp(&op)))
      return failure();
  return success();
}

void ProgramLowering::computeLiveness() {
  auto touch = [&](int buffer, int64_t at) {
    BufferInfo &root = buffers[rootOf(buffer)];
    root.firstUse = std::min(root.firstUse, at);
    root.lastUse = std::max(root.lastUse, at);
  };
  for (auto [index, launch] : llvm::enumerate(launches)) {
    for (int buffer : launch.inputs)
      touch(buffer, index);
    for (int buffer : launch.outputs)
      touch(buffer, index);
  }
  // The runtime reads the loss and the outputs after the last launch.
  if (loss >= 0)
    touch(loss, static_cast<int64_t>(launches.size()));
  for (int output : outputs)
    touch(output, static_cast<int64_t>(launches.size()));
}

void ProgramLowering::buildProgram() {
  std::vector<lower::BufferRequest> requests;
  std::vector<int> requestOf(buffers.size(), -1);
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    if (buffer.aliasOf >= 0)
      continue;
    int64_t bytes = buffer.type.getNumElements() *
                    hetx::elementByteSize(buffer.type.getElementType());
    requestOf[index] = static_cast<int>(requests.size());
    if (buffer.kind != BufferKind::activation)
      requests.push_back(lower::BufferRequest::persistentBuffer(bytes));
    else
      requests.push_back(lower::BufferRequest::activation(
          bytes, std::min(buffer.firstUse, buffer.lastUse), buffer.lastUse));
  }
  lower::MemoryPlan plan = lower::planMemory(requests);

  MLIRContext *context = module.getContext();
  OpBuilder builder(context);
  builder.setInsertionPointToEnd(module.getBody());
  // A program without token inputs processes one sample of its feeds.
  int64_t samples = tokens >= 0 ? buffers[tokens].type.getDimSize(0) : 1;
  auto program = hetx::ProgramOp::create(
      builder, step.getLoc(), builder.getStringAttr("rank0"),
      builder.getI32IntegerAttr(0), builder.getI64IntegerAttr(plan.arenaBytes),
      builder.getI64IntegerAttr(0), builder.getI64IntegerAttr(samples));
  builder.setInsertionPointToStart(&program.getBody().emplaceBlock());

  SmallVector<Value> values;
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    int owner = rootOf(index);
    int64_t offset = plan.offsets[requestOf[owner]];
    hetx::InputRoleAttr role =
        buffer.role ? hetx::InputRoleAttr::get(context, *buffer.role)
                    : hetx::InputRoleAttr();
    auto op = hetx::BufferOp::create(
        builder, buffer.loc, buffer.type,
        builder.getI32IntegerAttr(static_cast<int32_t>(index)),
        builder.getStringAttr(buffer.name),
        hetx::BufferKindAttr::get(context, buffer.kind), role,
        builder.getI64IntegerAttr(offset),
        buffer.aliasOf >= 0 ? values[buffer.aliasOf] : Value(), buffer.init);
    values.push_back(op.getResult());
  }
  for (const LaunchInfo &launch : launches) {
    SmallVector<Value> inputs, outputs;
    for (int buffer : launch.inputs)
      inputs.push_back(values[buffer]);
    for (int buffer : launch.outputs)
      outputs.push_back(values[buffer]);
    hetx::LaunchOp::create(
        builder, launch.loc, builder.getStringAttr(launch.kernel), inputs,
        outputs,
        launch.params && !launch.params.empty() ? launch.params
                                                : DictionaryAttr());
  }
  SmallVector<Value> outputValues;
  for (int output : outputs)
    outputValues.push_back(values[output]);
  hetx::ReturnOp::create(builder, step.getLoc(),
                         loss >= 0 ? values[loss] : Value(), outputValues);
}

LogicalResult ProgramLowering::run() {
  if (failed(findStep()) || failed(addGlobals()) || failed(addArguments()) ||
      failed(analyzeGlobalAccesses()) || failed(lowerBody()))
    return failure();
  if (loss < 0 && tokens >= 0)
    return step.emitOpError("does not return a loss");
  computeLiveness();
  buildProgram();
  // The program replaces the function and the globals it read.
  for (Operation &op :
       llvm::make_early_inc_range(module.getBody()->getOperations()))
    if (!llvm::isa<hetx::ProgramOp>(op))
      op.erase();
  return success();
}

struct HetxLowerToProgram
    : hetc::impl::HetxLowerToProgramBase<HetxLowerToProgram> {
  void runOnOperation() override {
    if (failed(ProgramLowering(getOperation()).run()))
      signalPassFailure();
  }
};

} // namespace
