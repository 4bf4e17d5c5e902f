//===- MpiCommunicatorTest.cpp - ranks as MPI processes -------------------===//
//
// Run as 3 processes (ctest: comm-mpi-3ranks); every process runs every
// test, each on a fresh communicator, so that a failed test leaves nothing
// behind for the next. Skips when not started by mpirun. Rank 0 prints the
// usual report, the other ranks only their failures.
//
//===----------------------------------------------------------------------===//

#include "runtime/comm/MpiCommunicator.h"

#include "CommunicatorCases.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace hetc::runtime::comm::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

class MpiCommunicatorTest : public testing::Test {
protected:
  void SetUp() override {
    if (!launchedByMpi())
      GTEST_SKIP() << "needs mpirun -np 3 (ctest runs it as comm-mpi-3ranks)";
    comm_ = create(5s);
    ASSERT_TRUE(comm_);
    if (comm_->worldSize() != 3)
      GTEST_SKIP() << "needs 3 ranks, has " << comm_->worldSize();
  }

  /// Without a stall limit, the heartbeats are off: a test whose ranks
  /// leave early does not make the others' waits end for their silence.
  static std::unique_ptr<Communicator>
  create(std::chrono::milliseconds timeout,
         std::chrono::milliseconds stallTimeout = 0ms) {
    std::unique_ptr<Communicator> comm;
    Status status = createMpiCommunicator(timeout, stallTimeout, &comm);
    EXPECT_TRUE(status.ok()) << status.toString();
    return comm;
  }

  std::unique_ptr<Communicator> comm_;
};

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

TEST_F(MpiCommunicatorTest, SendRecvInOrder) { checkSendRecvInOrder(*comm_); }

TEST_F(MpiCommunicatorTest, MismatchedMessagesFailWithoutHanging) {
  const auto start = Clock::now();
  checkMismatchedMessages(*comm_);
  EXPECT_LT(secondsSince(start), 2.0);
}

TEST_F(MpiCommunicatorTest, AllReduce) { checkAllReduce(*comm_); }

TEST_F(MpiCommunicatorTest, ReduceScatterUneven) {
  checkReduceScatterUneven(*comm_);
}

TEST_F(MpiCommunicatorTest, AllGatherUneven) { checkAllGatherUneven(*comm_); }

// MPI does not promise bit-identical all-reduce results; Open MPI's default
// algorithms give them, and the executor relies on that.
TEST_F(MpiCommunicatorTest, AllReduceIsBitIdenticalAcrossMembers) {
  checkAllReduceBitIdentical(*comm_);
}

TEST_F(MpiCommunicatorTest, StressOverlappingGroups) {
  checkStressOverlappingGroups(*comm_, 1000, 20240611);
}

// (Before the timeout tests: a wait that timed out leaves its message
// behind, in the way of a later communicator that reuses its context.)
//
// A process whose heartbeats stop (here: its communicator is gone, as when
// the process is stopped or its host unreachable) ends the waits for it
// after the stall limit, long before the per-wait limit, named with its
// host.
TEST_F(MpiCommunicatorTest, SilentPeerIsNamedAfterTheStallLimit) {
  std::unique_ptr<Communicator> comm = create(20s, 300ms);
  if (comm->rank() != 1)
    return;
  std::vector<char> buffer(16);
  const auto start = Clock::now();
  Status status = comm->recv(0, buffer.data(), buffer.size(), 7);
  EXPECT_EQ(status.code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(status.message().find(
                "rank 1: recv from rank 0: waiting for rank 0 (host "),
            std::string::npos)
      << status.toString();
  EXPECT_NE(status.message().find(
                "which has sent no heartbeat for 0.3 s: stopped, frozen, or "
                "gone"),
            std::string::npos)
      << status.toString();
  EXPECT_GE(secondsSince(start), 0.3);
  EXPECT_LT(secondsSince(start), 5.0);
}

// Heartbeats keep a peer alive while it computes for longer than the stall
// limit.
TEST_F(MpiCommunicatorTest, BusyPeerIsNotStalled) {
  std::unique_ptr<Communicator> comm = create(20s, 300ms);
  char byte = 42;
  if (comm->rank() == 0) {
    std::this_thread::sleep_for(1500ms); // "a long step"
    ASSERT_TRUE(comm->send(1, &byte, 1, 3).ok());
  } else if (comm->rank() == 1) {
    char got = 0;
    Status status = comm->recv(0, &got, 1, 3);
    EXPECT_TRUE(status.ok()) << status.toString();
    EXPECT_EQ(got, 42);
  }
  checkAllReduce(*comm); // everyone is here before the watch stops
}

TEST_F(MpiCommunicatorTest, RecvTimeoutNamesBothRanks) {
  std::unique_ptr<Communicator> comm = create(200ms);
  if (comm->rank() != 1)
    return;
  std::vector<char> buffer(16);
  const auto start = Clock::now();
  Status status = comm->recv(0, buffer.data(), buffer.size(), 7);
  EXPECT_EQ(status.toString(), "DEADLINE_EXCEEDED: rank 1 waited 0.2 s in "
                               "recv of tag 7 (16 bytes) for rank 0");
  EXPECT_GE(secondsSince(start), 0.2);
  EXPECT_LT(secondsSince(start), 2.0);
}

// A subgroup's communicator is made on first use; a member that never comes
// makes the others time out there instead of hanging.
TEST_F(MpiCommunicatorTest, GroupSetupTimeoutNamesMissingRank) {
  std::unique_ptr<Communicator> comm = create(200ms);
  if (comm->rank() != 2)
    return;
  std::vector<float> data(4, 1.0f);
  Status status = comm->allReduceSum({0, 2}, DType::kF32, data.data(), 4);
  EXPECT_EQ(status.toString(), "DEADLINE_EXCEEDED: rank 2 waited 0.2 s in "
                               "all_reduce over ranks {0,2} for rank 0");
}

TEST_F(MpiCommunicatorTest, InvalidArguments) {
  float x = 0;
  EXPECT_EQ(comm_->send(3, &x, sizeof(x), 0).toString(),
            "INVALID_ARGUMENT: rank " + std::to_string(comm_->rank()) +
                ": send: peer 3 is out of range for a world of 3 ranks");
  EXPECT_EQ(comm_->allReduceSum({1}, DType::kI32, &x, 1).code(),
            StatusCode::kInvalidArgument);
}

// Prints failures with the rank in front, where gtest's report is off.
class FailurePrinter : public testing::EmptyTestEventListener {
public:
  explicit FailurePrinter(std::string rank) : rank_(std::move(rank)) {}
  void OnTestPartResult(const testing::TestPartResult &result) override {
    if (result.failed())
      std::printf("rank %s: %s:%d: Failure\n%s\n", rank_.c_str(),
                  result.file_name() ? result.file_name() : "?",
                  result.line_number(), result.message());
  }

private:
  std::string rank_;
};

} // namespace
} // namespace hetc::runtime::comm::test

int main(int argc, char **argv) {
  testing::InitGoogleTest(&argc, argv);
  // The launcher's rank variables (see launchedByMpi); MPI is not up yet.
  const char *rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (!rank)
    rank = std::getenv("PMIX_RANK");
  if (rank && std::string(rank) != "0") {
    testing::TestEventListeners &listeners =
        testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new hetc::runtime::comm::test::FailurePrinter(rank));
  }
  return RUN_ALL_TESTS();
}
