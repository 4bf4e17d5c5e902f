//===- CudaJob.cpp --------------------------------------------------------===//

#include "runtime/exec/cuda/CudaJob.h"

#include "runtime/comm/NcclCommunicator.h"
#include "runtime/comm/StagedCommunicator.h"
#include "runtime/cuda/Stream.h"
#include "runtime/exec/cuda/CudaDevice.h"

namespace hetc::runtime::exec {
namespace {

// How each local rank crosses ranks.
enum class Crossing { kNccl, kStaged };

// The ordinal of rank `rank`'s GPU.
int gpuOf(const CudaJobSettings &settings, int rank, int gpus) {
  if (settings.shareGpu)
    return 0;
  return settings.localRank >= 0 ? settings.localRank % gpus : rank;
}

// Every rank this process runs has a GPU that can compute in its precision.
Status checkPrecisions(const LoadedPackage &package,
                       const CudaJobSettings &settings, int gpus) {
  for (int rank = 0; rank < package.manifest.ranks_size(); ++rank) {
    if (settings.localRank >= 0 && rank != settings.localRank)
      continue;
    int gpu = gpuOf(settings, rank, gpus);
    HETC_RETURN_IF_ERROR(checkBf16Support(package.programs[rank], rank, gpu,
                                          cuda::computeCapability(gpu)));
  }
  return okStatus();
}

} // namespace

Status checkBf16Support(const hetc::pkg::Program &program, int rank, int gpu,
                        int capability) {
  if (capability <= 0 || capability >= 80)
    return okStatus();
  for (const hetc::pkg::Buffer &buffer : program.buffers())
    if (buffer.dtype() == hetc::pkg::BF16)
      return failedPrecondition(
          "--backend cuda: rank ", rank, " computes in bf16, which needs a GPU "
          "of compute capability 8.0 or newer (Ampere); GPU ", gpu, " is ",
          capability / 10, ".", capability % 10,
          ": compile with --precision f16 (or --precision auto and a "
          "--cluster that names this GPU)");
  return okStatus();
}

Status configureCudaJob(const LoadedPackage &package,
                        const CudaJobSettings &settings, JobOptions *options,
                        std::vector<std::string> *layout) {
  int gpus = cuda::cudaDeviceCount();
  if (gpus == 0)
    return failedPrecondition("--backend cuda: this machine has no CUDA "
                              "device (or no driver); use --backend cpu");
  const hetc::pkg::Manifest &manifest = package.manifest;
  int ranks = manifest.ranks_size();
  bool perProcess = settings.localRank >= 0;
  int ranksHere = perProcess ? settings.localSize : ranks;
  if (!settings.shareGpu && ranksHere > gpus)
    return failedPrecondition(
        "--backend cuda: ", ranksHere, " ranks run on this ",
        perProcess ? "node" : "process", " but it has ", gpus,
        " GPU(s); give each rank a GPU, or run them all on GPU 0 with "
        "--share-gpu");

  HETC_RETURN_IF_ERROR(checkPrecisions(package, settings, gpus));

  std::shared_ptr<const SmPartitions> partitions;
  if (settings.shareGpu && !perProcess) {
    std::vector<double> peaks;
    for (const hetc::pkg::RankInfo &rank : manifest.ranks())
      peaks.push_back(rank.device_peak_tflops());
    HETC_RETURN_IF_ERROR(SmPartitions::create(0, peaks, &partitions),
                         "--share-gpu");
  }
  // NCCL needs a GPU of its own per rank; ranks sharing one (threads with
  // --share-gpu, or more processes than GPUs on a node) stage instead.
  Crossing crossing = settings.shareGpu ? Crossing::kStaged : Crossing::kNccl;

  options->makeDevice = [&package, settings, gpus,
                         partitions](int rank, std::unique_ptr<Device> *device) {
    CudaDeviceOptions deviceOptions;
    deviceOptions.ordinal = gpuOf(settings, rank, gpus);
    deviceOptions.graphs = settings.graphs;
    if (settings.shareGpu) {
      deviceOptions.partitions = partitions;
      deviceOptions.partition = rank;
      deviceOptions.memoryCap =
          package.manifest.ranks(rank).device_memory_bytes();
    }
    return createCudaDevice(deviceOptions, device);
  };
  if (ranks > 1)
    options->makeCommunicator =
        [crossing, settings, gpus](
            comm::Communicator &bootstrap, Device &,
            std::unique_ptr<comm::Communicator> *communicator) -> Status {
      if (crossing == Crossing::kStaged) {
        *communicator = comm::createStagedCommunicator(bootstrap);
        return okStatus();
      }
      // The device is bound: its stream is the thread's current one, so
      // NCCL's work is ordered with the rank's kernels.
      return comm::createNcclCommunicator(
          bootstrap, gpuOf(settings, bootstrap.rank(), gpus),
          cuda::currentStream(), communicator);
    };

  layout->clear();
  for (int rank = 0; rank < ranks; ++rank) {
    if (perProcess && rank != settings.localRank)
      continue;
    std::string line = "rank " + std::to_string(rank) + ": GPU " +
                       std::to_string(gpuOf(settings, rank, gpus));
    if (partitions)
      line += ", " + std::to_string(partitions->smCount(rank)) + " of " +
              std::to_string(partitions->totalSms()) + " SMs";
    if (settings.shareGpu &&
        manifest.ranks(rank).device_memory_bytes() > 0)
      line += ", memory cap " +
              std::to_string(manifest.ranks(rank).device_memory_bytes()) +
              " bytes";
    line += crossing == Crossing::kNccl ? ", NCCL" : ", host-staged messages";
    layout->push_back(line);
  }
  return okStatus();
}

} // namespace hetc::runtime::exec
