//===- CudaDevice.h - ranks on a GPU ----------------------------*- C++ -*-===//
//
// A rank on a GPU: its arena in device memory, its kernels (runtime/cuda)
// enqueued on its own stream, each span of compute launches captured as a
// CUDA graph on its second run and replayed from then on. Several ranks may
// share one GPU, each in its own SM partition (GreenContexts.h) and under a
// memory cap, to emulate a heterogeneous cluster on one GPU.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_CUDA_CUDADEVICE_H
#define HETC_RUNTIME_EXEC_CUDA_CUDADEVICE_H

#include "runtime/exec/Device.h"
#include "runtime/exec/cuda/GreenContexts.h"

#include <memory>

namespace hetc::runtime::exec {

struct CudaDeviceOptions {
  /// The CUDA device ordinal.
  int ordinal = 0;
  /// The rank's SMs: group `partition` of `partitions`; null: the whole GPU.
  std::shared_ptr<const SmPartitions> partitions;
  int partition = 0;
  /// Bytes the rank may allocate (arena and scratch); 0: no cap.
  int64_t memoryCap = 0;
  /// Replay each span as a CUDA graph from its second run on.
  bool graphs = true;
};

/// A GPU device; call it on the rank's thread (it is bound there).
Status createCudaDevice(const CudaDeviceOptions &options,
                        std::unique_ptr<Device> *device);

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_CUDA_CUDADEVICE_H
