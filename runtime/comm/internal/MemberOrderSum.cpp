//===- MemberOrderSum.cpp -------------------------------------------------===//

#include "runtime/comm/internal/MemberOrderSum.h"

#include <algorithm>

namespace hetc::runtime::comm::internal {

template <typename T>
static void sumTyped(const std::vector<const void *> &inputs, int64_t offset,
                     int64_t count, T *out) {
  const T *first = static_cast<const T *>(inputs[0]) + offset;
  std::copy(first, first + count, out);
  // Member by member over the whole range: the same association as a
  // per-element loop over members, but streaming and vectorizable.
  for (size_t m = 1; m < inputs.size(); ++m) {
    const T *in = static_cast<const T *>(inputs[m]) + offset;
    for (int64_t j = 0; j < count; ++j)
      out[j] += in[j];
  }
}

void sumInMemberOrder(DType dtype, const std::vector<const void *> &inputs,
                      int64_t offset, int64_t count, void *out) {
  if (count == 0 || inputs.empty())
    return;
  if (dtype == DType::kF64)
    sumTyped(inputs, offset, count, static_cast<double *>(out));
  else
    sumTyped(inputs, offset, count, static_cast<float *>(out));
}

} // namespace hetc::runtime::comm::internal
