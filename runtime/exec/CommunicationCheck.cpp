//===- CommunicationCheck.cpp - the ranks' messages agree -----------------===//

#include "runtime/exec/CommunicationCheck.h"

#include "runtime/exec/Arena.h"
#include "runtime/exec/Attributes.h"
#include "runtime/exec/ProgramCheck.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace hetc::runtime::exec {
namespace {

using hetc::pkg::Instruction;
using hetc::pkg::Program;

// One message or collective as the rank's program has it.
struct Exchange {
  int rank = 0, index = 0; // where: rank and instruction
  std::string kind;
  int64_t tag = 0, bytes = -1;
  std::vector<int64_t> counts;

  // What must agree between a send and its recv, or between the members
  // of a collective.
  auto key() const {
    bool pointToPoint = kind == "send" || kind == "recv";
    return std::make_tuple(pointToPoint ? "message" : kind, tag, bytes, counts);
  }
};

std::string describe(const Exchange &e, const Program &program) {
  std::ostringstream os;
  os << "rank " << e.rank << " "
     << describeInstruction(e.index, program.instructions(e.index));
  if (e.kind == "send" || e.kind == "recv")
    os << " (tag " << e.tag << ", " << e.bytes << " bytes)";
  else
    os << " (" << e.bytes << " bytes in)";
  return os.str();
}

// The bytes of buffer `id` of `program`; -1 when the id is out of range
// (validateProgram reports that one).
int64_t bytesOf(const Program &program, int id) {
  return id >= 0 && id < program.buffers_size()
             ? bufferBytes(program.buffers(id))
             : -1;
}

// Every rank's exchanges, in program order: sends and recvs by (from, to),
// collectives by group and member.
struct Exchanges {
  std::map<std::pair<int, int>, std::vector<Exchange>> sends, recvs;
  std::map<std::vector<int64_t>, std::map<int, std::vector<Exchange>>> groups;
};

Status collect(const std::vector<Program> &programs, Exchanges *exchanges) {
  int ranks = static_cast<int>(programs.size());
  for (int rank = 0; rank < ranks; ++rank) {
    const Program &program = programs[rank];
    for (int i = 0; i < program.instructions_size(); ++i) {
      const Instruction &inst = program.instructions(i);
      auto where = [&] {
        return "rank " + std::to_string(rank) + " " + describeInstruction(i, inst);
      };
      Exchange e;
      e.rank = rank;
      e.index = i;
      e.kind = inst.kernel();
      if (e.kind == "send" || e.kind == "recv") {
        int64_t peer = -1;
        HETC_RETURN_IF_ERROR(intAttr(inst, "peer", &peer), where());
        HETC_RETURN_IF_ERROR(intAttr(inst, "tag", &e.tag), where());
        if (peer < 0 || peer >= ranks || peer == rank)
          return invalidArgument(where(), ": peer ", peer,
                                 " is not another rank of the ", ranks);
        bool send = e.kind == "send";
        const auto &ids = send ? inst.operands() : inst.results();
        e.bytes = ids.empty() ? -1 : bytesOf(program, ids[0]);
        int other = static_cast<int>(peer);
        if (send)
          exchanges->sends[{rank, other}].push_back(e);
        else
          exchanges->recvs[{other, rank}].push_back(e);
      } else if (e.kind == "all_reduce" || e.kind == "reduce_scatter" ||
                 e.kind == "all_gather") {
        std::vector<int64_t> group;
        HETC_RETURN_IF_ERROR(intsAttr(inst, "group", &group), where());
        if (e.kind != "all_reduce")
          HETC_RETURN_IF_ERROR(intsAttr(inst, "counts", &e.counts), where());
        // all_gather's inputs differ per member (its counts say how);
        // the others reduce inputs of one size.
        if (e.kind != "all_gather" && inst.operands_size())
          e.bytes = bytesOf(program, inst.operands(0));
        exchanges->groups[group][rank].push_back(e);
      }
    }
  }
  return okStatus();
}

// The n-th send from a to b is the n-th recv on b from a.
Status checkPointToPoint(const Exchanges &exchanges,
                         const std::vector<Program> &programs) {
  std::set<std::pair<int, int>> pairs;
  for (const auto *side : {&exchanges.sends, &exchanges.recvs})
    for (const auto &entry : *side)
      pairs.insert(entry.first);
  static const std::vector<Exchange> kNone;
  auto listOf = [](const auto &side, const std::pair<int, int> &pair)
      -> const std::vector<Exchange> & {
    auto found = side.find(pair);
    return found == side.end() ? kNone : found->second;
  };
  for (const std::pair<int, int> &pair : pairs) {
    const std::vector<Exchange> &out = listOf(exchanges.sends, pair);
    const std::vector<Exchange> &in = listOf(exchanges.recvs, pair);
    for (size_t n = 0; n < std::max(out.size(), in.size()); ++n) {
      if (n >= in.size())
        return invalidArgument(describe(out[n], programs[out[n].rank]),
                               " has no matching recv on rank ", pair.second,
                               " (it receives ", in.size(),
                               " message(s) from rank ", pair.first,
                               ", this is send ", n + 1, ")");
      if (n >= out.size())
        return invalidArgument(describe(in[n], programs[in[n].rank]),
                               " has no matching send on rank ", pair.first,
                               " (it sends ", out.size(),
                               " message(s) to rank ", pair.second,
                               ", this is recv ", n + 1, ")");
      if (out[n].key() != in[n].key())
        return invalidArgument(describe(out[n], programs[out[n].rank]),
                               " does not match ",
                               describe(in[n], programs[in[n].rank]),
                               ": the two sides must agree in order, tag "
                               "and size");
    }
  }
  return okStatus();
}

// Every member of a group runs the group's collectives alike.
Status checkCollectives(const Exchanges &exchanges,
                        const std::vector<Program> &programs) {
  int ranks = static_cast<int>(programs.size());
  for (const auto &[group, byRank] : exchanges.groups) {
    for (int64_t member : group) {
      if (member < 0 || member >= ranks)
        return invalidArgument("a collective's group names rank ", member,
                               " of ", ranks);
      if (!byRank.count(static_cast<int>(member)))
        return invalidArgument(describe(byRank.begin()->second.front(),
                                        programs[byRank.begin()->first]),
                               " is in a group with rank ", member,
                               ", which runs no collective in that group");
    }
    int firstRank = byRank.begin()->first;
    const std::vector<Exchange> &reference = byRank.begin()->second;
    for (const auto &[rank, list] : byRank) {
      if (std::find(group.begin(), group.end(), rank) == group.end())
        return invalidArgument(describe(list.front(), programs[rank]),
                               ": the group does not include rank ", rank);
      size_t n = 0;
      while (n < list.size() && n < reference.size() &&
             list[n].key() == reference[n].key())
        ++n;
      if (n == list.size() && n == reference.size())
        continue;
      auto side = [&](const std::vector<Exchange> &l, int r) {
        return n < l.size() ? describe(l[n], programs[r])
                            : "nothing on rank " + std::to_string(r);
      };
      return invalidArgument("collective ", n + 1,
                             " of a group differs between its members: ",
                             side(reference, firstRank), " against ",
                             side(list, rank));
    }
  }
  return okStatus();
}

} // namespace

Status validateCommunication(const std::vector<Program> &programs) {
  Exchanges exchanges;
  HETC_RETURN_IF_ERROR(collect(programs, &exchanges));
  HETC_RETURN_IF_ERROR(checkPointToPoint(exchanges, programs));
  return checkCollectives(exchanges, programs);
}

} // namespace hetc::runtime::exec
