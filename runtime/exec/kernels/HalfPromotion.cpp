//===- HalfPromotion.cpp - bf16 and f16 launches on f32 kernels -----------===//

#include "runtime/exec/kernels/HalfPromotion.h"

#include "runtime/base/Half.h"

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace hetc::runtime::exec {

namespace {

bool isHalf(DType dtype) {
  return dtype == DType::kBF16 || dtype == DType::kF16;
}

/// The f32 adapters of the promoted kernels, by name: an adapter is a plain
/// function pointer, so the wrapper finds the one it stands for here. The
/// table is filled while a registry is built, before any launch runs, and
/// only read after: lookups take no lock.
class Originals {
public:
  Status add(const std::string &name, KernelFn run) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [it, inserted] = adapters_.emplace(name, run);
    if (!inserted && it->second != run)
      return invalidArgument("kernel '", name,
                             "' is promoted with two different adapters");
    return okStatus();
  }
  KernelFn find(const std::string &name) const {
    auto it = adapters_.find(name);
    return it == adapters_.end() ? nullptr : it->second;
  }

private:
  std::mutex mutex_;
  std::map<std::string, KernelFn> adapters_;
};

Originals &originals() {
  static Originals table;
  return table;
}

/// One launch's widened buffers: the views it swapped and the f32 copies
/// they point at. Puts the original views back when it goes away.
class WidenedLaunch {
public:
  explicit WidenedLaunch(BufferTable &buffers) : buffers_(buffers) {}
  ~WidenedLaunch() {
    for (auto &[id, view] : swapped_)
      buffers_.setView(id, std::move(view));
  }

  /// Points buffer `id` at an f32 copy when it is bf16 or f16: the copy of
  /// another buffer of the launch over the same bytes, else a new one,
  /// holding the values when `read`.
  void widen(int id, bool read) {
    const TensorView &view = buffers_.view(id);
    if (!isHalf(view.dtype) || isSwapped(id))
      return;
    float *copy = nullptr;
    for (const Widened &widened : widened_)
      if (widened.data == view.data && widened.dtype == view.dtype)
        copy = widened.copy;
    if (!copy) {
      copy = scratch(widened_.size(), view.numel());
      if (read)
        toFloat(view, copy);
      widened_.push_back({view.data, view.dtype, copy});
    }
    swapped_.emplace_back(id, view);
    buffers_.setView(id, TensorView(copy, DType::kF32, view.shape));
  }

  /// Rounds the f32 copy of result `id` into its 16-bit buffer.
  void narrow(int id) {
    for (auto &[swappedId, view] : swapped_)
      if (swappedId == id)
        fromFloat(buffers_.view(id).as<float>(), view);
  }

private:
  struct Widened {
    void *data;
    DType dtype;
    float *copy;
  };

  bool isSwapped(int id) const {
    for (const auto &entry : swapped_)
      if (entry.first == id)
        return true;
    return false;
  }

  /// Slot `slot` of this thread's scratch, at least `count` floats; kept
  /// between launches so steady-state steps do not allocate.
  static float *scratch(size_t slot, int64_t count) {
    thread_local std::vector<std::vector<float>> pool;
    if (pool.size() <= slot)
      pool.resize(slot + 1);
    if (static_cast<int64_t>(pool[slot].size()) < count)
      pool[slot].resize(static_cast<size_t>(count));
    return pool[slot].data();
  }

  static void toFloat(const TensorView &half, float *out) {
    const uint16_t *bits = half.as<uint16_t>();
    int64_t n = half.numel();
    if (half.dtype == DType::kBF16)
      for (int64_t i = 0; i < n; ++i)
        out[i] = bf16ToFloat(bits[i]);
    else
      for (int64_t i = 0; i < n; ++i)
        out[i] = f16ToFloat(bits[i]);
  }

  static void fromFloat(const float *values, const TensorView &half) {
    uint16_t *bits = half.as<uint16_t>();
    int64_t n = half.numel();
    if (half.dtype == DType::kBF16)
      for (int64_t i = 0; i < n; ++i)
        bits[i] = floatToBf16(values[i]);
    else
      for (int64_t i = 0; i < n; ++i)
        bits[i] = floatToF16(values[i]);
  }

  BufferTable &buffers_;
  std::vector<Widened> widened_;
  std::vector<std::pair<int, TensorView>> swapped_;
};

Status runPromoted(const hetc::pkg::Instruction &inst, BufferTable &buffers) {
  KernelFn original = originals().find(inst.kernel());
  if (!original)
    return internalError("kernel '", inst.kernel(),
                         "' has no f32 adapter to promote to");
  auto half = [&](int id) { return isHalf(buffers.view(id).dtype); };
  bool any = false;
  for (int id : inst.operands())
    any |= half(id);
  for (int id : inst.results())
    any |= half(id);
  if (!any)
    return original(inst, buffers);

  WidenedLaunch launch(buffers);
  for (int id : inst.operands())
    launch.widen(id, /*read=*/true);
  // Results not over an operand are written whole by the kernel.
  for (int id : inst.results())
    launch.widen(id, /*read=*/false);
  HETC_RETURN_IF_ERROR(original(inst, buffers));
  for (int id : inst.results())
    launch.narrow(id);
  return okStatus();
}

} // namespace

KernelRegistry promoteHalfLaunches(const KernelRegistry &registry) {
  KernelRegistry promoted;
  for (const std::string &name : registry.names()) {
    KernelInfo info = *registry.find(name);
    if (info.run && name != "cast") {
      Status status = originals().add(name, info.run);
      if (status.ok())
        info.run = runPromoted;
      // A name promoted before with another adapter keeps its own (and
      // runs f32 launches only); the registries here never do that.
    }
    Status added = promoted.add(std::move(info));
    (void)added; // the names come from a registry, so they are unique
  }
  return promoted;
}

} // namespace hetc::runtime::exec
