//===- Stream.cpp ---------------------------------------------------------===//

#include "runtime/cuda/Stream.h"

#include <cstring>
#include <string>

namespace hetc::runtime::cuda {
namespace {

thread_local cudaStream_t threadStream = nullptr;

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

} // namespace hetc::runtime::cuda
