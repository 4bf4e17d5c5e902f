//===- CommunicatorCases.h - one rank's part of shared cases ----*- C++ -*-===//
//
// Functional cases written from one rank's point of view, so that the same
// code runs on every rank whether ranks are threads (InProcessCommunicator)
// or processes (mpirun with MpiCommunicator). Every case needs a world of
// exactly 3 ranks and reports through gtest's EXPECT/ASSERT.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_TEST_RUNTIME_COMM_COMMUNICATORCASES_H
#define HETC_TEST_RUNTIME_COMM_COMMUNICATORCASES_H

#include "runtime/comm/Communicator.h"

#include <cstdint>
#include <vector>

namespace hetc::runtime::comm::test {

/// A ring 0 -> 1 -> 2 -> 0 of messages of several sizes (0 bytes to 100 KB)
/// and tags (negative, above 2^32): each rank sends them all before it
/// receives any, which only works if sends are buffered, and they arrive
/// in order with their contents.
void checkSendRecvInOrder(Communicator &comm);

/// Rank 0 sends rank 1 a message with the wrong tag, one with the wrong
/// size and one with both; rank 1 gets each error with its text, then a
/// matching message intact.
void checkMismatchedMessages(Communicator &comm);

/// all_reduce over the subgroup {0,2} (f32 and f64, rank 1 idle) and over
/// the world, against exact sums.
void checkAllReduce(Communicator &comm);

/// reduce_scatter with counts {5,0,3} over the world and {0,4} over {0,2},
/// f32 and f64, against exact sums.
void checkReduceScatterUneven(Communicator &comm);

/// all_gather with counts {5,0,3} over the world (f32, i64) and {3,0} over
/// {1,2}.
void checkAllGatherUneven(Communicator &comm);

/// Rank r's input of the bit-identity case: floats whose magnitudes differ
/// by up to 2^40, so that the order of the sum changes its bits.
std::vector<float> bitIdentityInput(int rank);

/// all_reduce of bitIdentityInput over the world; every member's result
/// must have the same bits (compared after an all_gather of the results).
/// Returns this rank's result.
std::vector<float> checkAllReduceBitIdentical(Communicator &comm);

/// `iterations` random (seeded: every rank draws the same program) steps,
/// each a send/recv between two ranks or a collective over one of the
/// overlapping groups {0,1}, {1,2}, {0,2}, {0,1,2}, with random counts
/// (zeros included), every result checked exactly.
void checkStressOverlappingGroups(Communicator &comm, int iterations,
                                  uint32_t seed);

} // namespace hetc::runtime::comm::test

#endif // HETC_TEST_RUNTIME_COMM_COMMUNICATORCASES_H
