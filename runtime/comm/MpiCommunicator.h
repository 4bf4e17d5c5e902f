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
#include <memory>

namespace hetc::runtime::comm {

/// Whether this process was started by an MPI launcher (mpirun, srun),
/// judged from the launcher's environment variables; false in builds
/// without MPI.
bool launchedByMpi();

/// Initializes MPI (once per process; finalized at exit) and returns the
/// communicator of MPI_COMM_WORLD. Any one wait gives up after `timeout`;
/// with `stallTimeout` > 0 (and MPI_THREAD_MULTIPLE), sooner when the peer
/// it waits for has sent no heartbeat for that long, naming the peer and
/// its host (internal/MpiPeerWatch.h). UNIMPLEMENTED in builds without MPI.
Status createMpiCommunicator(std::chrono::milliseconds timeout,
                             std::chrono::milliseconds stallTimeout,
                             std::unique_ptr<Communicator> *communicator);

} // namespace hetc::runtime::comm

#endif // HETC_RUNTIME_COMM_MPICOMMUNICATOR_H
