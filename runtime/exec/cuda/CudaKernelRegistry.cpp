//===- CudaKernelRegistry.cpp - the kernels of the CUDA backend -----------===//

#include "runtime/exec/KernelRegistry.h"

namespace hetc::runtime::exec {

const KernelRegistry &cudaKernelRegistry() {
  static const KernelRegistry registry =
      makeKernelRegistry([](KernelRegistry &r) {
        cuda_backend::registerElementwiseKernels(r);
        cuda_backend::registerLinalgKernels(r);
        cuda_backend::registerNormKernels(r);
        cuda_backend::registerDataMovementKernels(r);
        cuda_backend::registerOptimizerKernels(r);
      });
  return registry;
}

} // namespace hetc::runtime::exec
