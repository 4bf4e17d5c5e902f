//===- ClusterPlanning.cpp - planning a model for a cluster ---------------===//

#include "compiler/Driver/ClusterPlanning.h"

#include "compiler/Driver/SegmentProfile.h"

using namespace mlir;

namespace hetc::driver {

FailureOr<PlanningInput> preparePlanning(ModuleOp module, StringRef modelName,
                                         StringRef clusterPath,
                                         int64_t globalBatch, int64_t seq,
                                         bool adamw,
                                         ArrayRef<std::string> measuredPaths) {
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
  PlanningInput input{std::move(*cluster), std::move(*profile), {}, {}};
  input.request.globalBatch = globalBatch;
  for (const std::string &path : measuredPaths) {
    llvm::Expected<planner::MeasuredProfile> read =
        planner::readMeasuredProfileFile(path);
    if (!read)
      return module.emitError(llvm::toString(read.takeError()));
    if (read->seqLen() != seq ||
        read->numSegments() != input.profile.numSegments())
      return module.emitError()
             << path << ": measured '" << read->model() << "' at seq "
             << read->seqLen() << " with " << read->numSegments()
             << " segments, but " << modelName << " at --seq " << seq
             << " has " << input.profile.numSegments()
             << " segments: measure a run of this model at this --seq";
    if (!input.measured)
      input.measured = std::move(*read);
    else if (llvm::Error error = input.measured->merge(*read))
      return module.emitError(path + ": " + llvm::toString(std::move(error)));
  }
  return input;
}

planner::CostModel
PlanningInput::costModel(planner::PrecisionChoice precision) const {
  planner::CostModel cost(cluster, profile, precision);
  if (measured)
    cost.useMeasurements(*measured);
  return cost;
}

llvm::cl::ValuesClass optimizerFlagValues() {
  return llvm::cl::values(
      clEnumValN(OptimizerFlag::sgd, "sgd", "torch.optim.SGD"),
      clEnumValN(OptimizerFlag::adamw, "adamw", "torch.optim.AdamW"));
}

llvm::StringRef optimizerName(OptimizerFlag optimizer) {
  return optimizer == OptimizerFlag::sgd ? "sgd" : "adamw";
}

llvm::cl::ValuesClass shardingFlagValues() {
  return llvm::cl::values(
      clEnumValN(ShardingFlag::automatic, "auto",
                 "the faster that fits, per plan"),
      clEnumValN(ShardingFlag::optimizer, "optimizer",
                 "optimizer state and reduced gradients sharded (ZeRO-2)"),
      clEnumValN(ShardingFlag::full, "full",
                 "parameters too, gathered around every call (FSDP-style)"));
}

std::optional<planner::ShardingKind> shardingChoice(ShardingFlag flag) {
  switch (flag) {
  case ShardingFlag::optimizer:
    return planner::ShardingKind::Optimizer;
  case ShardingFlag::full:
    return planner::ShardingKind::Full;
  case ShardingFlag::automatic:
    break;
  }
  return std::nullopt;
}

llvm::cl::ValuesClass precisionFlagValues() {
  return llvm::cl::values(
      clEnumValN(PrecisionFlag::f32, "f32", "float32 throughout"),
      clEnumValN(PrecisionFlag::bf16, "bf16", "bfloat16 compute"),
      clEnumValN(PrecisionFlag::f16, "f16", "float16 compute, loss scaling"),
      clEnumValN(PrecisionFlag::automatic, "auto",
                 "per stage, bf16 where its GPUs have it, else f16"));
}

planner::PrecisionChoice precisionChoice(PrecisionFlag flag) {
  switch (flag) {
  case PrecisionFlag::f32: return planner::Precision::F32;
  case PrecisionFlag::bf16: return planner::Precision::BF16;
  case PrecisionFlag::f16: return planner::Precision::F16;
  case PrecisionFlag::automatic: break;
  }
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
