//===- ProgramDraft.cpp - one program's buffers and launches --------------===//

#include "passes/Conversion/HetGraphToHetExec/ProgramDraft.h"

#include "passes/Conversion/HetGraphToHetExec/MemoryPlanner/MemoryPlanner.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace hetc;

namespace {

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

int64_t byteSize(MemRefType type) {
  return type.getNumElements() * hetx::elementByteSize(type.getElementType());
}

} // namespace

FailureOr<MemRefType> hetc::bufferTypeOf(Type type, Location loc,
                                         const Twine &what) {
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

int ProgramDraft::addBuffer(BufferInfo info) {
  buffers.push_back(std::move(info));
  return static_cast<int>(buffers.size()) - 1;
}

int ProgramDraft::addView(int of, MemRefType type, int64_t byteOffset,
                          std::string name, Location loc) {
  int root = rootOf(of);
  BufferInfo view = buffers[root];
  view.name = std::move(name);
  view.type = type;
  view.init = ElementsAttr();
  view.loc = loc;
  view.firstSample = std::nullopt;
  view.wholeShape = DenseI64ArrayAttr();
  view.aliasOf = root;
  view.viewOffset = buffers[of].viewOffset + byteOffset;
  return addBuffer(std::move(view));
}

void ProgramDraft::computeLiveness() {
  auto touch = [&](int id, int64_t at) {
    BufferInfo &root = buffers[rootOf(id)];
    root.firstUse = std::min(root.firstUse, at);
    root.lastUse = std::max(root.lastUse, at);
  };
  for (auto [index, launch] : llvm::enumerate(launches)) {
    for (int id : launch.inputs)
      touch(id, index);
    for (int id : launch.outputs)
      touch(id, index);
  }
  // The runtime reads the loss and the outputs after the last launch.
  auto end = static_cast<int64_t>(launches.size());
  if (loss >= 0)
    touch(loss, end);
  for (int output : outputs)
    touch(output, end);
}

/// Whether a buffer of `kind` holds what the step keeps for the next one.
static bool keepsState(hetx::BufferKind kind) {
  return kind == hetx::BufferKind::parameter ||
         kind == hetx::BufferKind::optimizer_state ||
         kind == hetx::BufferKind::constant;
}

std::vector<int64_t> ProgramDraft::hostComputeLaunches() const {
  std::vector<int64_t> found;
  auto onHost = [&](int id) { return buffers[id].onHost; };
  for (auto [index, launch] : llvm::enumerate(launches))
    if (launch.kernel != "copy" && (llvm::any_of(launch.inputs, onHost) ||
                                    llvm::any_of(launch.outputs, onHost)))
      found.push_back(static_cast<int64_t>(index));
  return found;
}

int64_t ProgramDraft::layOutArena(bool host, Layout &layout) const {
  // The runtime copies the next piece of an offloaded update to the host
  // beside this piece's update (runtime/exec/HostPipeline.h): a host
  // activation keeps its bytes until the host's next kernel after its last
  // use, so that consecutive pieces stage in different bytes.
  std::vector<int64_t> hostKernels =
      host ? hostComputeLaunches() : std::vector<int64_t>();
  auto heldUntil = [&](int64_t lastUse) {
    auto next = llvm::upper_bound(hostKernels, lastUse);
    return next == hostKernels.end() ? lastUse : *next;
  };
  std::vector<lower::BufferRequest> requests;
  std::vector<int> owners;
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    if (buffer.aliasOf >= 0 || buffer.onHost != host)
      continue;
    int64_t bytes = byteSize(buffer.type);
    owners.push_back(static_cast<int>(index));
    if (buffer.kind != hetx::BufferKind::activation)
      requests.push_back(lower::BufferRequest::persistentBuffer(bytes));
    else
      requests.push_back(lower::BufferRequest::activation(
          bytes, std::min(buffer.firstUse, buffer.lastUse),
          heldUntil(buffer.lastUse)));
  }
  lower::MemoryPlan plan = lower::planMemory(requests);
  for (auto [request, owner] : llvm::enumerate(owners))
    layout.offsets[owner] = plan.offsets[request];
  return plan.arenaBytes;
}

ProgramDraft::Layout ProgramDraft::layOut() const {
  Layout layout;
  layout.offsets.assign(buffers.size(), 0);
  layout.arenaBytes = layOutArena(/*host=*/false, layout);
  layout.hostArenaBytes = layOutArena(/*host=*/true, layout);
  return layout;
}

FailureOr<ProgramDraft::Layout>
ProgramDraft::layOutBeside(hetx::ProgramOp trainProgram) const {
  // What the training program keeps between its steps, by name: the
  // evaluation reads it in place and writes nowhere in it.
  llvm::StringMap<hetx::BufferOp> kept;
  int64_t keptEnd = 0;
  for (hetx::BufferOp buffer : trainProgram.getBuffers()) {
    if (buffer.isAlias() || !keepsState(buffer.getKind()))
      continue;
    kept[buffer.getName()] = buffer;
    keptEnd = std::max(keptEnd, buffer.getOffsetAttr().getInt() +
                                    buffer.getByteSize());
  }
  Layout layout;
  layout.offsets.assign(buffers.size(), 0);
  std::vector<lower::BufferRequest> requests;
  std::vector<int> requested, ownConstants;
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    if (buffer.aliasOf >= 0)
      continue;
    if (buffer.onHost)
      return emitError(buffer.loc)
             << "the evaluation reads host buffer '" << buffer.name
             << "'; an evaluation runs on the device alone";
    int64_t bytes = byteSize(buffer.type);
    if (keepsState(buffer.kind)) {
      auto it = kept.find(buffer.name);
      if (it != kept.end() && it->second.getResult().getType() == buffer.type) {
        layout.offsets[index] = it->second.getOffsetAttr().getInt();
        continue;
      }
      if (buffer.kind != hetx::BufferKind::constant)
        return emitError(buffer.loc)
               << "the evaluation reads " << hetx::stringifyBufferKind(buffer.kind)
               << " '" << buffer.name << "' of type " << buffer.type
               << ", which the training program of rank "
               << trainProgram.getRankAttr().getInt() << " does not hold";
      ownConstants.push_back(static_cast<int>(index));
      continue;
    }
    requested.push_back(static_cast<int>(index));
    requests.push_back(
        buffer.kind == hetx::BufferKind::activation
            ? lower::BufferRequest::activation(
                  bytes, std::min(buffer.firstUse, buffer.lastUse),
                  buffer.lastUse)
            : lower::BufferRequest::persistentBuffer(bytes));
  }
  // Inputs and activations: where the training step keeps nothing.
  lower::MemoryPlan plan = lower::planMemory(requests);
  int64_t base = lower::alignTo(keptEnd);
  for (auto [request, owner] : llvm::enumerate(requested))
    layout.offsets[owner] = base + plan.offsets[request];
  // Its own constants must survive the training steps: past both arenas.
  int64_t cursor = lower::alignTo(
      std::max(trainProgram.getArenaBytesAttr().getInt(), base + plan.arenaBytes));
  for (int owner : ownConstants) {
    layout.offsets[owner] = cursor;
    cursor += lower::alignTo(byteSize(buffers[owner].type));
  }
  for (auto [index, buffer] : llvm::enumerate(buffers))
    if (buffer.aliasOf < 0)
      layout.arenaBytes = std::max(layout.arenaBytes,
                                   layout.offsets[index] + byteSize(buffer.type));
  layout.arenaBytes = lower::alignTo(layout.arenaBytes);
  return layout;
}

FailureOr<hetx::ProgramOp>
ProgramDraft::finish(OpBuilder &builder, Location loc,
                     const ProgramPlacement &placement, int64_t modelFlops,
                     hetx::ProgramOp trainProgram) {
  computeLiveness();
  FailureOr<Layout> layout =
      trainProgram ? layOutBeside(trainProgram) : FailureOr<Layout>(layOut());
  if (failed(layout))
    return failure();

  MLIRContext *context = builder.getContext();
  auto program = hetx::ProgramOp::create(
      builder, loc,
      builder.getStringAttr("rank" + std::to_string(placement.rank) +
                            (trainProgram ? "_eval" : "")),
      builder.getI32IntegerAttr(placement.rank),
      builder.getI64IntegerAttr(layout->arenaBytes),
      builder.getI64IntegerAttr(placement.firstSample),
      builder.getI64IntegerAttr(placement.numSamples),
      builder.getI32IntegerAttr(placement.stage),
      builder.getI32IntegerAttr(placement.replica),
      placement.device ? builder.getStringAttr(*placement.device)
                       : StringAttr(),
      builder.getI64IntegerAttr(modelFlops),
      builder.getI64IntegerAttr(layout->hostArenaBytes),
      trainProgram ? builder.getUnitAttr() : UnitAttr());
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&program.getBody().emplaceBlock());

  SmallVector<Value> values;
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    int64_t offset = layout->offsets[rootOf(index)] + buffer.viewOffset;
    auto op = hetx::BufferOp::create(
        builder, buffer.loc, buffer.type,
        builder.getI32IntegerAttr(static_cast<int32_t>(index)),
        builder.getStringAttr(buffer.name),
        hetx::BufferKindAttr::get(context, buffer.kind),
        buffer.role ? hetx::InputRoleAttr::get(context, *buffer.role)
                    : hetx::InputRoleAttr(),
        buffer.onHost ? builder.getUnitAttr() : UnitAttr(),
        builder.getI64IntegerAttr(offset),
        buffer.firstSample ? builder.getI64IntegerAttr(*buffer.firstSample)
                           : IntegerAttr(),
        buffer.aliasOf >= 0 ? values[buffer.aliasOf] : Value(), buffer.init,
        buffer.wholeShape);
    values.push_back(op.getResult());
  }
  for (const LaunchInfo &launch : launches) {
    SmallVector<Value> inputs, outputValues;
    for (int id : launch.inputs)
      inputs.push_back(values[id]);
    for (int id : launch.outputs)
      outputValues.push_back(values[id]);
    hetx::LaunchOp::create(
        builder, launch.loc, builder.getStringAttr(launch.kernel), inputs,
        outputValues,
        launch.params && !launch.params.empty() ? launch.params
                                                : DictionaryAttr(),
        launch.flops > 0 ? builder.getI64IntegerAttr(launch.flops)
                         : IntegerAttr(),
        launch.segment ? builder.getI64IntegerAttr(launch.segment->first)
                       : IntegerAttr(),
        launch.segment ? hetx::LaunchPhaseAttr::get(builder.getContext(),
                                                    launch.segment->second)
                       : hetx::LaunchPhaseAttr());
  }
  SmallVector<Value> returned;
  for (int output : outputs)
    returned.push_back(values[output]);
  hetx::ReturnOp::create(builder, loc, loss >= 0 ? values[loss] : Value(),
                         returned);
  return program;
}
