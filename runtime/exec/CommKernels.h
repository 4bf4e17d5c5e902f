//===- CommKernels.h - launches that cross ranks ----------------*- C++ -*-===//
//
// `send`, `recv`, `all_reduce`, `reduce_scatter` and `all_gather` launches
// run through the rank's Communicator. Their attributes are read and checked
// against the package once, before step 0 (peers and group members are
// ranks of the package, counts match the buffers), so that a step only
// moves bytes and a bad package never reaches the communicator.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_COMMKERNELS_H
#define HETC_RUNTIME_EXEC_COMMKERNELS_H

#include "runtime/comm/Communicator.h"
#include "runtime/exec/KernelRegistry.h"

#include <vector>

namespace hetc::runtime::exec {

/// A communication launch with its attributes read.
struct CommLaunch {
  CommKind kind = CommKind::kNone;
  int peer = -1;               // send, recv
  int64_t tag = 0;             // send, recv
  std::vector<int> group;      // collectives: member ranks, increasing
  std::vector<int64_t> counts; // reduce_scatter, all_gather: per member
};

/// Reads and checks the attributes of `inst`, a launch of `kind` in rank
/// `rank`'s `program`, in a package of `numRanks` ranks. Operand and result
/// counts and ids were checked by validateProgram. INVALID_ARGUMENT naming
/// the rank and the attribute.
Status resolveCommLaunch(const hetc::pkg::Program &program, int rank,
                         int numRanks, const hetc::pkg::Instruction &inst,
                         CommKind kind, CommLaunch *launch);

/// Runs a resolved launch over the rank's buffers.
Status runCommLaunch(const CommLaunch &launch,
                     const hetc::pkg::Instruction &inst,
                     const BufferTable &buffers,
                     comm::Communicator &communicator);

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_COMMKERNELS_H
