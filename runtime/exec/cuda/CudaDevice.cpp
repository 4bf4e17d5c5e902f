//===- CudaDevice.cpp -----------------------------------------------------===//

#include "runtime/exec/cuda/CudaDevice.h"

#include "runtime/cuda/Stream.h"
#include "runtime/exec/KernelRegistry.h"

#include <cstdio>
#include <map>
#include <vector>

namespace hetc::runtime::exec {
namespace {

std::string gib(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f GiB", bytes / double(1 << 30));
  return text;
}

/// A span's replay: its graph once captured, or why it runs eagerly.
struct SpanGraph {
  int runs = 0;
  cudaGraphExec_t exec = nullptr;
  bool eager = false; // capture failed: run it as launches
};

class CudaDevice final : public Device {
public:
  explicit CudaDevice(const CudaDeviceOptions &options) : options_(options) {}
  ~CudaDevice() override;

  Status initialize();

  std::string describe() const override;
  bool hostMemory() const override { return false; }
  const KernelRegistry &registry() const override {
    return cudaKernelRegistry();
  }
  Status bind() override;
  Status allocate(int64_t bytes, void **data) override;
  void release(void *data) override;
  Status copyToDevice(void *dst, const void *src, size_t bytes) override;
  Status copyToHost(void *dst, const void *src, size_t bytes) override;
  Status copyOnDevice(void *dst, const void *src, size_t bytes) override;
  Status runSpan(int span, const std::function<Status()> &launch) override;
  Status synchronize() override;
  void startTiming() override { timing_ = true; }
  Status mark(size_t *index) override;
  Status markedTime(size_t index, TimePoint *at) const override;
  void forgetMarks() override {
    usedEvents_ = 0;
    anchored_ = false;
  }

private:
  Status capture(int span, const std::function<Status()> &launch,
                 SpanGraph *graph);
  /// An asynchronous copy on the rank's stream (none for zero bytes).
  Status copyAsync(void *dst, const void *src, size_t bytes,
                   cudaMemcpyKind kind);

  CudaDeviceOptions options_;
  GreenContext green_;              // when the rank has an SM partition
  cudaStream_t ownStream_ = nullptr; // otherwise
  cudaStream_t stream_ = nullptr;
  std::vector<SpanGraph> spans_;
  // Launch timing: events reused from one list of marks to the next, timed
  // against an anchor event whose host time is known.
  bool timing_ = false;
  std::vector<cudaEvent_t> events_;
  size_t usedEvents_ = 0;
  cudaEvent_t anchor_ = nullptr;
  TimePoint anchorTime_;
  bool anchored_ = false;
};

CudaDevice::~CudaDevice() {
  for (SpanGraph &span : spans_)
    if (span.exec)
      cudaGraphExecDestroy(span.exec);
  for (cudaEvent_t event : events_)
    cudaEventDestroy(event);
  if (anchor_)
    cudaEventDestroy(anchor_);
  if (ownStream_)
    cudaStreamDestroy(ownStream_);
}

Status CudaDevice::initialize() {
  HETC_CUDA_RETURN_IF_ERROR(cudaSetDevice(options_.ordinal));
  if (options_.partitions) {
    HETC_RETURN_IF_ERROR(
        options_.partitions->createContext(options_.partition, &green_));
    stream_ = green_.stream();
  } else {
    HETC_CUDA_RETURN_IF_ERROR(
        cudaStreamCreateWithFlags(&ownStream_, cudaStreamNonBlocking));
    stream_ = ownStream_;
  }
  return bind();
}

std::string CudaDevice::describe() const {
  std::string text = "cuda:" + std::to_string(options_.ordinal);
  if (!options_.partitions && options_.memoryCap == 0)
    return text;
  text += " (";
  if (options_.partitions) {
    text += std::to_string(green_.smCount()) + " of " +
            std::to_string(options_.partitions->totalSms()) + " SMs";
    if (options_.memoryCap > 0)
      text += ", ";
  }
  if (options_.memoryCap > 0)
    text += "memory cap " + gib(options_.memoryCap);
  return text + ")";
}

Status CudaDevice::bind() {
  // A green context made current replaces the primary one that
  // cudaSetDevice would make current.
  if (options_.partitions)
    HETC_RETURN_IF_ERROR(green_.makeCurrent());
  else
    HETC_CUDA_RETURN_IF_ERROR(cudaSetDevice(options_.ordinal));
  cuda::setCurrentStream(stream_);
  return okStatus();
}

Status CudaDevice::allocate(int64_t bytes, void **data) {
  if (options_.memoryCap > 0 && allocatedBytes() + bytes > options_.memoryCap)
    return resourceExhausted("allocating ", bytes, " bytes would take ",
                             describe(), " past its memory cap (",
                             allocatedBytes(), " bytes in use)");
  void *memory = nullptr;
  HETC_CUDA_RETURN_IF_ERROR(cudaMalloc(&memory, std::max<int64_t>(bytes, 1)));
  Status zeroed =
      cuda::cudaStatus(cudaMemsetAsync(memory, 0, bytes, stream_), "cudaMemsetAsync");
  if (!zeroed.ok()) {
    cudaFree(memory);
    return zeroed;
  }
  noteAllocated(memory, bytes);
  *data = memory;
  return okStatus();
}

void CudaDevice::release(void *data) {
  if (noteReleased(data))
    cudaFree(data);
}

Status CudaDevice::copyAsync(void *dst, const void *src, size_t bytes,
                             cudaMemcpyKind kind) {
  if (bytes != 0)
    HETC_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst, src, bytes, kind, stream_));
  return okStatus();
}

Status CudaDevice::copyToDevice(void *dst, const void *src, size_t bytes) {
  // From pageable memory the copy is staged before the call returns, so the
  // caller may reuse `src` at once.
  return copyAsync(dst, src, bytes, cudaMemcpyHostToDevice);
}

Status CudaDevice::copyToHost(void *dst, const void *src, size_t bytes) {
  if (bytes == 0)
    return okStatus();
  HETC_RETURN_IF_ERROR(copyAsync(dst, src, bytes, cudaMemcpyDeviceToHost));
  return synchronize();
}

Status CudaDevice::copyOnDevice(void *dst, const void *src, size_t bytes) {
  return copyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice);
}

Status CudaDevice::capture(int span, const std::function<Status()> &launch,
                           SpanGraph *graph) {
  // Thread-local capture: the other ranks' threads keep launching freely.
  HETC_CUDA_RETURN_IF_ERROR(
      cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  Status launched = launch();
  cudaGraph_t captured = nullptr;
  cudaError_t ended = cudaStreamEndCapture(stream_, &captured);
  Status result = !launched.ok() ? launched
                                 : cuda::cudaStatus(ended, "cudaStreamEndCapture");
  if (result.ok())
    result = cuda::cudaStatus(cudaGraphInstantiate(&graph->exec, captured, 0),
                              "cudaGraphInstantiate");
  if (captured)
    cudaGraphDestroy(captured);
  return result;
}

Status CudaDevice::runSpan(int span, const std::function<Status()> &launch) {
  if (static_cast<int>(spans_.size()) <= span)
    spans_.resize(span + 1);
  SpanGraph &graph = spans_[span];
  // The first run is eager: kernels make their handles, workspaces and
  // scratch then, which capture does not allow.
  if (!options_.graphs || timing_ || graph.eager || graph.runs++ == 0)
    return launch();
  if (!graph.exec) {
    Status captured = capture(span, launch, &graph);
    if (!captured.ok()) {
      cudaGetLastError(); // the failed capture's error is not the launch's
      graph.eager = true;
      std::fprintf(stderr,
                   "hetrun: %s: span %d runs without a CUDA graph: %s\n",
                   describe().c_str(), span, captured.toString().c_str());
      return launch();
    }
  }
  HETC_CUDA_RETURN_IF_ERROR(cudaGraphLaunch(graph.exec, stream_));
  return okStatus();
}

Status CudaDevice::synchronize() {
  HETC_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
  return okStatus();
}

Status CudaDevice::mark(size_t *index) {
  if (!anchored_) {
    // On an idle stream an event fires as soon as it is recorded: its
    // host time ties the events' clock to the host's.
    if (!anchor_)
      HETC_CUDA_RETURN_IF_ERROR(cudaEventCreate(&anchor_));
    HETC_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
    HETC_CUDA_RETURN_IF_ERROR(cudaEventRecord(anchor_, stream_));
    HETC_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(anchor_));
    anchorTime_ = std::chrono::steady_clock::now();
    anchored_ = true;
  }
  if (usedEvents_ == events_.size()) {
    cudaEvent_t event = nullptr;
    HETC_CUDA_RETURN_IF_ERROR(cudaEventCreate(&event));
    events_.push_back(event);
  }
  HETC_CUDA_RETURN_IF_ERROR(cudaEventRecord(events_[usedEvents_], stream_));
  *index = usedEvents_++;
  return okStatus();
}

Status CudaDevice::markedTime(size_t index, TimePoint *at) const {
  if (index >= usedEvents_)
    return failedPrecondition("no launch-timing mark ", index);
  float milliseconds = 0;
  HETC_CUDA_RETURN_IF_ERROR(
      cudaEventElapsedTime(&milliseconds, anchor_, events_[index]));
  *at = anchorTime_ + std::chrono::duration_cast<TimePoint::duration>(
                          std::chrono::duration<double, std::milli>(
                              milliseconds));
  return okStatus();
}

} // namespace

Status createCudaDevice(const CudaDeviceOptions &options,
                        std::unique_ptr<Device> *device) {
  auto made = std::make_unique<CudaDevice>(options);
  HETC_RETURN_IF_ERROR(made->initialize(), "GPU ", options.ordinal);
  *device = std::move(made);
  return okStatus();
}

} // namespace hetc::runtime::exec
