//===- planner_bench.cpp - planner time and plan quality ------------------===//
//
// Prints two tables for GPT-2 124M (T = 1024, AdamW, two samples per
// device per step unless told otherwise), predicted in the precision
// `--precision auto` picks per stage (bf16 where all its GPUs have it, else
// f16), as the bound below counts each GPU's peak:
//   - the time `choosePlan` takes on synthetic clusters of 8 to 16,384
//     devices (nodes of 8 GPUs of one type, four types in turn, half the
//     nodes in each of two datacenters joined by a WAN), on one core;
//   - on every example cluster, each strategy's predicted tokens/s as a
//     fraction of the aggregate-compute bound: the cluster's summed peak
//     FLOP/s (in each GPU's training precision) over the model's training
//     FLOPs per token.
// Usage: hetc-planner-bench [--sizes 8,64,512,4096,16384] [--samples-per-device N]
//                           [CLUSTER.yaml...]
//
//===----------------------------------------------------------------------===//

#include "planner/DecoderProfile.h"
#include "planner/Search.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace hetc::planner;

namespace {

constexpr int64_t kSeqLen = 1024;

struct NodeType {
  const char *gpu;
  const char *link; // the intra_node entry
};

/// The synthetic clusters' node types, assigned to nodes in turn.
constexpr NodeType kNodeTypes[] = {
    {"A100-80GB", "{kind: nvswitch, bandwidth_GBps: 300, latency_us: 3}"},
    {"V100-32GB", "{kind: nvlink, bandwidth_GBps: 150, latency_us: 3}"},
    {"A10G", "{kind: pcie, bandwidth_GBps: 25, latency_us: 5}"},
    {"L4", "{kind: pcie, bandwidth_GBps: 25, latency_us: 5}"},
};

/// `devices` GPUs in nodes of up to 8 (at least two nodes), one GPU type
/// per node in turn; the first half of the nodes in dc-east, the rest in
/// dc-west, with the links of models/clusters/a100-v100-wan.yaml.
std::string syntheticClusterYaml(int64_t devices) {
  int64_t perNode = std::min<int64_t>(8, std::max<int64_t>(devices / 2, 1));
  int64_t nodes = devices / perNode;
  std::string yaml = llvm::formatv("name: synthetic-{0}\nnodes:\n", devices);
  for (int64_t n = 0; n < nodes; ++n) {
    const NodeType &type = kNodeTypes[n % std::size(kNodeTypes)];
    yaml += llvm::formatv("  - name: node{0}\n    datacenter: {1}\n"
                          "    gpus:\n      - {{type: {2}, count: {3}}\n"
                          "    intra_node: {4}\n",
                          n, n < nodes / 2 ? "dc-east" : "dc-west", type.gpu,
                          perNode, type.link);
  }
  yaml += "links:\n  inter_node: {bandwidth_GBps: 12.5, latency_us: 5}\n"
          "  inter_datacenter: {bandwidth_GBps: 1.25, latency_us: 5000}\n";
  return yaml;
}

/// The global batch: this many samples per device.
int64_t samplesPerDevice = 2;

PlanRequest requestFor(const Cluster &cluster) {
  PlanRequest request;
  request.globalBatch =
      samplesPerDevice * static_cast<int64_t>(cluster.devices.size());
  return request;
}

/// Tokens per second if every device ran at its peak.
double computeBound(const Cluster &cluster, const ModelProfile &profile) {
  double flopsPerSample = 0;
  for (const SegmentCost &segment : profile.segments)
    flopsPerSample += segment.forwardFlops + segment.backwardFlops;
  double peak = 0;
  for (const Device &device : cluster.devices) {
    const GpuSpec &gpu = device.gpu;
    switch (trainingPrecision(gpu)) {
    case Precision::BF16:
      peak += gpu.bf16Tflops * 1e12;
      break;
    case Precision::F16:
      peak += gpu.fp16Tflops * 1e12;
      break;
    case Precision::F32:
      peak += gpu.fp32Tflops * 1e12;
      break;
    }
  }
  return peak / (flopsPerSample / profile.seqLen);
}

std::string planShape(const Plan &plan) {
  std::vector<std::string> stages;
  for (const Stage &stage : plan.stages)
    stages.push_back(std::to_string(stage.replicas.size()));
  return llvm::formatv("{0} stage{1} ({2})", plan.stages.size(),
                       plan.stages.size() == 1 ? "" : "s",
                       llvm::join(stages, "+"));
}

int timePlanner(llvm::ArrayRef<int64_t> sizes, const ModelProfile &profile) {
  llvm::outs() << "Planner time, GPT-2 124M, B = " << samplesPerDevice
               << " x devices (search strategy, one thread)\n\n";
  llvm::outs() << llvm::format("%8s %8s %10s %14s  %s\n", "devices", "batch",
                               "seconds", "tokens/s", "plan");
  for (int64_t devices : sizes) {
    llvm::Expected<Cluster> cluster =
        parseCluster(syntheticClusterYaml(devices), "synthetic.yaml");
    if (!cluster) {
      llvm::errs() << llvm::toString(cluster.takeError()) << "\n";
      return 1;
    }
    CostModel cost(*cluster, profile, /*precision=*/std::nullopt);
    PlanRequest request = requestFor(*cluster);
    auto start = std::chrono::steady_clock::now();
    llvm::Expected<PlanResult> result = choosePlan(*cluster, cost, request);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (!result) {
      llvm::errs() << llvm::toString(result.takeError()) << "\n";
      return 1;
    }
    llvm::outs() << llvm::format(
        "%8lld %8lld %10.3f %14.0f  %s\n", (long long)devices,
        (long long)request.globalBatch, seconds,
        result->predicted.tokensPerSecond, planShape(result->plan).c_str());
  }
  llvm::outs() << "\n";
  return 0;
}

int planQuality(llvm::ArrayRef<std::string> paths,
                const ModelProfile &profile) {
  const Strategy strategies[] = {Strategy::Search, Strategy::Uniform,
                                 Strategy::DataParallelUneven,
                                 Strategy::StagesProportional};
  llvm::outs() << "Plan quality: predicted tokens/s / aggregate-compute "
                  "bound, GPT-2 124M, B = "
               << samplesPerDevice << " x devices\n\n";
  llvm::outs() << llvm::format("%-20s %7s %12s", "cluster", "devices",
                               "bound tok/s");
  for (Strategy strategy : strategies)
    llvm::outs() << llvm::format(" %20s", strategyName(strategy).str().c_str());
  llvm::outs() << "  search plan\n";
  for (const std::string &path : paths) {
    llvm::Expected<Cluster> cluster = readClusterFile(path);
    if (!cluster) {
      llvm::errs() << llvm::toString(cluster.takeError()) << "\n";
      return 1;
    }
    CostModel cost(*cluster, profile, /*precision=*/std::nullopt);
    double bound = computeBound(*cluster, profile);
    llvm::outs() << llvm::format("%-20s %7zu %12.0f", cluster->name.c_str(),
                                 cluster->devices.size(), bound);
    std::string searchPlan;
    for (Strategy strategy : strategies) {
      llvm::Expected<PlanResult> result =
          choosePlan(*cluster, cost, requestFor(*cluster), strategy);
      if (!result) {
        llvm::consumeError(result.takeError());
        llvm::outs() << llvm::format(" %20s", "no plan");
        continue;
      }
      double tokens = result->predicted.tokensPerSecond;
      llvm::outs() << llvm::format(" %8.0f (%5.1f%%)   ", tokens,
                                   100 * tokens / bound);
      if (strategy == Strategy::Search)
        searchPlan = planShape(result->plan);
    }
    llvm::outs() << "  " << searchPlan << "\n";
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<int64_t> sizes = {8, 64, 512, 4096, 16384};
  std::vector<std::string> clusters;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--sizes" && i + 1 < argc) {
      sizes.clear();
      llvm::SmallVector<llvm::StringRef> parts;
      llvm::StringRef(argv[++i]).split(parts, ',');
      for (llvm::StringRef part : parts) {
        int64_t size = 0;
        if (part.getAsInteger(10, size) || size < 2) {
          llvm::errs() << "--sizes: expected device counts >= 2, got '" << part
                       << "'\n";
          return 2;
        }
        sizes.push_back(size);
      }
    } else if (arg == "--samples-per-device" && i + 1 < argc) {
      if (llvm::StringRef(argv[++i]).getAsInteger(10, samplesPerDevice) ||
          samplesPerDevice < 1) {
        llvm::errs() << "--samples-per-device: expected a positive integer, "
                        "got '"
                     << argv[i] << "'\n";
        return 2;
      }
    } else {
      clusters.push_back(arg.str());
    }
  }
  ModelProfile profile = decoderProfile(DecoderShape::gpt2Small(), kSeqLen);
  if (int status = timePlanner(sizes, profile))
    return status;
  return planQuality(clusters, profile);
}
