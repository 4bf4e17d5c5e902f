//===- OptimizerChecks.h - operand checks of the optimizers -----*- C++ -*-===//

#ifndef HETC_RUNTIME_BASE_OPTIMIZERCHECKS_H
#define HETC_RUNTIME_BASE_OPTIMIZERCHECKS_H

#include "runtime/base/Tensor.h"

namespace hetc::runtime {

/// global_norm's output is a 0-D f32 or f64 tensor with data.
Status checkGlobalNormOut(const TensorView &out);

} // namespace hetc::runtime

#endif // HETC_RUNTIME_BASE_OPTIMIZERCHECKS_H
