//===- StridedLayout.cpp --------------------------------------------------===//

#include "runtime/base/StridedLayout.h"

namespace hetc::runtime {

std::vector<int64_t> contiguousStrides(const Shape &shape) {
  std::vector<int64_t> s(shape.size());
  int64_t stride = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    s[k] = stride;
    stride *= shape[k];
  }
  return s;
}

} // namespace hetc::runtime
