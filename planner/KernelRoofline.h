//===- KernelRoofline.h - the roofline per op of a GPU type -----*- C++ -*-===//
//
// Where no measurement covers a call, the cost model times each op kind of
// it by a roofline per op (docs/planner.md, "Compute"): a fixed time per
// launch, then the longer of the kind's FLOPs at a fraction of the
// precision's peak and its bytes over the memory bandwidth. The two
// figures have defaults for every GPU and are fitted to the kernel kinds
// a measured profile records for the type.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PLANNER_KERNELROOFLINE_H
#define HETC_PLANNER_KERNELROOFLINE_H

#include "planner/Cluster.h"
#include "planner/MeasuredProfile.h"

#include "llvm/ADT/ArrayRef.h"

namespace hetc::planner {

/// Peak FLOP/s computing in `precision`: the tensor rate where the GPU has
/// one, else the f32 rate (bf16 and f16 kernels compute in f32).
double peakFlopsIn(const GpuSpec &gpu, Precision precision);

struct KernelRoofline {
  /// The fraction of the precision's peak a large kernel reaches (cuBLAS's
  /// GEMMs reach 70-90% on large shapes).
  double efficiency = 0.8;
  /// Each launch's fixed time: its launch, and the ramp-up and tail of its
  /// waves, which makes small calls inefficient.
  double launchSeconds = 4e-6;

  /// `launches` ops sharing `flops` and `bytes` (bytes in the precision's
  /// width) on `gpu` in `precision`.
  double seconds(const GpuSpec &gpu, Precision precision, double flops,
                 double bytes, int64_t launches) const;
};

/// The figures that best time `kernels` (measured on `gpu`'s type, each
/// with its launches, FLOPs, bytes and seconds): least squares on the
/// relative error of each one's seconds. `kernels` with no time keep the
/// defaults.
KernelRoofline fitKernelRoofline(const GpuSpec &gpu,
                                 llvm::ArrayRef<MeasuredKernel> kernels);

} // namespace hetc::planner

#endif // HETC_PLANNER_KERNELROOFLINE_H
