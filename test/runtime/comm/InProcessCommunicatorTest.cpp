//===- InProcessCommunicatorTest.cpp - ranks as threads -------------------===//
//
// The shared cases on a world of 3 threads, then what only threads can
// check cheaply: exact timeouts, aborts waking blocked ranks, sums in
// member order, argument errors.
//
//===----------------------------------------------------------------------===//

#include "runtime/comm/InProcessCommunicator.h"

#include "CommunicatorCases.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <thread>

namespace hetc::runtime::comm::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using World = std::vector<std::unique_ptr<Communicator>>;

// Runs `body` on one thread per rank and returns when all are done.
void runRanks(World &world, const std::function<void(Communicator &)> &body) {
  std::vector<std::thread> threads;
  for (auto &comm : world)
    threads.emplace_back([&body, &comm] { body(*comm); });
  for (std::thread &thread : threads)
    thread.join();
}

// A generous timeout for the cases that should pass: a broken one fails
// instead of hanging the suite. The progress watchdog is off unless given.
World makeWorld(int size, std::chrono::milliseconds timeout = 5s,
                std::chrono::milliseconds stallTimeout = 1h) {
  World world = createInProcessWorld(size, timeout, stallTimeout);
  EXPECT_EQ(world.size(), static_cast<size_t>(size));
  return world;
}

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

TEST(InProcessCommunicator, SendRecvInOrder) {
  World world = makeWorld(3);
  runRanks(world, checkSendRecvInOrder);
}

TEST(InProcessCommunicator, MismatchedMessagesAreReported) {
  World world = makeWorld(3);
  runRanks(world, checkMismatchedMessages);
}

TEST(InProcessCommunicator, AllReduce) {
  World world = makeWorld(3);
  runRanks(world, checkAllReduce);
}

TEST(InProcessCommunicator, ReduceScatterUneven) {
  World world = makeWorld(3);
  runRanks(world, checkReduceScatterUneven);
}

TEST(InProcessCommunicator, AllGatherUneven) {
  World world = makeWorld(3);
  runRanks(world, checkAllGatherUneven);
}

TEST(InProcessCommunicator, StressOverlappingGroups) {
  World world = makeWorld(3);
  runRanks(world, [](Communicator &comm) {
    checkStressOverlappingGroups(comm, 1000, 20240611);
  });
}

// The contract's order: ((x0 + x1) + x2) in f32, the same bits everywhere.
TEST(InProcessCommunicator, SumsInMemberOrder) {
  std::vector<float> expected = bitIdentityInput(0);
  for (int r = 1; r < 3; ++r) {
    std::vector<float> input = bitIdentityInput(r);
    for (size_t j = 0; j < expected.size(); ++j)
      expected[j] += input[j];
  }
  // The input is one whose sum depends on the order.
  std::vector<float> reversed = bitIdentityInput(2);
  for (int r = 1; r >= 0; --r) {
    std::vector<float> input = bitIdentityInput(r);
    for (size_t j = 0; j < reversed.size(); ++j)
      reversed[j] += input[j];
  }
  ASSERT_NE(expected, reversed);

  World world = makeWorld(3);
  std::vector<std::vector<float>> results(3);
  runRanks(world, [&](Communicator &comm) {
    results[comm.rank()] = checkAllReduceBitIdentical(comm);
  });
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(results[r], expected) << "rank " << r;
}

TEST(InProcessCommunicator, RecvTimeoutNamesBothRanks) {
  World world = makeWorld(2, 200ms);
  std::vector<char> buffer(16);
  const auto start = Clock::now();
  Status status = world[1]->recv(0, buffer.data(), buffer.size(), 7);
  EXPECT_EQ(status.toString(), "DEADLINE_EXCEEDED: rank 1 waited 0.2 s in "
                               "recv of tag 7 (16 bytes) for rank 0");
  EXPECT_GE(secondsSince(start), 0.2);
  EXPECT_LT(secondsSince(start), 2.0);
}

TEST(InProcessCommunicator, CollectiveTimeoutNamesMissingRanks) {
  World world = makeWorld(4, 200ms);
  std::vector<float> input(6, 1.0f), output(2);
  Status status = world[2]->reduceScatterSum(
      {1, 2, 3}, DType::kF32, input.data(), output.data(), {2, 2, 2});
  EXPECT_EQ(status.toString(),
            "DEADLINE_EXCEEDED: rank 2 waited 0.2 s in reduce_scatter over "
            "ranks {1,2,3} for ranks {1,3}");

  // Two of three arrive: each names the one missing rank (or, if the other
  // gave up first, passes on its error).
  World second = makeWorld(4, 200ms);
  std::vector<Status> statuses(4);
  runRanks(second, [&](Communicator &comm) {
    if (comm.rank() == 1 || comm.rank() == 2)
      statuses[comm.rank()] = comm.reduceScatterSum(
          {1, 2, 3}, DType::kF32, input.data(), output.data(), {2, 2, 2});
  });
  for (int r : {1, 2}) {
    EXPECT_EQ(statuses[r].code(), StatusCode::kDeadlineExceeded);
    EXPECT_NE(statuses[r].message().find(
                  "waited 0.2 s in reduce_scatter over ranks {1,2,3} for "
                  "rank 3"),
              std::string::npos)
        << statuses[r].toString();
  }

  // The late rank is told at once rather than waiting out its own timeout.
  const auto start = Clock::now();
  status = second[3]->reduceScatterSum({1, 2, 3}, DType::kF32, input.data(),
                                       output.data(), {2, 2, 2});
  EXPECT_EQ(status.code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(status.message().find("rank 3: reduce_scatter over ranks "
                                  "{1,2,3} was given up"),
            std::string::npos)
      << status.toString();
  EXPECT_LT(secondsSince(start), 0.1);
}

// A rank that shows no progress (here: does nothing at all) is named long
// before the wait's own timeout.
TEST(InProcessCommunicator, StalledPeerIsNamedByTheWatchdog) {
  World world = makeWorld(2, 20s, 300ms);
  std::vector<char> buffer(16);
  const auto start = Clock::now();
  Status status = world[1]->recv(0, buffer.data(), buffer.size(), 7);
  EXPECT_EQ(status.toString(),
            "DEADLINE_EXCEEDED: rank 1 waited in recv of tag 7 (16 bytes) for "
            "rank 0, which has shown no progress for 0.3 s (stuck in a "
            "kernel, or stopped; --comm-timeout sets the limit)");
  EXPECT_GE(secondsSince(start), 0.3);
  EXPECT_LT(secondsSince(start), 3.0);
}

// A peer busy for three times the stall limit, but making progress, is
// waited for; so is one that is itself waiting (alive) on a busy rank.
TEST(InProcessCommunicator, PeersMakingProgressAreWaitedFor) {
  World world = makeWorld(3, 20s, 600ms);
  std::vector<Status> statuses(3);
  runRanks(world, [&](Communicator &comm) {
    char byte = 1;
    if (comm.rank() == 0) {
      for (int i = 0; i < 36; ++i) { // 1.8 s of work
        std::this_thread::sleep_for(50ms);
        comm.noteProgress();
      }
      statuses[0] = comm.send(1, &byte, 1, 0);
    } else if (comm.rank() == 1) {
      statuses[1] = comm.recv(0, &byte, 1, 0);
      if (statuses[1].ok())
        statuses[1] = comm.send(2, &byte, 1, 0);
    } else {
      statuses[2] = comm.recv(1, &byte, 1, 0);
    }
  });
  for (int r = 0; r < 3; ++r)
    EXPECT_TRUE(statuses[r].ok()) << "rank " << r << ": " << statuses[r].toString();
}

TEST(InProcessCommunicator, AbortWakesBlockedRanks) {
  World world = makeWorld(3, 4s);
  std::vector<Status> statuses(3);
  const auto start = Clock::now();
  runRanks(world, [&](Communicator &comm) {
    std::vector<float> data(8, 1.0f);
    if (comm.rank() == 0) {
      statuses[0] = comm.recv(1, data.data(), 32, 5);
    } else if (comm.rank() == 2) {
      statuses[2] = comm.allReduceSum({1, 2}, DType::kF32, data.data(), 8);
    } else {
      std::this_thread::sleep_for(50ms);
      comm.abort("out of device memory");
    }
  });
  EXPECT_LT(secondsSince(start), 2.0);
  const std::string failed = "ABORTED: rank 1 failed: out of device memory";
  EXPECT_EQ(statuses[0].toString(), failed);
  EXPECT_EQ(statuses[2].toString(), failed);

  // Later calls fail the same way, on every rank, the aborting one included.
  float x = 0;
  EXPECT_EQ(world[0]->send(2, &x, sizeof(x), 1).toString(), failed);
  EXPECT_EQ(world[1]->allGather({1}, DType::kF32, &x, &x, {1}).toString(),
            failed);
  EXPECT_EQ(world[2]->recv(0, &x, sizeof(x), 1).toString(), failed);
}

TEST(InProcessCommunicator, MismatchedCollectivesAreReported) {
  World world = makeWorld(3);
  std::vector<Status> statuses(3);
  runRanks(world, [&](Communicator &comm) {
    std::vector<float> data(4, 1.0f), output(4);
    if (comm.rank() == 0)
      statuses[0] = comm.allReduceSum({0, 1}, DType::kF32, data.data(), 4);
    else if (comm.rank() == 1)
      statuses[1] = comm.allGather({0, 1}, DType::kF32, data.data(),
                                   output.data(), {2, 2});
  });
  const std::string mismatch =
      ": rank 0 called all_reduce(f32, count 4) but rank 1 called "
      "all_gather(f32, counts {2,2}): the ranks' programs do not match";
  EXPECT_EQ(statuses[0].toString(),
            "FAILED_PRECONDITION: rank 0: all_reduce over ranks {0,1}" +
                mismatch);
  EXPECT_EQ(statuses[1].toString(),
            "FAILED_PRECONDITION: rank 1: all_gather over ranks {0,1}" +
                mismatch);

  // Same kind, different counts.
  runRanks(world, [&](Communicator &comm) {
    std::vector<double> input(8, 1.0), output(4);
    std::vector<int64_t> counts = comm.rank() == 0 ? std::vector<int64_t>{4, 4}
                                                   : std::vector<int64_t>{3, 5};
    statuses[comm.rank()] = comm.reduceScatterSum(
        {0, 2}, DType::kF64, input.data(), output.data(), counts);
  });
  EXPECT_EQ(statuses[2].toString(),
            "FAILED_PRECONDITION: rank 2: reduce_scatter over ranks {0,2}: "
            "rank 0 called reduce_scatter(f64, counts {4,4}) but rank 2 "
            "called reduce_scatter(f64, counts {3,5}): the ranks' programs "
            "do not match");
}

TEST(InProcessCommunicator, InvalidArguments) {
  World world = makeWorld(3);
  Communicator &comm = *world[1];
  float x[4] = {};
  auto text = [](Status status) { return status.toString(); };
  EXPECT_EQ(text(comm.send(3, x, 4, 0)),
            "INVALID_ARGUMENT: rank 1: send: peer 3 is out of range for a "
            "world of 3 ranks");
  EXPECT_EQ(text(comm.recv(-1, x, 4, 0)),
            "INVALID_ARGUMENT: rank 1: recv: peer -1 is out of range for a "
            "world of 3 ranks");
  EXPECT_EQ(text(comm.send(1, x, 4, 0)),
            "INVALID_ARGUMENT: rank 1: send: peer is the rank itself");
  EXPECT_EQ(text(comm.recv(0, nullptr, 4, 0)),
            "INVALID_ARGUMENT: rank 1: recv: null buffer for 4 bytes");
  EXPECT_EQ(text(comm.allReduceSum({0, 2}, DType::kF32, x, 4)),
            "INVALID_ARGUMENT: rank 1: all_reduce over ranks {0,2}: the "
            "group does not include rank 1");
  EXPECT_EQ(text(comm.allReduceSum({2, 1}, DType::kF32, x, 4)),
            "INVALID_ARGUMENT: rank 1: all_reduce over ranks {2,1}: the "
            "members must be in increasing order");
  EXPECT_EQ(text(comm.allReduceSum({1, 3}, DType::kF32, x, 4)),
            "INVALID_ARGUMENT: rank 1: all_reduce over ranks {1,3}: rank 3 "
            "is out of range for a world of 3 ranks");
  EXPECT_EQ(text(comm.allReduceSum({}, DType::kF32, x, 4)),
            "INVALID_ARGUMENT: rank 1: all_reduce over ranks {}: the group "
            "is empty");
  EXPECT_EQ(text(comm.allReduceSum({1}, DType::kI64, x, 2)),
            "INVALID_ARGUMENT: rank 1: all_reduce over ranks {1}: sums only "
            "f32 and f64, got i64");
  EXPECT_EQ(text(comm.reduceScatterSum({0, 1}, DType::kF32, x, x, {1, 1, 2})),
            "INVALID_ARGUMENT: rank 1: reduce_scatter over ranks {0,1}: got "
            "3 counts, expected 2");
  EXPECT_EQ(text(comm.allGather({1, 2}, DType::kF32, x, x, {1, -1})),
            "INVALID_ARGUMENT: rank 1: all_gather over ranks {1,2}: negative "
            "count -1");
  EXPECT_EQ(text(comm.allGather({1, 2}, DType::kF32, x, nullptr, {1, 1})),
            "INVALID_ARGUMENT: rank 1: all_gather over ranks {1,2}: null "
            "buffer for elements");
  EXPECT_TRUE(createInProcessWorld(0, 1s, 1s).empty());
}

} // namespace
} // namespace hetc::runtime::comm::test
