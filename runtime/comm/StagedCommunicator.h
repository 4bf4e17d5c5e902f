//===- StagedCommunicator.h - host messages for GPU buffers -----*- C++ -*-===//
//
// Ranks that share one GPU cannot be NCCL ranks of one communicator (NCCL
// refuses two ranks on one device). Their messages go through a host
// communicator instead, staged through pinned host memory: each call waits
// for the caller's stream (cuda::currentStream), copies its device operand
// to the host, runs the host call and copies the result back. Slower than
// NCCL, and exact: the sums are the host communicator's, in member order.
// Built only when CUDA is enabled.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_COMM_STAGEDCOMMUNICATOR_H
#define HETC_RUNTIME_COMM_STAGEDCOMMUNICATOR_H

#include "runtime/comm/Communicator.h"

#include <memory>

namespace hetc::runtime::comm {

/// Device-pointer calls over `host` (which must outlive the result). Calls
/// come from a thread whose current CUDA device and stream are the rank's.
std::unique_ptr<Communicator> createStagedCommunicator(Communicator &host);

} // namespace hetc::runtime::comm

#endif // HETC_RUNTIME_COMM_STAGEDCOMMUNICATOR_H
