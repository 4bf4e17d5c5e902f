//===- DeviceMemory.cpp - the memory of the plan's devices ----------------===//

#include "compiler/Driver/DeviceMemory.h"

#include "dialects/HetExec/HetExec.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace hetc::driver {

int64_t DeviceMemorySpec::of(StringRef device) const {
  auto it = byDevice.find(device);
  return it != byDevice.end() ? it->second : everyDevice;
}

/// Bytes of "24GiB", "80GB", "1073741824".
static std::optional<int64_t> parseSize(StringRef text) {
  text = text.trim();
  static const std::pair<StringRef, double> units[] = {
      {"KiB", 1024.0},       {"MiB", 1024.0 * 1024},
      {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
      {"KB", 1e3},           {"MB", 1e6},
      {"GB", 1e9},           {"TB", 1e12},
      {"B", 1.0}};
  double scale = 1.0;
  for (auto [suffix, factor] : units)
    if (text.consume_back(suffix)) {
      scale = factor;
      break;
    }
  double value;
  if (text.trim().getAsDouble(value) || value <= 0)
    return std::nullopt;
  return static_cast<int64_t>(value * scale);
}

FailureOr<DeviceMemorySpec> parseDeviceMemory(StringRef text) {
  DeviceMemorySpec spec;
  if (text.trim().empty())
    return spec;
  if (!text.contains('=')) {
    std::optional<int64_t> size = parseSize(text);
    if (!size)
      return failure();
    spec.everyDevice = *size;
    return spec;
  }
  SmallVector<StringRef> entries;
  text.split(entries, ',');
  for (StringRef entry : entries) {
    auto [device, sizeText] = entry.split('=');
    std::optional<int64_t> size = parseSize(sizeText);
    if (device.trim().empty() || !size)
      return failure();
    spec.byDevice[device.trim()] = *size;
  }
  return spec;
}

static std::string formatBytes(int64_t bytes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << bytes << " bytes (" << llvm::format("%.2f", bytes / 1048576.0)
     << " MiB)";
  return text;
}

LogicalResult checkDeviceMemory(ModuleOp module,
                                const DeviceMemorySpec &memory) {
  bool fits = true;
  for (auto program : module.getOps<hetx::ProgramOp>()) {
    auto device = program->getAttrOfType<StringAttr>("device");
    int64_t available = memory.of(device ? device.getValue() : "");
    int64_t needed = program.getArenaBytesAttr().getInt();
    if (available == 0 || needed <= available)
      continue;
    program.emitError("rank ")
        << program.getRankAttr().getInt() << " (stage "
        << program.getStage() << ", replica " << program.getReplica()
        << ", device '" << (device ? device.getValue() : "") << "') needs "
        << formatBytes(needed) << (program.getEval() ? " to evaluate" : "") << " but the device has "
        << formatBytes(available) << ": " << formatBytes(needed - available)
        << " missing";
    fits = false;
  }
  return success(fits);
}

} // namespace hetc::driver
