//===- StagedCommunicator.cpp ---------------------------------------------===//

#include "runtime/comm/StagedCommunicator.h"

#include "runtime/cuda/Stream.h"

#include <numeric>

namespace hetc::runtime::comm {
namespace {

/// Pinned host memory that grows on demand.
class PinnedBuffer {
public:
  ~PinnedBuffer() { cudaFreeHost(data_); }
  Status reserve(size_t bytes) {
    if (bytes <= size_)
      return okStatus();
    cudaFreeHost(data_);
    data_ = nullptr;
    size_ = 0;
    HETC_CUDA_RETURN_IF_ERROR(cudaMallocHost(&data_, bytes));
    size_ = bytes;
    return okStatus();
  }
  void *data() const { return data_; }

private:
  void *data_ = nullptr;
  size_t size_ = 0;
};

class StagedCommunicator final : public Communicator {
public:
  explicit StagedCommunicator(Communicator &host) : host_(host) {}

  int rank() const override { return host_.rank(); }
  int worldSize() const override { return host_.worldSize(); }

  Status send(int peer, const void *data, size_t bytes, int64_t tag) override {
    HETC_RETURN_IF_ERROR(toHost(&input_, data, bytes));
    return host_.send(peer, input_.data(), bytes, tag);
  }

  Status recv(int peer, void *data, size_t bytes, int64_t tag) override {
    HETC_RETURN_IF_ERROR(input_.reserve(bytes));
    HETC_RETURN_IF_ERROR(host_.recv(peer, input_.data(), bytes, tag));
    return toDevice(data, input_, bytes);
  }

  Status allReduceSum(const std::vector<int> &group, DType dtype, void *data,
                      int64_t count) override {
    size_t bytes = count * dtypeSize(dtype);
    HETC_RETURN_IF_ERROR(toHost(&input_, data, bytes));
    HETC_RETURN_IF_ERROR(
        host_.allReduceSum(group, dtype, input_.data(), count));
    return toDevice(data, input_, bytes);
  }

  Status reduceScatterSum(const std::vector<int> &group, DType dtype,
                          const void *input, void *output,
                          const std::vector<int64_t> &counts) override {
    int64_t mine = counts.at(memberIndex(group));
    int64_t total = std::accumulate(counts.begin(), counts.end(), int64_t(0));
    size_t size = dtypeSize(dtype);
    HETC_RETURN_IF_ERROR(toHost(&input_, input, total * size));
    HETC_RETURN_IF_ERROR(output_.reserve(mine * size));
    HETC_RETURN_IF_ERROR(host_.reduceScatterSum(group, dtype, input_.data(),
                                                output_.data(), counts));
    return toDevice(output, output_, mine * size);
  }

  Status allGather(const std::vector<int> &group, DType dtype,
                   const void *input, void *output,
                   const std::vector<int64_t> &counts) override {
    int64_t mine = counts.at(memberIndex(group));
    int64_t total = std::accumulate(counts.begin(), counts.end(), int64_t(0));
    size_t size = dtypeSize(dtype);
    HETC_RETURN_IF_ERROR(toHost(&input_, input, mine * size));
    HETC_RETURN_IF_ERROR(output_.reserve(total * size));
    HETC_RETURN_IF_ERROR(host_.allGather(group, dtype, input_.data(),
                                         output_.data(), counts));
    return toDevice(output, output_, total * size);
  }

  void abort(const std::string &reason) override { host_.abort(reason); }

private:
  // The caller's index in `group`; the host communicator checks the rest
  // (a rank outside the group gets its error there, with index 0 here).
  size_t memberIndex(const std::vector<int> &group) const {
    for (size_t i = 0; i < group.size(); ++i)
      if (group[i] == rank())
        return i;
    return 0;
  }

  // Waits for the work that writes `data`, then copies it to `staging`.
  Status toHost(PinnedBuffer *staging, const void *data, size_t bytes) {
    HETC_RETURN_IF_ERROR(staging->reserve(bytes));
    cudaStream_t stream = cuda::currentStream();
    if (bytes)
      HETC_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(
          staging->data(), data, bytes, cudaMemcpyDeviceToHost, stream));
    HETC_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
    return okStatus();
  }

  // Copies `staging` to `data` and waits, so that the staging buffer may
  // be reused by the next call.
  Status toDevice(void *data, const PinnedBuffer &staging, size_t bytes) {
    cudaStream_t stream = cuda::currentStream();
    if (bytes)
      HETC_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(
          data, staging.data(), bytes, cudaMemcpyHostToDevice, stream));
    HETC_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
    return okStatus();
  }

  Communicator &host_;
  PinnedBuffer input_, output_;
};

} // namespace

std::unique_ptr<Communicator> createStagedCommunicator(Communicator &host) {
  return std::make_unique<StagedCommunicator>(host);
}

} // namespace hetc::runtime::comm
