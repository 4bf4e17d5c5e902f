//===- Cluster.h - the machines a model trains on ---------------*- C++ -*-===//
//
// A cluster is nodes of GPUs and the links between them (models/clusters/
// README.md has the YAML schema). GPU types come from a built-in catalog of
// spec-sheet figures, or from a custom entry in the file. Every device is
// named `NODE/TYPE:INDEX`, the names plans use.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PLANNER_CLUSTER_H
#define HETC_PLANNER_CLUSTER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hetc::planner {

/// A GPU model's spec-sheet figures (dense peaks, no sparsity).
struct GpuSpec {
  std::string type;          // catalog name, e.g. "A100-80GB"
  double memoryGB = 0;       // device memory, GB = 1e9 bytes
  double fp32Tflops = 0;     // peak FP32 (non-tensor-core) TFLOP/s
  double fp16Tflops = 0;     // peak FP16 tensor TFLOP/s with FP32 accumulate
  double bf16Tflops = 0;     // peak BF16 tensor TFLOP/s; 0: no BF16
  double memoryBandwidthGBps = 0;
  std::string source;        // where the figures come from
  /// The fraction of its peak the device reaches on large calls, where it
  /// was measured (the cluster file's `efficiency`); 0: the cost model's
  /// default for its family.
  double maxEfficiency = 0;

  bool supportsBf16() const { return bf16Tflops > 0; }
  int64_t memoryBytes() const { return static_cast<int64_t>(memoryGB * 1e9); }
};

/// The built-in catalog, in a fixed order.
llvm::ArrayRef<GpuSpec> gpuCatalog();
/// The catalog entry of `type`; nullptr when there is none.
const GpuSpec *findGpu(llvm::StringRef type);

/// A link between GPUs: `latencyUs * 1e-6 + bytes / (bandwidthGBps * 1e9)`
/// seconds per message.
struct Link {
  std::string kind; // pcie, nvlink, nvswitch within a node; "network", "wan"
  double bandwidthGBps = 0;
  double latencyUs = 0;

  double seconds(int64_t bytes) const {
    return latencyUs * 1e-6 + static_cast<double>(bytes) / (bandwidthGBps * 1e9);
  }
};

/// A GPU's link to its host when the cluster file does not say: PCIe 4.0
/// x16.
constexpr double kDefaultHostLinkGBps = 25;
constexpr double kDefaultHostLinkLatencyUs = 10;
/// What one rank's AdamW on the host streams when the file does not say: a
/// few cores' share of a server's memory bandwidth.
constexpr double kDefaultHostUpdateGBps = 20;
/// Host memory per byte of the node's GPU memory when the file does not
/// say: GPU servers have 3 to 4 (DGX H100: 2 TB for 640 GB), less what the
/// processes, data loading and pinned buffers take.
constexpr double kDefaultHostMemoryPerGpuByte = 2;

struct Device {
  std::string name; // NODE/TYPE:INDEX
  GpuSpec gpu;
  int node = 0;     // index into Cluster::nodes
};

struct Node {
  std::string name;
  std::string datacenter;
  Link intraNode;
  std::vector<int> devices; // indices into Cluster::devices
  /// Host memory, which holds the optimizer state of the stages that
  /// offload it; 0: none.
  int64_t hostMemoryBytes = 0;
  /// Each GPU's own link to host memory, which offloaded updates cross.
  Link hostLink{"host", kDefaultHostLinkGBps, kDefaultHostLinkLatencyUs};
  /// GB/s that one rank's optimizer update on the host streams through
  /// host memory (its share of the host's cores and memory bandwidth).
  double hostUpdateGBps = kDefaultHostUpdateGBps;
};

/// The link between two datacenters, both ways.
struct DatacenterPair {
  std::string first, second;
  Link link;
};

/// A datacenter's uplink: every transfer leaving the datacenter, whichever
/// datacenter it goes to, shares its way out, and every transfer arriving
/// its way in.
struct DatacenterUplink {
  std::string datacenter;
  Link link;
};

struct Cluster {
  std::string name;
  std::vector<Node> nodes;
  /// Node by node, in file order; within a node by GPU entry, then index.
  std::vector<Device> devices;
  Link interNode;       // between nodes of one datacenter
  Link interDatacenter; // between datacenters no pair below names
  std::vector<DatacenterPair> datacenterPairs;
  std::vector<DatacenterUplink> datacenterUplinks;

  /// The link between datacenters `a` and `b` (a != b): their pair's, else
  /// interDatacenter.
  const Link &linkBetweenDatacenters(llvm::StringRef a,
                                     llvm::StringRef b) const;

  /// The uplink of datacenter `name`; null when the file gives none.
  const Link *uplinkOf(llvm::StringRef name) const;
  /// The datacenters of the nodes, in node order, each once.
  std::vector<std::string> datacenters() const;

  /// The link a transfer between devices `a` and `b` (a != b) crosses.
  const Link &linkBetween(int a, int b) const;
  /// The device named `name`; -1 when there is none.
  int deviceIndex(llvm::StringRef name) const;
};

/// Parses cluster YAML. Errors name the file, the line and the field, and
/// say what was expected (an unknown GPU type lists the catalog's types and
/// how to write a custom entry).
llvm::Expected<Cluster> parseCluster(llvm::StringRef yaml,
                                     llvm::StringRef fileName);
/// Reads and parses `path`.
llvm::Expected<Cluster> readClusterFile(llvm::StringRef path);

} // namespace hetc::planner

#endif // HETC_PLANNER_CLUSTER_H
