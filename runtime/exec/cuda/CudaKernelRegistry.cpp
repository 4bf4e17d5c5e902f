//===- CudaKernelRegistry.cpp - the kernels of the CUDA backend -----------===//

#include "runtime/exec/KernelRegistry.h"

namespace hetc::runtime::exec {

const KernelRegistry &cudaKernelRegistry() {
  static const KernelRegistry registry =
      makeKernelRegistry(cuda_backend::registerComputeKernels);
  return registry;
}

} // namespace hetc::runtime::exec
