//===- SequenceOps.cpp - ONNX sequences of split pieces to hetg -----------===//
//
// SplitToSequence and SequenceAt, as the torch.export exporter writes
// `torch.split`: the sequence exists only while importing, as what it
// splits, and SequenceAt with a constant position slices the piece it
// picks (hetg.slice). hetg has no sequence type, so no other use of a
// sequence is imported.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/ONNX/OpTable.h"
#include "compiler/Import/ONNX/ShapeHelpers.h"

#include <numeric>

using namespace mlir;

namespace hetc::onnximport {

namespace {

LogicalResult convertSplitToSequence(NodeContext &ctx) {
  Value input = ctx.input(0);
  RankedTensorType type = NodeContext::typeOf(input);
  FailureOr<int64_t> axisAttr = ctx.intAttr("axis", 0);
  FailureOr<int64_t> keepDims = ctx.intAttr("keepdims", 1);
  if (failed(axisAttr) || failed(keepDims))
    return failure();
  FailureOr<int64_t> axis =
      normalizeAxisOrError(ctx, *axisAttr, type.getRank(), "axis");
  if (failed(axis))
    return failure();
  SplitSequence sequence{input, *axis, {}, 1};
  if (!ctx.hasInput(1)) {
    if (*keepDims == 0)
      return ctx.emitError() << "keepdims=0 (pieces without the split axis) "
                             << "is not supported; export the split with "
                             << "sizes";
    ctx.setSequenceOutput(0, std::move(sequence));
    return success();
  }
  FailureOr<SmallVector<int64_t>> split = ctx.requireConstantInts(
      1, "split", "needs the sizes to slice the pieces");
  if (failed(split))
    return failure();
  if (llvm::any_of(*split, [](int64_t s) { return s < 0; }))
    return ctx.emitError() << "split sizes " << formatShape(*split)
                           << " must not be negative";
  if (NodeContext::typeOf(ctx.input(1)).getRank() == 0) {
    sequence.chunk = split->front();
    if (sequence.chunk == 0)
      return ctx.emitError() << "split 0 must be positive";
  } else {
    int64_t dim = type.getDimSize(*axis);
    int64_t total = std::accumulate(split->begin(), split->end(), int64_t(0));
    if (dim != hetg::kDynamic && total != dim)
      return ctx.emitError() << "split sizes " << formatShape(*split)
                             << " do not add up to dimension " << *axis
                             << " of " << type;
    sequence.sizes = *split;
  }
  ctx.setSequenceOutput(0, std::move(sequence));
  return success();
}

LogicalResult convertSequenceAt(NodeContext &ctx) {
  FailureOr<const SplitSequence *> sequence = ctx.sequenceInput(0);
  if (failed(sequence))
    return failure();
  FailureOr<SmallVector<int64_t>> position = ctx.requireConstantInts(
      1, "position", "needs it to pick the piece");
  if (failed(position))
    return failure();
  const SplitSequence &seq = **sequence;
  RankedTensorType type = NodeContext::typeOf(seq.input);
  int64_t dim = type.getDimSize(seq.axis);
  // The number of pieces, when known here.
  std::optional<int64_t> length;
  if (!seq.sizes.empty())
    length = seq.sizes.size();
  else if (dim != hetg::kDynamic)
    length = (dim + seq.chunk - 1) / seq.chunk;
  int64_t index = position->front();
  if (index < 0 && length)
    index += *length;
  if (position->size() != 1 || index < 0 || (length && index >= *length))
    return ctx.emitError() << "position " << formatShape(*position)
                           << " is not one index into the sequence"
                           << (length ? " of " + std::to_string(*length)
                                      : std::string(" (a negative position "
                                                    "needs a static split "
                                                    "dimension)"));
  int64_t start = index * seq.chunk, size = seq.chunk;
  if (!seq.sizes.empty()) {
    start = std::accumulate(seq.sizes.begin(), seq.sizes.begin() + index,
                            int64_t(0));
    size = seq.sizes[index];
  }
  SmallVector<int64_t> starts, ends, steps;
  fullSlice(type, starts, ends, steps);
  starts[seq.axis] = start;
  ends[seq.axis] = start + size;
  return ctx.bindResult(
      ctx.create<hetg::SliceOp>(seq.input, starts, ends, steps));
}

} // namespace

void addSequenceConverters(OpTable &table) {
  table["SplitToSequence"] = {convertSplitToSequence, 1, 2, 1, {1}};
  table["SequenceAt"] = {convertSequenceAt, 2, 2, 1, {1}};
}

} // namespace hetc::onnximport
