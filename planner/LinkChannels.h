//===- LinkChannels.h - the shared parts of a cluster's links ---*- C++ -*-===//
//
// A link is shared by every transfer that crosses it at once. The channels
// of a transfer are the parts it occupies for its whole time: between two
// GPUs of a node, the sender's port out and the receiver's port in; between
// nodes, the sending node's network port out and the receiving node's port
// in; between datacenters also the sender's datacenter's uplink out and the
// receiver's uplink in, where the cluster gives them, and the link from the
// sender's datacenter to the receiver's. The simulator lets transfers that
// share a channel take turns, so no plan moves more over a channel than its
// bandwidth allows: a step is never predicted shorter than the busiest
// channel's transfers.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PLANNER_LINKCHANNELS_H
#define HETC_PLANNER_LINKCHANNELS_H

#include "planner/Cluster.h"

#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace hetc::planner {

class LinkChannels {
public:
  explicit LinkChannels(const Cluster &cluster);

  /// The channels a transfer from device `from` to device `to` occupies
  /// (none when they are the same device); the last is on the link between
  /// them (Cluster::linkBetween).
  void path(int from, int to, llvm::SmallVectorImpl<int> &channels) const;
  /// The channels of a ring over `devices` in member order: each member's
  /// transfer to the next, the last's to the first.
  void ring(llvm::ArrayRef<int> devices,
            llvm::SmallVectorImpl<int> &channels) const;
  int size() const;
  /// The link whose bandwidth `channel` has: a device's port, its node's
  /// link within the node; a node's network port, the link between nodes;
  /// a pair of datacenters, theirs; an uplink, the datacenter's.
  const Link &link(int channel) const;
  /// "box0/L4:1 out", "node box0 in", "datacenter dc0 to dc1",
  /// "datacenter dc0 uplink out".
  std::string name(int channel) const;

private:
  const Cluster &cluster;
  std::vector<std::string> datacenters; // Cluster::datacenters
  std::vector<int> datacenterOfNode;    // index into datacenters
  std::vector<bool> hasUplink;          // per datacenter
  int nodeBase() const;
  int datacenterBase() const;
  int uplinkBase() const;
};

} // namespace hetc::planner

#endif // HETC_PLANNER_LINKCHANNELS_H
