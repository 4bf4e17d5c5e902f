//===- MeasureCommand.cpp - hetc measure ----------------------------------===//
//
// Turns the trace of a real run (`hetrun --profile`) into the measured
// profile the planner reads (`hetc plan --profile`): for every rank, the
// seconds its launches of each segment's forward and backward took per
// micro-batch, averaged over the steps after the first (which warms caches
// and allocators up), under the rank's device type, precision and
// micro-batch size from the package's plan; and what each kernel kind
// achieved on each device type (its FLOPs and bytes over its seconds).
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/Commands.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Driver/OutputFile.h"
#include "planner/Cluster.h"
#include "planner/MeasuredProfile.h"
#include "runtime/package/Package.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <iterator>
#include <map>
#include <set>

namespace cl = llvm::cl;

namespace hetc::driver {

namespace {

cl::SubCommand measureSubcommand(
    "measure", "Derive the planner's measured profile from the traces of a "
               "real run (hetrun --profile; under MPI, one per process)");

cl::OptionCategory measureCategory("hetc measure options");

cl::opt<std::string> packagePath(cl::Positional, cl::Required,
                                 cl::sub(measureSubcommand),
                                 cl::cat(measureCategory),
                                 cl::desc("<PACKAGE.hetpkg>"));

cl::list<std::string> tracePaths(
    cl::Positional, cl::OneOrMore, cl::sub(measureSubcommand),
    cl::cat(measureCategory),
    cl::desc("<TRACE.json>..."));

cl::opt<std::string> outputPath(
    "o", cl::sub(measureSubcommand), cl::cat(measureCategory), cl::Required,
    cl::value_desc("PROFILE.json"),
    cl::desc("Write the measured profile here (docs/planner.md, \"Measured "
             "profiles\")"));

cl::opt<std::string> clusterPath(
    "cluster", cl::sub(measureSubcommand), cl::cat(measureCategory),
    cl::value_desc("CLUSTER.yaml"),
    cl::desc("The cluster the package was planned for, to find each "
             "device's type (default: the type in its NODE/TYPE:INDEX "
             "name)"));

cl::opt<int64_t> warmupSteps(
    "warmup-steps", cl::sub(measureSubcommand), cl::cat(measureCategory),
    cl::init(1), cl::value_desc("N"),
    cl::desc("Leave the first N steps of the trace out (default 1; all "
             "steps count when the trace has no more than N)"));

constexpr llvm::StringLiteral kPrefix = "hetc measure: ";

llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Each rank's device type, precision and micro-batches.
struct RankPlacement {
  std::string deviceType;
  planner::Precision precision = planner::Precision::F32;
  int64_t microBatch = 1;
  int64_t microBatches = 1;
};

llvm::Expected<std::vector<RankPlacement>>
placementsOf(const planner::Plan &plan, const planner::Cluster *cluster) {
  std::vector<RankPlacement> ranks;
  for (int64_t rank = 0; rank < plan.numRanks(); ++rank) {
    auto [s, r] = plan.stageAndReplicaOf(rank);
    const planner::Stage &stage = plan.stages[s];
    const planner::Replica &replica = stage.replicas[r];
    RankPlacement &placement = ranks.emplace_back();
    if (cluster) {
      int device = cluster->deviceIndex(replica.device);
      if (device < 0)
        return failure("the plan's device '" + replica.device +
                       "' is not in --cluster " + clusterPath);
      placement.deviceType = cluster->devices[device].gpu.type;
    } else {
      // NODE/TYPE:INDEX, the names of devices of a cluster file.
      llvm::StringRef name = replica.device;
      size_t slash = name.rfind('/'), colon = name.rfind(':');
      if (slash == llvm::StringRef::npos || colon == llvm::StringRef::npos ||
          colon <= slash + 1)
        return failure("the plan's device '" + replica.device +
                       "' is not named NODE/TYPE:INDEX: give --cluster");
      placement.deviceType = name.slice(slash + 1, colon).str();
    }
    placement.precision = stage.precision.value_or(planner::Precision::F32);
    placement.microBatch = replica.microBatch;
    placement.microBatches = replica.numSamples / replica.microBatch;
  }
  return ranks;
}

/// A compute launch of a training step in a trace.
struct TimedLaunch {
  int trace = 0; // which of the traces
  int rank = 0;
  int64_t step = 0;
  const pkg::Instruction *instruction = nullptr;
  double seconds = 0;
};

/// The compute launches of the training steps in the trace `path`.
llvm::Error readTrace(llvm::StringRef path, int traceIndex,
                      const std::vector<pkg::Program> &programs,
                      std::vector<TimedLaunch> &launches) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return failure("cannot read '" + path +
                   "': " + buffer.getError().message());
  llvm::Expected<llvm::json::Value> trace =
      llvm::json::parse((*buffer)->getBuffer());
  if (!trace)
    return failure(path + ": not JSON: " + llvm::toString(trace.takeError()));
  const llvm::json::Object *root = trace->getAsObject();
  const llvm::json::Array *events =
      root ? root->getArray("traceEvents") : nullptr;
  if (!events)
    return failure(path + ": not a Chrome trace (no \"traceEvents\"): write "
                          "it with hetrun --profile");
  for (const llvm::json::Value &value : *events) {
    const llvm::json::Object *event = value.getAsObject();
    if (!event || event->getString("ph") != "X" ||
        event->getString("cat") != "compute")
      continue;
    const llvm::json::Object *args = event->getObject("args");
    if (!args || args->getString("program") != "step")
      continue;
    std::optional<int64_t> rank = event->getInteger("pid");
    std::optional<int64_t> step = args->getInteger("step");
    std::optional<int64_t> index = args->getInteger("instruction");
    std::optional<double> micros = event->getNumber("dur");
    if (!rank || !step || !index || !micros)
      return failure(path + ": a launch without pid, dur, args.step or "
                            "args.instruction");
    if (*rank < 0 || *rank >= static_cast<int64_t>(programs.size()) ||
        *index < 0 || *index >= programs[*rank].instructions_size())
      return failure(llvm::formatv("{0}: rank {1}, instruction {2} is not in "
                                   "the package: a trace of another package?",
                                   path, *rank, *index));
    launches.push_back({traceIndex, static_cast<int>(*rank), *step,
                        &programs[*rank].instructions(*index), *micros * 1e-6});
  }
  return llvm::Error::success();
}

/// The bytes of the buffers an instruction reads and writes.
double bytesOf(const pkg::Program &program,
               const pkg::Instruction &instruction) {
  double bytes = 0;
  for (int32_t id : instruction.operands())
    bytes += static_cast<double>(package::bufferBytes(program.buffers(id)));
  for (int32_t id : instruction.results())
    bytes += static_cast<double>(package::bufferBytes(program.buffers(id)));
  return bytes;
}

int fail(const llvm::Twine &message) {
  llvm::errs() << kPrefix << "error: " << message << "\n";
  return kExitFailure;
}

int runMeasure() {
  if (warmupSteps < 0) {
    llvm::errs() << kPrefix << "--warmup-steps must be >= 0 (got "
                 << warmupSteps << ")\n";
    return kExitUsage;
  }
  std::string error;
  pkg::Manifest manifest;
  if (!package::readManifest(packagePath, &manifest, &error))
    return fail(error);
  if (manifest.plan_json().empty())
    return fail("package '" + packagePath +
                "' has no plan: compile it with --cluster or --plan");
  llvm::Expected<planner::Plan> plan =
      planner::parsePlan(manifest.plan_json());
  if (!plan)
    return fail("package '" + packagePath +
                "': " + llvm::toString(plan.takeError()));
  std::optional<planner::Cluster> cluster;
  if (!clusterPath.empty()) {
    llvm::Expected<planner::Cluster> read =
        planner::readClusterFile(clusterPath);
    if (!read)
      return fail(llvm::toString(read.takeError()));
    cluster = std::move(*read);
  }
  llvm::Expected<std::vector<RankPlacement>> ranks =
      placementsOf(*plan, cluster ? &*cluster : nullptr);
  if (!ranks)
    return fail(llvm::toString(ranks.takeError()));
  std::vector<pkg::Program> programs(manifest.ranks_size());
  for (const pkg::RankInfo &rank : manifest.ranks())
    if (!package::readProgram(packagePath, rank.program_file(),
                              &programs[rank.rank()], &error))
      return fail(error);

  std::vector<TimedLaunch> launches;
  for (auto [index, path] : llvm::enumerate(tracePaths))
    if (llvm::Error bad =
            readTrace(path, static_cast<int>(index), programs, launches))
      return fail(llvm::toString(std::move(bad)));
  std::set<int64_t> steps;
  for (const TimedLaunch &launch : launches)
    steps.insert(launch.step);
  if (steps.empty())
    return fail("the traces hold no training step: run hetrun --profile "
                "with --steps 2 or more");
  int64_t firstStep = static_cast<int64_t>(steps.size()) > warmupSteps
                          ? *std::next(steps.begin(), warmupSteps)
                          : *steps.begin();
  double measuredSteps = static_cast<double>(
      std::distance(steps.find(firstStep), steps.end()));

  // Seconds per (trace, rank, pass, segment) over the measured steps: a
  // rank in several traces (runs of one package at once) is measured once
  // in each. Recomputed forwards are left out: the planner adds the forward
  // again for stages that recompute.
  std::map<std::tuple<int, int, planner::Pass, int64_t>, double> totals;
  // Every compute launch of the measured steps, by device type, precision,
  // kernel and micro-batch size: the rate each kernel kind achieves there.
  std::map<std::tuple<std::string, planner::Precision, std::string, int64_t>,
           planner::MeasuredKernel>
      kernels;
  for (const TimedLaunch &launch : launches) {
    if (launch.step < firstStep)
      continue;
    const RankPlacement &placement = (*ranks)[launch.rank];
    const pkg::Instruction &instruction = *launch.instruction;
    planner::MeasuredKernel &kernel =
        kernels[{placement.deviceType, placement.precision,
                 instruction.kernel(), placement.microBatch}];
    kernel.deviceType = placement.deviceType;
    kernel.precision = placement.precision;
    kernel.kernel = instruction.kernel();
    kernel.microBatch = placement.microBatch;
    ++kernel.launches;
    kernel.flops += static_cast<double>(instruction.flops());
    kernel.bytes += bytesOf(programs[launch.rank], instruction);
    kernel.seconds += launch.seconds;
  }
  for (const TimedLaunch &launch : launches) {
    const std::string &phase = launch.instruction->phase();
    if (launch.step < firstStep || (phase != "forward" && phase != "backward"))
      continue;
    planner::Pass pass =
        phase == "forward" ? planner::Pass::Forward : planner::Pass::Backward;
    totals[{launch.trace, launch.rank, pass, launch.instruction->segment()}] +=
        launch.seconds;
  }

  int64_t numSegments = 0;
  for (const planner::Stage &stage : plan->stages)
    numSegments = std::max(numSegments, stage.endSegment);
  planner::MeasuredProfile measured(manifest.model_name(), manifest.seq_len(),
                                    numSegments);
  for (const auto &[key, seconds] : totals) {
    const auto &[trace, rank, pass, segment] = key;
    const RankPlacement &placement = (*ranks)[rank];
    measured.add({placement.deviceType, placement.precision, pass, segment,
                  placement.microBatch,
                  seconds / (measuredSteps *
                             static_cast<double>(placement.microBatches))});
  }
  for (const auto &[key, kernel] : kernels)
    if (kernel.seconds > 0)
      measured.addKernel(kernel);
  if (llvm::Error written =
          writeOutputFile(outputPath, [&](llvm::raw_ostream &os) {
            os << measured.toJSON();
            return llvm::Error::success();
          }))
    return fail("cannot write '" + outputPath +
                "': " + llvm::toString(std::move(written)));

  // One line per device type, precision and size: a call of the measured
  // segments, forward and backward.
  std::map<std::tuple<std::string, std::string, int64_t>,
           std::pair<double, double>>
      lines;
  for (const planner::MeasuredCall &call : measured.calls()) {
    auto &[forward, backward] =
        lines[{call.deviceType, planner::precisionName(call.precision).str(),
               call.microBatch}];
    (call.pass == planner::Pass::Forward ? forward : backward) += call.seconds;
  }
  llvm::outs() << llvm::formatv(
      "measured model {0}, steps {1} to {2} of {3} ranks, per call:\n",
      manifest.model_name(), firstStep, *steps.rbegin(), ranks->size());
  for (const auto &[key, times] : lines)
    llvm::outs() << llvm::format(
        "  %-20s %-5s micro-batch %4lld: forward %.3f ms, backward %.3f ms\n",
        std::get<0>(key).c_str(), std::get<1>(key).c_str(),
        static_cast<long long>(std::get<2>(key)), times.first * 1e3,
        times.second * 1e3);
  llvm::outs() << "per kernel kind and micro-batch (FLOPs and bytes of its "
                  "buffers per second):\n";
  for (const planner::MeasuredKernel &kernel : measured.kernels())
    llvm::outs() << llvm::format(
        "  %-20s %-5s %-22s %4lld %6lld launches %10.3f ms %9.2f GFLOP/s "
        "%9.2f GB/s\n",
        kernel.deviceType.c_str(),
        planner::precisionName(kernel.precision).str().c_str(),
        kernel.kernel.c_str(), static_cast<long long>(kernel.microBatch),
        static_cast<long long>(kernel.launches), kernel.seconds * 1e3,
        kernel.flops / kernel.seconds / 1e9,
        kernel.bytes / kernel.seconds / 1e9);
  llvm::outs() << "wrote " << outputPath << "\n";
  return kExitSuccess;
}

} // namespace

Command measureCommand() {
  return {measureSubcommand, measureCategory, runMeasure};
}

} // namespace hetc::driver
