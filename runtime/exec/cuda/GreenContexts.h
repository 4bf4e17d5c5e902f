//===- GreenContexts.h - SM partitions of one GPU ---------------*- C++ -*-===//
//
// Ranks that share one GPU (hetrun --share-gpu) each get a disjoint set of
// its SMs through a CUDA green context, so that a heterogeneous plan runs
// for real on one GPU: a rank with a third of the SMs computes like a GPU a
// third as fast. The green context API is the driver's; it is reached
// through cudaGetDriverEntryPointByVersion, so that nothing links libcuda
// and hetrun still starts on machines without a driver.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_CUDA_GREENCONTEXTS_H
#define HETC_RUNTIME_EXEC_CUDA_GREENCONTEXTS_H

#include "runtime/base/Status.h"

#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

namespace hetc::runtime::exec {

/// A green context over one partition, with a stream in it. Move-only.
class GreenContext {
public:
  GreenContext() = default;
  ~GreenContext();
  GreenContext(GreenContext &&other) noexcept;
  GreenContext &operator=(GreenContext &&other) noexcept;

  /// Makes the context current on the calling thread (runtime API calls
  /// then run in it).
  Status makeCurrent() const;
  cudaStream_t stream() const { return stream_; }
  int smCount() const { return smCount_; }

private:
  friend class SmPartitions;
  void reset();

  void *green_ = nullptr;   // CUgreenCtx
  void *context_ = nullptr; // CUcontext of the green context
  cudaStream_t stream_ = nullptr;
  int smCount_ = 0;
};

/// `totalSms` split in proportion to `weights` (equal shares unless every
/// weight is > 0): each share a multiple of `alignment` and at least
/// `minimum`, their sum at most `totalSms` where that is possible.
std::vector<int> smShares(int totalSms, const std::vector<double> &weights,
                          int minimum, int alignment);

/// Disjoint groups of one GPU's SMs.
class SmPartitions {
public:
  /// Splits GPU `ordinal`'s SMs into one group per weight, in proportion
  /// to the weights (smShares, at the GPU's partition granularity).
  /// RESOURCE_EXHAUSTED when the groups do not fit; UNIMPLEMENTED when the
  /// driver has no green contexts (they need CUDA 12.5 or later).
  static Status create(int ordinal, const std::vector<double> &weights,
                       std::shared_ptr<const SmPartitions> *partitions);

  ~SmPartitions();
  int size() const { return static_cast<int>(groups_.size()); }
  /// Every SM of the GPU.
  int totalSms() const { return totalSms_; }
  /// The SMs asked of group `index` (the driver may round them up).
  int smCount(int index) const { return counts_.at(index); }

  /// A green context over group `index` and a non-blocking stream in it.
  Status createContext(int index, GreenContext *context) const;

private:
  SmPartitions() = default;

  int ordinal_ = 0;
  int totalSms_ = 0;
  std::vector<int> counts_;
  std::vector<std::vector<unsigned char>> groups_; // CUdevResource[] bytes
};

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_CUDA_GREENCONTEXTS_H
