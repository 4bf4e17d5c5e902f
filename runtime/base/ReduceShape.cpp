//===- ReduceShape.cpp ----------------------------------------------------===//

#include "runtime/base/ReduceShape.h"

#include <limits>

namespace hetc::runtime {

const char *reduceOpName(ReduceOp op) {
  return op == ReduceOp::kSum    ? "reduce_sum"
         : op == ReduceOp::kMean ? "reduce_mean"
                                 : "reduce_max";
}

Status planReducedAxes(const char *name, ReduceOp op, const TensorView &x,
                       const std::vector<int64_t> &axes, bool keepDims,
                       const TensorView &y, ReducedAxes *plan) {
  std::vector<bool> &reduced = plan->reduced;
  reduced.assign(x.shape.size(), false);
  for (int64_t axis : axes) {
    int64_t a;
    HETC_RETURN_IF_ERROR(normalizeAxis(axis, x.rank(), &a), name);
    if (reduced[a])
      return invalidArgument(name, ": axis ", axis, " is listed twice");
    reduced[a] = true;
  }
  Shape expected;
  int64_t count = 1;
  for (size_t k = 0; k < x.shape.size(); ++k) {
    if (!reduced[k])
      expected.push_back(x.shape[k]);
    else {
      count *= x.shape[k];
      if (keepDims)
        expected.push_back(1);
      if (op == ReduceOp::kMax && x.shape[k] == 0)
        return invalidArgument(name, ": cannot take the maximum over axis ",
                               k, " of size 0 (x is ", x.describe(), ")");
    }
  }
  HETC_RETURN_IF_ERROR(checkShape(y, expected, "y"), name);
  plan->scale = op == ReduceOp::kMean
                    ? (count == 0 ? std::numeric_limits<double>::quiet_NaN()
                                  : 1.0 / static_cast<double>(count))
                    : 1.0;
  return okStatus();
}

} // namespace hetc::runtime
