//===- HetExecOps.cpp - hetx op verifiers and helpers ---------------------===//

#include "dialects/HetExec/HetExec.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>

using namespace mlir;
using namespace hetc::hetx;

int64_t hetc::hetx::elementByteSize(Type type) {
  return std::max<int64_t>(1, (type.getIntOrFloatBitWidth() + 7) / 8);
}

//===----------------------------------------------------------------------===//
// Launch types: `(T0, T1) -> (T2)`, parenthesized even when empty.
//===----------------------------------------------------------------------===//

static ParseResult parseLaunchTypes(OpAsmParser &parser,
                                    SmallVectorImpl<Type> &inputs,
                                    SmallVectorImpl<Type> &outputs) {
  auto parseList = [&](SmallVectorImpl<Type> &types) {
    return parser.parseCommaSeparatedList(
        OpAsmParser::Delimiter::Paren,
        [&]() { return parser.parseType(types.emplace_back()); });
  };
  if (parseList(inputs) || parser.parseArrow() || parseList(outputs))
    return failure();
  return success();
}

static void printLaunchTypes(OpAsmPrinter &printer, Operation *,
                             TypeRange inputs, TypeRange outputs) {
  printer << "(" << inputs << ") -> (" << outputs << ")";
}

//===----------------------------------------------------------------------===//
// ProgramOp
//===----------------------------------------------------------------------===//

ReturnOp ProgramOp::getReturn() {
  return llvm::dyn_cast<ReturnOp>(getBody().front().getTerminator());
}

LogicalResult ProgramOp::verify() {
  if (getRankAttr().getInt() < 0)
    return emitOpError("rank must be non-negative, got ")
           << getRankAttr().getInt();
  if (getArenaBytesAttr().getInt() < 0 || getHostArenaBytes() < 0)
    return emitOpError("arena_bytes and host_arena_bytes must be "
                       "non-negative, got ")
           << getArenaBytesAttr().getInt() << " and " << getHostArenaBytes();
  int64_t first = getFirstSampleAttr().getInt();
  int64_t count = getNumSamplesAttr().getInt();
  if (first < 0 || count < 0)
    return emitOpError("sample range [")
           << first << ", +" << count
           << ") must be non-negative";
  auto stage = static_cast<int32_t>(getStage());
  auto replica = static_cast<int32_t>(getReplica());
  if (stage < 0 || replica < 0)
    return emitOpError("stage and replica must be non-negative, got stage ")
           << stage << ", replica " << replica;
  return success();
}

LogicalResult ProgramOp::verifyRegions() {
  Block &body = getBody().front();

  // Declarations first, then launches: ids are positions.
  int64_t nextId = 0;
  int64_t arenaBytes = getArenaBytesAttr().getInt();
  int64_t hostArenaBytes = getHostArenaBytes();
  bool seenLaunch = false;
  struct Extent {
    int64_t begin, end;
    BufferOp op;
  };
  // Per arena: the device's, the host's.
  SmallVector<Extent> persistent[2];
  llvm::StringMap<BufferOp> loadedByName;
  int64_t firstSample = getFirstSampleAttr().getInt();
  int64_t endSample = firstSample + getNumSamplesAttr().getInt();
  for (Operation &op : body) {
    if (llvm::isa<LaunchOp>(op)) {
      seenLaunch = true;
      continue;
    }
    auto buffer = llvm::dyn_cast<BufferOp>(op);
    if (!buffer)
      continue;
    if (seenLaunch)
      return buffer.emitOpError(
          "declares a buffer after the first launch; buffers come first");
    if (buffer.getIdAttr().getInt() != nextId)
      return buffer.emitOpError("has id ")
             << buffer.getIdAttr().getInt() << " but is buffer " << nextId
             << " of the program; ids are positions";
    ++nextId;
    if (buffer.isAlias())
      continue;
    int64_t begin = buffer.getOffsetAttr().getInt();
    int64_t end = begin + buffer.getByteSize();
    int64_t limit = buffer.getHost() ? hostArenaBytes : arenaBytes;
    if (begin < 0 || end > limit)
      return buffer.emitOpError("bytes [")
             << begin << ", " << end << ") do not fit in the "
             << (buffer.getHost() ? "host arena" : "arena") << " of " << limit
             << " bytes";
    if (buffer.isPersistent() && buffer.getByteSize() > 0)
      persistent[buffer.getHost()].push_back({begin, end, buffer});
    BufferKind kind = buffer.getKind();
    if (kind == BufferKind::parameter || kind == BufferKind::constant) {
      auto [it, inserted] = loadedByName.try_emplace(buffer.getName(), buffer);
      if (!inserted)
        return buffer.emitOpError("has the name '")
               << buffer.getName() << "' of buffer " << it->second.getId()
               << "; parameters and constants are loaded by name";
    }
    // Each micro-batch's tokens and labels are samples of the rank.
    if (kind == BufferKind::input && (*buffer.getRole() == InputRole::tokens ||
                                      *buffer.getRole() == InputRole::labels)) {
      MemRefType type = buffer.getResult().getType();
      int64_t begin = buffer.getFirstSample().value_or(0);
      int64_t end = begin + (type.getRank() == 0 ? 1 : type.getDimSize(0));
      if (begin < firstSample || end > endSample)
        return buffer.emitOpError("reads samples [")
               << begin << ", " << end << "), outside the program's samples ["
               << firstSample << ", " << endSample << ")";
    }
  }

  // Persistent buffers keep their bytes for the whole run.
  for (SmallVector<Extent> &extents : persistent) {
    llvm::sort(extents, [](const Extent &a, const Extent &b) {
      return a.begin < b.begin;
    });
    for (size_t i = 1; i < extents.size(); ++i)
      if (extents[i].begin < extents[i - 1].end)
        return extents[i].op.emitOpError("bytes [")
               << extents[i].begin << ", " << extents[i].end
               << ") overlap those of persistent buffer "
               << extents[i - 1].op.getId() << " [" << extents[i - 1].begin
               << ", " << extents[i - 1].end << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// BufferOp
//===----------------------------------------------------------------------===//

void BufferOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "b" + std::to_string(getId()));
}

int64_t BufferOp::getByteSize() {
  MemRefType type = getResult().getType();
  return type.getNumElements() * elementByteSize(type.getElementType());
}

LogicalResult BufferOp::verify() {
  MemRefType type = getResult().getType();
  if (!type.getLayout().isIdentity() || type.getMemorySpace())
    return emitOpError("must have a row-major memref type without a memory "
                       "space, got ")
           << type;
  if (getIdAttr().getInt() < 0)
    return emitOpError("id must be non-negative, got ")
           << getIdAttr().getInt();
  int64_t offset = getOffsetAttr().getInt();
  if (offset < 0)
    return emitOpError("offset must be non-negative, got ") << offset;

  BufferKind kind = getKind();
  if (getHost() && kind != BufferKind::optimizer_state &&
      kind != BufferKind::activation)
    return emitOpError("is a host buffer but a ")
           << stringifyBufferKind(kind)
           << "; only optimizer state and activations live on the host";
  if (getRole().has_value() != (kind == BufferKind::input))
    return emitOpError("must have a role (tokens, labels, feed or step) exactly "
                       "when it is an input");
  if (std::optional<int64_t> firstSample = getFirstSample()) {
    if (getRole() != InputRole::tokens && getRole() != InputRole::labels)
      return emitOpError("has a first_sample but is no tokens or labels "
                         "input");
    if (*firstSample < 0)
      return emitOpError("first_sample must be non-negative, got ")
             << *firstSample;
    if (getAliasOf())
      return emitOpError("is an alias and cannot have a first_sample; the "
                         "data loader fills the buffer it views");
  }

  if (std::optional<ArrayRef<int64_t>> whole = getWholeShape()) {
    int64_t wholeElements = 1;
    for (int64_t dim : *whole)
      wholeElements *= dim;
    if (getAliasOf() || !isPersistent() || getType().getRank() != 1 ||
        llvm::any_of(*whole, [](int64_t dim) { return dim < 0; }) ||
        getType().getNumElements() > wholeElements)
      return emitOpError("is a piece of a tensor of shape [")
             << *whole << "], so it must be a persistent 1-D buffer of at "
             << "most " << wholeElements << " elements that owns its bytes";
  }

  if (BufferOp target = getAliasOf()
                            ? getAliasOf().getDefiningOp<BufferOp>()
                            : BufferOp()) {
    if (target.isAlias())
      return emitOpError("aliases buffer ")
             << target.getId()
             << ", which is itself an alias; alias the buffer that owns the "
                "bytes";
    int64_t targetBegin = target.getOffset();
    int64_t targetEnd = targetBegin + target.getByteSize();
    if (offset < targetBegin || offset + getByteSize() > targetEnd)
      return emitOpError("bytes [")
             << offset << ", " << offset + getByteSize()
             << ") lie outside those of buffer " << target.getId() << " ["
             << targetBegin << ", " << targetEnd << "), which it aliases";
    if (target.getHost() != getHost())
      return emitOpError("lies on the ")
             << (getHost() ? "host" : "device") << " but aliases buffer "
             << target.getId() << ", which does not";
    if (target.getKind() != kind)
      return emitOpError("is a ")
             << stringifyBufferKind(kind) << " buffer but aliases a "
             << stringifyBufferKind(target.getKind()) << " buffer";
    if (getInit())
      return emitOpError("is an alias and cannot have an initial value");
    return success();
  } else if (getAliasOf()) {
    return emitOpError("must alias a buffer declared by hetx.buffer");
  }

  if (offset % kBufferAlignment != 0)
    return emitOpError("offset ")
           << offset << " is not a multiple of " << kBufferAlignment;

  bool loaded = kind == BufferKind::parameter || kind == BufferKind::constant;
  if (loaded != static_cast<bool>(getInit()))
    return emitOpError("must have an initial value exactly when it is a "
                       "parameter or a constant");
  if (loaded && getName().empty())
    return emitOpError("must have a name: parameters and constants are "
                       "loaded by name");
  if (ElementsAttr init = getInitAttr()) {
    auto initType = llvm::cast<ShapedType>(init.getType());
    if (initType.getShape() != type.getShape() ||
        initType.getElementType() != type.getElementType())
      return emitOpError("initial value of type ")
             << initType << " does not match the buffer type " << type;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// LaunchOp
//===----------------------------------------------------------------------===//

LogicalResult LaunchOp::verify() {
  if (getKernel().empty())
    return emitOpError("must name a kernel");
  if (getSegment().has_value() != getPhase().has_value())
    return emitOpError("needs a segment and a phase together, or neither");
  if (IntegerAttr segment = getSegmentAttr(); segment && segment.getInt() < 0)
    return emitOpError("segment must be >= 0, got ") << segment.getInt();
  for (Value input : getInputs())
    if (!input.getDefiningOp<BufferOp>())
      return emitOpError("reads a value that is not a hetx.buffer");
  // Only a copy moves bytes between the device and the host.
  if (getKernel() != "copy") {
    SmallVector<BufferOp> buffers;
    for (Value value : llvm::concat<Value>(getInputs(), getOutputs()))
      if (auto buffer = value.getDefiningOp<BufferOp>())
        buffers.push_back(buffer);
    auto onHost = [](BufferOp buffer) { return buffer.getHost(); };
    if (llvm::any_of(buffers, onHost) && !llvm::all_of(buffers, onHost))
      return emitOpError("mixes host and device buffers; only a copy moves "
                         "bytes between them");
  }
  for (Value output : getOutputs()) {
    auto buffer = output.getDefiningOp<BufferOp>();
    if (!buffer)
      return emitOpError("writes a value that is not a hetx.buffer");
    if (buffer.getKind() == BufferKind::constant ||
        buffer.getKind() == BufferKind::input)
      return emitOpError("writes buffer ")
             << buffer.getId() << " ('" << buffer.getName() << "'), which is "
             << (buffer.getKind() == BufferKind::input ? "an input"
                                                       : "a constant")
             << " and read-only";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ReturnOp
//===----------------------------------------------------------------------===//

LogicalResult ReturnOp::verify() {
  if (getLoss() && !getLoss().getDefiningOp<BufferOp>())
    return emitOpError("must return a buffer declared by hetx.buffer");
  for (Value output : getOutputs())
    if (!output.getDefiningOp<BufferOp>())
      return emitOpError("must return buffers declared by hetx.buffer");
  return success();
}

#define GET_OP_CLASSES
#include "dialects/HetExec/HetExecOps.cpp.inc"
