//===- Arena.cpp ----------------------------------------------------------===//

#include "runtime/exec/Arena.h"

#include <cstdlib>
#include <cstring>
#include <utility>

namespace hetc::runtime::exec {

Arena::~Arena() { release(); }

Arena::Arena(Arena &&other) noexcept
    : device_(std::exchange(other.device_, nullptr)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

Arena &Arena::operator=(Arena &&other) noexcept {
  if (this != &other) {
    release();
    device_ = std::exchange(other.device_, nullptr);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void Arena::release() {
  if (data_)
    device_->release(data_);
  data_ = nullptr;
  size_ = 0;
}

Status Arena::allocate(Device &device, int64_t bytes) {
  if (bytes < 0)
    return invalidArgument("arena: negative size ", bytes);
  release();
  device_ = &device;
  void *memory = nullptr;
  HETC_RETURN_IF_ERROR(device.allocate(bytes, &memory), "arena of ", bytes,
                       " bytes on ", device.describe());
  data_ = static_cast<uint8_t *>(memory);
  size_ = bytes;
  return okStatus();
}

Status runtimeDType(hetc::pkg::DType dtype, DType *out) {
  switch (dtype) {
  case hetc::pkg::F32:
    *out = DType::kF32;
    return okStatus();
  case hetc::pkg::F64:
    *out = DType::kF64;
    return okStatus();
  case hetc::pkg::I64:
    *out = DType::kI64;
    return okStatus();
  case hetc::pkg::I32:
    *out = DType::kI32;
    return okStatus();
  case hetc::pkg::BOOL:
    *out = DType::kBool;
    return okStatus();
  case hetc::pkg::F16:
    *out = DType::kF16;
    return okStatus();
  case hetc::pkg::BF16:
    *out = DType::kBF16;
    return okStatus();
  case hetc::pkg::I8:
  case hetc::pkg::U8:
    return unimplemented("dtype ", packageDTypeName(dtype),
                         " is not supported by the runtime (f32, f64, bf16, "
                         "f16, i64, i32, bool)");
  default:
    return invalidArgument("unknown dtype ", static_cast<int>(dtype));
  }
}

const char *packageDTypeName(hetc::pkg::DType dtype) {
  switch (dtype) {
  case hetc::pkg::F32:
    return "F32";
  case hetc::pkg::F64:
    return "F64";
  case hetc::pkg::F16:
    return "F16";
  case hetc::pkg::BF16:
    return "BF16";
  case hetc::pkg::I64:
    return "I64";
  case hetc::pkg::I32:
    return "I32";
  case hetc::pkg::I8:
    return "I8";
  case hetc::pkg::U8:
    return "U8";
  case hetc::pkg::BOOL:
    return "BOOL";
  default:
    return "UNSPECIFIED";
  }
}

std::string describeBuffer(const hetc::pkg::Buffer &buffer) {
  return "buffer " + std::to_string(buffer.id()) + " '" + buffer.name() + "'";
}

Status BufferTable::build(const hetc::pkg::Program &program, const Arena &arena,
                          const Arena &hostArena) {
  views_.clear();
  roots_.clear();
  device_ = arena.device();
  views_.reserve(program.buffers_size());
  roots_.reserve(program.buffers_size());
  for (const hetc::pkg::Buffer &buffer : program.buffers()) {
    DType dtype;
    HETC_RETURN_IF_ERROR(runtimeDType(buffer.dtype(), &dtype),
                         describeBuffer(buffer));
    const Arena &holder = buffer.host() ? hostArena : arena;
    int64_t end = buffer.offset() + bufferBytes(buffer);
    if (buffer.offset() < 0 || end > holder.size())
      return internalError(describeBuffer(buffer), " lies outside the ",
                           buffer.host() ? "host arena" : "arena");
    Shape shape(buffer.shape().begin(), buffer.shape().end());
    views_.emplace_back(holder.data() + buffer.offset(), dtype,
                        std::move(shape));
    roots_.push_back(buffer.alias_of() >= 0 ? buffer.alias_of() : buffer.id());
  }
  return okStatus();
}

void *BufferTable::scratch(int slot, int64_t bytes) {
  Arena &space = scratch_[slot];
  if (space.size() < bytes && !space.allocate(*device_, bytes).ok())
    return nullptr;
  return space.data();
}

} // namespace hetc::runtime::exec
