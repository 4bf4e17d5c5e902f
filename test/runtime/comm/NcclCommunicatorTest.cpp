//===- NcclCommunicatorTest.cpp - NCCL on one GPU -------------------------===//
//
// One process cannot host two NCCL ranks on one GPU, so this runs a world of
// one rank, where every collective is a copy and there is no peer to send
// to: it checks setup, the device-side plumbing and the argument checks.
// Skips without a CUDA device.
//
//===----------------------------------------------------------------------===//

#include "runtime/comm/NcclCommunicator.h"
#include "runtime/comm/InProcessCommunicator.h"

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

namespace hetc::runtime::comm::test {
namespace {

using namespace std::chrono_literals;

// A device copy of `values`, freed at scope exit.
struct DeviceBuffer {
  explicit DeviceBuffer(const std::vector<float> &values) {
    EXPECT_EQ(cudaMalloc(&data, values.size() * sizeof(float) + 1),
              cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data, values.data(), values.size() * sizeof(float),
                         cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  ~DeviceBuffer() { cudaFree(data); }
  std::vector<float> read(size_t count) const {
    std::vector<float> values(count);
    EXPECT_EQ(cudaMemcpy(values.data(), data, count * sizeof(float),
                         cudaMemcpyDeviceToHost),
              cudaSuccess);
    return values;
  }
  void *data = nullptr;
};

TEST(NcclCommunicator, OneRankWorld) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
    GTEST_SKIP() << "no CUDA device";
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  auto bootstrap = createInProcessWorld(1, 10s, 10s);
  std::unique_ptr<Communicator> nccl;
  Status status = createNcclCommunicator(*bootstrap[0], 0, stream, &nccl, 30s);
  ASSERT_TRUE(status.ok()) << status.toString();
  EXPECT_EQ(nccl->rank(), 0);
  EXPECT_EQ(nccl->worldSize(), 1);

  const std::vector<float> values = {1.5f, -2.0f, 3.25f, 4.0f, 0.5f};
  DeviceBuffer data(values), output(std::vector<float>(5, 0.0f));
  status = nccl->allReduceSum({0}, DType::kF32, data.data, 5);
  ASSERT_TRUE(status.ok()) << status.toString();
  EXPECT_EQ(data.read(5), values);

  status =
      nccl->reduceScatterSum({0}, DType::kF32, data.data, output.data, {5});
  ASSERT_TRUE(status.ok()) << status.toString();
  EXPECT_EQ(output.read(5), values);

  DeviceBuffer gathered(std::vector<float>(5, 0.0f));
  status = nccl->allGather({0}, DType::kF32, data.data, gathered.data, {5});
  ASSERT_TRUE(status.ok()) << status.toString();
  EXPECT_EQ(gathered.read(5), values);

  EXPECT_EQ(nccl->send(0, data.data, 4, 1).toString(),
            "INVALID_ARGUMENT: rank 0: send: peer is the rank itself");
  nccl.reset();
  cudaStreamDestroy(stream);
}

} // namespace
} // namespace hetc::runtime::comm::test
