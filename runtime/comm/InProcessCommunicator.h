//===- InProcessCommunicator.h - ranks as threads of one process -*- C++ -*-===//
//
// All ranks live in one process, one thread each. They share a world:
// one mailbox per ordered pair of ranks (sends copy the bytes in and return)
// and one rendezvous per collective call of a group (members publish their
// buffers, each reduces or copies its own part in member order, and a second
// rendezvous keeps the buffers alive until everyone is done).
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_COMM_INPROCESSCOMMUNICATOR_H
#define HETC_RUNTIME_COMM_INPROCESSCOMMUNICATOR_H

#include "runtime/comm/Communicator.h"

#include <chrono>
#include <memory>

namespace hetc::runtime::comm {

/// One communicator per rank of a `worldSize`-rank world; communicator r is
/// used by rank r's thread only. Waits give up with DEADLINE_EXCEEDED,
/// naming the waiting rank, what it waited for and on whom, after
/// `timeout`, or sooner when a rank it waits for has shown no sign of life
/// for `stallTimeout`: a rank is alive while it completes work
/// (noteProgress) or itself waits in a call, so a long step does not trip
/// the watchdog, a rank stuck in a kernel does.
std::vector<std::unique_ptr<Communicator>>
createInProcessWorld(int worldSize, std::chrono::milliseconds timeout,
                     std::chrono::milliseconds stallTimeout);

} // namespace hetc::runtime::comm

#endif // HETC_RUNTIME_COMM_INPROCESSCOMMUNICATOR_H
