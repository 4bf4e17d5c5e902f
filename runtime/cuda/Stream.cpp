//===- Stream.cpp ---------------------------------------------------------===//

#include "runtime/cuda/Stream.h"

#include <atomic>
#include <cstring>
#include <string>

namespace hetc::runtime::cuda {
namespace {

thread_local cudaStream_t threadStream = nullptr;

constexpr int kMaxDevices = 64;
std::atomic<int> computeCapabilities[kMaxDevices]; // 0: not read yet

} // namespace

cudaStream_t currentStream() { return threadStream; }
void setCurrentStream(cudaStream_t stream) { threadStream = stream; }

Status cudaStatus(cudaError_t error, const char *what) {
  if (error == cudaSuccess)
    return okStatus();
  std::string call(what, std::strcspn(what, "("));
  std::string message = call + ": " + cudaGetErrorName(error) + ": " +
                        cudaGetErrorString(error);
  return error == cudaErrorMemoryAllocation ? resourceExhausted(message)
                                            : internalError(message);
}

Status launchStatus(const char *kernel) {
  return cudaStatus(cudaGetLastError(), kernel);
}

int cudaDeviceCount() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) {
    cudaGetLastError(); // clear the sticky "no device" error
    return 0;
  }
  return devices;
}

bool cudaDeviceAvailable() { return cudaDeviceCount() > 0; }

int computeCapability(int ordinal) {
  if (ordinal < 0 || ordinal >= kMaxDevices)
    return 0;
  int known = computeCapabilities[ordinal].load(std::memory_order_relaxed);
  if (known)
    return known;
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
                             ordinal) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor,
                             ordinal) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  computeCapabilities[ordinal].store(10 * major + minor,
                                     std::memory_order_relaxed);
  return 10 * major + minor;
}

int currentComputeCapability() {
  int device = 0;
  return cudaGetDevice(&device) == cudaSuccess ? computeCapability(device) : 0;
}

} // namespace hetc::runtime::cuda
