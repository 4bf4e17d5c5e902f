//===- Stream.h - the stream a thread's CUDA kernels go on ------*- C++ -*-===//
//
// runtime/cuda declares the same kernels as runtime/cpu with the same
// signatures; the data pointers of their TensorViews are device pointers of
// the current device. A kernel enqueues its work on the calling thread's
// current stream and returns without waiting: the caller synchronizes.
// Kernels never synchronize and, after their first call with a given shape,
// never allocate, so a step can be captured as a CUDA graph. Each rank's
// thread sets its own stream (ranks as threads share nothing).
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CUDA_STREAM_H
#define HETC_RUNTIME_CUDA_STREAM_H

#include "runtime/base/Status.h"

#include <cuda_runtime_api.h>

namespace hetc::runtime::cuda {

/// The calling thread's current stream (the legacy default stream until
/// set).
cudaStream_t currentStream();
void setCurrentStream(cudaStream_t stream);

/// OK for cudaSuccess; otherwise INTERNAL (RESOURCE_EXHAUSTED for an
/// allocation failure) "<what>: <cudaErrorName>: <description>".
Status cudaStatus(cudaError_t error, const char *what);

/// The status of the last launch on this thread (cudaGetLastError), named
/// after `kernel`.
Status launchStatus(const char *kernel);

/// The CUDA devices this process sees; 0, not an error, on machines without
/// a GPU or driver.
int cudaDeviceCount();

/// Whether the process sees at least one CUDA device.
bool cudaDeviceAvailable();

/// Device `ordinal`'s compute capability as 10 * major + minor (90 for
/// Hopper), read once per device; 0 when it cannot be read.
int computeCapability(int ordinal);
/// The current device's: kernels pick their path by it.
int currentComputeCapability();

} // namespace hetc::runtime::cuda

#define HETC_CUDA_RETURN_IF_ERROR(call)                                        \
  do {                                                                         \
    cudaError_t hetc_cuda_error_ = (call);                                     \
    if (hetc_cuda_error_ != cudaSuccess)                                       \
      return ::hetc::runtime::cuda::cudaStatus(hetc_cuda_error_, #call);       \
  } while (false)

#endif // HETC_RUNTIME_CUDA_STREAM_H
