//===- NormShape.h - row split and statistics of layer/RMS norm -*- C++ -*-===//

#ifndef HETC_RUNTIME_BASE_NORMSHAPE_H
#define HETC_RUNTIME_BASE_NORMSHAPE_H

#include "runtime/base/Tensor.h"

namespace hetc::runtime {

/// x as [rows, cols] split at `axis`; *paramShape is x's shape from `axis`
/// on (scale's and bias's). The normalized dimensions must not be empty.
/// x's dtype and data are the caller's.
Status splitNormRows(const TensorView &x, int64_t axis, int64_t *rows,
                     int64_t *cols, Shape *paramShape);

/// A per-row statistic (mean, rstd), when given, is f32 with `rows`
/// elements.
Status checkRowStat(const TensorView *t, int64_t rows, const char *what);

} // namespace hetc::runtime

#endif // HETC_RUNTIME_BASE_NORMSHAPE_H
