//===- HostDevice.h - code for both the host and CUDA devices --*- C++ -*-===//
//
// Inline functions marked HETC_HOST_DEVICE compile for the host and for CUDA
// devices under nvcc, and as plain C++ elsewhere: one definition of a rule
// that the CPU kernels, the CUDA kernels and the host all apply.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_BASE_HOSTDEVICE_H
#define HETC_RUNTIME_BASE_HOSTDEVICE_H

#if defined(__CUDACC__)
#define HETC_HOST_DEVICE __host__ __device__
#else
#define HETC_HOST_DEVICE
#endif

#endif // HETC_RUNTIME_BASE_HOSTDEVICE_H
