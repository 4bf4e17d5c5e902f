//===- ConstantEval.h - evaluating hetg ops on constants ------------------===//
//
// Folders evaluate ops whose operands are constants: shape arithmetic, masks,
// small scalars, and (in tests) whole training graphs. Values are read into
// plain vectors (float as double, integer and bool as int64), computed, and
// written back in the result element type.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_DIALECTS_HETGRAPH_CONSTANTEVAL_H
#define HETC_DIALECTS_HETGRAPH_CONSTANTEVAL_H

#include "dialects/HetGraph/Eval/Eval.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <vector>

namespace hetc::hetg {

/// Folding stops above this many result elements: bigger tensors are data,
/// not shape arithmetic, and belong to the runtime.
constexpr int64_t kMaxFoldedElements = int64_t(1) << 22;

/// Folds of contractions (matmul, attention) stop above this many
/// multiply-adds, so compile time stays small.
constexpr int64_t kMaxFoldedWork = int64_t(1) << 26;

/// The elements of a constant as numbers, row-major.
struct ConstantValues {
  mlir::RankedTensorType type;
  bool isFloat = false;
  std::vector<double> floats;
  std::vector<int64_t> ints;

  int64_t size() const { return isFloat ? floats.size() : ints.size(); }
  double asDouble(int64_t i) const { return isFloat ? floats[i] : ints[i]; }
  int64_t asInt(int64_t i) const {
    return isFloat ? static_cast<int64_t>(floats[i]) : ints[i];
  }
};

/// Reads a static, dense (or splat) constant; nullopt for anything else.
std::optional<ConstantValues> readConstant(mlir::Attribute attr);

/// Writes `values` as a constant of `type`, converting to its element type.
mlir::DenseElementsAttr writeConstant(mlir::RankedTensorType type,
                                      const ConstantValues &values);

/// For each element of `resultShape`, the index of the element of a tensor
/// of `sourceShape` that numpy broadcasting reads.
std::vector<int64_t> broadcastSourceIndices(llvm::ArrayRef<int64_t> sourceShape,
                                            llvm::ArrayRef<int64_t> resultShape);

/// The index of `indices[i]` (a multi-index) in row-major order of `shape`.
std::vector<int64_t> rowMajorStrides(llvm::ArrayRef<int64_t> shape);

using FloatFn = llvm::function_ref<double(double, double)>;
using IntFn = llvm::function_ref<int64_t(int64_t, int64_t)>;

/// Evaluates an elementwise binary op with broadcasting. `resultElementType`
/// is the element type of the result (i1 for comparisons); `intFn` may be
/// null when the op is float-only.
mlir::Attribute foldBroadcastBinary(mlir::Attribute lhs, mlir::Attribute rhs,
                                    mlir::Type resultElementType, FloatFn floatFn,
                                    IntFn intFn);

/// Reads a float constant as an array; nullopt for anything else.
std::optional<eval::Array> readArray(mlir::Attribute attr);

/// Writes `array` as a constant of its shape and `elementType`; null when it
/// has more than kMaxFoldedElements elements.
mlir::Attribute writeArray(const eval::Array &array, mlir::Type elementType);

/// Evaluates an elementwise unary float op.
mlir::Attribute foldFloatUnary(mlir::Attribute input,
                               llvm::function_ref<double(double)> fn);

} // namespace hetc::hetg

#endif // HETC_DIALECTS_HETGRAPH_CONSTANTEVAL_H
