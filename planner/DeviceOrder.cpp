//===- DeviceOrder.cpp - device orders that stages are cut from -----------===//

#include "planner/SearchSpace.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <map>

namespace hetc::planner {

namespace {

/// Nodes that are interchangeable for the planner: same datacenter, same
/// link inside, same GPUs.
std::string nodeKind(const Cluster &cluster, const Node &node) {
  std::map<std::string, int> counts;
  for (int d : node.devices)
    ++counts[cluster.devices[d].gpu.type];
  std::string key = node.datacenter + "|" + node.intraNode.kind + "|" +
                    std::to_string(node.intraNode.bandwidthGBps) + "|" +
                    std::to_string(node.intraNode.latencyUs);
  for (const auto &[type, count] : counts)
    key += "|" + type + "x" + std::to_string(count);
  return key;
}

/// Orders of `items` to try: every permutation of up to three, else the
/// given order and its reverse. The given order comes first.
template <typename T>
std::vector<std::vector<T>> ordersOf(std::vector<T> items) {
  if (items.size() > 3)
    return {items, std::vector<T>(items.rbegin(), items.rend())};
  std::vector<size_t> index(items.size());
  for (size_t i = 0; i < index.size(); ++i)
    index[i] = i;
  std::vector<std::vector<T>> orders;
  do {
    std::vector<T> &order = orders.emplace_back();
    for (size_t i : index)
      order.push_back(items[i]);
  } while (std::next_permutation(index.begin(), index.end()));
  return orders;
}

/// Nodes of at most this many distinct sequences of GPU types are tried in
/// every one: inside a node every device has the same links, so which
/// types sit next to which is free (a slow GPU between two stages of fast
/// ones, say). Larger nodes keep their types together.
constexpr size_t kMaxNodeSequences = 24;

/// Every distinct sequence of the multiset `types` (sorted), or none if
/// there are more than kMaxNodeSequences.
std::vector<std::vector<std::string>>
typeSequences(std::vector<std::string> types) {
  llvm::sort(types);
  std::vector<std::vector<std::string>> sequences;
  do {
    if (sequences.size() == kMaxNodeSequences)
      return {};
    sequences.push_back(types);
  } while (std::next_permutation(types.begin(), types.end()));
  return sequences;
}

/// Sorts names by memory per device, largest first (the first stages keep
/// the most micro-batches in flight), ties by name: never by their order in
/// the cluster file, so that reordering the file changes no plan.
template <typename MemoryOf>
void sortByMemory(std::vector<std::string> &names, MemoryOf memoryOf) {
  std::sort(names.begin(), names.end(),
            [&](const std::string &a, const std::string &b) {
              double ma = memoryOf(a), mb = memoryOf(b);
              return ma != mb ? ma > mb : a < b;
            });
}

/// Splits [0, count) into `pieces` consecutive near-equal ranges (the first
/// ones one longer); returns their ends.
std::vector<size_t> evenEnds(size_t count, size_t pieces) {
  std::vector<size_t> ends;
  size_t end = 0;
  for (size_t p = 0; p < pieces; ++p) {
    end += count / pieces + (p < count % pieces ? 1 : 0);
    ends.push_back(end);
  }
  return ends;
}

} // namespace

std::vector<std::vector<int>> deviceOrders(const Cluster &cluster,
                                           size_t maxOrders) {
  auto deviceMemory = [&](const std::string &type) {
    for (const Device &device : cluster.devices)
      if (device.gpu.type == type)
        return device.gpu.memoryGB;
    return 0.0;
  };
  // Datacenters, the node kinds of each, and GPU types, each listed once.
  std::vector<std::string> datacenters, types;
  std::map<std::string, std::vector<std::string>> kindsOf;
  std::map<std::string, std::vector<int>> nodesOfKind;
  std::map<std::string, double> kindMemory, datacenterMemory;
  // Nodes by name: interchangeable nodes are used in one order whatever
  // the file's.
  std::vector<int> nodes(cluster.nodes.size());
  for (size_t n = 0; n < nodes.size(); ++n)
    nodes[n] = static_cast<int>(n);
  llvm::sort(nodes, [&](int a, int b) {
    return cluster.nodes[a].name < cluster.nodes[b].name;
  });
  for (int n : nodes) {
    const Node &node = cluster.nodes[n];
    if (!llvm::is_contained(datacenters, node.datacenter))
      datacenters.push_back(node.datacenter);
    std::string kind = nodeKind(cluster, node);
    if (!nodesOfKind.count(kind))
      kindsOf[node.datacenter].push_back(kind);
    nodesOfKind[kind].push_back(n);
    for (int d : node.devices) {
      const GpuSpec &gpu = cluster.devices[d].gpu;
      if (!llvm::is_contained(types, gpu.type))
        types.push_back(gpu.type);
      kindMemory[kind] = std::max(kindMemory[kind], gpu.memoryGB);
      datacenterMemory[node.datacenter] =
          std::max(datacenterMemory[node.datacenter], gpu.memoryGB);
    }
  }
  sortByMemory(types, deviceMemory);
  sortByMemory(datacenters,
               [&](const std::string &dc) { return datacenterMemory[dc]; });
  for (auto &[dc, kinds] : kindsOf)
    sortByMemory(kinds, [&](const std::string &k) { return kindMemory[k]; });

  // Each choice dimension: the datacenter order, each datacenter's kind
  // order, the type order inside nodes, and each small node kind's
  // sequence of types (which then replaces the type order there).
  std::vector<std::vector<std::vector<std::string>>> dimensions;
  dimensions.push_back(ordersOf(datacenters));
  for (const std::string &dc : datacenters)
    dimensions.push_back(ordersOf(kindsOf[dc]));
  std::map<std::string, size_t> sequenceDimension;
  for (const std::string &dc : datacenters)
    for (const std::string &kind : kindsOf[dc]) {
      std::vector<std::string> nodeTypes;
      for (int d : cluster.nodes[nodesOfKind[kind].front()].devices)
        nodeTypes.push_back(cluster.devices[d].gpu.type);
      std::vector<std::vector<std::string>> sequences =
          typeSequences(nodeTypes);
      if (sequences.size() < 2)
        continue;
      sequenceDimension[kind] = dimensions.size();
      dimensions.push_back(std::move(sequences));
    }
  bool typesMatter = sequenceDimension.size() < nodesOfKind.size();
  dimensions.push_back(typesMatter
                           ? ordersOf(types)
                           : std::vector<std::vector<std::string>>{types});
  size_t combinations = 1;
  for (const auto &dimension : dimensions)
    combinations = std::min<size_t>(combinations * dimension.size(), 1 << 20);

  // Spread the orders tried over all combinations.
  size_t count = std::min(combinations, std::max<size_t>(maxOrders, 1));
  std::vector<std::vector<int>> orders;
  for (size_t i = 0; i < count; ++i) {
    size_t code = i * combinations / count;
    std::vector<const std::vector<std::string> *> choice;
    for (const auto &dimension : dimensions) {
      choice.push_back(&dimension[code % dimension.size()]);
      code /= dimension.size();
    }
    const std::vector<std::string> &typeOrder = *choice.back();
    std::vector<int> &order = orders.emplace_back();
    for (const std::string &dc : *choice.front()) {
      size_t dcIndex = llvm::find(datacenters, dc) - datacenters.begin();
      for (const std::string &kind : *choice[1 + dcIndex]) {
        auto sequence = sequenceDimension.find(kind);
        for (int n : nodesOfKind[kind]) {
          std::vector<int> devices = cluster.nodes[n].devices;
          if (sequence == sequenceDimension.end()) {
            for (const std::string &type : typeOrder)
              for (int d : devices)
                if (cluster.devices[d].gpu.type == type)
                  order.push_back(d);
            continue;
          }
          // The sequence's k-th GPU of a type is the node's k-th.
          for (const std::string &type : *choice[sequence->second]) {
            auto next = llvm::find_if(devices, [&](int d) {
              return d >= 0 && cluster.devices[d].gpu.type == type;
            });
            order.push_back(*next);
            *next = -1;
          }
        }
      }
    }
  }
  // Type orders of nodes of one type give the same device order.
  std::vector<std::vector<int>> distinct;
  for (std::vector<int> &order : orders)
    if (!llvm::is_contained(distinct, order))
      distinct.push_back(std::move(order));
  return distinct;
}

std::vector<int> wrappedOrder(const Cluster &cluster,
                              llvm::ArrayRef<int> order) {
  if (order.empty())
    return {};
  int first = cluster.devices[order.front()].node;
  size_t lead = 0;
  while (lead < order.size() && cluster.devices[order[lead]].node == first)
    ++lead;
  if (lead < 2 || lead == order.size())
    return {};
  size_t kept = (lead + 1) / 2;
  std::vector<int> wrapped(order.begin(), order.begin() + kept);
  wrapped.insert(wrapped.end(), order.begin() + lead, order.end());
  wrapped.insert(wrapped.end(), order.begin() + kept, order.begin() + lead);
  return wrapped;
}

std::vector<std::vector<int>> splitIntoUnits(const Cluster &cluster,
                                             llvm::ArrayRef<int> order,
                                             size_t maxUnits) {
  std::vector<std::vector<int>> units;
  if (order.size() <= maxUnits) {
    for (int d : order)
      units.push_back({d});
    return units;
  }
  size_t perUnit = (order.size() + maxUnits - 1) / maxUnits;

  // Nodes in the order's sequence, then runs of consecutive alike nodes.
  std::vector<std::vector<int>> nodeDevices;
  std::vector<std::string> kinds;
  for (int d : order) {
    int node = cluster.devices[d].node;
    if (nodeDevices.empty() ||
        cluster.devices[nodeDevices.back()[0]].node != node) {
      nodeDevices.emplace_back();
      kinds.push_back(nodeKind(cluster, cluster.nodes[node]));
    }
    nodeDevices.back().push_back(d);
  }
  for (size_t first = 0; first < nodeDevices.size();) {
    size_t end = first + 1;
    while (end < nodeDevices.size() && kinds[end] == kinds[first])
      ++end;
    size_t nodeSize = nodeDevices[first].size();
    if (nodeSize >= perUnit) {
      // Big nodes: each node's GPUs of one type in equal pieces.
      for (size_t n = first; n < end; ++n) {
        llvm::ArrayRef<int> devices = nodeDevices[n];
        while (!devices.empty()) {
          const std::string &type = cluster.devices[devices[0]].gpu.type;
          size_t group =
              llvm::find_if(
                  devices,
                  [&](int d) { return cluster.devices[d].gpu.type != type; }) -
              devices.begin();
          size_t begin = 0;
          for (size_t pieceEnd :
               evenEnds(group, (group + perUnit - 1) / perUnit)) {
            units.emplace_back(devices.begin() + begin,
                               devices.begin() + pieceEnd);
            begin = pieceEnd;
          }
          devices = devices.drop_front(group);
        }
      }
    } else {
      // Small nodes: blocks of whole alike nodes.
      size_t nodesPerUnit = (perUnit + nodeSize - 1) / nodeSize;
      size_t run = end - first;
      size_t begin = first;
      for (size_t blockEnd :
           evenEnds(run, (run + nodesPerUnit - 1) / nodesPerUnit)) {
        std::vector<int> &unit = units.emplace_back();
        for (size_t n = begin; n < first + blockEnd; ++n)
          llvm::append_range(unit, nodeDevices[n]);
        begin = first + blockEnd;
      }
    }
    first = end;
  }
  return units;
}

} // namespace hetc::planner
