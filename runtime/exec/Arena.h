//===- Arena.h - a rank's arena and the views of its buffers ----*- C++ -*-===//
//
// A rank's program places every buffer at a static byte offset of one arena
// (docs/package-format.md). The Arena is that single allocation, 64-byte
// aligned; the BufferTable turns the program's buffer list into one
// TensorView per buffer id (an alias views its target's bytes with its own
// shape) for the kernel adapters.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_ARENA_H
#define HETC_RUNTIME_EXEC_ARENA_H

#include "runtime/base/Tensor.h"
#include "runtime/package/hetpkg.pb.h"

#include <cstdint>
#include <vector>

namespace hetc::runtime::exec {

/// Bytes every arena (and every owning buffer offset) is aligned to.
constexpr int64_t kArenaAlignment = 64;

/// One zero-filled, 64-byte-aligned allocation. Move-only.
class Arena {
public:
  Arena() = default;
  ~Arena();
  Arena(Arena &&other) noexcept;
  Arena &operator=(Arena &&other) noexcept;
  Arena(const Arena &) = delete;
  Arena &operator=(const Arena &) = delete;

  /// Allocates `bytes` (>= 0) zeroed bytes, replacing any earlier
  /// allocation. RESOURCE_EXHAUSTED when the allocation fails.
  Status allocate(int64_t bytes);

  uint8_t *data() const { return data_; }
  int64_t size() const { return size_; }

private:
  uint8_t *data_ = nullptr;
  int64_t size_ = 0;
};

/// The runtime dtype of a package dtype; UNIMPLEMENTED for the package
/// dtypes the CPU kernels do not compute in (f16, bf16, i8, u8).
Status runtimeDType(hetc::pkg::DType dtype, DType *out);

/// "F32", "I64", ...: the name safetensors files and messages use.
const char *packageDTypeName(hetc::pkg::DType dtype);

/// Byte size of a buffer (elements times element size); -1 when a dimension
/// is negative, the dtype is unknown or the size overflows.
int64_t bufferBytes(const hetc::pkg::Buffer &buffer);

/// "buffer 12 'h.0.attn.weight'".
std::string describeBuffer(const hetc::pkg::Buffer &buffer);

/// A view of every buffer of a program over an arena. The program must have
/// been validated (validateProgram): ids, dtypes and extents are trusted.
class BufferTable {
public:
  BufferTable() = default;

  /// Builds the views of `program`'s buffers over `arena`.
  Status build(const hetc::pkg::Program &program, const Arena &arena);

  int size() const { return static_cast<int>(views_.size()); }
  /// The view of buffer `id` (in range: validation checked every id).
  const TensorView &view(int id) const { return views_[id]; }
  /// The buffer that owns `id`'s bytes (itself unless it is an alias).
  int rootOf(int id) const { return roots_[id]; }

  /// Scratch space for adapters that recompute forward statistics (the
  /// mean and rstd of layer_norm_grad, attention_grad's output and
  /// log-sum-exp): `count` floats in slot `slot` (0..3), kept between
  /// launches so steady-state steps do not allocate.
  float *scratch(int slot, int64_t count);

private:
  std::vector<TensorView> views_;
  std::vector<int> roots_;
  std::vector<float> scratch_[4];
};

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_ARENA_H
