//===- Arena.h - a rank's arena and the views of its buffers ----*- C++ -*-===//
//
// A rank's program places every buffer at a static byte offset of one arena
// (docs/package-format.md). The Arena is that single allocation, made on
// the rank's Device (host or GPU memory); the BufferTable turns the
// program's buffer list into one TensorView per buffer id (an alias views
// its target's bytes with its own shape) for the kernel adapters.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_ARENA_H
#define HETC_RUNTIME_EXEC_ARENA_H

#include "runtime/base/Tensor.h"
#include "runtime/exec/Device.h"
#include "runtime/package/Package.h"
#include "runtime/package/hetpkg.pb.h"

#include <cstdint>
#include <vector>

namespace hetc::runtime::exec {

/// Bytes every arena (and every owning buffer offset) is aligned to.
constexpr int64_t kArenaAlignment = 64;

/// One zero-filled allocation on a Device, at least 64-byte aligned.
/// Move-only; the device must outlive it.
class Arena {
public:
  Arena() = default;
  ~Arena();
  Arena(Arena &&other) noexcept;
  Arena &operator=(Arena &&other) noexcept;
  Arena(const Arena &) = delete;
  Arena &operator=(const Arena &) = delete;

  /// Allocates `bytes` (>= 0) zeroed bytes on `device`, replacing any
  /// earlier allocation. RESOURCE_EXHAUSTED when the allocation fails.
  Status allocate(Device &device, int64_t bytes);

  uint8_t *data() const { return data_; }
  int64_t size() const { return size_; }
  Device *device() const { return device_; }

private:
  void release();

  Device *device_ = nullptr;
  uint8_t *data_ = nullptr;
  int64_t size_ = 0;
};

/// The runtime dtype of a package dtype; UNIMPLEMENTED for the package
/// dtypes the CPU kernels do not compute in (f16, bf16, i8, u8).
Status runtimeDType(hetc::pkg::DType dtype, DType *out);

/// "F32", "I64", ...: the name safetensors files and messages use.
const char *packageDTypeName(hetc::pkg::DType dtype);

using package::bufferBytes;

/// "buffer 12 'h.0.attn.weight'".
std::string describeBuffer(const hetc::pkg::Buffer &buffer);

/// A view of every buffer of a program over an arena. The program must have
/// been validated (validateProgram): ids, dtypes and extents are trusted.
class BufferTable {
public:
  BufferTable() = default;

  /// Builds the views of `program`'s buffers over `arena`, and of its host
  /// buffers over `hostArena`.
  Status build(const hetc::pkg::Program &program, const Arena &arena,
               const Arena &hostArena);

  int size() const { return static_cast<int>(views_.size()); }
  /// The view of buffer `id` (in range: validation checked every id).
  const TensorView &view(int id) const { return views_[id]; }
  /// The buffer that owns `id`'s bytes (itself unless it is an alias).
  int rootOf(int id) const { return roots_[id]; }
  /// Points buffer `id`'s view at other memory for the length of one
  /// launch (the widened copies of kernels/HalfPromotion.h); the caller
  /// puts the original view back.
  void setView(int id, TensorView view) { views_[id] = std::move(view); }

  /// Scratch space on the arena's device for adapters that recompute
  /// forward statistics (the mean and rstd of layer_norm_grad,
  /// attention_grad's output and log-sum-exp): `bytes` bytes in slot `slot`
  /// (0..3), kept between launches so that steady-state steps do not
  /// allocate (and GPU steps can be replayed as graphs). Null when the
  /// allocation fails.
  void *scratch(int slot, int64_t bytes);

private:
  std::vector<TensorView> views_;
  std::vector<int> roots_;
  Device *device_ = nullptr;
  Arena scratch_[4];
};

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_ARENA_H
