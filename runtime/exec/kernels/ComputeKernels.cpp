//===- ComputeKernels.cpp - every compute family of a backend -------------===//

#include "runtime/exec/kernels/Backend.h"

namespace hetc::runtime::exec::HETC_BACKEND_NAMESPACE {

void registerComputeKernels(KernelRegistry &registry) {
  registerElementwiseKernels(registry);
  registerLinalgKernels(registry);
  registerNormKernels(registry);
  registerDataMovementKernels(registry);
  registerOptimizerKernels(registry);
}

} // namespace hetc::runtime::exec::HETC_BACKEND_NAMESPACE
