//===- MpiAbortMain.cpp - a job whose rank 1 fails ------------------------===//
//
// Rank 1 aborts while ranks 0 and 2 wait for it in a receive. The abort must
// end the whole job with rank 1's reason on stderr, long before the others
// would time out; a rank that returns from its receive says so, which
// fails the test (ctest: comm-mpi-abort).
//
//===----------------------------------------------------------------------===//

#include "runtime/comm/MpiCommunicator.h"

#include <chrono>
#include <cstdio>
#include <thread>

using namespace hetc::runtime;
using namespace std::chrono_literals;

int main() {
  std::unique_ptr<comm::Communicator> comm;
  Status status = comm::createMpiCommunicator(4s, 0s, &comm);
  if (!status.ok()) {
    std::printf("%s\n", status.toString().c_str());
    return 1;
  }
  if (comm->rank() == 1) {
    std::this_thread::sleep_for(100ms);
    comm->abort("deliberate failure");
  }
  char byte = 0;
  status = comm->recv(1, &byte, 1, 0);
  std::printf("rank %d still running after the abort: %s\n", comm->rank(),
              status.toString().c_str());
  return 1;
}
