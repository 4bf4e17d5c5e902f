//===- ShapeInference.cpp - shape rules shared by hetg ops ----------------===//

#include "dialects/HetGraph/ShapeInference.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

namespace hetc::hetg {

bool areRefinableTypes(mlir::TypeRange declared, mlir::TypeRange inferred) {
  if (declared.size() != inferred.size())
    return false;
  for (auto [d, i] : llvm::zip(declared, inferred)) {
    if (d == i)
      continue;
    auto dt = llvm::dyn_cast<mlir::RankedTensorType>(d);
    auto it = llvm::dyn_cast<mlir::RankedTensorType>(i);
    if (!dt || !it || dt.getElementType() != it.getElementType() ||
        dt.getRank() != it.getRank())
      return false;
    for (auto [a, b] : llvm::zip(dt.getShape(), it.getShape()))
      if (a != kDynamic && b != kDynamic && a != b)
        return false;
  }
  return true;
}

llvm::FailureOr<Shape> broadcastShapes(llvm::ArrayRef<int64_t> lhs,
                                       llvm::ArrayRef<int64_t> rhs,
                                       std::string *error) {
  size_t rank = std::max(lhs.size(), rhs.size());
  Shape result(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t b = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    if (a == 1) {
      result[i] = b;
    } else if (b == 1) {
      result[i] = a;
    } else if (a == kDynamic || b == kDynamic) {
      // An unknown size against a known one > 1 must equal it.
      result[i] = a == kDynamic ? b : a;
    } else if (a == b) {
      result[i] = a;
    } else {
      if (error)
        *error = llvm::formatv("dimension {0} is {1} in one operand and {2} "
                               "in the other; they do not broadcast",
                               i, a, b)
                     .str();
      return mlir::failure();
    }
  }
  return result;
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

llvm::FailureOr<Shape> resolveReshape(llvm::ArrayRef<int64_t> input,
                                      llvm::ArrayRef<int64_t> target,
                                      std::string *error, bool allowZero) {
  auto fail = [&](const std::string &msg) -> llvm::FailureOr<Shape> {
    if (error)
      *error = msg;
    return mlir::failure();
  };
  Shape result;
  std::optional<size_t> inferredIndex;
  for (auto [i, dim] : llvm::enumerate(target)) {
    if (dim == 0 && !allowZero) {
      if (i >= input.size())
        return fail(llvm::formatv("shape entry {0} is 0 but the input has "
                                  "only {1} dimensions",
                                  i, input.size()));
      result.push_back(input[i]);
    } else if (dim == -1) {
      if (inferredIndex)
        return fail("shape has more than one -1 entry");
      inferredIndex = i;
      result.push_back(kDynamic);
    } else if (dim < -1) {
      return fail(llvm::formatv("shape entry {0} is {1}; entries are >= -1",
                                i, dim));
    } else {
      result.push_back(dim);
    }
  }
  if (!inferredIndex)
    return result;
  if (allowZero && llvm::is_contained(target, 0))
    return fail("shape has both -1 and 0 entries, which allowzero forbids");
  std::optional<int64_t> total = staticElementCount(input);
  Shape known(result);
  known[*inferredIndex] = 1;
  std::optional<int64_t> rest = staticElementCount(known);
  if (total && rest) {
    if (*rest == 0 || *total % *rest != 0)
      return fail(llvm::formatv("cannot reshape {0} elements into a shape "
                                "whose known part holds {1}",
                                *total, *rest));
    result[*inferredIndex] = *total / *rest;
  }
  return result;
}

std::pair<int64_t, int64_t> clampSliceBounds(int64_t size, int64_t start,
                                             int64_t end) {
  if (start < 0)
    start += size;
  if (end < 0)
    end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, 0, size);
  return {start, end};
}

int64_t slicedSize(int64_t size, int64_t start, int64_t end, int64_t step) {
  if (size == kDynamic)
    return kDynamic;
  auto [s, e] = clampSliceBounds(size, start, end);
  if (e <= s)
    return 0;
  return (e - s + step - 1) / step;
}

mlir::Type crossEntropyLossType(mlir::Type logits) {
  if (logits.isBF16() || logits.isF16())
    return mlir::Float32Type::get(logits.getContext());
  return logits;
}

std::optional<int64_t> staticElementCount(llvm::ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim == kDynamic)
      return std::nullopt;
    count *= dim;
  }
  return count;
}

} // namespace hetc::hetg
