//===- Communicator.h - messages and collectives between ranks --*- C++ -*-===//
//
// The one interface the executor talks to for everything that crosses
// ranks: point-to-point sends of byte ranges and SUM collectives over a
// group of ranks with per-member element counts (the uneven reduce-scatter
// and all-gather of ragged state sharding). Implementations: ranks as
// threads of one process (InProcessCommunicator.h), one rank per MPI
// process (MpiCommunicator.h) and NCCL on GPUs (NcclCommunicator.h).
//
// Failure ends the job, never hangs it: every blocking wait gives up after
// the communicator's timeout, and a rank that fails calls abort(), which
// makes every other rank's pending and later calls return an error naming
// the failed rank and its reason.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_COMM_COMMUNICATOR_H
#define HETC_RUNTIME_COMM_COMMUNICATOR_H

#include "runtime/base/Status.h"
#include "runtime/base/Tensor.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hetc::runtime::comm {

class Communicator {
public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int worldSize() const = 0;

  /// Sends `bytes` bytes at `data` to `peer`. Returns once `data` may be
  /// reused; never waits for the receiver to arrive (sends are buffered), so
  /// a schedule in topological order cannot deadlock.
  virtual Status send(int peer, const void *data, size_t bytes,
                      int64_t tag) = 0;
  /// Receives the next message from `peer` into `data`. The message must
  /// have `tag` and exactly `bytes` bytes: anything else is a FAILED_PRECONDITION
  /// naming both ranks, the expected and the received tag and size (the
  /// programs of the two ranks do not match).
  virtual Status recv(int peer, void *data, size_t bytes, int64_t tag) = 0;

  /// `group`: the member ranks in increasing order, including rank(). Every
  /// member calls the same collectives in the same order. Only kF32 and kF64
  /// are reduced; the SUM is computed in member order, so every member gets
  /// bit-identical results.
  /// In place: every member's `count` elements become the sum over members.
  virtual Status allReduceSum(const std::vector<int> &group, DType dtype,
                              void *data, int64_t count) = 0;
  /// `input` holds sum(counts) elements on every member; member i's `output`
  /// receives the sum over members of elements
  /// [counts[0] + ... + counts[i-1], ... + counts[i]). Counts may be 0.
  virtual Status reduceScatterSum(const std::vector<int> &group, DType dtype,
                                  const void *input, void *output,
                                  const std::vector<int64_t> &counts) = 0;
  /// Member i's `input` holds counts[i] elements; every member's `output`
  /// receives all members' inputs concatenated in member order.
  virtual Status allGather(const std::vector<int> &group, DType dtype,
                           const void *input, void *output,
                           const std::vector<int64_t> &counts) = 0;

  /// Ends the job because this rank failed: every rank's pending and later
  /// calls return ABORTED with "rank R failed: <reason>".
  virtual void abort(const std::string &reason) = 0;

  /// This rank completed some work (an instruction): a sign of life for
  /// the ranks waiting on it, where the communicator watches progress.
  virtual void noteProgress() {}

  /// This rank starts training step `step` (0-based): where the
  /// communicator tells peers of it, a rank that loses this one can say
  /// how far it got.
  virtual void noteStep(int64_t step) {}
};

} // namespace hetc::runtime::comm

#endif // HETC_RUNTIME_COMM_COMMUNICATOR_H
