//===- PlannerTestCluster.h - clusters and profiles for tests - -*- C++ -*-===//
//
// Round numbers, so that expected times can be derived by hand: a GPU type
// "X1" (not in the catalog) with 10 TFLOP/s FP32 and nothing faster, and
// 100 GB/s of memory; its default efficiency curve is the catch-all
// family's, max 0.4 reached at half by 20 us x 1e13 x 0.4 = 8e7 FLOPs.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_TEST_UNIT_PLANNERTESTCLUSTER_H
#define HETC_TEST_UNIT_PLANNERTESTCLUSTER_H

#include "planner/Cluster.h"
#include "planner/ModelProfile.h"

#include <string>
#include <vector>

namespace hetc::planner::testing {

inline GpuSpec x1Gpu() {
  GpuSpec gpu;
  gpu.type = "X1";
  gpu.memoryGB = 16;
  gpu.fp32Tflops = 10;
  gpu.memoryBandwidthGBps = 100;
  return gpu;
}

/// Nodes "n0", "n1", ... of one datacenter, node i holding gpusPerNode[i]
/// X1 GPUs named "nI/X1:J": 10 GB/s and 5 us inside a node, 1 GB/s and
/// 20 us between nodes. Their hosts have no memory (nothing offloads) but
/// the default link and update rate.
inline Cluster makeCluster(const std::vector<int> &gpusPerNode) {
  Cluster cluster;
  cluster.name = "test";
  cluster.interNode = {"network", 1, 20};
  cluster.interDatacenter = {"wan", 0.1, 1000};
  for (size_t n = 0; n < gpusPerNode.size(); ++n) {
    Node node;
    node.name = "n" + std::to_string(n);
    node.datacenter = "dc0";
    node.intraNode = {"pcie", 10, 5};
    for (int j = 0; j < gpusPerNode[n]; ++j) {
      node.devices.push_back(static_cast<int>(cluster.devices.size()));
      cluster.devices.push_back({node.name + "/X1:" + std::to_string(j),
                                 x1Gpu(), static_cast<int>(n)});
    }
    cluster.nodes.push_back(node);
  }
  return cluster;
}

/// `segments` identical segments of a model trained on samples of 16
/// tokens: per sample 1 GFLOP forward, 2 GFLOP backward, no bytes moved
/// (compute bound), 1 MB kept for the backward, 64 KB boundaries, and
/// 1M parameters (4 MB) each.
inline ModelProfile uniformProfile(int64_t segments) {
  ModelProfile profile;
  profile.model = "uniform";
  profile.seqLen = 16;
  for (int64_t s = 0; s < segments; ++s) {
    SegmentCost cost;
    cost.parameters = 1 << 20;
    cost.parameterBytes = 4 << 20;
    cost.forwardFlops = 1e9;
    cost.backwardFlops = 2e9;
    cost.savedActivationBytes = 1 << 20;
    cost.boundaryBytes = s + 1 < segments ? 64 << 10 : 0;
    profile.segments.push_back(cost);
  }
  return profile;
}

} // namespace hetc::planner::testing

#endif // HETC_TEST_UNIT_PLANNERTESTCLUSTER_H
