//===- ProgramDraft.cpp - one program's buffers and launches --------------===//

#include "passes/Conversion/HetGraphToHetExec/ProgramDraft.h"

#include "passes/Conversion/HetGraphToHetExec/MemoryPlanner/MemoryPlanner.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

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

hetx::ProgramOp ProgramDraft::finish(OpBuilder &builder, Location loc,
                                     const ProgramPlacement &placement,
                                     int64_t modelFlops) {
  computeLiveness();
  std::vector<lower::BufferRequest> requests;
  std::vector<int> requestOf(buffers.size(), -1);
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    if (buffer.aliasOf >= 0)
      continue;
    int64_t bytes = byteSize(buffer.type);
    requestOf[index] = static_cast<int>(requests.size());
    if (buffer.kind != hetx::BufferKind::activation)
      requests.push_back(lower::BufferRequest::persistentBuffer(bytes));
    else
      requests.push_back(lower::BufferRequest::activation(
          bytes, std::min(buffer.firstUse, buffer.lastUse), buffer.lastUse));
  }
  lower::MemoryPlan plan = lower::planMemory(requests);

  MLIRContext *context = builder.getContext();
  auto program = hetx::ProgramOp::create(
      builder, loc,
      builder.getStringAttr("rank" + std::to_string(placement.rank)),
      builder.getI32IntegerAttr(placement.rank),
      builder.getI64IntegerAttr(plan.arenaBytes),
      builder.getI64IntegerAttr(placement.firstSample),
      builder.getI64IntegerAttr(placement.numSamples),
      builder.getI32IntegerAttr(placement.stage),
      builder.getI32IntegerAttr(placement.replica),
      placement.device ? builder.getStringAttr(*placement.device)
                       : StringAttr(),
      builder.getI64IntegerAttr(modelFlops));
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&program.getBody().emplaceBlock());

  SmallVector<Value> values;
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    int64_t offset = plan.offsets[requestOf[rootOf(index)]] + buffer.viewOffset;
    auto op = hetx::BufferOp::create(
        builder, buffer.loc, buffer.type,
        builder.getI32IntegerAttr(static_cast<int32_t>(index)),
        builder.getStringAttr(buffer.name),
        hetx::BufferKindAttr::get(context, buffer.kind),
        buffer.role ? hetx::InputRoleAttr::get(context, *buffer.role)
                    : hetx::InputRoleAttr(),
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
                                                : DictionaryAttr());
  }
  SmallVector<Value> returned;
  for (int output : outputs)
    returned.push_back(values[output]);
  hetx::ReturnOp::create(builder, loc, loss >= 0 ? values[loss] : Value(),
                         returned);
  return program;
}
