//===- KernelRegistry.cpp -------------------------------------------------===//

#include "runtime/exec/KernelRegistry.h"

#include "runtime/exec/kernels/HalfPromotion.h"

#include <cstdio>
#include <cstdlib>

namespace hetc::runtime::exec {

std::string KernelInfo::operandCountText() const {
  if (maxOperands < 0)
    return "at least " + std::to_string(minOperands);
  if (maxOperands == minOperands)
    return std::to_string(minOperands);
  if (maxOperands == minOperands + 1)
    return std::to_string(minOperands) + " or " + std::to_string(maxOperands);
  return std::to_string(minOperands) + " to " + std::to_string(maxOperands);
}

Status KernelRegistry::add(KernelInfo info) {
  if (!info.run && info.comm == CommKind::kNone)
    return invalidArgument("kernel '", info.name, "' has no adapter");
  std::string name = info.name;
  if (!kernels_.emplace(name, std::move(info)).second)
    return invalidArgument("kernel '", name, "' is registered twice");
  return okStatus();
}

const KernelInfo *KernelRegistry::find(const std::string &name) const {
  auto it = kernels_.find(name);
  return it == kernels_.end() ? nullptr : &it->second;
}

std::vector<std::string> KernelRegistry::names() const {
  std::vector<std::string> result;
  for (const auto &entry : kernels_)
    result.push_back(entry.first);
  return result;
}

KernelRegistry makeKernelRegistry(void (*registerCompute)(KernelRegistry &)) {
  KernelRegistry registry;
  registerCompute(registry);
  registerCommKernels(registry);
  return registry;
}

const KernelRegistry &cpuKernelRegistry() {
  // The CPU kernels compute in f32; bf16 and f16 launches run on widened
  // copies (kernels/HalfPromotion.h).
  static const KernelRegistry registry =
      promoteHalfLaunches(
          makeKernelRegistry(cpu_backend::registerComputeKernels));
  return registry;
}

} // namespace hetc::runtime::exec
