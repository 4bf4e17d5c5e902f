//===- Backend.h - which kernel library the adapters call -------*- C++ -*-===//
//
// The adapters (kernels/*Kernels.cpp) read an instruction's attributes and
// call a kernel library. runtime/cpu and runtime/cuda declare the same
// functions, so each adapter file is compiled once per backend: with
// HETC_ADAPTERS_FOR_CUDA it calls runtime/cuda and registers into
// exec::cuda_backend, otherwise runtime/cpu and exec::cpu_backend. Within
// an adapter file `kernels::` names the backend's library.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_KERNELS_BACKEND_H
#define HETC_RUNTIME_EXEC_KERNELS_BACKEND_H

#ifdef HETC_ADAPTERS_FOR_CUDA
#include "runtime/cuda/Kernels.h"
#define HETC_BACKEND_NAMESPACE cuda_backend
namespace hetc::runtime::exec::cuda_backend {
namespace kernels = ::hetc::runtime::cuda;
} // namespace hetc::runtime::exec::cuda_backend
#else
#include "runtime/cpu/Kernels.h"
#define HETC_BACKEND_NAMESPACE cpu_backend
namespace hetc::runtime::exec::cpu_backend {
namespace kernels = ::hetc::runtime::cpu;
} // namespace hetc::runtime::exec::cpu_backend
#endif

#include "runtime/exec/KernelRegistry.h"

namespace hetc::runtime::exec::HETC_BACKEND_NAMESPACE {

/// The families, one adapter file each; registerComputeKernels
/// (ComputeKernels.cpp) adds them all.
void registerElementwiseKernels(KernelRegistry &registry);
void registerLinalgKernels(KernelRegistry &registry);
void registerNormKernels(KernelRegistry &registry);
void registerDataMovementKernels(KernelRegistry &registry);
void registerOptimizerKernels(KernelRegistry &registry);

} // namespace hetc::runtime::exec::HETC_BACKEND_NAMESPACE

#endif // HETC_RUNTIME_EXEC_KERNELS_BACKEND_H
