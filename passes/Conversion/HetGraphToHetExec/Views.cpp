//===- Views.cpp - hetg ops whose result views their input's bytes --------===//

#include "passes/Conversion/HetGraphToHetExec/Views.h"

#include "dialects/HetExec/HetExec.h"
#include "dialects/HetGraph/HetGraph.h"
#include "dialects/HetGraph/ShapeInference.h"

using namespace mlir;

namespace {

/// The element offset of a contiguous slice in its input, if it is one.
std::optional<int64_t> contiguousSliceStart(hetc::hetg::SliceOp slice) {
  auto type = llvm::dyn_cast<RankedTensorType>(slice.getInput().getType());
  if (!type || !type.hasStaticShape() ||
      llvm::any_of(slice.getSteps(), [](int64_t step) { return step != 1; }))
    return std::nullopt;
  ArrayRef<int64_t> shape = type.getShape();
  // Past the first dimension taken in part, every dimension must be whole;
  // before it, only size-1 dimensions keep the range contiguous.
  bool sliced = false, wideBefore = false;
  int64_t start = 0;
  for (auto [dim, size] : llvm::enumerate(shape)) {
    auto [begin, end] = hetc::hetg::clampSliceBounds(
        size, slice.getStarts()[dim], slice.getEnds()[dim]);
    bool whole = begin == 0 && end == size;
    if (sliced) {
      if (!whole)
        return std::nullopt;
      start *= size;
    } else if (whole) {
      wideBefore |= size != 1;
    } else if (wideBefore) {
      return std::nullopt;
    } else {
      sliced = true;
      start = begin;
    }
  }
  return start;
}

} // namespace

std::optional<int64_t> hetc::viewByteOffset(Operation *op) {
  if (llvm::isa<hetg::ReshapeOp>(op))
    return 0;
  auto slice = llvm::dyn_cast<hetg::SliceOp>(op);
  if (!slice)
    return std::nullopt;
  std::optional<int64_t> start = contiguousSliceStart(slice);
  if (!start)
    return std::nullopt;
  Type element = slice.getType().getElementType();
  return *start * hetx::elementByteSize(element);
}
