//===- FunctionLowering.cpp - one function to one hetx.program ------------===//
//
// A launch's kernel is the op's name without its dialect, its params the
// op's inherent attributes. The special cases: views (hetg.reshape and
// contiguous hetg.slice: alias buffers, no launch), hetg.constant (a
// constant buffer), global accesses (the global's own buffer), hetd.send
// (params peer and tag only; some rows are a view), hetd.all_reduce (the
// kernel sums in place) and hetd.to_host / hetd.to_device (a copy between
// the device's and the host's buffers).
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/HetGraphToHetExec/FunctionLowering.h"

#include "passes/Conversion/HetGraphToHetExec/Views.h"

#include "dialects/HetDist/HetDist.h"
#include "dialects/HetGraph/Cost.h"
#include "dialects/HetGraph/HetGraph.h"

#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace hetc;
using hetx::BufferKind;
using hetx::InputRole;

namespace {


/// The global that `op` loads or stores, if it is a global access.
std::optional<StringRef> accessedGlobal(Operation &op) {
  if (auto load = llvm::dyn_cast<ml_program::GlobalLoadOp>(op))
    return load.getGlobal().getLeafReference().getValue();
  if (auto load = llvm::dyn_cast<ml_program::GlobalLoadConstOp>(op))
    return load.getGlobal().getLeafReference().getValue();
  if (auto store = llvm::dyn_cast<ml_program::GlobalStoreOp>(op))
    return store.getGlobal().getLeafReference().getValue();
  return std::nullopt;
}

/// The segment and pass of an op that hetg-segment, hetg-autodiff or
/// hetg-recompute marked.
std::optional<std::pair<int64_t, hetx::LaunchPhase>>
segmentOf(Operation *op) {
  std::pair<StringRef, hetx::LaunchPhase> marks[] = {
      {hetg::kSegmentAttr, hetx::LaunchPhase::forward},
      {hetg::kGradSegmentAttr, hetx::LaunchPhase::backward},
      {hetg::kRecomputedAttr, hetx::LaunchPhase::recompute}};
  for (auto [name, phase] : marks)
    if (auto segment = op->getAttrOfType<IntegerAttr>(name))
      return std::make_pair(segment.getInt(), phase);
  return std::nullopt;
}

DictionaryAttr paramsOf(Operation *op) {
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

/// Whether the first result of `ret` is a 0-D f32 its function names loss.
bool returnsNamedLoss(func::FuncOp func, func::ReturnOp ret) {
  if (ret.getNumOperands() == 0)
    return false;
  auto name = func.getResultAttrOfType<StringAttr>(0, hetg::kNameAttr);
  auto type = llvm::dyn_cast<RankedTensorType>(ret.getOperand(0).getType());
  return name && name.getValue() == "loss" && type && type.getRank() == 0 &&
         type.getElementType().isF32();
}

} // namespace

void FunctionLowering::addGlobals() {
  // A rank holds only its stage's parameters and state: the globals its
  // function reads or writes; so does an evaluation.
  llvm::StringSet<> referenced;
  for (Operation &op : *body)
    if (std::optional<StringRef> global = accessedGlobal(op))
      referenced.insert(*global);
  for (const GlobalBuffer &global : globals) {
    if ((isRankFunction() || trainProgram) && !referenced.contains(global.name))
      continue;
    BufferInfo buffer{global.name, global.type, global.kind, std::nullopt,
                      global.init, global.loc};
    buffer.wholeShape = global.wholeShape;
    buffer.onHost = global.onHost;
    globalBuffers[global.name] = draft.addBuffer(std::move(buffer));
  }
}

LogicalResult FunctionLowering::addArguments() {
  for (BlockArgument arg : body->getArguments()) {
    unsigned index = arg.getArgNumber();
    Location loc = arg.getLoc();
    auto name = func.getArgAttrOfType<StringAttr>(index, hetg::kNameAttr);
    std::string what = "argument " + std::to_string(index);
    if (name)
      what += " ('" + name.str() + "')";
    InputRole role = InputRole::feed;
    if (func.getArgAttr(index, hetg::kStepIndexAttr))
      role = InputRole::step;
    else if (name && name.getValue() == "input_ids")
      role = InputRole::tokens;
    else if (name && name.getValue() == "labels")
      role = InputRole::labels;
    FailureOr<MemRefType> type = bufferTypeOf(arg.getType(), loc, what);
    if (failed(type))
      return failure();
    if (role == InputRole::step) {
      // Written by the runtime before each step: its index.
      if (type->getRank() != 0 || !type->getElementType().isInteger(64))
        return func.emitOpError()
               << what << " is the step index, a tensor<i64>; got "
               << arg.getType();
      buffers[arg] = draft.addBuffer(
          {"step", *type, BufferKind::input, role, ElementsAttr(), loc});
      continue;
    }
    if (role == InputRole::feed) {
      // Written by the caller before the step, under the argument's name.
      std::string feedName = name ? name.str() : "arg" + std::to_string(index);
      buffers[arg] = draft.addBuffer(
          {feedName, *type, BufferKind::input, role, ElementsAttr(), loc});
      continue;
    }
    if (!llvm::isa<IntegerType>(type->getElementType()) ||
        type->getElementType().isInteger(1) || type->getRank() != 2)
      return func.emitOpError()
             << what << " must be a [samples, tokens] tensor of integers, "
             << "got " << arg.getType();
    SmallVector<int> &inputs = role == InputRole::tokens ? tokens : labels;
    std::optional<int64_t> firstSample;
    if (isRankFunction()) {
      // One pair per micro-batch, each at its place in the rank's samples.
      auto attr =
          func.getArgAttrOfType<IntegerAttr>(index, hetd::kFirstSampleAttr);
      firstSample = attr ? attr.getInt() : 0;
      int64_t end = *firstSample + type->getDimSize(0);
      int64_t rankEnd =
          rankPlacement->firstSample + rankPlacement->numSamples;
      if (*firstSample < rankPlacement->firstSample || end > rankEnd)
        return func.emitOpError()
               << what << " holds samples [" << *firstSample << ", " << end
               << ") (" << hetd::kFirstSampleAttr
               << "), outside the rank's samples ["
               << rankPlacement->firstSample << ", " << rankEnd << ") ("
               << hetd::kSamplesAttr << ")";
    } else if (!inputs.empty()) {
      return func.emitOpError() << what << " repeats the input '"
                                << name.getValue() << "'";
    }
    int buffer = draft.addBuffer({name.str(), *type, BufferKind::input, role,
                                  ElementsAttr(), loc, firstSample});
    inputs.push_back(buffer);
    buffers[arg] = buffer;
  }
  if (!isRankFunction() && !labels.empty() && tokens.empty())
    return func.emitOpError("has labels but no argument named input_ids "
                            "(hetg.name); a train step reads its tokens "
                            "from one");
  return success();
}

LogicalResult FunctionLowering::lowerGlobalAccess(Operation *op) {
  Location loc = op->getLoc();
  if (auto load = llvm::dyn_cast<ml_program::GlobalLoadOp>(op)) {
    StringRef name = load.getGlobal().getLeafReference();
    int global = globalBuffers.lookup(name);
    if (!accesses.snapshotLoads.contains(op)) {
      buffers[load.getResult()] = global;
      return success();
    }
    BufferInfo old{(name + ".old").str(),  draft.buffer(global).type,
                   BufferKind::activation, std::nullopt,
                   ElementsAttr(),         loc};
    old.onHost = draft.buffer(global).onHost;
    int copy = draft.addBuffer(std::move(old));
    draft.addCopy(global, copy, loc);
    buffers[load.getResult()] = copy;
    return success();
  }
  if (auto load = llvm::dyn_cast<ml_program::GlobalLoadConstOp>(op)) {
    buffers[load.getResult()] =
        globalBuffers.lookup(load.getGlobal().getLeafReference());
    return success();
  }
  auto store = llvm::cast<ml_program::GlobalStoreOp>(op);
  int global = globalBuffers.lookup(store.getGlobal().getLeafReference());
  int value = bufferOf(store.getValue());
  if (!accesses.inPlaceStores.contains(op) && draft.rootOf(value) != global)
    draft.addCopy(value, global, loc);
  return success();
}

LogicalResult FunctionLowering::lowerReturn(func::ReturnOp ret) {
  bool namedLoss = returnsNamedLoss(func, ret);
  if (isRankFunction()) {
    // A rank of a stage without the loss returns nothing.
    if (!(namedLoss && ret.getNumOperands() == 1) && ret.getNumOperands() != 0)
      return ret.emitOpError("returns ")
             << ret.getOperandTypes()
             << "; a rank function returns its loss (one tensor<f32> "
                "result named loss) or nothing";
    draft.setResults(namedLoss ? bufferOf(ret.getOperand(0)) : -1, {});
    return success();
  }
  // A step (it reads input_ids) returns its loss, then the outputs of a
  // forward-only step; another function returns a loss first only when
  // that result is a 0-D f32 named loss.
  if (!tokens.empty()) {
    auto type = ret.getNumOperands() ? llvm::dyn_cast<RankedTensorType>(
                                           ret.getOperand(0).getType())
                                     : RankedTensorType();
    if (!type || type.getRank() != 0 || !type.getElementType().isF32())
      return ret.emitOpError("returns ")
             << ret.getOperandTypes()
             << "; a step returns its loss (tensor<f32>) first";
    namedLoss = true;
  }
  SmallVector<int> outputs;
  for (unsigned i = namedLoss ? 1 : 0; i < ret.getNumOperands(); ++i) {
    outputs.push_back(bufferOf(ret.getOperand(i)));
    // The runtime saves outputs by buffer name: the result's, where the
    // buffer is the function's own.
    if (auto name = func.getResultAttrOfType<StringAttr>(i, hetg::kNameAttr))
      draft.nameActivation(outputs.back(), name.getValue().str());
  }
  draft.setResults(namedLoss ? bufferOf(ret.getOperand(0)) : -1,
                   std::move(outputs));
  return success();
}

LogicalResult FunctionLowering::lowerView(Operation *op, int64_t byteOffset) {
  Value result = op->getResult(0);
  FailureOr<MemRefType> type =
      bufferTypeOf(result.getType(), op->getLoc(), "the result");
  if (failed(type))
    return failure();
  std::string name = op->getName().stripDialect().str() + "." +
                     std::to_string(draft.numBuffers());
  buffers[result] = draft.addView(bufferOf(op->getOperand(0)), *type,
                                  byteOffset, std::move(name), op->getLoc());
  return success();
}

LogicalResult FunctionLowering::lowerConstant(Operation *op) {
  auto constant = llvm::cast<hetg::ConstantOp>(op);
  ElementsAttr value = constant.getValue();
  auto [known, inserted] = constantBuffers.try_emplace(value, -1);
  if (inserted) {
    FailureOr<MemRefType> type =
        bufferTypeOf(constant.getType(), op->getLoc(), "the constant");
    if (failed(type))
      return failure();
    const std::string &name =
        constantNames
            .try_emplace(value,
                         "constant." + std::to_string(constantNames.size()))
            .first->second;
    known->second = draft.addBuffer({name, *type, BufferKind::constant,
                                     std::nullopt, value, op->getLoc()});
  }
  buffers[constant.getResult()] = known->second;
  return success();
}

FailureOr<int> FunctionLowering::resultBuffer(OpResult result, StringRef kernel,
                                              bool onHost) {
  auto target = accesses.inPlaceResults.find(result);
  if (target != accesses.inPlaceResults.end())
    return globalBuffers.lookup(target->second);
  Operation *op = result.getOwner();
  std::string what = "result " + std::to_string(result.getResultNumber());
  FailureOr<MemRefType> type =
      bufferTypeOf(result.getType(), op->getLoc(), what);
  if (failed(type))
    return failure();
  std::string name = kernel.str() + "." + std::to_string(draft.numLaunches());
  if (op->getNumResults() > 1)
    name += "." + std::to_string(result.getResultNumber());
  BufferInfo buffer{name,         *type,          BufferKind::activation,
                    std::nullopt, ElementsAttr(), op->getLoc()};
  buffer.onHost = onHost;
  return draft.addBuffer(std::move(buffer));
}

FailureOr<bool> FunctionLowering::runsOnHost(Operation *op) const {
  unsigned onHost = 0;
  for (Value operand : op->getOperands())
    onHost += draft.buffer(bufferOf(operand)).onHost;
  if (onHost == 0)
    return false;
  if (onHost != op->getNumOperands())
    return op->emitOpError("reads host and device values; copy them to one "
                           "side first (hetd.to_host, hetd.to_device)");
  if (llvm::isa<hetd::HetDistDialect>(op->getDialect()))
    return op->emitOpError("communicates host values; ranks exchange device "
                           "values only");
  return true;
}

LogicalResult FunctionLowering::lowerTransfer(Operation *op, bool toHost) {
  int source = bufferOf(op->getOperand(0));
  if (draft.buffer(source).onHost == toHost)
    return op->emitOpError("copies a value that is already on the ")
           << (toHost ? "host" : "device");
  FailureOr<int> copy = resultBuffer(op->getResult(0), "copy", toHost);
  if (failed(copy))
    return failure();
  // A result stored in place is the global's buffer, which must lie where
  // the copy goes.
  if (draft.buffer(*copy).onHost != toHost)
    return op->emitOpError("writes a global that lies on the ")
           << (toHost ? "device" : "host");
  draft.addCopy(source, *copy, op->getLoc());
  buffers[op->getResult(0)] = *copy;
  return success();
}

LogicalResult FunctionLowering::lowerLaunch(Operation *op, bool onHost) {
  StringRef kernel = op->getName().stripDialect();
  LaunchInfo launch{kernel.str(), {}, {}, paramsOf(op), op->getLoc()};
  if (std::optional<hetg::OpCost> cost = hetg::getOpCost(op))
    launch.flops = cost->flops;
  launch.segment = segmentOf(op);
  for (Value operand : op->getOperands())
    launch.inputs.push_back(bufferOf(operand));
  for (OpResult result : op->getResults()) {
    FailureOr<int> buffer = resultBuffer(result, kernel, onHost);
    if (failed(buffer))
      return failure();
    if (draft.buffer(*buffer).onHost != onHost)
      return op->emitOpError("writes a global on the ")
             << (onHost ? "device" : "host") << " from the "
             << (onHost ? "host" : "device") << "; copy the value across first";
    launch.outputs.push_back(*buffer);
    buffers[result] = *buffer;
  }
  draft.addLaunch(std::move(launch));
  return success();
}

LogicalResult FunctionLowering::lowerSend(Operation *op) {
  auto send = llvm::cast<hetd::SendOp>(op);
  int source = bufferOf(send.getValue());
  MemRefType type = draft.buffer(source).type;
  int64_t rows = type.getDimSize(0);
  int64_t begin = send.getBegin(), end = send.getEnd();
  int message = source;
  if (begin != 0 || end != rows) {
    SmallVector<int64_t> shape(type.getShape());
    shape[0] = end - begin;
    int64_t rowBytes = type.getNumElements() / rows *
                       hetx::elementByteSize(type.getElementType());
    message = draft.addView(
        source, MemRefType::get(shape, type.getElementType()),
        begin * rowBytes, "send." + std::to_string(draft.numBuffers()),
        op->getLoc());
  }
  // The rows are in the view; the receiver needs only the peer and tag.
  MLIRContext *context = op->getContext();
  NamedAttribute params[] = {
      NamedAttribute(send.getPeerAttrName(), send.getPeerAttr()),
      NamedAttribute(send.getTagAttrName(), send.getTagAttr())};
  draft.addLaunch({"send", {message}, {}, DictionaryAttr::get(context, params),
                   op->getLoc()});
  return success();
}

LogicalResult FunctionLowering::lowerAllReduce(Operation *op) {
  auto allReduce = llvm::cast<hetd::AllReduceOp>(op);
  Value input = allReduce.getInput();
  OpResult result = allReduce->getResult(0);
  int source = bufferOf(input);
  const BufferInfo &sourceInfo = draft.buffer(source);
  // The kernel sums in place: an activation nothing else reads is summed
  // where it is, anything else is copied first so that its other readers
  // see the value before the sum.
  int sum = source;
  if (!input.hasOneUse() || sourceInfo.aliasOf >= 0 ||
      sourceInfo.kind != BufferKind::activation ||
      accesses.inPlaceResults.contains(result)) {
    FailureOr<int> buffer = resultBuffer(result, "all_reduce");
    if (failed(buffer))
      return failure();
    sum = *buffer;
    draft.addCopy(source, sum, op->getLoc());
  }
  draft.addLaunch({"all_reduce", {sum}, {sum}, paramsOf(op), op->getLoc()});
  buffers[result] = sum;
  return success();
}

LogicalResult FunctionLowering::lowerOp(Operation *op) {
  if (accessedGlobal(*op))
    return lowerGlobalAccess(op);
  if (auto ret = llvm::dyn_cast<func::ReturnOp>(op))
    return lowerReturn(ret);
  if (llvm::isa<hetd::ToHostOp, hetd::ToDeviceOp>(op))
    return lowerTransfer(op, llvm::isa<hetd::ToHostOp>(op));
  FailureOr<bool> onHost = runsOnHost(op);
  if (failed(onHost))
    return failure();
  if (llvm::isa<hetd::SendOp>(op))
    return lowerSend(op);
  if (llvm::isa<hetd::AllReduceOp>(op))
    return lowerAllReduce(op);
  if (!llvm::isa_and_nonnull<hetg::HetGraphDialect>(op->getDialect()) &&
      !llvm::isa<hetd::RecvOp, hetd::ReduceScatterOp, hetd::AllGatherOp>(op))
    return op->emitOpError("cannot be lowered into a hetx program; only hetg "
                           "ops, hetd communication and transfers, "
                           "ml_program global accesses and func.return can");
  if (op->getNumRegions() != 0)
    return op->emitOpError("has regions, which a kernel launch cannot hold");
  if (std::optional<int64_t> byteOffset = viewByteOffset(op))
    return lowerView(op, *byteOffset);
  if (llvm::isa<hetg::ConstantOp>(op))
    return lowerConstant(op);
  return lowerLaunch(op, *onHost);
}

ProgramPlacement FunctionLowering::placement() const {
  if (rankPlacement)
    return *rankPlacement;
  // A program without token inputs processes one sample of its feeds.
  ProgramPlacement single;
  single.numSamples =
      tokens.empty() ? 1 : draft.buffer(tokens.front()).type.getDimSize(0);
  return single;
}

FailureOr<hetx::ProgramOp> FunctionLowering::run(OpBuilder &builder) {
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("must have a single block to lower into a "
                            "straight-line program");
  body = &func.getBody().front();
  addGlobals();
  if (failed(addArguments()))
    return failure();
  FailureOr<GlobalAccessPlan> planned = planGlobalAccesses(*body);
  if (failed(planned))
    return failure();
  accesses = std::move(*planned);
  for (Operation &op : *body)
    if (failed(lowerOp(&op)))
      return failure();
  return draft.finish(builder, func.getLoc(), placement(),
                      hetg::modelFlops(func), trainProgram);
}
