//===- CommunicatorCases.cpp ----------------------------------------------===//

#include "CommunicatorCases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

namespace hetc::runtime::comm::test {
namespace {

bool contains(const std::vector<int> &group, int rank) {
  return std::find(group.begin(), group.end(), rank) != group.end();
}

int memberIndex(const std::vector<int> &group, int rank) {
  return static_cast<int>(std::find(group.begin(), group.end(), rank) -
                          group.begin());
}

int64_t offsetOf(const std::vector<int64_t> &counts, size_t member) {
  int64_t offset = 0;
  for (size_t i = 0; i < member; ++i)
    offset += counts[i];
  return offset;
}

int64_t total(const std::vector<int64_t> &counts) {
  return offsetOf(counts, counts.size());
}

// Rank r's byte j of message m: different for every message and position.
std::vector<uint8_t> messageBytes(int rank, int message, size_t size) {
  std::vector<uint8_t> bytes(size);
  for (size_t j = 0; j < size; ++j)
    bytes[j] = static_cast<uint8_t>(rank * 31 + message * 7 + j * 13);
  return bytes;
}

// Element j of rank r's input: small integers (and halves), so that sums of
// three are exact in f32 and the expected values below are exact.
template <typename T> T inputValue(int rank, int64_t j) {
  return static_cast<T>((rank + 1) * 100 + j) + T(0.5) * rank;
}

template <typename T>
void checkAllReduceOf(Communicator &comm, const std::vector<int> &group,
                      int64_t count) {
  if (!contains(group, comm.rank()))
    return;
  std::vector<T> data(count), expected(count, T(0));
  for (int64_t j = 0; j < count; ++j) {
    data[j] = inputValue<T>(comm.rank(), j);
    for (int member : group)
      expected[j] += inputValue<T>(member, j);
  }
  Status status =
      comm.allReduceSum(group, DTypeOf<T>::value, data.data(), count);
  ASSERT_TRUE(status.ok()) << status.toString();
  EXPECT_EQ(data, expected) << "rank " << comm.rank();
}

template <typename T>
void checkReduceScatterOf(Communicator &comm, const std::vector<int> &group,
                          const std::vector<int64_t> &counts) {
  if (!contains(group, comm.rank()))
    return;
  const int member = memberIndex(group, comm.rank());
  std::vector<T> input(total(counts));
  for (size_t j = 0; j < input.size(); ++j)
    input[j] = inputValue<T>(comm.rank(), j);
  std::vector<T> output(counts[member], T(-1)), expected(counts[member]);
  const int64_t offset = offsetOf(counts, member);
  for (int64_t j = 0; j < counts[member]; ++j) {
    expected[j] = T(0);
    for (int other : group)
      expected[j] += inputValue<T>(other, offset + j);
  }
  Status status = comm.reduceScatterSum(group, DTypeOf<T>::value, input.data(),
                                        output.data(), counts);
  ASSERT_TRUE(status.ok()) << status.toString();
  EXPECT_EQ(output, expected) << "rank " << comm.rank();
}

template <typename T>
void checkAllGatherOf(Communicator &comm, const std::vector<int> &group,
                      const std::vector<int64_t> &counts) {
  if (!contains(group, comm.rank()))
    return;
  const int member = memberIndex(group, comm.rank());
  std::vector<T> input(counts[member]);
  for (int64_t j = 0; j < counts[member]; ++j)
    input[j] = inputValue<T>(comm.rank(), j);
  std::vector<T> output(total(counts), T(-1)), expected;
  for (size_t m = 0; m < group.size(); ++m)
    for (int64_t j = 0; j < counts[m]; ++j)
      expected.push_back(inputValue<T>(group[m], j));
  Status status = comm.allGather(group, DTypeOf<T>::value, input.data(),
                                 output.data(), counts);
  ASSERT_TRUE(status.ok()) << status.toString();
  EXPECT_EQ(output, expected) << "rank " << comm.rank();
}

} // namespace

void checkSendRecvInOrder(Communicator &comm) {
  ASSERT_EQ(comm.worldSize(), 3);
  const std::vector<size_t> sizes = {0, 1, 17, 4096, 100000};
  const std::vector<int64_t> tags = {1, -5, int64_t(1) << 40, 7, 3};
  const int next = (comm.rank() + 1) % 3;
  const int previous = (comm.rank() + 2) % 3;
  for (size_t m = 0; m < sizes.size(); ++m) {
    std::vector<uint8_t> bytes = messageBytes(comm.rank(), m, sizes[m]);
    Status status = comm.send(next, bytes.data(), bytes.size(), tags[m]);
    ASSERT_TRUE(status.ok()) << status.toString();
  }
  for (size_t m = 0; m < sizes.size(); ++m) {
    std::vector<uint8_t> bytes(sizes[m], 0xee);
    Status status = comm.recv(previous, bytes.data(), bytes.size(), tags[m]);
    ASSERT_TRUE(status.ok()) << status.toString();
    EXPECT_EQ(bytes, messageBytes(previous, m, sizes[m]))
        << "message " << m << " at rank " << comm.rank();
  }
}

void checkMismatchedMessages(Communicator &comm) {
  ASSERT_EQ(comm.worldSize(), 3);
  // Distinct contents: a payload left behind would show in the last one.
  std::vector<uint8_t> wrong(4096, 3), small(2048, 1), large(4096, 2);
  if (comm.rank() == 0) {
    for (auto [bytes, tag] : {std::pair(&wrong, 9), std::pair(&small, 7),
                              std::pair(&small, 9), std::pair(&large, 7)}) {
      Status status = comm.send(1, bytes->data(), bytes->size(), tag);
      ASSERT_TRUE(status.ok()) << status.toString();
    }
  } else if (comm.rank() == 1) {
    std::vector<uint8_t> buffer(4096, 0);
    const std::string mismatch = "FAILED_PRECONDITION: rank 1 expected "
                                 "message tag 7 (4096 bytes) from rank 0 but "
                                 "received ";
    const std::string suffix = ": the two ranks' programs do not match";
    EXPECT_EQ(comm.recv(0, buffer.data(), buffer.size(), 7).toString(),
              mismatch + "tag 9 (4096 bytes)" + suffix);
    EXPECT_EQ(comm.recv(0, buffer.data(), buffer.size(), 7).toString(),
              mismatch + "tag 7 (2048 bytes)" + suffix);
    EXPECT_EQ(comm.recv(0, buffer.data(), buffer.size(), 7).toString(),
              mismatch + "tag 9 (2048 bytes)" + suffix);
    // The mismatched messages were consumed: the next one reads cleanly.
    Status status = comm.recv(0, buffer.data(), buffer.size(), 7);
    ASSERT_TRUE(status.ok()) << status.toString();
    EXPECT_EQ(buffer, large);
  }
}

void checkAllReduce(Communicator &comm) {
  ASSERT_EQ(comm.worldSize(), 3);
  checkAllReduceOf<float>(comm, {0, 2}, 7);
  checkAllReduceOf<double>(comm, {0, 2}, 5);
  checkAllReduceOf<float>(comm, {0, 1, 2}, 11);
  checkAllReduceOf<double>(comm, {0, 1, 2}, 0);
}

void checkReduceScatterUneven(Communicator &comm) {
  ASSERT_EQ(comm.worldSize(), 3);
  checkReduceScatterOf<float>(comm, {0, 1, 2}, {5, 0, 3});
  checkReduceScatterOf<double>(comm, {0, 1, 2}, {5, 0, 3});
  checkReduceScatterOf<float>(comm, {0, 2}, {0, 4});
}

void checkAllGatherUneven(Communicator &comm) {
  ASSERT_EQ(comm.worldSize(), 3);
  checkAllGatherOf<float>(comm, {0, 1, 2}, {5, 0, 3});
  checkAllGatherOf<int64_t>(comm, {0, 1, 2}, {5, 0, 3});
  checkAllGatherOf<double>(comm, {1, 2}, {3, 0});
}

std::vector<float> bitIdentityInput(int rank) {
  std::mt19937 rng(1234 + rank);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-20, 20);
  std::vector<float> input(257);
  for (float &x : input)
    x = std::ldexp(mantissa(rng), exponent(rng));
  return input;
}

std::vector<float> checkAllReduceBitIdentical(Communicator &comm) {
  const int size = comm.worldSize();
  const std::vector<int> world = {0, 1, 2};
  std::vector<float> data = bitIdentityInput(comm.rank());
  const int64_t count = static_cast<int64_t>(data.size());
  Status status = comm.allReduceSum(world, DType::kF32, data.data(), count);
  EXPECT_TRUE(status.ok()) << status.toString();

  std::vector<float> everyone(count * size);
  status = comm.allGather(world, DType::kF32, data.data(), everyone.data(),
                          std::vector<int64_t>(size, count));
  EXPECT_TRUE(status.ok()) << status.toString();
  for (int r = 1; r < size; ++r)
    EXPECT_EQ(std::memcmp(everyone.data(), everyone.data() + r * count,
                          count * sizeof(float)),
              0)
        << "ranks 0 and " << r << " got different bits";
  return data;
}

void checkStressOverlappingGroups(Communicator &comm, int iterations,
                                  uint32_t seed) {
  ASSERT_EQ(comm.worldSize(), 3);
  const std::vector<std::vector<int>> groups = {
      {0, 1}, {1, 2}, {0, 2}, {0, 1, 2}};
  const int rank = comm.rank();
  std::mt19937 rng(seed);
  for (int it = 0; it < iterations; ++it) {
    // Every rank draws the same values, whatever its part in the step.
    const int kind = rng() % 4;
    const std::vector<int> &group = groups[rng() % groups.size()];
    std::vector<int64_t> counts(group.size());
    for (int64_t &count : counts)
      count = rng() % 9;
    const int from = rng() % 3;
    const int to = (from + 1 + rng() % 2) % 3;
    const size_t messageSize = rng() % 300;
    // Exact in f32: sums of three values in [-50, 50].
    auto value = [&](int r, int64_t j) {
      return static_cast<float>((it * 7 + r * 13 + j * 3) % 101) - 50.0f;
    };
    SCOPED_TRACE(testing::Message() << "step " << it << " at rank " << rank);

    if (kind == 0) {
      std::vector<float> message(messageSize);
      if (rank == from) {
        for (size_t j = 0; j < messageSize; ++j)
          message[j] = value(from, j);
        Status status =
            comm.send(to, message.data(), messageSize * sizeof(float), it);
        ASSERT_TRUE(status.ok()) << status.toString();
      } else if (rank == to) {
        Status status =
            comm.recv(from, message.data(), messageSize * sizeof(float), it);
        ASSERT_TRUE(status.ok()) << status.toString();
        for (size_t j = 0; j < messageSize; ++j)
          ASSERT_EQ(message[j], value(from, j));
      }
      continue;
    }
    if (!contains(group, rank))
      continue;
    const int member = memberIndex(group, rank);
    const int64_t sum = total(counts);
    std::vector<float> input(kind == 3 ? counts[member] : sum);
    for (size_t j = 0; j < input.size(); ++j)
      input[j] = value(rank, j);
    std::vector<float> expected;
    Status status;
    if (kind == 1) {
      for (int64_t j = 0; j < sum; ++j) {
        float s = 0;
        for (int other : group)
          s += value(other, j);
        expected.push_back(s);
      }
      status = comm.allReduceSum(group, DType::kF32, input.data(), sum);
      ASSERT_TRUE(status.ok()) << status.toString();
      ASSERT_EQ(input, expected);
    } else if (kind == 2) {
      const int64_t offset = offsetOf(counts, member);
      for (int64_t j = 0; j < counts[member]; ++j) {
        float s = 0;
        for (int other : group)
          s += value(other, offset + j);
        expected.push_back(s);
      }
      std::vector<float> output(counts[member]);
      status = comm.reduceScatterSum(group, DType::kF32, input.data(),
                                     output.data(), counts);
      ASSERT_TRUE(status.ok()) << status.toString();
      ASSERT_EQ(output, expected);
    } else {
      for (size_t m = 0; m < group.size(); ++m)
        for (int64_t j = 0; j < counts[m]; ++j)
          expected.push_back(value(group[m], j));
      std::vector<float> output(sum);
      status = comm.allGather(group, DType::kF32, input.data(), output.data(),
                              counts);
      ASSERT_TRUE(status.ok()) << status.toString();
      ASSERT_EQ(output, expected);
    }
  }
}

} // namespace hetc::runtime::comm::test
