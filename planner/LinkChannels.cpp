//===- LinkChannels.cpp ---------------------------------------------------===//
//
// Channel numbers: device d's port out is 2d and in 2d + 1; then node n's
// network ports out and in; then the directed datacenter pairs; then each
// datacenter's uplink out and in.
//
//===----------------------------------------------------------------------===//

#include "planner/LinkChannels.h"

#include "llvm/ADT/STLExtras.h"

#include <cassert>

namespace hetc::planner {

LinkChannels::LinkChannels(const Cluster &cluster)
    : cluster(cluster), datacenters(cluster.datacenters()) {
  for (const Node &node : cluster.nodes)
    datacenterOfNode.push_back(static_cast<int>(
        llvm::find(datacenters, node.datacenter) - datacenters.begin()));
  for (const std::string &name : datacenters)
    hasUplink.push_back(cluster.uplinkOf(name) != nullptr);
}

int LinkChannels::nodeBase() const {
  return 2 * static_cast<int>(cluster.devices.size());
}

int LinkChannels::datacenterBase() const {
  return nodeBase() + 2 * static_cast<int>(cluster.nodes.size());
}

int LinkChannels::uplinkBase() const {
  int count = static_cast<int>(datacenters.size());
  return datacenterBase() + count * count;
}

int LinkChannels::size() const {
  return uplinkBase() + 2 * static_cast<int>(datacenters.size());
}

void LinkChannels::path(int from, int to,
                        llvm::SmallVectorImpl<int> &channels) const {
  if (from == to)
    return;
  int nodeFrom = cluster.devices[from].node, nodeTo = cluster.devices[to].node;
  if (nodeFrom == nodeTo) {
    channels.push_back(2 * from);
    channels.push_back(2 * to + 1);
    return;
  }
  channels.push_back(nodeBase() + 2 * nodeFrom);
  channels.push_back(nodeBase() + 2 * nodeTo + 1);
  int dcFrom = datacenterOfNode[nodeFrom], dcTo = datacenterOfNode[nodeTo];
  if (dcFrom == dcTo)
    return;
  if (hasUplink[dcFrom])
    channels.push_back(uplinkBase() + 2 * dcFrom);
  if (hasUplink[dcTo])
    channels.push_back(uplinkBase() + 2 * dcTo + 1);
  channels.push_back(datacenterBase() +
                     dcFrom * static_cast<int>(datacenters.size()) + dcTo);
}

void LinkChannels::ring(llvm::ArrayRef<int> devices,
                        llvm::SmallVectorImpl<int> &channels) const {
  if (devices.size() < 2)
    return;
  for (size_t i = 0; i < devices.size(); ++i)
    path(devices[i], devices[(i + 1) % devices.size()], channels);
  llvm::sort(channels);
  channels.erase(std::unique(channels.begin(), channels.end()), channels.end());
}

const Link &LinkChannels::link(int channel) const {
  assert(channel >= 0 && channel < size() && "channel out of range");
  if (channel < nodeBase())
    return cluster.nodes[cluster.devices[channel / 2].node].intraNode;
  if (channel < datacenterBase())
    return cluster.interNode;
  if (channel >= uplinkBase())
    return *cluster.uplinkOf(datacenters[(channel - uplinkBase()) / 2]);
  int pair = channel - datacenterBase();
  int count = static_cast<int>(datacenters.size());
  return cluster.linkBetweenDatacenters(datacenters[pair / count],
                                        datacenters[pair % count]);
}

std::string LinkChannels::name(int channel) const {
  assert(channel >= 0 && channel < size() && "channel out of range");
  if (channel < nodeBase())
    return cluster.devices[channel / 2].name + (channel % 2 ? " in" : " out");
  if (channel < datacenterBase()) {
    int node = (channel - nodeBase()) / 2;
    return "node " + cluster.nodes[node].name +
           ((channel - nodeBase()) % 2 ? " in" : " out");
  }
  if (channel >= uplinkBase())
    return "datacenter " + datacenters[(channel - uplinkBase()) / 2] +
           ((channel - uplinkBase()) % 2 ? " uplink in" : " uplink out");
  int pair = channel - datacenterBase();
  int count = static_cast<int>(datacenters.size());
  return "datacenter " + datacenters[pair / count] + " to " +
         datacenters[pair % count];
}

} // namespace hetc::planner
