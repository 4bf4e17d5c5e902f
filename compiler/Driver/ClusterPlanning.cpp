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

DeviceMemorySpec memoryOf(const planner::Cluster &cluster) {
  DeviceMemorySpec memory;
  for (const planner::Device &device : cluster.devices)
    memory.byDevice[device.name] = device.gpu.memoryBytes();
  return memory;
}

} // namespace hetc::driver
