//===- TensorReader.h - ONNX tensors and element types
//---------------------===//
//
// Reads the contents of ONNX TensorProtos (typed fields, raw_data, or
// external data files next to the model) into plain little-endian bytes
// and maps ONNX element types to MLIR ones.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_IMPORT_ONNX_TENSORREADER_H
#define HETC_COMPILER_IMPORT_ONNX_TENSORREADER_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace onnx {
class TensorProto;
class TypeProto;
} // namespace onnx

namespace hetc::onnximport {

/// The MLIR element type of ONNX data type `dataType`, or null when hetg has
/// none (strings, complex, 16/32-bit unsigned, ...).
mlir::Type convertElementType(mlir::MLIRContext &context, int32_t dataType);

/// The ONNX spelling of a data type ("FLOAT16"), for messages.
std::string dataTypeName(int32_t dataType);

/// The ONNX data type of an MLIR element type; 0 (UNDEFINED) when none.
int32_t onnxDataType(mlir::Type elementType);

/// The element types hetc accepts, spelled for messages.
llvm::StringRef supportedDataTypesText();

/// Converts a tensor TypeProto to a ranked tensor type (dim_param and
/// missing dim values are dynamic). `what` names the value in messages.
mlir::FailureOr<mlir::RankedTensorType>
convertTensorType(const onnx::TypeProto &type, mlir::Location loc,
                  llvm::StringRef what);

/// One tensor's contents: elements row-major as little-endian bytes of the
/// element type, one byte (0 or 1) per bool.
struct TensorData {
  mlir::RankedTensorType type;
  std::vector<char> bytes;

  int64_t numElements() const { return type.getNumElements(); }
  /// The contents as an attribute for an inline constant.
  mlir::DenseElementsAttr toElementsAttr() const;
  /// Whether a float element is an infinity or a NaN.
  bool hasNonFinite() const;
};

/// Bytes per element as TensorData stores them.
int64_t storageByteWidth(mlir::Type elementType);

/// The type of `tensor` from its data type and dims, without reading its
/// contents; `what` names it in messages.
mlir::FailureOr<mlir::RankedTensorType>
tensorType(const onnx::TensorProto &tensor, mlir::Location loc,
           llvm::StringRef what);

/// Reads TensorProtos of one model. External data is resolved relative to
/// the model's folder; data files stay mapped while the reader lives, since
/// a model's tensors usually share one.
class TensorReader {
public:
  /// `modelPath` may be empty for a model that exists only in memory.
  explicit TensorReader(llvm::StringRef modelPath);
  ~TensorReader();

  /// Reads `tensor`; `what` names it in messages ("initializer 'w'").
  mlir::FailureOr<TensorData> read(const onnx::TensorProto &tensor,
                                   mlir::Location loc, llvm::StringRef what);
  /// Whether a float element of `tensor` is an infinity or a NaN, without
  /// copying raw data held in the model.
  mlir::FailureOr<bool> holdsNonFinite(const onnx::TensorProto &tensor,
                                       mlir::Location loc,
                                       llvm::StringRef what);

private:
  mlir::FailureOr<llvm::ArrayRef<char>>
  readExternal(const onnx::TensorProto &tensor, int64_t expectedBytes,
               mlir::Location loc, llvm::StringRef what);

  std::string modelDir;
  bool hasModelPath;
  llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> files;
};

} // namespace hetc::onnximport

#endif // HETC_COMPILER_IMPORT_ONNX_TENSORREADER_H
