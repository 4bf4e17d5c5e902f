//===- Scatter.cpp - gradients of gather and slice ------------------------===//

#include "dialects/HetGraph/Eval/Eval.h"

namespace hetc::hetg::eval {

std::optional<Array> gatherGrad(const Array &dy,
                                llvm::ArrayRef<int64_t> indices, int64_t axis,
                                llvm::ArrayRef<int64_t> dataShape) {
  Array out(dataShape);
  AxisView data = viewAround(dataShape, axis);
  int64_t count = int64_t(indices.size());
  // dy is [outer, count, inner] in row-major order.
  for (int64_t o = 0; o < data.outer; ++o) {
    for (int64_t p = 0; p < count; ++p) {
      int64_t index = indices[p] < 0 ? indices[p] + data.extent : indices[p];
      if (index < 0 || index >= data.extent)
        return std::nullopt;
      const double *source = &dy.data[(o * count + p) * data.inner];
      double *target = &out.data[(o * data.extent + index) * data.inner];
      for (int64_t i = 0; i < data.inner; ++i)
        target[i] += source[i];
    }
  }
  return out;
}

Array sliceGrad(const Array &dy, llvm::ArrayRef<int64_t> starts,
                llvm::ArrayRef<int64_t> ends, llvm::ArrayRef<int64_t> steps,
                llvm::ArrayRef<int64_t> inputShape) {
  Array out(inputShape);
  int64_t rank = int64_t(inputShape.size());
  Shape begins, strides(rank, 1);
  for (int64_t d = 0; d < rank; ++d)
    begins.push_back(clampSliceBounds(inputShape[d], starts[d], ends[d]).first);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * inputShape[d + 1];
  Shape index(rank, 0);
  for (int64_t n = 0; n < dy.size(); ++n) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d)
      offset += (begins[d] + index[d] * steps[d]) * strides[d];
    out.data[offset] = dy.data[n];
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < dy.shape[d])
        break;
      index[d] = 0;
    }
  }
  return out;
}

} // namespace hetc::hetg::eval
