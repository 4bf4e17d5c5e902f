//===- Cluster.cpp - reading cluster files, naming devices, links ---------===//
//
// Parsing is strict (a misspelled optional key silently defaulted would
// mislead the planner) and runs in two steps: nodes, GPU entries and links
// are read and checked as written; then GPU types are resolved against the
// catalog and the file's own figures, and the devices are numbered.
//
//===----------------------------------------------------------------------===//

#include "planner/Cluster.h"
#include "planner/YamlValue.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cassert>
#include <optional>

namespace hetc::planner {

const Link &Cluster::linkBetween(int a, int b) const {
  assert(a >= 0 && a < static_cast<int>(devices.size()) && b >= 0 &&
         b < static_cast<int>(devices.size()) && "device out of range");
  const Node &nodeA = nodes[devices[a].node];
  const Node &nodeB = nodes[devices[b].node];
  if (devices[a].node == devices[b].node)
    return nodeA.intraNode;
  if (nodeA.datacenter == nodeB.datacenter)
    return interNode;
  return linkBetweenDatacenters(nodeA.datacenter, nodeB.datacenter);
}

const Link &Cluster::linkBetweenDatacenters(llvm::StringRef a,
                                            llvm::StringRef b) const {
  for (const DatacenterPair &pair : datacenterPairs)
    if ((pair.first == a && pair.second == b) ||
        (pair.first == b && pair.second == a))
      return pair.link;
  return interDatacenter;
}

const Link *Cluster::uplinkOf(llvm::StringRef name) const {
  for (const DatacenterUplink &uplink : datacenterUplinks)
    if (uplink.datacenter == name)
      return &uplink.link;
  return nullptr;
}

std::vector<std::string> Cluster::datacenters() const {
  std::vector<std::string> names;
  for (const Node &node : nodes)
    if (!llvm::is_contained(names, node.datacenter))
      names.push_back(node.datacenter);
  return names;
}

int Cluster::deviceIndex(llvm::StringRef name) const {
  auto it = llvm::find_if(
      devices, [&](const Device &device) { return device.name == name; });
  return it == devices.end() ? -1 : static_cast<int>(it - devices.begin());
}

namespace {

/// Far above any machine (an NVL72 rack is 72 GPUs), low enough that a typo
/// cannot make the parser allocate millions of devices.
constexpr int64_t maxGpusPerEntry = 1024;

/// Names that go into device names (NODE/TYPE:INDEX) must not contain the
/// separators.
bool isValidName(llvm::StringRef name) {
  return !name.empty() && llvm::all_of(name, [](char c) {
    return llvm::isAlnum(c) || c == '-' || c == '_' || c == '.';
  });
}

llvm::Expected<Link> readLink(const YamlValue &value, bool intraNode,
                              llvm::ArrayRef<llvm::StringRef> otherKeys = {}) {
  llvm::SmallVector<llvm::StringRef> known;
  if (intraNode)
    known.push_back("kind");
  known.append({"bandwidth_GBps", "latency_us"});
  llvm::append_range(known, otherKeys);
  if (llvm::Error error = value.checkMapping(known))
    return std::move(error);
  Link link;
  if (intraNode) {
    auto kind =
        value.requireField("kind", "say how the node's GPUs are connected: "
                                   "pcie, nvlink or nvswitch");
    if (!kind)
      return kind.takeError();
    auto name = kind->getString();
    if (!name)
      return name.takeError();
    static constexpr llvm::StringRef kinds[] = {"pcie", "nvlink", "nvswitch"};
    if (!llvm::is_contained(kinds, *name))
      return errorAt(kind->place, "unknown link kind \"" + *name +
                                      "\"; use pcie, nvlink or nvswitch");
    link.kind = std::move(*name);
  }
  auto bandwidth = value.requireField(
      "bandwidth_GBps",
      "give the GB/s one side can send the other, per direction");
  if (!bandwidth)
    return bandwidth.takeError();
  auto bandwidthGBps = bandwidth->getNumber(/*allowZero=*/false);
  if (!bandwidthGBps)
    return bandwidthGBps.takeError();
  auto latency = value.requireField(
      "latency_us", "give the one-way time of a small message, in "
                    "microseconds");
  if (!latency)
    return latency.takeError();
  auto latencyUs = latency->getNumber(/*allowZero=*/true);
  if (!latencyUs)
    return latencyUs.takeError();
  link.bandwidthGBps = *bandwidthGBps;
  link.latencyUs = *latencyUs;
  return link;
}

/// Host memory where the file does not give it, in proportion to the
/// node's GPU memory.
void defaultHostMemory(Cluster &cluster) {
  for (Node &node : cluster.nodes) {
    if (node.hostMemoryBytes > 0)
      continue;
    int64_t gpuBytes = 0;
    for (int d : node.devices)
      gpuBytes += cluster.devices[d].gpu.memoryBytes();
    node.hostMemoryBytes = static_cast<int64_t>(kDefaultHostMemoryPerGpuByte *
                                                static_cast<double>(gpuBytes));
  }
}

/// One entry of a node's `gpus` list as written.
struct GpuEntry {
  YamlPlace place;
  YamlPlace typePlace;
  std::string type;
  int64_t count = 0;
  int node = 0;
  /// Figures given in the entry: a custom GPU, or a catalog override.
  std::optional<double> memoryGB, fp32Tflops, fp16Tflops, bf16Tflops,
      memoryBandwidthGBps, efficiency;

  bool hasFigures() const {
    return memoryGB || fp32Tflops || fp16Tflops || bf16Tflops ||
           memoryBandwidthGBps || efficiency;
  }
};

/// A GPU type's figures in this file and the entry that first gave them.
struct TypeDefinition {
  GpuSpec spec;
  const GpuEntry *entry;
};

/// `spec` with the figures `entry` gives over it.
GpuSpec applyFigures(GpuSpec spec, const GpuEntry &entry) {
  spec.memoryGB = entry.memoryGB.value_or(spec.memoryGB);
  spec.fp32Tflops = entry.fp32Tflops.value_or(spec.fp32Tflops);
  spec.fp16Tflops = entry.fp16Tflops.value_or(spec.fp16Tflops);
  spec.bf16Tflops = entry.bf16Tflops.value_or(spec.bf16Tflops);
  spec.memoryBandwidthGBps =
      entry.memoryBandwidthGBps.value_or(spec.memoryBandwidthGBps);
  spec.maxEfficiency = entry.efficiency.value_or(spec.maxEfficiency);
  return spec;
}

bool sameFigures(const GpuSpec &a, const GpuSpec &b) {
  return a.memoryGB == b.memoryGB && a.fp32Tflops == b.fp32Tflops &&
         a.fp16Tflops == b.fp16Tflops && a.bf16Tflops == b.bf16Tflops &&
         a.memoryBandwidthGBps == b.memoryBandwidthGBps &&
         a.maxEfficiency == b.maxEfficiency;
}

std::string unknownTypeMessage(llvm::StringRef type) {
  llvm::SmallVector<llvm::StringRef> known;
  for (const GpuSpec &gpu : gpuCatalog())
    known.push_back(gpu.type);
  return "unknown GPU type \"" + type.str() + "\"; the catalog has " +
         llvm::join(known, ", ") +
         ". For another GPU give its spec-sheet figures in the entry: "
         "{type: " +
         type.str() +
         ", count: N, memory_GB: GB, fp32_TFLOPS: TF, bandwidth_GBps: GBPS} "
         "and, where it has FP16 or BF16 tensor cores, fp16_TFLOPS and "
         "bf16_TFLOPS (dense peaks)";
}

/// Builds the cluster: nodes and links as read, GPU entries collected and
/// resolved once all are known.
class ClusterReader {
public:
  llvm::Expected<Cluster> read(const YamlValue &root);

private:
  llvm::Error readNodes(const YamlValue &list, Cluster &cluster);
  llvm::Error readNode(const YamlValue &value, int index, Cluster &cluster);
  llvm::Error readHost(const YamlValue &value, Node &node);
  llvm::Error readGpus(const YamlValue &list, int node);
  llvm::Error readGpuEntry(const YamlValue &value, int node);
  llvm::Error readLinks(const YamlValue &value, Cluster &cluster);
  llvm::Error readDatacenterPairs(const YamlValue &list, Cluster &cluster);
  llvm::Error readDatacenterUplinks(const YamlValue &list, Cluster &cluster);
  llvm::Error checkLinks(const Cluster &cluster,
                         const YamlPlace &linksPlace) const;
  llvm::Expected<llvm::StringMap<TypeDefinition>> defineTypes() const;
  llvm::Error addDevices(Cluster &cluster) const;

  std::vector<GpuEntry> gpuEntries; // in file order
  bool hasInterNode = false;
  bool hasInterDatacenter = false;
};

llvm::Expected<Cluster> ClusterReader::read(const YamlValue &root) {
  if (llvm::Error error = root.checkMapping({"name", "nodes", "links"}))
    return std::move(error);
  Cluster cluster;
  auto name = root.requireField("name", "name the cluster");
  if (!name)
    return name.takeError();
  auto clusterName = name->getString();
  if (!clusterName)
    return clusterName.takeError();
  cluster.name = std::move(*clusterName);
  auto nodes = root.requireField(
      "nodes", "list the machines, each with name, gpus and intra_node");
  if (!nodes)
    return nodes.takeError();
  if (llvm::Error error = readNodes(*nodes, cluster))
    return std::move(error);
  cluster.interNode.kind = "network";
  cluster.interDatacenter.kind = "wan";
  const YamlValue *links = root.field("links");
  if (links)
    if (llvm::Error error = readLinks(*links, cluster))
      return std::move(error);
  if (llvm::Error error =
          checkLinks(cluster, links ? links->place : root.place.child("links")))
    return std::move(error);
  if (llvm::Error error = addDevices(cluster))
    return std::move(error);
  defaultHostMemory(cluster);
  return cluster;
}

llvm::Error ClusterReader::readNodes(const YamlValue &list, Cluster &cluster) {
  if (list.kind != YamlValue::Kind::List)
    return errorAt(list.place,
                   "expected a list of nodes, got " + list.describe());
  if (list.items.empty())
    return errorAt(list.place, "empty; list at least one node");
  llvm::StringMap<std::string> nodePaths;
  for (const YamlValue &item : list.items) {
    if (llvm::Error error = readNode(item, cluster.nodes.size(), cluster))
      return error;
    const Node &node = cluster.nodes.back();
    auto [earlier, inserted] =
        nodePaths.try_emplace(node.name, item.place.path);
    if (!inserted)
      return errorAt(item.field("name")->place,
                     "duplicate node name \"" + node.name + "\" (also " +
                         earlier->second + "); name each node once");
  }
  return llvm::Error::success();
}

llvm::Error ClusterReader::readNode(const YamlValue &value, int index,
                                    Cluster &cluster) {
  if (llvm::Error error = value.checkMapping({"name", "datacenter", "gpus",
                                              "intra_node", "host_memory_GB",
                                              "host_link", "host_update_GBps"}))
    return error;
  Node node;
  auto name = value.requireField(
      "name", "name the node (letters, digits, '-', '_', '.')");
  if (!name)
    return name.takeError();
  auto nodeName = name->getString();
  if (!nodeName)
    return nodeName.takeError();
  if (!isValidName(*nodeName))
    return errorAt(name->place,
                   "\"" + *nodeName +
                       "\" is not a valid node name; use letters, digits, "
                       "'-', '_' and '.' (devices are named NODE/TYPE:INDEX)");
  node.name = std::move(*nodeName);
  node.datacenter = "dc0";
  if (const YamlValue *datacenter = value.field("datacenter")) {
    auto datacenterName = datacenter->getString();
    if (!datacenterName)
      return datacenterName.takeError();
    node.datacenter = std::move(*datacenterName);
  }
  auto gpus = value.requireField(
      "gpus", "list the node's GPUs, e.g. [{type: L4, count: 2}]");
  if (!gpus)
    return gpus.takeError();
  if (llvm::Error error = readGpus(*gpus, index))
    return error;
  auto intraNode = value.requireField(
      "intra_node", "say how the node's GPUs are connected: {kind: "
                    "pcie|nvlink|nvswitch, bandwidth_GBps: N, latency_us: N}");
  if (!intraNode)
    return intraNode.takeError();
  auto link = readLink(*intraNode, /*intraNode=*/true);
  if (!link)
    return link.takeError();
  node.intraNode = std::move(*link);
  if (llvm::Error error = readHost(value, node))
    return error;
  cluster.nodes.push_back(std::move(node));
  return llvm::Error::success();
}

/// The node's host figures as given; defaultHostMemory fills in its
/// memory once its devices are known.
llvm::Error ClusterReader::readHost(const YamlValue &value, Node &node) {
  if (const YamlValue *memory = value.field("host_memory_GB")) {
    auto gigabytes = memory->getNumber(/*allowZero=*/false);
    if (!gigabytes)
      return gigabytes.takeError();
    node.hostMemoryBytes = static_cast<int64_t>(*gigabytes * 1e9);
  }
  if (const YamlValue *hostLink = value.field("host_link")) {
    auto link = readLink(*hostLink, /*intraNode=*/false);
    if (!link)
      return link.takeError();
    node.hostLink.bandwidthGBps = link->bandwidthGBps;
    node.hostLink.latencyUs = link->latencyUs;
  }
  if (const YamlValue *update = value.field("host_update_GBps")) {
    auto gigabytesPerSecond = update->getNumber(/*allowZero=*/false);
    if (!gigabytesPerSecond)
      return gigabytesPerSecond.takeError();
    node.hostUpdateGBps = *gigabytesPerSecond;
  }
  return llvm::Error::success();
}

llvm::Error ClusterReader::readGpus(const YamlValue &list, int node) {
  if (list.kind != YamlValue::Kind::List)
    return errorAt(list.place,
                   "expected a list of GPU entries, got " + list.describe());
  if (list.items.empty())
    return errorAt(list.place, "empty; list at least one GPU entry");
  size_t first = gpuEntries.size();
  for (const YamlValue &item : list.items) {
    if (llvm::Error error = readGpuEntry(item, node))
      return error;
    const GpuEntry &entry = gpuEntries.back();
    for (size_t earlier = first; earlier + 1 < gpuEntries.size(); ++earlier)
      if (gpuEntries[earlier].type == entry.type)
        return errorAt(entry.typePlace,
                       "\"" + entry.type + "\" is already listed at " +
                           gpuEntries[earlier].place.path +
                           "; give one entry with the total count");
  }
  return llvm::Error::success();
}

llvm::Error ClusterReader::readGpuEntry(const YamlValue &value, int node) {
  if (llvm::Error error =
          value.checkMapping({"type", "count", "memory_GB", "fp32_TFLOPS",
                              "fp16_TFLOPS", "bf16_TFLOPS", "bandwidth_GBps",
                              "efficiency"}))
    return error;
  GpuEntry entry;
  entry.place = value.place;
  entry.node = node;
  auto type =
      value.requireField("type", "give a GPU type, e.g. {type: L4, count: 2}");
  if (!type)
    return type.takeError();
  auto typeName = type->getString();
  if (!typeName)
    return typeName.takeError();
  if (!isValidName(*typeName))
    return errorAt(type->place,
                   "\"" + *typeName +
                       "\" is not a valid GPU type name; use letters, "
                       "digits, '-', '_' and '.' (devices are named "
                       "NODE/TYPE:INDEX)");
  entry.type = std::move(*typeName);
  entry.typePlace = type->place;
  auto count = value.requireField(
      "count", "give how many GPUs of this type the node holds");
  if (!count)
    return count.takeError();
  auto countValue = count->getInteger(1, maxGpusPerEntry);
  if (!countValue)
    return countValue.takeError();
  entry.count = *countValue;

  struct Figure {
    llvm::StringRef key;
    std::optional<double> &value;
    bool allowZero;
  };
  Figure figures[] = {{"memory_GB", entry.memoryGB, false},
                      {"fp32_TFLOPS", entry.fp32Tflops, false},
                      {"fp16_TFLOPS", entry.fp16Tflops, true},
                      {"bf16_TFLOPS", entry.bf16Tflops, true},
                      {"bandwidth_GBps", entry.memoryBandwidthGBps, false},
                      {"efficiency", entry.efficiency, false}};
  for (Figure &figure : figures)
    if (const YamlValue *field = value.field(figure.key)) {
      auto number = field->getNumber(figure.allowZero);
      if (!number)
        return number.takeError();
      if (figure.key == "efficiency" && *number > 1)
        return errorAt(field->place,
                       "must be at most 1: the fraction of its peak the GPU "
                       "reaches on large calls, as measured");
      figure.value = *number;
    }
  gpuEntries.push_back(std::move(entry));
  return llvm::Error::success();
}

llvm::Error ClusterReader::readLinks(const YamlValue &value, Cluster &cluster) {
  if (llvm::Error error =
          value.checkMapping({"inter_node", "inter_datacenter",
                              "datacenter_pairs", "datacenter_uplinks"}))
    return error;
  if (const YamlValue *pairs = value.field("datacenter_pairs"))
    if (llvm::Error error = readDatacenterPairs(*pairs, cluster))
      return error;
  if (const YamlValue *uplinks = value.field("datacenter_uplinks"))
    if (llvm::Error error = readDatacenterUplinks(*uplinks, cluster))
      return error;
  if (const YamlValue *interNode = value.field("inter_node")) {
    auto link = readLink(*interNode, /*intraNode=*/false);
    if (!link)
      return link.takeError();
    cluster.interNode.bandwidthGBps = link->bandwidthGBps;
    cluster.interNode.latencyUs = link->latencyUs;
    hasInterNode = true;
  }
  if (const YamlValue *interDatacenter = value.field("inter_datacenter")) {
    auto link = readLink(*interDatacenter, /*intraNode=*/false);
    if (!link)
      return link.takeError();
    cluster.interDatacenter.bandwidthGBps = link->bandwidthGBps;
    cluster.interDatacenter.latencyUs = link->latencyUs;
    hasInterDatacenter = true;
  }
  return llvm::Error::success();
}

/// An error at `value` unless `name` is one of the nodes' `datacenters`.
static llvm::Error checkDatacenter(const YamlValue &value, llvm::StringRef name,
                                   llvm::ArrayRef<std::string> datacenters) {
  if (llvm::is_contained(datacenters, name))
    return llvm::Error::success();
  return errorAt(value.place, "no node is in datacenter \"" + name +
                                  "\"; the nodes' datacenters are " +
                                  llvm::join(datacenters, ", "));
}

llvm::Error ClusterReader::readDatacenterPairs(const YamlValue &list,
                                               Cluster &cluster) {
  if (list.kind != YamlValue::Kind::List)
    return errorAt(list.place, "expected a list of {between: [DC, DC], "
                               "bandwidth_GBps: N, latency_us: N}, got " +
                                   list.describe());
  std::vector<std::string> datacenters = cluster.datacenters();
  for (const YamlValue &item : list.items) {
    auto link = readLink(item, /*intraNode=*/false, {"between"});
    if (!link)
      return link.takeError();
    auto between = item.requireField(
        "between", "name the two datacenters: between: [DC, DC]");
    if (!between)
      return between.takeError();
    if (between->kind != YamlValue::Kind::List || between->items.size() != 2)
      return errorAt(between->place, "expected two datacenters: [DC, DC]");
    DatacenterPair pair;
    for (auto [index, end] : llvm::enumerate(between->items)) {
      auto name = end.getString();
      if (!name)
        return name.takeError();
      if (llvm::Error error = checkDatacenter(end, *name, datacenters))
        return error;
      (index == 0 ? pair.first : pair.second) = std::move(*name);
    }
    if (pair.first == pair.second)
      return errorAt(between->place,
                     "names \"" + pair.first +
                         "\" twice; a pair links two datacenters");
    for (const DatacenterPair &earlier : cluster.datacenterPairs)
      if (&cluster.linkBetweenDatacenters(pair.first, pair.second) ==
          &earlier.link)
        return errorAt(between->place, "the link between \"" + pair.first +
                                           "\" and \"" + pair.second +
                                           "\" is given twice");
    pair.link = std::move(*link);
    pair.link.kind = "wan";
    cluster.datacenterPairs.push_back(std::move(pair));
  }
  return llvm::Error::success();
}

llvm::Error ClusterReader::readDatacenterUplinks(const YamlValue &list,
                                                 Cluster &cluster) {
  if (list.kind != YamlValue::Kind::List)
    return errorAt(list.place, "expected a list of {datacenter: DC, "
                               "bandwidth_GBps: N}, got " +
                                   list.describe());
  std::vector<std::string> datacenters = cluster.datacenters();
  for (const YamlValue &item : list.items) {
    if (llvm::Error error = item.checkMapping({"datacenter", "bandwidth_GBps"}))
      return error;
    auto datacenter = item.requireField(
        "datacenter", "name the datacenter whose uplink this is");
    if (!datacenter)
      return datacenter.takeError();
    auto name = datacenter->getString();
    if (!name)
      return name.takeError();
    if (llvm::Error error = checkDatacenter(*datacenter, *name, datacenters))
      return error;
    if (cluster.uplinkOf(*name))
      return errorAt(datacenter->place,
                     "the uplink of \"" + *name + "\" is given twice");
    auto bandwidth = item.requireField(
        "bandwidth_GBps", "give the GB/s the datacenter can send out (and "
                          "take in) in all, per direction");
    if (!bandwidth)
      return bandwidth.takeError();
    auto bandwidthGBps = bandwidth->getNumber(/*allowZero=*/false);
    if (!bandwidthGBps)
      return bandwidthGBps.takeError();
    cluster.datacenterUplinks.push_back(
        {std::move(*name), Link{"uplink", *bandwidthGBps, 0}});
  }
  return llvm::Error::success();
}

llvm::Error ClusterReader::checkLinks(const Cluster &cluster,
                                      const YamlPlace &linksPlace) const {
  if (cluster.nodes.size() >= 2 && !hasInterNode)
    return errorAt(linksPlace.child("inter_node"),
                   "missing; a cluster of " +
                       std::to_string(cluster.nodes.size()) +
                       " nodes needs it: links: {inter_node: "
                       "{bandwidth_GBps: N, latency_us: N}} (what one node "
                       "can send another, per direction)");
  std::vector<std::string> datacenters = cluster.datacenters();
  if (hasInterDatacenter)
    return llvm::Error::success();
  // Without a default every pair of datacenters needs its own link.
  for (size_t a = 0; a < datacenters.size(); ++a)
    for (size_t b = a + 1; b < datacenters.size(); ++b)
      if (&cluster.linkBetweenDatacenters(datacenters[a], datacenters[b]) ==
          &cluster.interDatacenter)
        return errorAt(
            linksPlace.child("inter_datacenter"),
            "missing; the nodes are in " + std::to_string(datacenters.size()) +
                " datacenters (" + llvm::join(datacenters, ", ") +
                ") and no datacenter_pairs entry links " + datacenters[a] +
                " and " + datacenters[b] +
                ", so links needs inter_datacenter: {bandwidth_GBps: N, "
                "latency_us: N} (or that pair)");
  return llvm::Error::success();
}

/// The figures entries give, by type. A type name stands for one GPU model
/// in a file (the cost model calibrates per type), so entries of one type
/// that give figures must agree, and entries that give none take them.
llvm::Expected<llvm::StringMap<TypeDefinition>>
ClusterReader::defineTypes() const {
  llvm::StringMap<TypeDefinition> definitions;
  for (const GpuEntry &entry : gpuEntries) {
    if (!entry.hasFigures())
      continue;
    GpuSpec spec;
    if (const GpuSpec *catalogSpec = findGpu(entry.type)) {
      spec = applyFigures(*catalogSpec, entry);
      spec.source = catalogSpec->source + "; figures overridden at " +
                    entry.place.location;
    } else {
      for (auto [key, value] :
           {std::pair{"memory_GB", entry.memoryGB},
            std::pair{"fp32_TFLOPS", entry.fp32Tflops},
            std::pair{"bandwidth_GBps", entry.memoryBandwidthGBps}})
        if (!value)
          return errorAt(entry.place.child(key),
                         "missing; \"" + entry.type +
                             "\" is not in the catalog, so its entry must "
                             "give memory_GB, fp32_TFLOPS and bandwidth_GBps");
      spec.type = entry.type;
      spec = applyFigures(spec, entry);
      spec.source = "custom entry at " + entry.place.location;
    }
    auto [it, inserted] =
        definitions.try_emplace(entry.type, TypeDefinition{spec, &entry});
    if (!inserted && !sameFigures(it->second.spec, spec))
      return errorAt(entry.place,
                     "figures for \"" + entry.type +
                         "\" differ from those at " +
                         it->second.entry->place.path +
                         "; a type name stands for one GPU model: give the "
                         "same figures (or give them once and only type and "
                         "count elsewhere), or name the other model "
                         "differently");
  }
  return definitions;
}

llvm::Error ClusterReader::addDevices(Cluster &cluster) const {
  auto definitions = defineTypes();
  if (!definitions)
    return definitions.takeError();
  for (const GpuEntry &entry : gpuEntries) {
    const GpuSpec *spec = findGpu(entry.type);
    if (auto it = definitions->find(entry.type); it != definitions->end())
      spec = &it->second.spec;
    if (!spec)
      return errorAt(entry.typePlace, unknownTypeMessage(entry.type));
    Node &node = cluster.nodes[entry.node];
    for (int64_t index = 0; index < entry.count; ++index) {
      node.devices.push_back(cluster.devices.size());
      cluster.devices.push_back(
          {node.name + "/" + entry.type + ":" + std::to_string(index), *spec,
           entry.node});
    }
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<Cluster> parseCluster(llvm::StringRef yaml,
                                     llvm::StringRef fileName) {
  llvm::Expected<YamlValue> root = parseYaml(yaml, fileName);
  if (!root)
    return root.takeError();
  return ClusterReader().read(*root);
}

llvm::Expected<Cluster> readClusterFile(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read " + path + ": " +
                                       buffer.getError().message());
  return parseCluster((*buffer)->getBuffer(), path);
}

} // namespace hetc::planner
