//===- ClusterTest.cpp - cluster files, the GPU catalog, links ------------===//
//
// Every example cluster in models/clusters parses to the devices and links
// its comments describe; every schema rule produces its message, with file,
// line, column and field path; custom GPU entries and catalog overrides give
// the figures they state; the catalog holds the spec-sheet figures of
// docs/planner.md.
//
//===----------------------------------------------------------------------===//

#include "planner/Cluster.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

using namespace hetc::planner;

namespace {

std::string clustersDir() {
  return std::string(HETC_SOURCE_DIR) + "/models/clusters";
}

Cluster readExample(llvm::StringRef name) {
  llvm::Expected<Cluster> cluster =
      readClusterFile(clustersDir() + "/" + name.str());
  if (!cluster) {
    ADD_FAILURE() << llvm::toString(cluster.takeError());
    return {};
  }
  return std::move(*cluster);
}

Cluster parseOrFail(llvm::StringRef yaml) {
  llvm::Expected<Cluster> cluster = parseCluster(yaml, "test.yaml");
  if (!cluster) {
    ADD_FAILURE() << llvm::toString(cluster.takeError());
    return {};
  }
  return std::move(*cluster);
}

std::string parseError(llvm::StringRef yaml) {
  llvm::Expected<Cluster> cluster = parseCluster(yaml, "bad.yaml");
  if (cluster) {
    ADD_FAILURE() << "parsed, but should not have:\n" << yaml.str();
    return "";
  }
  return llvm::toString(cluster.takeError());
}

std::vector<std::string> deviceNames(const Cluster &cluster) {
  std::vector<std::string> names;
  for (const Device &device : cluster.devices)
    names.push_back(device.name);
  return names;
}

void expectLink(const Link &link, llvm::StringRef kind, double bandwidthGBps,
                double latencyUs) {
  EXPECT_EQ(link.kind, kind);
  EXPECT_DOUBLE_EQ(link.bandwidthGBps, bandwidthGBps);
  EXPECT_DOUBLE_EQ(link.latencyUs, latencyUs);
}

const GpuSpec &catalogGpu(llvm::StringRef type) {
  const GpuSpec *gpu = findGpu(type);
  EXPECT_NE(gpu, nullptr) << type.str();
  static const GpuSpec none;
  return gpu ? *gpu : none;
}

//===----------------------------------------------------------------------===//
// The catalog
//===----------------------------------------------------------------------===//

TEST(GpuCatalog, HoldsTheDocumentedTypesInOrder) {
  std::vector<std::string> types;
  for (const GpuSpec &gpu : gpuCatalog())
    types.push_back(gpu.type);
  EXPECT_EQ(types, (std::vector<std::string>{
                       "H200", "H100-SXM", "H100-PCIe", "A100-40GB",
                       "A100-80GB", "A6000", "L40S", "A10G", "L4", "V100-16GB",
                       "V100-32GB", "T4", "P40", "RTX3090", "RTX4090"}));
}

TEST(GpuCatalog, FiguresAreDenseSpecSheetPeaks) {
  struct Expected {
    const char *type;
    double memoryGB, fp32, fp16, bf16, bandwidth;
  };
  const Expected table[] = {
      {"H200", 141, 67, 989, 989, 4800},
      {"H100-SXM", 80, 67, 989, 989, 3350},
      {"H100-PCIe", 80, 51, 756, 756, 2000},
      {"A100-40GB", 40, 19.5, 312, 312, 1555},
      {"A100-80GB", 80, 19.5, 312, 312, 2039},
      {"A6000", 48, 38.7, 154.8, 154.8, 768},
      {"L40S", 48, 91.6, 362.05, 362.05, 864},
      {"A10G", 24, 35, 70, 70, 600},
      {"L4", 24, 30.3, 121, 121, 300},
      {"V100-16GB", 16, 15.7, 125, 0, 900},
      {"V100-32GB", 32, 15.7, 125, 0, 900},
      {"T4", 16, 8.1, 65, 0, 320},
      {"P40", 24, 11.76, 0, 0, 346},
      {"RTX3090", 24, 35.6, 71, 71, 936},
      // FP32 accumulate: half the 330.3 of FP16 accumulate.
      {"RTX4090", 24, 82.6, 165.2, 165.2, 1008},
  };
  for (const Expected &expected : table) {
    SCOPED_TRACE(expected.type);
    const GpuSpec &gpu = catalogGpu(expected.type);
    EXPECT_DOUBLE_EQ(gpu.memoryGB, expected.memoryGB);
    EXPECT_DOUBLE_EQ(gpu.fp32Tflops, expected.fp32);
    EXPECT_DOUBLE_EQ(gpu.fp16Tflops, expected.fp16);
    EXPECT_DOUBLE_EQ(gpu.bf16Tflops, expected.bf16);
    EXPECT_DOUBLE_EQ(gpu.memoryBandwidthGBps, expected.bandwidth);
  }
}

TEST(GpuCatalog, Bf16OnlyFromAmpereOn) {
  for (const GpuSpec &gpu : gpuCatalog()) {
    static constexpr llvm::StringRef beforeAmpereTypes[] = {
        "V100-16GB", "V100-32GB", "T4", "P40"};
    bool beforeAmpere = llvm::is_contained(beforeAmpereTypes, gpu.type);
    EXPECT_EQ(gpu.supportsBf16(), !beforeAmpere) << gpu.type;
  }
}

TEST(GpuCatalog, EveryEntryIsComplete) {
  for (const GpuSpec &gpu : gpuCatalog()) {
    SCOPED_TRACE(gpu.type);
    EXPECT_GT(gpu.memoryGB, 0);
    EXPECT_GT(gpu.fp32Tflops, 0);
    EXPECT_GT(gpu.memoryBandwidthGBps, 0);
    EXPECT_FALSE(gpu.source.empty());
    // Tensor cores beat the FP32 units wherever there are any.
    if (gpu.fp16Tflops > 0) {
      EXPECT_GT(gpu.fp16Tflops, gpu.fp32Tflops);
    }
    // Where BF16 exists it runs at the FP16 tensor rate.
    if (gpu.supportsBf16()) {
      EXPECT_DOUBLE_EQ(gpu.bf16Tflops, gpu.fp16Tflops);
    }
  }
}

TEST(GpuCatalog, SourcesNameTheSpecSheet) {
  EXPECT_EQ(catalogGpu("A100-80GB").source,
            "NVIDIA A100 Tensor Core GPU datasheet (2021), A100 80GB SXM; "
            "dense");
  EXPECT_NE(catalogGpu("H100-SXM").source.find("sparsity, halved"),
            std::string::npos);
  EXPECT_NE(catalogGpu("P40").source.find("no tensor cores"),
            std::string::npos);
}

TEST(GpuCatalog, FindGpuIsExact) {
  const GpuSpec *l4 = findGpu("L4");
  ASSERT_NE(l4, nullptr);
  EXPECT_EQ(l4, &gpuCatalog()[8]);
  EXPECT_EQ(findGpu("l4"), nullptr);
  EXPECT_EQ(findGpu("A100"), nullptr);
  EXPECT_EQ(findGpu(""), nullptr);
}

TEST(GpuCatalog, MemoryBytesCountsGigabytesAsTenToTheNine) {
  EXPECT_EQ(catalogGpu("A100-80GB").memoryBytes(), 80'000'000'000);
  EXPECT_EQ(catalogGpu("H200").memoryBytes(), 141'000'000'000);
}

TEST(Link, SecondsIsLatencyPlusBytesOverBandwidth) {
  Link pcie{"pcie", 12, 10};
  EXPECT_DOUBLE_EQ(pcie.seconds(0), 10e-6);
  EXPECT_DOUBLE_EQ(pcie.seconds(12'000'000'000), 1 + 10e-6);
  Link wan{"wan", 1.25, 5000};
  EXPECT_DOUBLE_EQ(wan.seconds(125'000'000), 0.005 + 0.1);
}

//===----------------------------------------------------------------------===//
// The example clusters
//===----------------------------------------------------------------------===//

TEST(ExampleClusters, DemoBox) {
  Cluster cluster = readExample("demo-box.yaml");
  EXPECT_EQ(cluster.name, "demo-box");
  EXPECT_EQ(deviceNames(cluster),
            (std::vector<std::string>{"box0/L4:0", "box0/L4:1", "box0/A6000:0",
                                      "box0/P40:0"}));
  ASSERT_EQ(cluster.nodes.size(), 1u);
  EXPECT_EQ(cluster.nodes[0].name, "box0");
  EXPECT_EQ(cluster.nodes[0].datacenter, "dc0");
  EXPECT_EQ(cluster.nodes[0].devices, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(cluster.devices[2].gpu.type, "A6000");
  EXPECT_DOUBLE_EQ(cluster.devices[2].gpu.memoryGB, 48);
  EXPECT_EQ(cluster.devices[3].node, 0);

  int l4 = cluster.deviceIndex("box0/L4:0");
  int p40 = cluster.deviceIndex("box0/P40:0");
  EXPECT_EQ(l4, 0);
  EXPECT_EQ(p40, 3);
  EXPECT_EQ(cluster.deviceIndex("box0/P40:1"), -1);
  EXPECT_EQ(cluster.deviceIndex("box0"), -1);
  expectLink(cluster.linkBetween(l4, p40), "pcie", 12, 10);
  // 12 MB over 12 GB/s plus 10 us.
  EXPECT_DOUBLE_EQ(cluster.linkBetween(l4, p40).seconds(12'000'000),
                   1e-3 + 10e-6);
}

TEST(ExampleClusters, V100A10gEthernet) {
  Cluster cluster = readExample("v100-a10g-ethernet.yaml");
  std::vector<std::string> names = deviceNames(cluster);
  ASSERT_EQ(names.size(), 16u);
  EXPECT_EQ(names[0], "v100-0/V100-16GB:0");
  EXPECT_EQ(names[7], "v100-0/V100-16GB:7");
  EXPECT_EQ(names[8], "a10g-0/A10G:0");
  EXPECT_EQ(names[15], "a10g-0/A10G:7");
  EXPECT_EQ(cluster.nodes[1].devices,
            (std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(cluster.nodes[0].datacenter, "dc0");
  EXPECT_EQ(cluster.nodes[1].datacenter, "dc0");
  expectLink(cluster.linkBetween(0, 7), "nvlink", 150, 3);
  expectLink(cluster.linkBetween(8, 15), "pcie", 25, 5);
  expectLink(cluster.linkBetween(3, 12), "network", 3.1, 30);
  expectLink(cluster.linkBetween(12, 3), "network", 3.1, 30);
  EXPECT_FALSE(cluster.devices[0].gpu.supportsBf16());
  EXPECT_TRUE(cluster.devices[8].gpu.supportsBf16());
}

TEST(ExampleClusters, A100V100Wan) {
  Cluster cluster = readExample("a100-v100-wan.yaml");
  ASSERT_EQ(cluster.devices.size(), 32u);
  ASSERT_EQ(cluster.nodes.size(), 4u);
  EXPECT_EQ(cluster.devices[8].name, "a100-1/A100-80GB:0");
  EXPECT_EQ(cluster.devices[31].name, "v100-1/V100-32GB:7");
  EXPECT_EQ(cluster.nodes[1].datacenter, "dc-east");
  EXPECT_EQ(cluster.nodes[2].datacenter, "dc-west");
  int a100 = cluster.deviceIndex("a100-0/A100-80GB:0");
  int a100OtherNode = cluster.deviceIndex("a100-1/A100-80GB:5");
  int v100 = cluster.deviceIndex("v100-0/V100-32GB:1");
  int v100OtherNode = cluster.deviceIndex("v100-1/V100-32GB:1");
  expectLink(cluster.linkBetween(a100, 3), "nvswitch", 300, 3);
  expectLink(cluster.linkBetween(v100, 16), "nvlink", 150, 3);
  expectLink(cluster.linkBetween(a100, a100OtherNode), "network", 12.5, 5);
  expectLink(cluster.linkBetween(v100, v100OtherNode), "network", 12.5, 5);
  expectLink(cluster.linkBetween(a100, v100), "wan", 1.25, 5000);
  expectLink(cluster.linkBetween(v100OtherNode, a100OtherNode), "wan", 1.25,
             5000);
}

TEST(ExampleClusters, CustomGpus) {
  Cluster cluster = readExample("custom-gpus.yaml");
  EXPECT_EQ(deviceNames(cluster),
            (std::vector<std::string>{
                "ws0/RTX2080Ti:0", "ws0/RTX2080Ti:1", "ws0/RTX4090:0",
                "a100p-0/A100-80GB:0", "a100p-0/A100-80GB:1",
                "a100p-0/A100-80GB:2", "a100p-0/A100-80GB:3"}));
  const GpuSpec &turing = cluster.devices[1].gpu;
  EXPECT_EQ(turing.type, "RTX2080Ti");
  EXPECT_DOUBLE_EQ(turing.memoryGB, 11);
  EXPECT_DOUBLE_EQ(turing.fp32Tflops, 13.4);
  EXPECT_DOUBLE_EQ(turing.fp16Tflops, 53.8);
  EXPECT_FALSE(turing.supportsBf16());
  EXPECT_DOUBLE_EQ(turing.memoryBandwidthGBps, 616);
  EXPECT_EQ(turing.source,
            "custom entry at " + clustersDir() + "/custom-gpus.yaml:24:10");

  const GpuSpec &a100Pcie = cluster.devices[3].gpu;
  EXPECT_DOUBLE_EQ(a100Pcie.memoryBandwidthGBps, 1935);
  EXPECT_DOUBLE_EQ(a100Pcie.memoryGB, 80);
  EXPECT_DOUBLE_EQ(a100Pcie.bf16Tflops, 312);
  EXPECT_EQ(a100Pcie.source, catalogGpu("A100-80GB").source +
                                 "; figures overridden at " + clustersDir() +
                                 "/custom-gpus.yaml:30:10");
  expectLink(cluster.linkBetween(0, 2), "pcie", 12, 10);
  expectLink(cluster.linkBetween(2, 3), "network", 3.1, 30);
}

TEST(ExampleClusters, EveryFileInTheFolderParses) {
  std::error_code error;
  int files = 0;
  for (llvm::sys::fs::directory_iterator it(clustersDir(), error), end;
       it != end && !error; it.increment(error)) {
    if (llvm::sys::path::extension(it->path()) != ".yaml")
      continue;
    ++files;
    llvm::Expected<Cluster> cluster = readClusterFile(it->path());
    EXPECT_TRUE(static_cast<bool>(cluster))
        << it->path() << ": " << llvm::toString(cluster.takeError());
  }
  EXPECT_FALSE(error) << error.message();
  EXPECT_GE(files, 4);
}

//===----------------------------------------------------------------------===//
// Parsing rules that succeed
//===----------------------------------------------------------------------===//

TEST(ClusterParse, IndicesCountPerTypeWithinANode) {
  Cluster cluster = parseOrFail(R"(
name: two-types
nodes:
  - name: n0
    gpus:
      - {type: T4, count: 2}
      - {type: L4, count: 3}
    intra_node: {kind: pcie, bandwidth_GBps: 25, latency_us: 5}
  - name: n1
    datacenter: dc0
    gpus:
      - {type: T4, count: 1}
    intra_node: {kind: pcie, bandwidth_GBps: 25, latency_us: 0}
links:
  inter_node: {bandwidth_GBps: 12.5, latency_us: 5}
)");
  EXPECT_EQ(deviceNames(cluster),
            (std::vector<std::string>{"n0/T4:0", "n0/T4:1", "n0/L4:0",
                                      "n0/L4:1", "n0/L4:2", "n1/T4:0"}));
  EXPECT_EQ(cluster.nodes[0].devices, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(cluster.nodes[1].devices, (std::vector<int>{5}));
  EXPECT_EQ(cluster.devices[5].node, 1);
  EXPECT_EQ(cluster.deviceIndex("n0/L4:2"), 4);
  expectLink(cluster.linkBetween(0, 5), "network", 12.5, 5);
  EXPECT_DOUBLE_EQ(cluster.nodes[1].intraNode.latencyUs, 0);
}

TEST(ClusterParse, CustomEntryDefaultsTensorRatesToZero) {
  Cluster cluster = parseOrFail(R"(
name: custom
nodes:
  - name: box
    gpus:
      - {type: MyGPU, count: 2, memory_GB: 16, fp32_TFLOPS: 10.6,
         bandwidth_GBps: 448}
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
)");
  ASSERT_EQ(cluster.devices.size(), 2u);
  EXPECT_EQ(cluster.devices[1].name, "box/MyGPU:1");
  const GpuSpec &gpu = cluster.devices[1].gpu;
  EXPECT_EQ(gpu.type, "MyGPU");
  EXPECT_DOUBLE_EQ(gpu.memoryGB, 16);
  EXPECT_DOUBLE_EQ(gpu.fp32Tflops, 10.6);
  EXPECT_DOUBLE_EQ(gpu.fp16Tflops, 0);
  EXPECT_DOUBLE_EQ(gpu.bf16Tflops, 0);
  EXPECT_DOUBLE_EQ(gpu.memoryBandwidthGBps, 448);
  EXPECT_EQ(gpu.source, "custom entry at test.yaml:6:10");
}

TEST(ClusterParse, OverrideKeepsTheCatalogsOtherFigures) {
  Cluster cluster = parseOrFail(R"(
name: override
nodes:
  - name: box
    gpus:
      - {type: L4, count: 1, memory_GB: 22.5, bf16_TFLOPS: 0}
    intra_node: {kind: pcie, bandwidth_GBps: 25, latency_us: 5}
)");
  const GpuSpec &gpu = cluster.devices[0].gpu;
  EXPECT_DOUBLE_EQ(gpu.memoryGB, 22.5);
  EXPECT_FALSE(gpu.supportsBf16());
  EXPECT_DOUBLE_EQ(gpu.fp32Tflops, 30.3);
  EXPECT_DOUBLE_EQ(gpu.fp16Tflops, 121);
  EXPECT_DOUBLE_EQ(gpu.memoryBandwidthGBps, 300);
  EXPECT_EQ(gpu.source,
            catalogGpu("L4").source + "; figures overridden at test.yaml:6:10");
  // The catalog itself is untouched.
  EXPECT_DOUBLE_EQ(catalogGpu("L4").memoryGB, 24);
}

TEST(ClusterParse, MeasuredEfficiencyReachesTheCostModel) {
  Cluster cluster = parseOrFail(R"(
name: measured
nodes:
  - name: host
    gpus:
      - {type: cpu-core, count: 2, memory_GB: 4, fp32_TFLOPS: 0.08,
         bandwidth_GBps: 25, efficiency: 0.7}
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 5}
)");
  EXPECT_DOUBLE_EQ(cluster.devices[0].gpu.maxEfficiency, 0.7);
  // A catalog GPU keeps the default of its family unless the file says.
  EXPECT_DOUBLE_EQ(catalogGpu("L4").maxEfficiency, 0);
}

TEST(ClusterParse, ATypeDefinedOnceServesEveryNode) {
  Cluster cluster = parseOrFail(R"(
name: reuse
nodes:
  - name: a
    gpus: [{type: MyGPU, count: 1}]
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
  - name: b
    gpus:
      - {type: MyGPU, count: 1, memory_GB: 16, fp32_TFLOPS: 10,
         bandwidth_GBps: 400}
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
  - name: c
    gpus:
      - {type: MyGPU, count: 1, memory_GB: 16, fp32_TFLOPS: 10,
         bandwidth_GBps: 400}
      - {type: A100-40GB, count: 1, memory_GB: 39}
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
  - name: d
    gpus: [{type: A100-40GB, count: 1}]
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
links:
  inter_node: {bandwidth_GBps: 3.1, latency_us: 30}
)");
  ASSERT_EQ(cluster.devices.size(), 5u);
  for (int device : {0, 1, 2})
    EXPECT_DOUBLE_EQ(cluster.devices[device].gpu.memoryGB, 16);
  EXPECT_DOUBLE_EQ(cluster.devices[3].gpu.memoryGB, 39);
  EXPECT_DOUBLE_EQ(cluster.devices[4].gpu.memoryGB, 39);
}

TEST(ClusterParse, HostFiguresAndTheirDefaults) {
  Cluster cluster = parseOrFail(R"(
name: hosts
nodes:
  - name: given
    gpus: [{type: L4, count: 2}]
    intra_node: {kind: pcie, bandwidth_GBps: 25, latency_us: 5}
    host_memory_GB: 256
    host_link: {bandwidth_GBps: 12, latency_us: 8}
    host_update_GBps: 40
  - name: defaulted
    gpus: [{type: L4, count: 2}, {type: A6000, count: 1}]
    intra_node: {kind: pcie, bandwidth_GBps: 25, latency_us: 5}
links:
  inter_node: {bandwidth_GBps: 3.1, latency_us: 30}
)");
  ASSERT_EQ(cluster.nodes.size(), 2u);
  const Node &given = cluster.nodes[0], &defaulted = cluster.nodes[1];
  EXPECT_EQ(given.hostMemoryBytes, 256'000'000'000);
  expectLink(given.hostLink, "host", 12, 8);
  EXPECT_DOUBLE_EQ(given.hostUpdateGBps, 40);
  // Twice the node's GPU memory (2 x 24 + 48 GB), PCIe 4.0 x16, and a few
  // cores' 20 GB/s.
  EXPECT_EQ(defaulted.hostMemoryBytes, 2 * 96'000'000'000);
  expectLink(defaulted.hostLink, "host", 25, 10);
  EXPECT_DOUBLE_EQ(defaulted.hostUpdateGBps, 20);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST(ClusterErrors, SyntaxErrorsCarryTheirPosition) {
  EXPECT_EQ(parseError("name: x\nnodes: [{name: a, gpus: [}\n"),
            "bad.yaml:2:26: not valid YAML: Expected , between entries!");
}

TEST(ClusterErrors, OneDocumentPerFile) {
  EXPECT_EQ(parseError("name: a\n---\nname: b\n"),
            "bad.yaml: 2 YAML documents; expected one");
}

TEST(ClusterErrors, EmptyFile) {
  EXPECT_EQ(parseError(""), "bad.yaml:1:1: expected a mapping with keys "
                            "name, nodes, links, got nothing");
  EXPECT_EQ(parseError("- a\n- b\n"),
            "bad.yaml:1:1: expected a mapping with keys name, nodes, links, "
            "got a list");
}

TEST(ClusterErrors, UnknownKeysListTheKnownOnes) {
  EXPECT_EQ(parseError("name: x\nnode: []\n"),
            "bad.yaml:2:1: node: unknown key; the keys here are name, nodes, "
            "links (did you mean \"nodes\"?)");
  EXPECT_EQ(parseError(R"(name: x
nodes:
  - name: box0
    gpus:
      - {type: L4, cout: 2}
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
)"),
            "bad.yaml:5:20: nodes[0].gpus[0].cout: unknown key; the keys here "
            "are type, count, memory_GB, fp32_TFLOPS, fp16_TFLOPS, "
            "bf16_TFLOPS, bandwidth_GBps, efficiency (did you mean \"count\"?)");
  EXPECT_EQ(parseError(R"(name: x
nodes:
  - name: box0
    gpus: [{type: L4, count: 1}]
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
links:
  internode: {bandwidth_GBps: 3, latency_us: 30}
  wan: {bandwidth_GBps: 1, latency_us: 5000}
)"),
            "bad.yaml:7:3: links.internode: unknown key; the keys here are "
            "inter_node, inter_datacenter, datacenter_pairs, "
            "datacenter_uplinks (did you mean \"inter_node\"?)");
}

TEST(ClusterErrors, KeysGivenTwice) {
  EXPECT_EQ(parseError("name: x\nname: y\n"),
            "bad.yaml:2:1: name: given twice (first at bad.yaml:1:1); keep "
            "one");
}

TEST(ClusterErrors, MissingFields) {
  EXPECT_EQ(parseError("nodes: []\n"),
            "bad.yaml:1:1: name: missing; name the cluster");
  EXPECT_EQ(parseError("name: x\n"),
            "bad.yaml:1:1: nodes: missing; list the machines, each with "
            "name, gpus and intra_node");
  EXPECT_EQ(parseError(R"(name: x
nodes:
  - name: box0
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
)"),
            "bad.yaml:3:5: nodes[0].gpus: missing; list the node's GPUs, "
            "e.g. [{type: L4, count: 2}]");
  EXPECT_EQ(parseError(R"(name: x
nodes:
  - name: box0
    gpus: [{type: L4, count: 1}]
)"),
            "bad.yaml:3:5: nodes[0].intra_node: missing; say how the node's "
            "GPUs are connected: {kind: pcie|nvlink|nvswitch, "
            "bandwidth_GBps: N, latency_us: N}");
  EXPECT_EQ(parseError(R"(name: x
nodes:
  - gpus: [{type: L4, count: 1}]
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
)"),
            "bad.yaml:3:5: nodes[0].name: missing; name the node (letters, "
            "digits, '-', '_', '.')");
  EXPECT_EQ(parseError(R"(name: x
nodes:
  - name: box0
    gpus: [{type: L4}]
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
)"),
            "bad.yaml:4:13: nodes[0].gpus[0].count: missing; give how many "
            "GPUs of this type the node holds");
  EXPECT_EQ(parseError(R"(name: x
nodes:
  - name: box0
    gpus: [{count: 1}]
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
)"),
            "bad.yaml:4:13: nodes[0].gpus[0].type: missing; give a GPU type, "
            "e.g. {type: L4, count: 2}");
  EXPECT_EQ(parseError(R"(name: x
nodes:
  - name: box0
    gpus: [{type: L4, count: 1}]
    intra_node: {kind: pcie, bandwidth_GBps: 12}
)"),
            "bad.yaml:5:18: nodes[0].intra_node.latency_us: missing; give "
            "the one-way time of a small message, in microseconds");
  EXPECT_EQ(parseError(R"(name: x
nodes:
  - name: box0
    gpus: [{type: L4, count: 1}]
    intra_node: {bandwidth_GBps: 12, latency_us: 1}
)"),
            "bad.yaml:5:18: nodes[0].intra_node.kind: missing; say how the "
            "node's GPUs are connected: pcie, nvlink or nvswitch");
}

TEST(ClusterErrors, EmptyLists) {
  EXPECT_EQ(parseError("name: x\nnodes: []\n"),
            "bad.yaml:2:9: nodes: empty; list at least one node");
  EXPECT_EQ(parseError(R"(name: x
nodes:
  - name: box0
    gpus: []
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
)"),
            "bad.yaml:4:12: nodes[0].gpus: empty; list at least one GPU entry");
}

TEST(ClusterErrors, WrongShapes) {
  EXPECT_EQ(parseError("name: x\nnodes: {name: box0}\n"),
            "bad.yaml:2:9: nodes: expected a list of nodes, got a mapping");
  EXPECT_EQ(parseError("name: [a, b]\nnodes: []\n"),
            "bad.yaml:1:8: name: expected a string, got a list");
  EXPECT_EQ(parseError(R"(name: x
nodes:
  - name: box0
    gpus: L4
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
)"),
            "bad.yaml:4:11: nodes[0].gpus: expected a list of GPU entries, "
            "got a single value");
  EXPECT_EQ(parseError(R"(name: x
nodes:
  - box0
)"),
            "bad.yaml:3:5: nodes[0]: expected a mapping with keys name, "
            "datacenter, gpus, intra_node, host_memory_GB, host_link, "
            "host_update_GBps, got a single value");
  EXPECT_EQ(parseError(R"(name: x
nodes:
  - name: box0
    gpus: [{type: L4, count: 1}]
    intra_node:
)"),
            "bad.yaml:5:5: nodes[0].intra_node: expected a mapping with keys "
            "kind, bandwidth_GBps, latency_us, got nothing");
}

/// A one-node cluster with `entry` as its GPU entry and `link` as its
/// intra_node link.
std::string oneNode(llvm::StringRef entry,
                    llvm::StringRef link = "{kind: pcie, bandwidth_GBps: 12, "
                                           "latency_us: 10}") {
  return "name: x\nnodes:\n  - name: box0\n    gpus: [" + entry.str() +
         "]\n    intra_node: " + link.str() + "\n";
}

TEST(ClusterErrors, BadNumbers) {
  EXPECT_EQ(parseError(oneNode("{type: L4, count: 0}")),
            "bad.yaml:4:30: nodes[0].gpus[0].count: expected an integer from "
            "1 to 1024, got 0");
  EXPECT_EQ(parseError(oneNode("{type: L4, count: 2.5}")),
            "bad.yaml:4:30: nodes[0].gpus[0].count: expected an integer from "
            "1 to 1024, got 2.5");
  EXPECT_EQ(parseError(oneNode("{type: L4, count: 5000}")),
            "bad.yaml:4:30: nodes[0].gpus[0].count: expected an integer from "
            "1 to 1024, got 5000");
  EXPECT_EQ(parseError(oneNode("{type: L4, count: \"2\"}")),
            "bad.yaml:4:30: nodes[0].gpus[0].count: expected an integer from "
            "1 to 1024, got the string \"2\" (write numbers without quotes)");
  EXPECT_EQ(
      parseError(oneNode("{type: L4, count: 1}",
                         "{kind: pcie, bandwidth_GBps: 0, latency_us: 10}")),
      "bad.yaml:5:46: nodes[0].intra_node.bandwidth_GBps: expected a "
      "number > 0, got 0");
  EXPECT_EQ(
      parseError(oneNode("{type: L4, count: 1}",
                         "{kind: pcie, bandwidth_GBps: fast, latency_us: 10}")),
      "bad.yaml:5:46: nodes[0].intra_node.bandwidth_GBps: expected a "
      "number > 0, got fast");
  EXPECT_EQ(
      parseError(oneNode("{type: L4, count: 1}",
                         "{kind: pcie, bandwidth_GBps: 12, latency_us: -1}")),
      "bad.yaml:5:62: nodes[0].intra_node.latency_us: expected a number "
      ">= 0, got -1");
  EXPECT_EQ(
      parseError(oneNode("{type: L4, count: 1}",
                         "{kind: pcie, bandwidth_GBps: .inf, latency_us: 1}")),
      "bad.yaml:5:46: nodes[0].intra_node.bandwidth_GBps: expected a "
      "number > 0, got .inf");
  EXPECT_EQ(parseError(oneNode("{type: L4, count: 1, memory_GB: 0}")),
            "bad.yaml:4:44: nodes[0].gpus[0].memory_GB: expected a number > "
            "0, got 0");
  EXPECT_EQ(parseError(oneNode("{type: L4, count: 1, bf16_TFLOPS: -5}")),
            "bad.yaml:4:46: nodes[0].gpus[0].bf16_TFLOPS: expected a number "
            ">= 0, got -5");
  EXPECT_EQ(parseError(oneNode("{type: L4, count: 1, efficiency: 1.5}")),
            "bad.yaml:4:45: nodes[0].gpus[0].efficiency: must be at most 1: "
            "the fraction of its peak the GPU reaches on large calls, as "
            "measured");
}

TEST(ClusterErrors, BadHostFigures) {
  auto withHost = [](llvm::StringRef host) {
    return oneNode("{type: L4, count: 1}") + "    " + host.str() + "\n";
  };
  EXPECT_EQ(parseError(withHost("host_memory_GB: 0")),
            "bad.yaml:6:21: nodes[0].host_memory_GB: expected a number > 0, "
            "got 0");
  EXPECT_EQ(parseError(withHost("host_memory_GB: \"512\"")),
            "bad.yaml:6:21: nodes[0].host_memory_GB: expected a number > 0, "
            "got the string \"512\" (write numbers without quotes)");
  EXPECT_EQ(parseError(withHost("host_update_GBps: -20")),
            "bad.yaml:6:23: nodes[0].host_update_GBps: expected a number > "
            "0, got -20");
  EXPECT_EQ(parseError(withHost("host_link: {bandwidth_GBps: 25}")),
            "bad.yaml:6:17: nodes[0].host_link.latency_us: missing; give the "
            "one-way time of a small message, in microseconds");
  EXPECT_EQ(parseError(withHost("host_memory_gb: 512")),
            "bad.yaml:6:5: nodes[0].host_memory_gb: unknown key; the keys here "
            "are name, datacenter, gpus, intra_node, host_memory_GB, "
            "host_link, host_update_GBps (did you mean \"host_memory_GB\"?)");
}

TEST(ClusterErrors, UnknownLinkKind) {
  EXPECT_EQ(parseError(
                oneNode("{type: L4, count: 1}",
                        "{kind: ethernet, bandwidth_GBps: 3, latency_us: 30}")),
            "bad.yaml:5:24: nodes[0].intra_node.kind: unknown link kind "
            "\"ethernet\"; use pcie, nvlink or nvswitch");
}

TEST(ClusterErrors, DuplicateNodeName) {
  EXPECT_EQ(parseError(R"(name: x
nodes:
  - name: box0
    gpus: [{type: L4, count: 1}]
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
  - name: box0
    gpus: [{type: T4, count: 1}]
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
links:
  inter_node: {bandwidth_GBps: 3.1, latency_us: 30}
)"),
            "bad.yaml:6:11: nodes[1].name: duplicate node name \"box0\" (also "
            "nodes[0]); name each node once");
}

TEST(ClusterErrors, TypeListedTwiceInANode) {
  EXPECT_EQ(parseError(R"(name: x
nodes:
  - name: box0
    gpus:
      - {type: L4, count: 1}
      - {type: T4, count: 1}
      - {type: L4, count: 2}
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
)"),
            "bad.yaml:7:16: nodes[0].gpus[2].type: \"L4\" is already listed "
            "at nodes[0].gpus[0]; give one entry with the total count");
}

TEST(ClusterErrors, NamesThatWouldBreakDeviceNames) {
  for (llvm::StringRef name : {"box/0", "box:0", "box 0"})
    EXPECT_EQ(parseError("name: x\nnodes:\n  - name: \"" + name.str() +
                         "\"\n    gpus: [{type: L4, count: 1}]\n"
                         "    intra_node: {kind: pcie, bandwidth_GBps: 12, "
                         "latency_us: 10}\n"),
              "bad.yaml:3:11: nodes[0].name: \"" + name.str() +
                  "\" is not a valid node name; use letters, digits, '-', '_' "
                  "and '.' (devices are named NODE/TYPE:INDEX)");
  EXPECT_EQ(parseError(oneNode("{type: \"My:GPU\", count: 1, memory_GB: 8, "
                               "fp32_TFLOPS: 5, bandwidth_GBps: 300}")),
            "bad.yaml:4:19: nodes[0].gpus[0].type: \"My:GPU\" is not a valid "
            "GPU type name; use letters, digits, '-', '_' and '.' (devices "
            "are named NODE/TYPE:INDEX)");
}

TEST(ClusterErrors, InterNodeLinkNeededWithTwoNodes) {
  EXPECT_EQ(parseError(R"(name: x
nodes:
  - name: box0
    gpus: [{type: L4, count: 1}]
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
  - name: box1
    gpus: [{type: L4, count: 1}]
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
)"),
            "bad.yaml:1:1: links.inter_node: missing; a cluster of 2 nodes "
            "needs it: links: {inter_node: {bandwidth_GBps: N, latency_us: "
            "N}} (what one node can send another, per direction)");
}

TEST(ClusterErrors, InterDatacenterLinkNeededWithTwoDatacenters) {
  EXPECT_EQ(parseError(R"(name: x
nodes:
  - name: box0
    datacenter: east
    gpus: [{type: L4, count: 1}]
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
  - name: box1
    datacenter: west
    gpus: [{type: L4, count: 1}]
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
links:
  inter_node: {bandwidth_GBps: 12.5, latency_us: 5}
)"),
            "bad.yaml:12:3: links.inter_datacenter: missing; the nodes are in "
            "2 datacenters (east, west) and no datacenter_pairs entry links "
            "east and west, so links needs inter_datacenter: {bandwidth_GBps: "
            "N, latency_us: N} (or that pair)");
}

/// Three sites, one node each; `links` is the file's links section.
std::string threeSites(llvm::StringRef links) {
  std::string yaml = "name: x\nnodes:\n";
  for (const char *site : {"east", "west", "south"})
    yaml += std::string("  - name: ") + site + "0\n    datacenter: " + site +
            "\n    gpus: [{type: L4, count: 1}]\n    intra_node: {kind: "
            "pcie, bandwidth_GBps: 12, latency_us: 10}\n";
  return yaml + "links:\n  inter_node: {bandwidth_GBps: 12.5, latency_us: 5}\n" +
         links.str();
}

TEST(ClusterParse, DatacenterPairsHaveTheirOwnLinks) {
  Cluster cluster = parseOrFail(threeSites(R"(  inter_datacenter: {bandwidth_GBps: 1.25, latency_us: 5000}
  datacenter_pairs:
    - {between: [east, west], bandwidth_GBps: 5, latency_us: 2000}
    - {between: [south, west], bandwidth_GBps: 0.5, latency_us: 9000}
)"));
  ASSERT_EQ(cluster.devices.size(), 3u);
  // Devices 0, 1, 2 are in east, west, south; pairs hold both ways.
  expectLink(cluster.linkBetween(0, 1), "wan", 5, 2000);
  expectLink(cluster.linkBetween(1, 0), "wan", 5, 2000);
  expectLink(cluster.linkBetween(1, 2), "wan", 0.5, 9000);
  expectLink(cluster.linkBetween(2, 1), "wan", 0.5, 9000);
  // A pair not listed takes inter_datacenter.
  EXPECT_EQ(&cluster.linkBetween(0, 2), &cluster.interDatacenter);
  expectLink(cluster.linkBetween(0, 2), "wan", 1.25, 5000);
}

TEST(ClusterParse, EveryPairListedNeedsNoDefault) {
  Cluster cluster = parseOrFail(threeSites(R"(  datacenter_pairs:
    - {between: [east, west], bandwidth_GBps: 5, latency_us: 2000}
    - {between: [west, south], bandwidth_GBps: 0.5, latency_us: 9000}
    - {between: [south, east], bandwidth_GBps: 1, latency_us: 7000}
)"));
  expectLink(cluster.linkBetween(2, 0), "wan", 1, 7000);
}

TEST(ClusterErrors, DatacenterPairs) {
  EXPECT_EQ(parseError(threeSites(R"(  datacenter_pairs:
    - {between: [east, west], bandwidth_GBps: 5, latency_us: 2000}
)")),
            "bad.yaml:16:3: links.inter_datacenter: missing; the nodes are in "
            "3 datacenters (east, west, south) and no datacenter_pairs entry "
            "links east and south, so links needs inter_datacenter: "
            "{bandwidth_GBps: N, latency_us: N} (or that pair)");
  std::string withDefault =
      "  inter_datacenter: {bandwidth_GBps: 1.25, latency_us: 5000}\n"
      "  datacenter_pairs:\n";
  EXPECT_EQ(parseError(threeSites(
                withDefault +
                "    - {between: [east, north], bandwidth_GBps: 5, "
                "latency_us: 2000}\n")),
            "bad.yaml:19:24: links.datacenter_pairs[0].between[1]: no node is "
            "in datacenter \"north\"; the nodes' datacenters are east, west, "
            "south");
  EXPECT_EQ(parseError(threeSites(
                withDefault +
                "    - {between: [east, east], bandwidth_GBps: 5, "
                "latency_us: 2000}\n")),
            "bad.yaml:19:18: links.datacenter_pairs[0].between: names "
            "\"east\" twice; a pair links two datacenters");
  EXPECT_EQ(parseError(threeSites(
                withDefault +
                "    - {between: [east, west], bandwidth_GBps: 5, "
                "latency_us: 2000}\n"
                "    - {between: [west, east], bandwidth_GBps: 1, "
                "latency_us: 2000}\n")),
            "bad.yaml:20:18: links.datacenter_pairs[1].between: the link "
            "between \"west\" and \"east\" is given twice");
  EXPECT_EQ(parseError(threeSites(
                withDefault +
                "    - {between: [east], bandwidth_GBps: 5, latency_us: 1}\n")),
            "bad.yaml:19:18: links.datacenter_pairs[0].between: expected two "
            "datacenters: [DC, DC]");
}

TEST(ClusterParse, DatacenterUplinksAreOptional) {
  Cluster cluster = parseOrFail(
      threeSites(R"(  inter_datacenter: {bandwidth_GBps: 1.25, latency_us: 5000}
  datacenter_uplinks:
    - {datacenter: east, bandwidth_GBps: 2}
)"));
  const Link *east = cluster.uplinkOf("east");
  ASSERT_NE(east, nullptr);
  expectLink(*east, "uplink", 2, 0);
  EXPECT_EQ(cluster.uplinkOf("west"), nullptr);
  EXPECT_EQ(cluster.datacenters(),
            (std::vector<std::string>{"east", "west", "south"}));
}

TEST(ClusterErrors, DatacenterUplinks) {
  std::string withDefault =
      "  inter_datacenter: {bandwidth_GBps: 1.25, latency_us: 5000}\n"
      "  datacenter_uplinks:\n";
  EXPECT_EQ(
      parseError(threeSites(withDefault +
                            "    - {datacenter: north, bandwidth_GBps: 2}\n")),
      "bad.yaml:19:20: links.datacenter_uplinks[0].datacenter: no node "
      "is in datacenter \"north\"; the nodes' datacenters are east, "
      "west, south");
  EXPECT_EQ(parseError(threeSites(
                withDefault + "    - {datacenter: east, bandwidth_GBps: 2}\n" +
                "    - {datacenter: east, bandwidth_GBps: 3}\n")),
            "bad.yaml:20:20: links.datacenter_uplinks[1].datacenter: the "
            "uplink of \"east\" is given twice");
  EXPECT_EQ(parseError(threeSites(withDefault + "    - {datacenter: east}\n")),
            "bad.yaml:19:8: links.datacenter_uplinks[0].bandwidth_GBps: "
            "missing; give the GB/s the datacenter can send out (and take in) "
            "in all, per direction");
  EXPECT_EQ(
      parseError(threeSites(
          withDefault +
          "    - {datacenter: east, bandwidth_GBps: 2, latency_us: 1}\n")),
      "bad.yaml:19:45: links.datacenter_uplinks[0].latency_us: unknown "
      "key; the keys here are datacenter, bandwidth_GBps");
  EXPECT_EQ(parseError(threeSites("  inter_datacenter: {bandwidth_GBps: 1.25, "
                                  "latency_us: 5000}\n  datacenter_uplinks: "
                                  "{datacenter: east}\n")),
            "bad.yaml:18:24: links.datacenter_uplinks: expected a list of "
            "{datacenter: DC, bandwidth_GBps: N}, got a mapping");
}

TEST(ClusterErrors, UnknownTypeListsTheCatalogAndTheCustomSyntax) {
  EXPECT_EQ(parseError(oneNode("{type: GTX1080, count: 1}")),
            "bad.yaml:4:19: nodes[0].gpus[0].type: unknown GPU type "
            "\"GTX1080\"; the catalog has H200, H100-SXM, H100-PCIe, "
            "A100-40GB, A100-80GB, A6000, L40S, A10G, L4, V100-16GB, "
            "V100-32GB, T4, P40, RTX3090, RTX4090. For another GPU give its "
            "spec-sheet figures in the entry: {type: GTX1080, count: N, "
            "memory_GB: GB, fp32_TFLOPS: TF, bandwidth_GBps: GBPS} and, where "
            "it has FP16 or BF16 tensor cores, fp16_TFLOPS and bf16_TFLOPS "
            "(dense peaks)");
}

TEST(ClusterErrors, CustomEntryNeedsItsFigures) {
  EXPECT_EQ(parseError(oneNode(
                "{type: MyGPU, count: 1, memory_GB: 8, bandwidth_GBps: 300}")),
            "bad.yaml:4:13: nodes[0].gpus[0].fp32_TFLOPS: missing; \"MyGPU\" "
            "is not in the catalog, so its entry must give memory_GB, "
            "fp32_TFLOPS and bandwidth_GBps");
}

TEST(ClusterErrors, OneTypeNameOneSetOfFigures) {
  EXPECT_EQ(parseError(R"(name: x
nodes:
  - name: box0
    gpus: [{type: L4, count: 1, memory_GB: 22}]
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
  - name: box1
    gpus: [{type: L4, count: 1, memory_GB: 23}]
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
links:
  inter_node: {bandwidth_GBps: 3.1, latency_us: 30}
)"),
            "bad.yaml:7:13: nodes[1].gpus[0]: figures for \"L4\" differ from "
            "those at nodes[0].gpus[0]; a type name stands for one GPU model: "
            "give the same figures (or give them once and only type and count "
            "elsewhere), or name the other model differently");
}

TEST(ClusterErrors, AliasesAreRejected) {
  EXPECT_EQ(parseError(R"(name: x
nodes:
  - name: box0
    gpus: &gpus [{type: L4, count: 1}]
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
  - name: box1
    gpus: *gpus
    intra_node: {kind: pcie, bandwidth_GBps: 12, latency_us: 10}
)"),
            "bad.yaml:7:5: nodes[1].gpus: anchors and aliases are not "
            "supported; write the value out");
}

TEST(ClusterErrors, UnreadableFile) {
  std::string path = clustersDir() + "/no-such-cluster.yaml";
  llvm::Expected<Cluster> cluster = readClusterFile(path);
  ASSERT_FALSE(static_cast<bool>(cluster));
  EXPECT_EQ(llvm::toString(cluster.takeError()),
            "cannot read " + path + ": No such file or directory");
}

} // namespace
