//===- GreenContexts.cpp --------------------------------------------------===//

#include "runtime/exec/cuda/GreenContexts.h"

#include "runtime/cuda/Stream.h"

#include <cuda.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <utility>

namespace hetc::runtime::exec {
namespace {

// The driver entry points take the ABI of the headers compiled against
// (CUDA_VERSION), or the running driver's where that is older: asking for an
// older ABI than a symbol's first one (cuGreenCtxStreamCreate: 12.5) finds
// nothing.
unsigned entryPointVersion() {
  int running = 0;
  if (cudaDriverGetVersion(&running) != cudaSuccess || running <= 0)
    return CUDA_VERSION;
  return std::min<unsigned>(CUDA_VERSION, static_cast<unsigned>(running));
}

struct DriverApi {
  decltype(&::cuDeviceGet) deviceGet = nullptr;
  decltype(&::cuDeviceGetDevResource) deviceGetDevResource = nullptr;
  decltype(&::cuDevSmResourceSplitByCount) smResourceSplitByCount = nullptr;
  decltype(&::cuDevResourceGenerateDesc) resourceGenerateDesc = nullptr;
  decltype(&::cuGreenCtxCreate) greenCtxCreate = nullptr;
  decltype(&::cuGreenCtxDestroy) greenCtxDestroy = nullptr;
  decltype(&::cuGreenCtxStreamCreate) greenCtxStreamCreate = nullptr;
  decltype(&::cuCtxFromGreenCtx) ctxFromGreenCtx = nullptr;
  decltype(&::cuCtxSetCurrent) ctxSetCurrent = nullptr;
  decltype(&::cuGetErrorName) getErrorName = nullptr;
  Status loaded;
};

template <typename Fn>
Status load(const char *symbol, Fn *function) {
  void *address = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  HETC_CUDA_RETURN_IF_ERROR(cudaGetDriverEntryPointByVersion(
      symbol, &address, entryPointVersion(), cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess || !address)
    return unimplemented("the CUDA driver has no ", symbol,
                         " (green contexts need a CUDA 12.5 driver or newer)");
  *function = reinterpret_cast<Fn>(address);
  return okStatus();
}

const DriverApi &driver() {
  static const DriverApi api = [] {
    DriverApi d;
    d.loaded = [&]() -> Status {
      HETC_RETURN_IF_ERROR(load("cuDeviceGet", &d.deviceGet));
      HETC_RETURN_IF_ERROR(
          load("cuDeviceGetDevResource", &d.deviceGetDevResource));
      HETC_RETURN_IF_ERROR(
          load("cuDevSmResourceSplitByCount", &d.smResourceSplitByCount));
      HETC_RETURN_IF_ERROR(
          load("cuDevResourceGenerateDesc", &d.resourceGenerateDesc));
      HETC_RETURN_IF_ERROR(load("cuGreenCtxCreate", &d.greenCtxCreate));
      HETC_RETURN_IF_ERROR(load("cuGreenCtxDestroy", &d.greenCtxDestroy));
      HETC_RETURN_IF_ERROR(
          load("cuGreenCtxStreamCreate", &d.greenCtxStreamCreate));
      HETC_RETURN_IF_ERROR(load("cuCtxFromGreenCtx", &d.ctxFromGreenCtx));
      HETC_RETURN_IF_ERROR(load("cuCtxSetCurrent", &d.ctxSetCurrent));
      return load("cuGetErrorName", &d.getErrorName);
    }();
    return d;
  }();
  return api;
}

Status driverStatus(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return okStatus();
  const char *name = "unknown error";
  if (driver().getErrorName)
    driver().getErrorName(result, &name);
  return internalError(call, ": ", name);
}

#define HETC_CU_RETURN_IF_ERROR(call)                                          \
  HETC_RETURN_IF_ERROR(driverStatus((call), #call))

// A partition's SM resources, kept as bytes so that the header needs no
// <cuda.h>.
std::vector<CUdevResource> resourcesAt(const std::vector<unsigned char> &bytes) {
  std::vector<CUdevResource> resources(bytes.size() / sizeof(CUdevResource));
  std::memcpy(resources.data(), bytes.data(), bytes.size());
  return resources;
}

std::vector<unsigned char> bytesOf(const CUdevResource *resources, size_t count) {
  std::vector<unsigned char> bytes(count * sizeof(CUdevResource));
  std::memcpy(bytes.data(), resources, bytes.size());
  return bytes;
}

} // namespace

GreenContext::~GreenContext() { reset(); }

GreenContext::GreenContext(GreenContext &&other) noexcept
    : green_(std::exchange(other.green_, nullptr)),
      context_(std::exchange(other.context_, nullptr)),
      stream_(std::exchange(other.stream_, nullptr)),
      smCount_(std::exchange(other.smCount_, 0)) {}

GreenContext &GreenContext::operator=(GreenContext &&other) noexcept {
  if (this != &other) {
    reset();
    green_ = std::exchange(other.green_, nullptr);
    context_ = std::exchange(other.context_, nullptr);
    stream_ = std::exchange(other.stream_, nullptr);
    smCount_ = std::exchange(other.smCount_, 0);
  }
  return *this;
}

void GreenContext::reset() {
  if (stream_)
    cudaStreamDestroy(stream_);
  if (green_)
    driver().greenCtxDestroy(static_cast<CUgreenCtx>(green_));
  green_ = context_ = nullptr;
  stream_ = nullptr;
}

Status GreenContext::makeCurrent() const {
  HETC_CU_RETURN_IF_ERROR(
      driver().ctxSetCurrent(static_cast<CUcontext>(context_)));
  return okStatus();
}

std::vector<int> smShares(int totalSms, const std::vector<double> &weights,
                          int minimum, int alignment) {
  alignment = std::max(alignment, 1);
  minimum = std::max(minimum, alignment);
  bool weighted = !weights.empty();
  double sum = 0.0;
  for (double weight : weights) {
    weighted = weighted && weight > 0.0;
    sum += weight;
  }
  std::vector<int> shares;
  for (double weight : weights) {
    double fraction = weighted ? weight / sum : 1.0 / weights.size();
    int share = static_cast<int>(totalSms * fraction) / alignment * alignment;
    shares.push_back(std::max(minimum, share));
  }
  // The minimum may overshoot: take SMs back from the largest shares.
  int total = std::accumulate(shares.begin(), shares.end(), 0);
  while (total > totalSms) {
    auto largest = std::max_element(shares.begin(), shares.end());
    if (*largest - alignment < minimum)
      break;
    *largest -= alignment;
    total -= alignment;
  }
  return shares;
}

SmPartitions::~SmPartitions() = default;

Status SmPartitions::create(int ordinal, const std::vector<double> &weights,
                            std::shared_ptr<const SmPartitions> *partitions) {
  const DriverApi &api = driver();
  HETC_RETURN_IF_ERROR(api.loaded);
  // The primary context must exist before green contexts retain it.
  HETC_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal));
  HETC_CUDA_RETURN_IF_ERROR(cudaFree(nullptr));
  CUdevice device;
  HETC_CU_RETURN_IF_ERROR(api.deviceGet(&device, ordinal));
  CUdevResource deviceSms;
  HETC_CU_RETURN_IF_ERROR(
      api.deviceGetDevResource(device, &deviceSms, CU_DEV_RESOURCE_TYPE_SM));
  std::shared_ptr<SmPartitions> result(new SmPartitions());
  result->ordinal_ = ordinal;
  result->totalSms_ = static_cast<int>(deviceSms.sm.smCount);
  // The driver splits a device's SMs only into equal groups, and a group or
  // the remainder cannot be split again; so the device is cut once into
  // groups of the smallest size it allows, and each partition is a run of
  // consecutive groups (one descriptor may combine several).
  int unit = static_cast<int>(std::max(deviceSms.sm.minSmPartitionSize,
                                       deviceSms.sm.smCoscheduledAlignment));
  unsigned available = 0;
  HETC_CU_RETURN_IF_ERROR(api.smResourceSplitByCount(
      nullptr, &available, &deviceSms, nullptr, 0, static_cast<unsigned>(unit)));
  std::vector<CUdevResource> units(available);
  HETC_CU_RETURN_IF_ERROR(api.smResourceSplitByCount(
      units.data(), &available, &deviceSms, nullptr, 0,
      static_cast<unsigned>(unit)));
  std::vector<int> counts = smShares(static_cast<int>(available) * unit,
                                     weights, unit, unit);
  size_t next = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    size_t take = static_cast<size_t>(counts[i] / unit);
    if (next + take > available)
      return resourceExhausted(
          "GPU ", ordinal, " has ", (available - next) * unit,
          " SMs left for partition ", i, ", which asks for ", counts[i],
          " (of ", result->totalSms_, " in all, in groups of ", unit, ")");
    int sms = 0;
    for (size_t k = next; k < next + take; ++k)
      sms += static_cast<int>(units[k].sm.smCount);
    result->groups_.push_back(bytesOf(units.data() + next, take));
    result->counts_.push_back(sms);
    next += take;
  }
  *partitions = std::move(result);
  return okStatus();
}

Status SmPartitions::createContext(int index, GreenContext *context) const {
  const DriverApi &api = driver();
  std::vector<CUdevResource> group = resourcesAt(groups_.at(index));
  CUdevResourceDesc desc;
  HETC_CU_RETURN_IF_ERROR(api.resourceGenerateDesc(
      &desc, group.data(), static_cast<unsigned>(group.size())));
  CUdevice device;
  HETC_CU_RETURN_IF_ERROR(api.deviceGet(&device, ordinal_));
  GreenContext made;
  CUgreenCtx green;
  HETC_CU_RETURN_IF_ERROR(
      api.greenCtxCreate(&green, desc, device, CU_GREEN_CTX_DEFAULT_STREAM));
  made.green_ = green;
  made.smCount_ = smCount(index);
  CUcontext asContext;
  HETC_CU_RETURN_IF_ERROR(api.ctxFromGreenCtx(&asContext, green));
  made.context_ = asContext;
  CUstream stream;
  HETC_CU_RETURN_IF_ERROR(
      api.greenCtxStreamCreate(&stream, green, CU_STREAM_NON_BLOCKING, 0));
  made.stream_ = static_cast<cudaStream_t>(stream);
  *context = std::move(made);
  return okStatus();
}

} // namespace hetc::runtime::exec
