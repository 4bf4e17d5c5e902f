//===- MemberOrderSum.h - SUM over members in a fixed order -----*- C++ -*-===//

#ifndef HETC_RUNTIME_COMM_INTERNAL_MEMBERORDERSUM_H
#define HETC_RUNTIME_COMM_INTERNAL_MEMBERORDERSUM_H

#include "runtime/base/Tensor.h"

#include <cstdint>
#include <vector>

namespace hetc::runtime::comm::internal {

/// out[j] = (...((in[0][offset+j] + in[1][offset+j]) + in[2][offset+j]) ...)
/// for j in [0, count), in the element type (f32 or f64): always the same
/// order, so whoever computes an element gets the same bits. `out` must not
/// overlap the inputs.
void sumInMemberOrder(DType dtype, const std::vector<const void *> &inputs,
                      int64_t offset, int64_t count, void *out);

} // namespace hetc::runtime::comm::internal

#endif // HETC_RUNTIME_COMM_INTERNAL_MEMBERORDERSUM_H
