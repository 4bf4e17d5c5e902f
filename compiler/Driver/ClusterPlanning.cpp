//===- ClusterPlanning.cpp - planning a model for a cluster ---------------===//

#include "compiler/Driver/ClusterPlanning.h"

#include "compiler/Driver/SegmentProfile.h"

using namespace mlir;

namespace hetc::driver {

FailureOr<PlanningInput> preparePlanning(ModuleOp module, StringRef modelName,
                                         StringRef clusterPath,
                                         int64_t globalBatch, int64_t seq,
                                         bool adamw) {
  llvm::Expected<planner::Cluster> cluster =
      planner::readClusterFile(clusterPath);
  if (!cluster)
    return module.emitError(llvm::toString(cluster.takeError()));
  OwningOpRef<ModuleOp> copy = module.clone();
  if (failed(segmentModel(*copy, /*batch=*/1, seq)))
    return failure();
  FailureOr<planner::ModelProfile> profile =
      readModelProfile(*copy, modelName, seq);
  if (failed(profile))
    return failure();
  profile->optimizerStatePerParameterByte = adamw ? 2 : 0;
  PlanningInput input{std::move(*cluster), std::move(*profile), {}};
  input.request.globalBatch = globalBatch;
  return input;
}

std::optional<planner::PrecisionChoice>
parsePrecisionFlag(llvm::StringRef text) {
  if (text == "auto")
    return planner::PrecisionChoice();
  if (std::optional<planner::Precision> fixed = planner::parsePrecision(text))
    return planner::PrecisionChoice(*fixed);
  return std::nullopt;
}

void assignPrecision(planner::Plan &plan, planner::PrecisionChoice choice,
                     const planner::Cluster *cluster) {
  for (planner::Stage &stage : plan.stages) {
    if (stage.precision)
      continue;
    if (choice || !cluster) {
      stage.precision = choice.value_or(planner::Precision::BF16);
      continue;
    }
    std::vector<const planner::GpuSpec *> gpus;
    for (const planner::Replica &replica : stage.replicas)
      if (int device = cluster->deviceIndex(replica.device); device >= 0)
        gpus.push_back(&cluster->devices[device].gpu);
    stage.precision = planner::lowPrecisionFor(gpus);
  }
}

DeviceMemorySpec memoryOf(const planner::Cluster &cluster) {
  DeviceMemorySpec memory;
  for (const planner::Device &device : cluster.devices)
    memory.byDevice[device.name] = device.gpu.memoryBytes();
  return memory;
}

} // namespace hetc::driver
