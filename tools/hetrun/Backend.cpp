//===- Backend.cpp --------------------------------------------------------===//

#include "tools/hetrun/Backend.h"

#ifdef HETC_HAVE_CUDA
#include "runtime/exec/cuda/CudaJob.h"
#endif

#include <cstdlib>

namespace hetc::hetrun {
namespace {

#ifdef HETC_HAVE_CUDA
// The process's rank among those of its node, from the launcher's
// environment (Open MPI, Slurm, MPICH); -1 when none says.
int nodeLocal(const char *const names[], int count) {
  for (int i = 0; i < count; ++i)
    if (const char *value = std::getenv(names[i]))
      return std::atoi(value);
  return -1;
}
#endif

} // namespace

runtime::Status configureBackend(const HetrunOptions &options,
                                 const runtime::exec::LoadedPackage &package,
                                 bool perProcess,
                                 runtime::exec::JobOptions *jobOptions,
                                 std::vector<std::string> *layout) {
  if (options.backend != "cuda")
    return runtime::okStatus();
#ifdef HETC_HAVE_CUDA
  runtime::exec::CudaJobSettings settings;
  settings.shareGpu = options.shareGpu;
  settings.graphs = options.cudaGraphs;
  if (perProcess) {
    static const char *const kLocalRank[] = {
        "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"};
    static const char *const kLocalSize[] = {
        "OMPI_COMM_WORLD_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE",
        "MPI_LOCALNRANKS"};
    settings.localRank = std::max(0, nodeLocal(kLocalRank, 3));
    settings.localSize = std::max(1, nodeLocal(kLocalSize, 3));
  }
  return runtime::exec::configureCudaJob(package, settings, jobOptions, layout);
#else
  return runtime::unimplemented("--backend cuda: this hetrun was built "
                                "without CUDA (nvcc was not found)");
#endif
}

} // namespace hetc::hetrun
