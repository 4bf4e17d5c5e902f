//===- CommunicationCheck.h - the ranks' messages agree ---------*- C++ -*-===//
//
// Before step 0, the programs of all ranks are checked against each other,
// so that a package whose ranks would wait forever (a send without its
// recv, a collective one member skips) fails with the instruction named
// instead of hanging: per ordered pair of ranks, the sends of one and the
// recvs of the other match in order, tag and bytes; per group, every
// member runs the same collectives (kind, counts, bytes) in the same order.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_COMMUNICATIONCHECK_H
#define HETC_RUNTIME_EXEC_COMMUNICATIONCHECK_H

#include "runtime/base/Status.h"
#include "runtime/package/hetpkg.pb.h"

#include <vector>

namespace hetc::runtime::exec {

/// `programs[r]` is rank r's program. INVALID_ARGUMENT naming the rank and
/// instruction of the first mismatch.
Status validateCommunication(const std::vector<hetc::pkg::Program> &programs);

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_COMMUNICATIONCHECK_H
