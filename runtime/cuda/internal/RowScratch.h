//===- RowScratch.h - per-thread device scratch for row kernels -*- C++ -*-===//
//
// Kernels that reduce in two launches (parameter gradients, reduced losses)
// or sort (embedding gradients) need temporary device memory. Each thread
// keeps one buffer per (device, stream), grown to the largest size asked for
// and never shrunk: it is allocated on a kernel's first calls, before a step
// is captured as a CUDA graph, and reused after that. Work on one stream runs
// in order, so every kernel of the thread may use the same buffer.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_CUDA_INTERNAL_ROWSCRATCH_H
#define HETC_RUNTIME_CUDA_INTERNAL_ROWSCRATCH_H

#include "runtime/cuda/Stream.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hetc::runtime::cuda::internal {

/// Sets *data to at least `bytes` (256-byte aligned) of device memory owned
/// by the calling thread for the current device and stream.
inline Status rowScratch(size_t bytes, void **data) {
  struct Buffer {
    int device = -1;
    cudaStream_t stream = nullptr;
    void *data = nullptr;
    size_t bytes = 0;
  };
  struct Buffers {
    std::vector<Buffer> list;
    ~Buffers() {
      for (Buffer &b : list)
        (void)cudaFree(b.data); // may fail once the runtime is unloading
    }
  };
  thread_local Buffers buffers;
  int device = 0;
  HETC_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device));
  cudaStream_t stream = currentStream();
  Buffer *buffer = nullptr;
  for (Buffer &b : buffers.list)
    if (b.device == device && b.stream == stream)
      buffer = &b;
  if (!buffer) {
    buffers.list.push_back(Buffer{device, stream, nullptr, 0});
    buffer = &buffers.list.back();
  }
  if (buffer->bytes < bytes) {
    // Earlier kernels on the stream may still use the old buffer. Growth
    // happens only while shapes are first seen, so waiting is fine.
    if (buffer->data) {
      HETC_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
      HETC_CUDA_RETURN_IF_ERROR(cudaFree(buffer->data));
    }
    buffer->data = nullptr;
    buffer->bytes = 0;
    HETC_CUDA_RETURN_IF_ERROR(cudaMalloc(&buffer->data, bytes));
    buffer->bytes = bytes;
  }
  *data = buffer->data;
  return okStatus();
}

/// Lays out 256-byte-aligned regions in one scratch buffer: add() returns
/// each region's offset, bytes() the size to ask rowScratch for, and
/// scratchAt() the region's address in the buffer.
class ScratchLayout {
public:
  /// Reserves `bytes` and returns the region's offset.
  size_t add(size_t bytes) {
    size_t offset = total_;
    total_ += (bytes + 255) / 256 * 256;
    return offset;
  }
  size_t bytes() const { return total_ < 256 ? 256 : total_; }

private:
  size_t total_ = 0;
};

template <typename T> T *scratchAt(void *base, size_t offset) {
  return reinterpret_cast<T *>(static_cast<char *>(base) + offset);
}

} // namespace hetc::runtime::cuda::internal

#endif // HETC_RUNTIME_CUDA_INTERNAL_ROWSCRATCH_H
