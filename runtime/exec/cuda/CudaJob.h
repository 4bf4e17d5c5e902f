//===- CudaJob.h - a job's ranks on GPUs ------------------------*- C++ -*-===//
//
// Where each rank of a job runs on the GPUs and how its launches cross
// ranks:
//   - ranks as threads of one process (hetrun alone): rank r on GPU r, NCCL
//     between them, bootstrapped over the in-process world;
//   - one rank per process (mpirun): the process's node-local rank picks
//     its GPU; NCCL bootstrapped over MPI;
//   - --share-gpu: every local rank on GPU 0, each in its own green context
//     with a share of the SMs in proportion to its planned device's peak
//     (equal shares when the package does not know the peaks) and capped
//     at its planned device's memory; messages staged through the host
//     (NCCL refuses two ranks on one GPU). This emulates a heterogeneous
//     cluster on one GPU.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_CUDA_CUDAJOB_H
#define HETC_RUNTIME_EXEC_CUDA_CUDAJOB_H

#include "runtime/exec/Job.h"

#include <string>
#include <vector>

namespace hetc::runtime::exec {

struct CudaJobSettings {
  /// Every local rank on GPU 0, in SM partitions (see above).
  bool shareGpu = false;
  /// Replay the step's spans as CUDA graphs.
  bool graphs = true;
  /// One rank per process: this process's rank among those of its node
  /// and their count; -1: ranks as threads of this process.
  int localRank = -1;
  int localSize = 0;
};

/// Fills options->makeDevice and options->makeCommunicator for running
/// `package`'s ranks on GPUs, and describes the layout in `*layout` (one
/// line per rank). FAILED_PRECONDITION without a GPU, or with fewer GPUs
/// than ranks and no --share-gpu.
Status configureCudaJob(const LoadedPackage &package,
                        const CudaJobSettings &settings, JobOptions *options,
                        std::vector<std::string> *layout);

/// FAILED_PRECONDITION when rank `rank`'s `program` computes in bf16 on GPU
/// `gpu` of compute capability `capability` (10 * major + minor) below 8.0,
/// where cuBLASLt has no bf16 products; configureCudaJob checks every rank.
Status checkBf16Support(const hetc::pkg::Program &program, int rank, int gpu,
                        int capability);

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_CUDA_CUDAJOB_H
