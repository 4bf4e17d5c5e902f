//===- CrossEntropy.cpp ---------------------------------------------------===//
//
// Logits are viewed as [N, C, inner]; each of the N * inner rows reads its C
// scores with stride `inner`. One pass per row gives max and log-sum-exp; the
// loss is lse - score[label], so log_softmax is never stored. Rows run in
// parallel; the sum over rows is serial, in row order.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/CrossEntropy.h"

#include "runtime/base/CrossEntropyShape.h"
#include "runtime/cpu/internal/Parallel.h"
#include "runtime/cpu/internal/VectorMath.h"

#include <cmath>
#include <limits>

namespace hetc::runtime::cpu {
namespace {

using internal::parallelFor;

// Offset of the first class score of row `row` (row = sample * inner + i).
int64_t rowBase(const CrossEntropyLayout &l, int64_t row) {
  return (row / l.inner) * l.classes * l.inner + row % l.inner;
}

Status prepare(const char *name, const TensorView &logits,
               const TensorView &labels, const CrossEntropyOptions &options,
               CrossEntropyLayout *layout) {
  HETC_RETURN_IF_ERROR(checkDType(logits, DType::kF32, "logits"), name);
  HETC_RETURN_IF_ERROR(checkData(logits, "logits"), name);
  HETC_RETURN_IF_ERROR(planCrossEntropyRows(name, logits, labels, layout));
  // Validate every label before writing anything.
  int64_t count = labels.numel();
  for (int64_t row = 0; row < count; ++row) {
    int64_t label = labels.dtype == DType::kI64 ? labels.as<int64_t>()[row]
                                                : labels.as<int32_t>()[row];
    if (label == options.ignoreIndex)
      continue;
    if (label < 0 || label >= layout->classes)
      return outOfRange(name, ": label ", label, " at position ", row,
                        " is out of range for ", layout->classes,
                        " classes (ignore_index is ", options.ignoreIndex, ")");
  }
  return okStatus();
}

int64_t labelAt(const TensorView &labels, int64_t row) {
  return labels.dtype == DType::kI64 ? labels.as<int64_t>()[row]
                                     : labels.as<int32_t>()[row];
}

// A row's maximum and log(sum(exp(x - max))); lse = max + logSum.
struct RowStats {
  float max;
  double logSum;
  float lse() const { return static_cast<float>(max + logSum); }
};

RowStats rowStats(const float *x, int64_t classes, int64_t stride) {
  float m = internal::rowMax(x, classes, stride);
  double sum = internal::laneSum(classes, [&](int64_t c) {
    return static_cast<double>(internal::fastExp(x[c * stride] - m));
  });
  return {m, std::log(sum)};
}

} // namespace

Status crossEntropy(const TensorView &logits, const TensorView &labels,
                    const CrossEntropyOptions &options, const TensorView &loss,
                    const TensorView *lse) {
  const char *name = "cross_entropy";
  CrossEntropyLayout layout;
  HETC_RETURN_IF_ERROR(prepare(name, logits, labels, options, &layout));
  HETC_RETURN_IF_ERROR(
      checkLossShape(name, loss, "loss", labels, options.reduction));
  HETC_RETURN_IF_ERROR(checkLse(name, lse, labels));
  const float *xp = logits.as<float>();
  float *lsep = lse ? lse->as<float>() : nullptr;
  int64_t rows = layout.rows();
  std::vector<double> rowLoss(rows);
  int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(layout.classes, 1));
  parallelFor(rows, grain, [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const float *x = xp + rowBase(layout, row);
      RowStats st = rowStats(x, layout.classes, layout.inner);
      if (lsep)
        lsep[row] = st.lse();
      int64_t label = labelAt(labels, row);
      // log(sum) - (x[label] - max): no rounding of max + log(sum) first.
      rowLoss[row] = label == options.ignoreIndex
                         ? 0.0
                         : st.logSum - (x[label * layout.inner] - st.max);
    }
  });
  float *out = loss.as<float>();
  if (options.reduction == LossReduction::kNone) {
    for (int64_t row = 0; row < rows; ++row)
      out[row] = static_cast<float>(rowLoss[row]);
    return okStatus();
  }
  double total = 0.0;
  int64_t counted = 0;
  for (int64_t row = 0; row < rows; ++row) {
    total += rowLoss[row];
    counted += labelAt(labels, row) != options.ignoreIndex;
  }
  if (options.reduction == LossReduction::kMean)
    total = counted == 0 ? std::numeric_limits<double>::quiet_NaN()
                         : total / static_cast<double>(counted);
  out[0] = static_cast<float>(total);
  return okStatus();
}

Status crossEntropyBackward(const TensorView &logits, const TensorView &labels,
                            const CrossEntropyOptions &options,
                            const TensorView &dloss, const TensorView *lse,
                            const TensorView &dlogits) {
  const char *name = "cross_entropy_backward";
  CrossEntropyLayout layout;
  HETC_RETURN_IF_ERROR(prepare(name, logits, labels, options, &layout));
  HETC_RETURN_IF_ERROR(
      checkLossShape(name, dloss, "dloss", labels, options.reduction));
  HETC_RETURN_IF_ERROR(checkLse(name, lse, labels));
  HETC_RETURN_IF_ERROR(checkDType(dlogits, DType::kF32, "dlogits"), name);
  HETC_RETURN_IF_ERROR(checkData(dlogits, "dlogits"), name);
  HETC_RETURN_IF_ERROR(checkShape(dlogits, logits.shape, "dlogits"), name);

  int64_t rows = layout.rows();
  const float *dl = dloss.as<float>();
  double shared = options.reduction == LossReduction::kNone ? 0.0 : dl[0];
  if (options.reduction == LossReduction::kMean) {
    int64_t counted = 0;
    for (int64_t row = 0; row < rows; ++row)
      counted += labelAt(labels, row) != options.ignoreIndex;
    shared = counted == 0 ? std::numeric_limits<double>::quiet_NaN()
                          : shared / static_cast<double>(counted);
  }
  const float *xp = logits.as<float>();
  const float *lsep = lse ? lse->as<float>() : nullptr;
  float *gp = dlogits.as<float>();
  int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(layout.classes, 1));
  parallelFor(rows, grain, [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      int64_t base = rowBase(layout, row), s = layout.inner;
      const float *x = xp + base;
      float *g = gp + base;
      int64_t label = labelAt(labels, row);
      if (label == options.ignoreIndex) {
        for (int64_t c = 0; c < layout.classes; ++c)
          g[c * s] = 0.0f;
        continue;
      }
      float w = static_cast<float>(
          options.reduction == LossReduction::kNone ? dl[row] : shared);
      // p = exp((x - max) - logSum); a saved lse stands for max + logSum.
      RowStats st = lsep ? RowStats{lsep[row], 0.0}
                         : rowStats(x, layout.classes, s);
      float logSum = static_cast<float>(st.logSum);
      for (int64_t c = 0; c < layout.classes; ++c)
        g[c * s] = w * internal::fastExp((x[c * s] - st.max) - logSum);
      g[label * s] =
          w * (internal::fastExp((x[label * s] - st.max) - logSum) - 1.0f);
    }
  });
  return okStatus();
}

} // namespace hetc::runtime::cpu
