//===- CommKernels.cpp - send, recv and the collectives -------------------===//

#include "runtime/exec/CommKernels.h"
#include "runtime/exec/kernels/AdapterUtil.h"

#include <numeric>

namespace hetc::runtime::exec {
namespace {

using hetc::pkg::Buffer;
using hetc::pkg::Instruction;
using hetc::pkg::Program;

std::string listText(const std::vector<int64_t> &values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? "," : "") + std::to_string(values[i]);
  return text + "]";
}

int64_t elementsOf(const Buffer &buffer) {
  return numElements(Shape(buffer.shape().begin(), buffer.shape().end()));
}

std::string describeElements(const Buffer &buffer) {
  return describeBuffer(buffer) + ", " + std::to_string(elementsOf(buffer)) +
         " elements";
}

Status resolvePeer(int rank, int numRanks, const Instruction &inst,
                   const char *verb, CommLaunch *launch) {
  int64_t peer;
  HETC_RETURN_IF_ERROR(intAttr(inst, "peer", &peer));
  if (peer < 0 || peer >= numRanks)
    return invalidArgument("rank ", rank, " ", verb, " peer ", peer,
                           ", which is not a rank of the package (", numRanks,
                           " ranks)");
  if (peer == rank)
    return invalidArgument("rank ", rank, " ", verb, " itself");
  HETC_RETURN_IF_ERROR(intAttr(inst, "tag", &launch->tag));
  if (launch->tag < 0)
    return invalidArgument("tag ", launch->tag,
                           " is negative; program tags are >= 0 (the "
                           "runtime's own messages use negative tags)");
  launch->peer = static_cast<int>(peer);
  return okStatus();
}

// Reads `group` (and `counts` when the collective has them); returns this
// rank's index in the group.
Status resolveGroup(int rank, int numRanks, const Instruction &inst,
                    bool withCounts, CommLaunch *launch, int *index) {
  std::vector<int64_t> group;
  HETC_RETURN_IF_ERROR(intsAttr(inst, "group", &group));
  if (group.empty())
    return invalidArgument("group [] is empty");
  *index = -1;
  for (size_t i = 0; i < group.size(); ++i) {
    if (group[i] < 0 || group[i] >= numRanks)
      return invalidArgument("group member ", group[i],
                             " is not a rank of the package (", numRanks,
                             " ranks)");
    if (i > 0 && group[i] <= group[i - 1])
      return invalidArgument("group ", listText(group),
                             " is not in strictly increasing order");
    if (group[i] == rank)
      *index = static_cast<int>(i);
  }
  if (*index < 0)
    return invalidArgument("group ", listText(group), " does not include rank ",
                           rank);
  launch->group.assign(group.begin(), group.end());
  if (!withCounts)
    return okStatus();
  HETC_RETURN_IF_ERROR(intsAttr(inst, "counts", &launch->counts));
  if (launch->counts.size() != group.size())
    return invalidArgument("counts ", listText(launch->counts), " has ",
                           launch->counts.size(), " entries for a group of ",
                           group.size());
  for (int64_t count : launch->counts)
    if (count < 0)
      return invalidArgument("counts ", listText(launch->counts),
                             " has a negative count");
  return okStatus();
}

Status checkSameDType(const Buffer &in, const Buffer &out, bool reduces,
                      const std::string &kernel) {
  if (in.dtype() != out.dtype())
    return invalidArgument("operand 0 (", describeBuffer(in), ") is ",
                           packageDTypeName(in.dtype()), " but result 0 (",
                           describeBuffer(out), ") is ",
                           packageDTypeName(out.dtype()));
  if (reduces && in.dtype() != hetc::pkg::F32 && in.dtype() != hetc::pkg::F64)
    return invalidArgument(kernel, " sums F32 or F64, not ",
                           packageDTypeName(in.dtype()), " (",
                           describeBuffer(in), ")");
  return okStatus();
}

Status checkElements(const Buffer &buffer, const char *what, int64_t want,
                     const std::string &wantText) {
  if (elementsOf(buffer) != want)
    return invalidArgument(what, " (", describeElements(buffer), ") must hold ",
                           wantText, " = ", want, " elements");
  return okStatus();
}

} // namespace

Status resolveCommLaunch(const Program &program, int rank, int numRanks,
                         const Instruction &inst, CommKind kind,
                         CommLaunch *launch) {
  *launch = CommLaunch();
  launch->kind = kind;
  if (kind == CommKind::kSend)
    return resolvePeer(rank, numRanks, inst, "sends to", launch);
  if (kind == CommKind::kRecv)
    return resolvePeer(rank, numRanks, inst, "receives from", launch);

  bool withCounts = kind != CommKind::kAllReduce;
  int index;
  HETC_RETURN_IF_ERROR(
      resolveGroup(rank, numRanks, inst, withCounts, launch, &index));
  const Buffer &in = program.buffers(inst.operands(0));
  const Buffer &out = program.buffers(inst.results(0));
  HETC_RETURN_IF_ERROR(
      checkSameDType(in, out, kind != CommKind::kAllGather, inst.kernel()));
  if (kind == CommKind::kAllReduce) {
    if (out.offset() != in.offset() || bufferBytes(out) != bufferBytes(in))
      return invalidArgument("result 0 (", describeBuffer(out),
                             ") must be operand 0's bytes (",
                             describeBuffer(in), "): all_reduce sums in place");
    return okStatus();
  }
  int64_t total =
      std::accumulate(launch->counts.begin(), launch->counts.end(), int64_t{0});
  std::string mine = "counts[" + std::to_string(index) + "] (rank " +
                     std::to_string(rank) + "'s part)";
  bool scatters = kind == CommKind::kReduceScatter;
  HETC_RETURN_IF_ERROR(checkElements(in, "operand 0",
                                     scatters ? total : launch->counts[index],
                                     scatters ? "sum(counts)" : mine));
  return checkElements(out, "result 0",
                       scatters ? launch->counts[index] : total,
                       scatters ? mine : "sum(counts)");
}

Status runCommLaunch(const CommLaunch &launch, const Instruction &inst,
                     const BufferTable &buffers,
                     comm::Communicator &communicator) {
  switch (launch.kind) {
  case CommKind::kSend: {
    const TensorView &x = buffers.view(inst.operands(0));
    return communicator.send(launch.peer, x.data, x.byteSize(), launch.tag);
  }
  case CommKind::kRecv: {
    const TensorView &y = buffers.view(inst.results(0));
    return communicator.recv(launch.peer, y.data, y.byteSize(), launch.tag);
  }
  case CommKind::kAllReduce: {
    const TensorView &x = buffers.view(inst.operands(0));
    return communicator.allReduceSum(launch.group, x.dtype, x.data, x.numel());
  }
  case CommKind::kReduceScatter: {
    const TensorView &x = buffers.view(inst.operands(0));
    return communicator.reduceScatterSum(launch.group, x.dtype, x.data,
                                         buffers.view(inst.results(0)).data,
                                         launch.counts);
  }
  case CommKind::kAllGather: {
    const TensorView &x = buffers.view(inst.operands(0));
    return communicator.allGather(launch.group, x.dtype, x.data,
                                  buffers.view(inst.results(0)).data,
                                  launch.counts);
  }
  case CommKind::kNone:
    break;
  }
  return internalError(inst.kernel(), " is not a communication kernel");
}

void registerCommKernels(KernelRegistry &r) {
  using adapters::makeKernel;
  auto add = [&](const char *name, int operands, int results,
                 std::vector<AttrSpec> attrs, CommKind kind) {
    KernelInfo info = makeKernel(name, operands, operands, results,
                                 std::move(attrs), nullptr);
    info.comm = kind;
    if (kind == CommKind::kAllReduce)
      info.inPlace.pairs = {{0, 0}};
    adapters::mustAdd(r, std::move(info));
  };
  add("send", 1, 0, {{"peer", AttrKind::kInt}, {"tag", AttrKind::kInt}},
      CommKind::kSend);
  add("recv", 0, 1, {{"peer", AttrKind::kInt}, {"tag", AttrKind::kInt}},
      CommKind::kRecv);
  add("all_reduce", 1, 1, {{"group", AttrKind::kInts}}, CommKind::kAllReduce);
  add("reduce_scatter", 1, 1,
      {{"group", AttrKind::kInts}, {"counts", AttrKind::kInts}},
      CommKind::kReduceScatter);
  add("all_gather", 1, 1,
      {{"group", AttrKind::kInts}, {"counts", AttrKind::kInts}},
      CommKind::kAllGather);
}

} // namespace hetc::runtime::exec
