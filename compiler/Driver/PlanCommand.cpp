//===- PlanCommand.cpp - hetc plan ----------------------------------------===//
//
// Chooses a plan for a model on a cluster and shows it: one row per rank
// (stage, device, segments, batch share, micro-batch, state shard, memory
// used and free, predicted busy time), the predicted throughput, and the
// same figure for each baseline strategy. The plan is written as JSON for
// `hetc compile --plan`; the simulated step as a Chrome trace on request.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/ClusterPlanning.h"
#include "compiler/Driver/Commands.h"
#include "compiler/Driver/Diagnostics.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Driver/InitializerSelection.h"
#include "compiler/Driver/OutputFile.h"
#include "compiler/Import/ONNX/ONNXImporter.h"
#include "passes/Passes.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace mlir;
namespace cl = llvm::cl;

namespace hetc::driver {

namespace {

cl::SubCommand planSubcommand(
    "plan", "Choose how to train a model on a cluster: stages, devices, "
            "batch shares, micro-batches and state shards");

cl::OptionCategory planCategory("hetc plan options");

cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                               cl::sub(planSubcommand), cl::cat(planCategory),
                               cl::desc("<MODEL.onnx | MODEL.onnxtxt>"));

cl::list<std::string> measuredProfilePaths(
    "profile", cl::sub(planSubcommand), cl::cat(planCategory), cl::CommaSeparated,
    cl::value_desc("PROFILE.json[,PROFILE.json...]"),
    cl::desc("Time the planner's calls by these measured profiles (hetc "
             "measure) where they cover them: device type, precision and "
             "every segment"));

cl::opt<std::string> clusterPath(
    "cluster", cl::sub(planSubcommand), cl::cat(planCategory), cl::Required,
    cl::value_desc("CLUSTER.yaml"),
    cl::desc("The machines (models/clusters/README.md)"));

cl::opt<int64_t> globalBatch("global-batch", cl::sub(planSubcommand),
                             cl::cat(planCategory), cl::Required,
                             cl::value_desc("B"),
                             cl::desc("Samples per training step"));

cl::opt<int64_t> seqLength("seq", cl::sub(planSubcommand),
                           cl::cat(planCategory), cl::Required,
                           cl::value_desc("T"), cl::desc("Tokens per sample"));

cl::opt<std::string> outputPath(
    "o", cl::sub(planSubcommand), cl::cat(planCategory),
    cl::value_desc("PLAN.json"),
    cl::desc("Write the plan here (docs/plan-format.md)"));

cl::opt<std::string> strategyName(
    "strategy", cl::sub(planSubcommand), cl::cat(planCategory),
    cl::init("search"),
    cl::value_desc("search|uniform|dp-uneven|stages-proportional"),
    cl::desc("How to choose the plan (default search; the others are the "
             "baselines it is compared with)"));

cl::opt<OptimizerFlag> optimizerFlag(
    "optimizer", cl::sub(planSubcommand), cl::cat(planCategory),
    cl::init(OptimizerFlag::adamw), optimizerFlagValues(),
    cl::desc("The optimizer whose state the plan must hold (default adamw)"));

cl::opt<PrecisionFlag> precisionFlag(
    "precision", cl::sub(planSubcommand), cl::cat(planCategory),
    cl::init(PrecisionFlag::f32), precisionFlagValues(),
    cl::desc("What the stages compute in (as hetc compile --precision): "
             "bf16 and f16 halve activation memory and use the GPUs' tensor "
             "rates; auto: bf16 where all of a stage's GPUs have it, else f16 "
             "(default f32)"));

cl::opt<ShardingFlag> shardingFlag(
    "sharding", cl::sub(planSubcommand), cl::cat(planCategory),
    cl::init(ShardingFlag::automatic), shardingFlagValues(),
    cl::desc("What of a stage's state its replicas shard (default auto: the "
             "search tries both; the baselines shard the optimizer state "
             "unless this says full)"));

cl::opt<bool> noOffload(
    "no-offload", cl::sub(planSubcommand), cl::cat(planCategory),
    cl::desc("Keep every stage's optimizer state on its devices (by default "
             "a stage that does not fit otherwise may keep it in host memory "
             "and update it there)"));

cl::opt<std::string> givenPlanPath(
    "plan", cl::sub(planSubcommand), cl::cat(planCategory),
    cl::value_desc("PLAN.json"),
    cl::desc("Predict this plan (docs/plan-format.md) instead of choosing "
             "one: its step, table and links, without baselines"));

cl::opt<std::string> tracePath(
    "trace", cl::sub(planSubcommand), cl::cat(planCategory),
    cl::value_desc("TRACE.json"),
    cl::desc("Write the simulated step as a Chrome trace (opens in Perfetto)"));

InitializerSelectionFlags initializerFlags(planSubcommand, planCategory);

constexpr llvm::StringLiteral kPrefix = "hetc plan: ";

int usageError(const Twine &message) {
  llvm::errs() << kPrefix << message << "\n";
  return kExitUsage;
}

int failure(const Twine &message) {
  llvm::errs() << kPrefix << "error: " << message << "\n";
  return kExitFailure;
}

/// GB for device-sized figures, MB below one GB (tiny models).
std::string gigabytes(int64_t bytes) {
  if (bytes >= 1e9 || bytes <= -1e9)
    return llvm::formatv("{0:f2} GB", bytes / 1e9).str();
  return llvm::formatv("{0:f2} MB", bytes / 1e6).str();
}

void printPlanTable(const planner::Plan &plan,
                    const planner::SimulationResult &predicted,
                    const planner::Cluster &cluster) {
  llvm::raw_ostream &os = llvm::outs();
  os << llvm::format("%4s %5s  %-24s %-10s %-9s %-9s %6s %6s %10s %21s "
                     "%10s %9s %9s\n",
                     "rank", "stage", "device", "segments", "precision",
                     "samples", "micro", "shard", "memory", "free",
                     "compute ms", "comm ms", "idle ms");
  for (int64_t rank = 0; rank < plan.numRanks(); ++rank) {
    auto [s, r] = plan.stageAndReplicaOf(rank);
    const planner::Stage &stage = plan.stages[s];
    const planner::Replica &replica = stage.replicas[r];
    int device = cluster.deviceIndex(replica.device);
    int64_t capacity = device >= 0 ? cluster.devices[device].gpu.memoryBytes()
                                   : 0;
    int64_t used = predicted.peakMemoryBytes[rank];
    std::string segments = llvm::formatv(
        "[{0}, {1}){2}{3}", stage.firstSegment, stage.endSegment,
        stage.recompute ? " rc" : "", stage.offloadOptimizer ? " offload" : "");
    std::string samples = llvm::formatv("[{0}, {1})", replica.firstSample,
                                        replica.firstSample +
                                            replica.numSamples);
    std::string precision =
        planner::precisionName(
            stage.precision.value_or(planner::Precision::F32))
            .str();
    os << llvm::format("%4lld %5lld  %-24s %-10s %-9s %-9s %6lld %6.3f %10s "
                       "%21s %10.3f %9.3f %9.3f\n",
                       (long long)rank, (long long)s, replica.device.c_str(),
                       segments.c_str(), precision.c_str(), samples.c_str(),
                       (long long)replica.microBatch, replica.shard,
                       gigabytes(used).c_str(),
                       (gigabytes(capacity - used) + " of " +
                        gigabytes(capacity))
                           .c_str(),
                       predicted.computeSeconds[rank] * 1e3,
                       predicted.communicationSeconds[rank] * 1e3,
                       predicted.idleSeconds[rank] * 1e3);
  }
}

/// "idle devices: 8 of 24 (west: 4 x A10G-24GB, east: 4 x L4)": the
/// cluster's devices the plan leaves out, counted per node and type.
void printIdleDevices(const planner::Plan &plan,
                      const planner::Cluster &cluster) {
  std::vector<bool> used(cluster.devices.size(), false);
  for (const planner::Stage &stage : plan.stages)
    for (const planner::Replica &replica : stage.replicas) {
      int device = cluster.deviceIndex(replica.device);
      if (device >= 0)
        used[device] = true;
    }
  // Runs of one node and type, in the cluster's order.
  struct Group {
    std::string node, type;
    int count = 0;
  };
  std::vector<Group> groups;
  int64_t idle = 0;
  for (size_t d = 0; d < cluster.devices.size(); ++d) {
    if (used[d])
      continue;
    ++idle;
    const planner::Device &device = cluster.devices[d];
    const std::string &node = cluster.nodes[device.node].name;
    if (groups.empty() || groups.back().node != node ||
        groups.back().type != device.gpu.type)
      groups.push_back({node, device.gpu.type, 0});
    ++groups.back().count;
  }
  if (idle == 0)
    return;
  constexpr size_t kShown = 8;
  std::string listed;
  for (size_t g = 0; g < groups.size() && g < kShown; ++g)
    listed += llvm::formatv("{0}{1}: {2} x {3}", g ? ", " : "", groups[g].node,
                            groups[g].count, groups[g].type)
                  .str();
  if (groups.size() > kShown)
    listed += llvm::formatv(", and {0} more", groups.size() - kShown).str();
  llvm::outs() << "idle devices: " << idle << " of " << cluster.devices.size()
               << " (" << listed
               << "): the plan is predicted faster without them\n";
}

/// Which of the cluster's links `link` is: "between datacenters", "between
/// datacenters A and B", "between nodes" or "inside node NAME".
std::string describeLink(const planner::Cluster &cluster,
                         const planner::Link *link) {
  if (link == &cluster.interDatacenter)
    return "between datacenters";
  for (const planner::DatacenterPair &pair : cluster.datacenterPairs)
    if (link == &pair.link)
      return "between datacenters " + pair.first + " and " + pair.second;
  if (link == &cluster.interNode)
    return "between nodes";
  for (const planner::Node &node : cluster.nodes)
    if (link == &node.intraNode)
      return "inside node " + node.name;
  return "unknown";
}

/// "busiest link: between datacenters (wan, 1.25 GB/s, 5000 us): 41.2 ms of
/// transfers a step (all ranks), 83% of them".
void printBusiestLink(const planner::SimulationResult &predicted,
                      const planner::Cluster &cluster) {
  if (predicted.linkUses.empty())
    return;
  double total = 0;
  for (const planner::LinkUse &use : predicted.linkUses)
    total += use.seconds;
  const planner::LinkUse &busiest = predicted.linkUses.front();
  llvm::outs() << llvm::formatv(
      "busiest link: {0} ({1}, {2} GB/s, {3} us): {4:f3} ms of transfers a "
      "step (all ranks), {5:f0}% of them\n",
      describeLink(cluster, busiest.link), busiest.link->kind,
      busiest.link->bandwidthGBps, busiest.link->latencyUs,
      busiest.seconds * 1e3, 100 * busiest.seconds / total);
  // The shared part that transfers wait for most (docs/planner.md,
  // "Communication"): the step is never shorter than its time.
  if (!predicted.busiestChannel.empty())
    llvm::outs() << llvm::formatv(
        "busiest channel: {0}: {1:f3} ms of the {2:f3} ms step ({3:f0}%)\n",
        predicted.busiestChannel, predicted.busiestChannelSeconds * 1e3,
        predicted.stepSeconds * 1e3,
        100 * predicted.busiestChannelSeconds / predicted.stepSeconds);
}

/// A plan from a file, checked against the request and simulated on the
/// schedule the compiler gives it.
llvm::Expected<planner::PlanResult>
predictGivenPlan(StringRef path, const PlanningInput &input,
                 const planner::CostModel &cost) {
  llvm::Expected<planner::Plan> plan = planner::readPlanFile(path);
  if (!plan)
    return plan.takeError();
  if (llvm::Error invalid = planner::validatePlan(
          *plan, input.request.globalBatch, input.profile.numSegments()))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s: %s", path.str().c_str(),
                                   llvm::toString(std::move(invalid)).c_str());
  llvm::Expected<planner::SimulationResult> predicted =
      planner::simulate(*plan, planner::buildSchedule(*plan), cost);
  if (!predicted)
    return predicted.takeError();
  return planner::PlanResult{std::move(*plan), std::move(*predicted)};
}

int runPlan() {
  if (globalBatch <= 0 || seqLength <= 0)
    return usageError("--global-batch and --seq must be positive");
  std::optional<planner::Strategy> strategy =
      planner::parseStrategy(strategyName);
  if (!strategy)
    return usageError("--strategy must be search, uniform, dp-uneven or "
                      "stages-proportional (got '" +
                      strategyName + "')");
  if (shardingFlag != ShardingFlag::automatic && !givenPlanPath.empty())
    return usageError("--sharding constrains the planner's choice; a --plan "
                      "file states its own");
  if (noOffload && !givenPlanPath.empty())
    return usageError("--no-offload constrains the planner's choice; a --plan "
                      "file states its own");

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  UserDiagnosticHandler diagnostics(&context);

  // A plan needs shapes, not weights.
  ONNXImportOptions options;
  options.loadWeights = false;
  initializerFlags.applyTo(options);
  FailureOr<OwningOpRef<ModuleOp>> module =
      importONNXFile(context, modelPath, options);
  if (failed(module))
    return kExitFailure;
  std::string modelName = llvm::sys::path::stem(modelPath).str();
  FailureOr<PlanningInput> input =
      preparePlanning(**module, modelName, clusterPath, globalBatch, seqLength,
                      optimizerFlag == OptimizerFlag::adamw,
                      measuredProfilePaths);
  if (failed(input))
    return kExitFailure;
  input->request.sharding = shardingChoice(shardingFlag);
  input->request.allowOffload = !noOffload;
  planner::CostModel cost = input->costModel(precisionChoice(precisionFlag));

  llvm::Expected<planner::PlanResult> chosen =
      givenPlanPath.empty()
          ? planner::choosePlan(input->cluster, cost, input->request, *strategy)
          : predictGivenPlan(givenPlanPath, *input, cost);
  if (!chosen)
    return failure(llvm::toString(chosen.takeError()));
  const planner::Plan &plan = chosen->plan;
  const planner::SimulationResult &predicted = chosen->predicted;

  llvm::outs() << "model " << modelName << ": " << input->profile.numSegments()
               << " segments; cluster " << input->cluster.name << ": "
               << input->cluster.devices.size() << " devices; batch "
               << globalBatch << " x seq " << seqLength << "\n";
  // What the measured kernels say of each type's roofline per op, for the
  // calls the measurements do not cover.
  if (input->measured) {
    std::map<std::string, int> kinds;
    for (const planner::MeasuredKernel &kernel : input->measured->kernels())
      if (llvm::any_of(input->cluster.devices,
                       [&](const planner::Device &device) {
                         return device.gpu.type == kernel.deviceType;
                       }))
        ++kinds[kernel.deviceType];
    for (const auto &[type, count] : kinds) {
      const planner::KernelRoofline &roofline = cost.kernelRoofline(type);
      llvm::outs() << llvm::format(
          "measured %s: roofline per op at %.0f%% of peak, %.1f us a launch "
          "(fitted to %d kernel kinds and sizes)\n",
          type.c_str(), roofline.efficiency * 100, roofline.launchSeconds * 1e6,
          count);
    }
  }
  llvm::outs() << "\n";
  llvm::outs() << (givenPlanPath.empty()
                       ? planner::strategyName(*strategy).str()
                       : "plan " + givenPlanPath)
               << ": " << plan.stages.size() << " stages, " << plan.numRanks()
               << " ranks, predicted step "
               << llvm::format("%.3f", predicted.stepSeconds * 1e3) << " ms, "
               << llvm::format("%.0f", predicted.tokensPerSecond)
               << " tokens/s\n";
  printPlanTable(plan, predicted, input->cluster);
  printIdleDevices(plan, input->cluster);
  printBusiestLink(predicted, input->cluster);

  // The baselines, on the same cost model.
  if (givenPlanPath.empty())
    llvm::outs() << "\ncompared with (predicted tokens/s):\n";
  for (planner::Strategy other : planner::kStrategies) {
    if (other == *strategy || !givenPlanPath.empty())
      continue;
    llvm::Expected<planner::PlanResult> baseline =
        planner::choosePlan(input->cluster, cost, input->request, other);
    llvm::outs() << llvm::format("  %-20s ",
                                 planner::strategyName(other).str().c_str());
    if (!baseline) {
      llvm::outs() << "no plan: " << llvm::toString(baseline.takeError())
                   << "\n";
      continue;
    }
    double ratio = predicted.tokensPerSecond /
                   std::max(baseline->predicted.tokensPerSecond, 1e-12);
    llvm::outs() << llvm::format("%12.0f   (%s is %.2fx)\n",
                                 baseline->predicted.tokensPerSecond,
                                 planner::strategyName(*strategy).str().c_str(),
                                 ratio);
  }

  auto writeFile = [](StringRef path, StringRef text) -> llvm::Error {
    return writeOutputFile(path, [&](llvm::raw_ostream &os) {
      os << text;
      return llvm::Error::success();
    });
  };
  if (!outputPath.empty()) {
    if (llvm::Error error = writeFile(outputPath, planner::printPlan(plan)))
      return failure("cannot write '" + outputPath +
                     "': " + llvm::toString(std::move(error)));
    llvm::outs() << "\nwrote " << outputPath << "\n";
  }
  if (!tracePath.empty()) {
    std::vector<planner::RankSchedule> schedule = planner::buildSchedule(plan);
    llvm::Expected<planner::SimulationResult> traced =
        planner::simulate(plan, schedule, cost, /*recordSpans=*/true);
    if (!traced)
      return failure(llvm::toString(traced.takeError()));
    if (llvm::Error error =
            writeFile(tracePath, planner::chromeTrace(plan, *traced)))
      return failure("cannot write '" + tracePath +
                     "': " + llvm::toString(std::move(error)));
    llvm::outs() << "wrote " << tracePath << "\n";
  }
  return kExitSuccess;
}

} // namespace

Command planCommand() { return {planSubcommand, planCategory, runPlan}; }

} // namespace hetc::driver
