//===- MpiCommunicator.h - one rank per MPI process --------------*- C++ -*-===//
//
// Under mpirun every process is one rank of MPI_COMM_WORLD. Sends copy into
// a staging buffer and go out with MPI_Isend; receives and collectives use
// the non-blocking MPI calls (MPI_Irecv, MPI_Ireduce_scatter, MPI_Iallgatherv,
// MPI_Iallreduce: MPI's native uneven counts) and poll them against the
// timeout. abort() is MPI_Abort, which ends every process of the job.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_COMM_MPICOMMUNICATOR_H
#define HETC_RUNTIME_COMM_MPICOMMUNICATOR_H

#include "runtime/comm/Communicator.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace hetc::runtime::comm {

/// Whether this process was started by an MPI launcher (mpirun, srun),
/// judged from the launcher's environment variables; false in builds
/// without MPI.
bool launchedByMpi();

/// Called from a watch thread the moment a peer's process on this host
/// ends, before any wait notices it: "rank 0 (host n1, in step 4) lost
/// rank 1 (host n1, in step 4), whose process (pid 811) has ended: killed
/// or crashed".
using PeerLossReporter = std::function<void(const std::string &)>;

/// Initializes MPI (once per process; finalized at exit) and returns the
/// communicator of MPI_COMM_WORLD. Any one wait gives up after `timeout`;
/// with `stallTimeout` > 0 (and MPI_THREAD_MULTIPLE), sooner when the peer
/// it waits for has sent no heartbeat for that long, or when its process
/// on this host ended, naming the peer, its host and its step
/// (internal/MpiPeerWatch.h); `reportLoss` (may be empty) hears of an
/// ended process first. UNIMPLEMENTED in builds without MPI.
Status createMpiCommunicator(std::chrono::milliseconds timeout,
                             std::chrono::milliseconds stallTimeout,
                             std::unique_ptr<Communicator> *communicator,
                             PeerLossReporter reportLoss = {});

} // namespace hetc::runtime::comm

#endif // HETC_RUNTIME_COMM_MPICOMMUNICATOR_H
