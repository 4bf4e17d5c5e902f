//===- Tensor.h - non-owning views of dense tensors -------------*- C++ -*-===//
//
// Kernels take TensorViews: a pointer to row-major contiguous elements, an
// element type and a shape. The executor owns the memory (static arena
// offsets); a view never allocates or frees. Booleans are one byte each
// (0 or 1), as ONNX and torch store them.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_BASE_TENSOR_H
#define HETC_RUNTIME_BASE_TENSOR_H

#include "runtime/base/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hetc::runtime {

// kBF16 and kF16 are stored as 16-bit patterns (runtime/base/Half.h);
// kernels compute on them in f32 and round once when they store.
enum class DType : uint8_t { kF32, kF64, kI64, kI32, kBool, kBF16, kF16 };

size_t dtypeSize(DType dtype);
// "f32", "f64", "i64", "i32", "bool", "bf16", "f16"
const char *dtypeName(DType dtype);
// f32, f64, bf16 or f16.
bool isFloatDType(DType dtype);

template <typename T> struct DTypeOf;
template <> struct DTypeOf<float> {
  static constexpr DType value = DType::kF32;
};
template <> struct DTypeOf<double> {
  static constexpr DType value = DType::kF64;
};
template <> struct DTypeOf<int64_t> {
  static constexpr DType value = DType::kI64;
};
template <> struct DTypeOf<int32_t> {
  static constexpr DType value = DType::kI32;
};
template <> struct DTypeOf<uint8_t> {
  static constexpr DType value = DType::kBool;
};

using Shape = std::vector<int64_t>;

// Product of the dimensions; 1 for a scalar (rank 0).
int64_t numElements(const Shape &shape);
std::string shapeToString(const Shape &shape); // "[2,16,64]"

struct TensorView {
  void *data = nullptr;
  DType dtype = DType::kF32;
  Shape shape;

  TensorView() = default;
  TensorView(void *data, DType dtype, Shape shape)
      : data(data), dtype(dtype), shape(std::move(shape)) {}

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t numel() const { return numElements(shape); }
  size_t byteSize() const { return static_cast<size_t>(numel()) * dtypeSize(dtype); }

  // Unchecked typed pointer; kernels check the dtype first (checkDType).
  template <typename T> T *as() const { return static_cast<T *>(data); }

  std::string describe() const; // "f32[2,16,64]"
};

template <typename T> TensorView makeView(T *data, Shape shape) {
  return TensorView(static_cast<void *>(data), DTypeOf<T>::value,
                    std::move(shape));
}

// Checks shared by kernels. `what` names the operand in the message
// ("x must be f32, got i64"); the kernel prefixes its own name.
Status checkDType(const TensorView &t, DType expected, const char *what);
Status checkShape(const TensorView &t, const Shape &expected, const char *what);
// Non-null data unless the tensor is empty.
Status checkData(const TensorView &t, const char *what);
// Maps axis in [-rank, rank) to [0, rank).
Status normalizeAxis(int64_t axis, int64_t rank, int64_t *normalized);

// numpy broadcasting of two shapes (right-aligned, 1 stretches).
Status broadcastShapes(const Shape &a, const Shape &b, Shape *result);

} // namespace hetc::runtime

#endif // HETC_RUNTIME_BASE_TENSOR_H
