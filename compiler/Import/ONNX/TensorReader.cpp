//===- TensorReader.cpp - ONNX tensors and element types
//-------------------===//

#include "compiler/Import/ONNX/TensorReader.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SwapByteOrder.h"

#include <onnx/onnx_pb.h>

#include <cstring>

using namespace mlir;

namespace hetc::onnximport {

namespace {

using onnx::TensorProto;

/// Writes `value` as a `T` at the end of `out`, in host byte order.
template <typename T, typename Source>
void append(std::vector<char> &out, Source value) {
  T converted = static_cast<T>(value);
  size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &converted, sizeof(T));
}

/// Product of `dims`, or nullopt when one is negative or it overflows.
std::optional<int64_t> elementCount(llvm::ArrayRef<int64_t> dims) {
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d != 0 && count > std::numeric_limits<int64_t>::max() / d))
      return std::nullopt;
    count *= d;
  }
  return count;
}

/// How many values the typed field that holds `dataType` has.
int64_t typedFieldSize(const TensorProto &tensor) {
  switch (tensor.data_type()) {
  case TensorProto::FLOAT:
    return tensor.float_data_size();
  case TensorProto::DOUBLE:
    return tensor.double_data_size();
  case TensorProto::INT64:
    return tensor.int64_data_size();
  case TensorProto::UINT32:
  case TensorProto::UINT64:
    return tensor.uint64_data_size();
  default:
    return tensor.int32_data_size();
  }
}

/// Appends the typed-field contents of `tensor` in storage form.
void readTypedFields(const TensorProto &tensor, std::vector<char> &out) {
  switch (tensor.data_type()) {
  case TensorProto::FLOAT:
    for (float v : tensor.float_data())
      append<float>(out, v);
    return;
  case TensorProto::DOUBLE:
    for (double v : tensor.double_data())
      append<double>(out, v);
    return;
  case TensorProto::INT64:
    for (int64_t v : tensor.int64_data())
      append<int64_t>(out, v);
    return;
  case TensorProto::INT32:
    for (int32_t v : tensor.int32_data())
      append<int32_t>(out, v);
    return;
  case TensorProto::INT8:
    for (int32_t v : tensor.int32_data())
      append<int8_t>(out, v);
    return;
  case TensorProto::UINT8:
    for (int32_t v : tensor.int32_data())
      append<uint8_t>(out, v);
    return;
  case TensorProto::BOOL:
    for (int32_t v : tensor.int32_data())
      append<uint8_t>(out, v != 0);
    return;
  case TensorProto::FLOAT16:
  case TensorProto::BFLOAT16:
    // The 16 bits of each value sit in the low half of an int32.
    for (int32_t v : tensor.int32_data())
      append<uint16_t>(out, static_cast<uint32_t>(v) & 0xffffu);
    return;
  default:
    return;
  }
}

/// raw_data and external data are little-endian; storage is host order.
void toHostOrder(std::vector<char> &bytes, int64_t width) {
  if (llvm::sys::IsLittleEndianHost || width == 1)
    return;
  for (size_t i = 0; i + width <= bytes.size(); i += width)
    std::reverse(bytes.begin() + i, bytes.begin() + i + width);
}

} // namespace

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

Type convertElementType(MLIRContext &context, int32_t dataType) {
  Builder b(&context);
  switch (dataType) {
  case TensorProto::FLOAT:
    return b.getF32Type();
  case TensorProto::FLOAT16:
    return b.getF16Type();
  case TensorProto::BFLOAT16:
    return b.getBF16Type();
  case TensorProto::DOUBLE:
    return b.getF64Type();
  case TensorProto::INT64:
    return b.getI64Type();
  case TensorProto::INT32:
    return b.getI32Type();
  case TensorProto::INT8:
    return b.getI8Type();
  case TensorProto::UINT8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case TensorProto::BOOL:
    return b.getI1Type();
  default:
    return Type();
  }
}

int32_t onnxDataType(Type type) {
  if (type.isF32())
    return TensorProto::FLOAT;
  if (type.isF16())
    return TensorProto::FLOAT16;
  if (type.isBF16())
    return TensorProto::BFLOAT16;
  if (type.isF64())
    return TensorProto::DOUBLE;
  if (type.isSignlessInteger(64))
    return TensorProto::INT64;
  if (type.isSignlessInteger(32))
    return TensorProto::INT32;
  if (type.isSignlessInteger(8))
    return TensorProto::INT8;
  if (type.isUnsignedInteger(8))
    return TensorProto::UINT8;
  if (type.isSignlessInteger(1))
    return TensorProto::BOOL;
  return TensorProto::UNDEFINED;
}

std::string dataTypeName(int32_t dataType) {
  if (TensorProto::DataType_IsValid(dataType))
    return TensorProto::DataType_Name(
        static_cast<TensorProto::DataType>(dataType));
  return "data type " + std::to_string(dataType);
}

llvm::StringRef supportedDataTypesText() {
  return "FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT64, INT32, INT8, UINT8, BOOL";
}

int64_t storageByteWidth(Type elementType) {
  if (elementType.isInteger(1))
    return 1;
  return (elementType.getIntOrFloatBitWidth() + 7) / 8;
}

FailureOr<RankedTensorType> convertTensorType(const onnx::TypeProto &type,
                                              Location loc,
                                              llvm::StringRef what) {
  if (!type.has_tensor_type())
    return emitError(loc) << what << " is not a tensor; hetc imports tensor "
                          << "values only (no sequences, maps or optionals)";
  const onnx::TypeProto::Tensor &tensor = type.tensor_type();
  Type element = convertElementType(*loc.getContext(), tensor.elem_type());
  if (!element)
    return emitError(loc) << what << " has element type "
                          << dataTypeName(tensor.elem_type())
                          << ", which hetc does not support; supported: "
                          << supportedDataTypesText();
  if (!tensor.has_shape())
    return emitError(loc) << what << " has no shape; hetc needs the rank of "
                          << "every graph input and output (dimensions may "
                          << "be symbolic)";
  llvm::SmallVector<int64_t> shape;
  for (const onnx::TensorShapeProto::Dimension &dim : tensor.shape().dim()) {
    if (dim.has_dim_value() && dim.dim_value() < 0)
      return emitError(loc)
             << what << " has negative dimension " << dim.dim_value();
    shape.push_back(dim.has_dim_value() ? dim.dim_value()
                                        : ShapedType::kDynamic);
  }
  return RankedTensorType::get(shape, element);
}

//===----------------------------------------------------------------------===//
// Tensor contents
//===----------------------------------------------------------------------===//

DenseElementsAttr TensorData::toElementsAttr() const {
  Type element = type.getElementType();
  if (element.isInteger(1)) {
    llvm::SmallVector<bool> values;
    for (char c : bytes)
      values.push_back(c != 0);
    return DenseElementsAttr::get(type, values);
  }
  if (numElements() == 0) {
    if (llvm::isa<FloatType>(element))
      return DenseElementsAttr::get(type, llvm::ArrayRef<llvm::APFloat>());
    return DenseElementsAttr::get(type, llvm::ArrayRef<llvm::APInt>());
  }
  return DenseElementsAttr::getFromRawBuffer(type, bytes);
}

namespace {
/// Whether any `Bits` element of `bytes` has an all-ones exponent (an
/// infinity or a NaN) in a float format with `mantissaBits` fraction bits.
template <typename Bits>
bool anyExponentAllOnes(llvm::ArrayRef<char> bytes, int mantissaBits,
                        int exponentBits) {
  Bits mask = static_cast<Bits>(((Bits(1) << exponentBits) - 1)
                                << mantissaBits);
  for (size_t i = 0; i + sizeof(Bits) <= bytes.size(); i += sizeof(Bits)) {
    Bits value;
    std::memcpy(&value, bytes.data() + i, sizeof(Bits));
    if ((value & mask) == mask)
      return true;
  }
  return false;
}

/// Whether a float element of `bytes` (host order) is an infinity or a NaN.
bool anyNonFinite(Type element, llvm::ArrayRef<char> bytes) {
  if (element.isF32())
    return anyExponentAllOnes<uint32_t>(bytes, 23, 8);
  if (element.isF64())
    return anyExponentAllOnes<uint64_t>(bytes, 52, 11);
  if (element.isF16())
    return anyExponentAllOnes<uint16_t>(bytes, 10, 5);
  if (element.isBF16())
    return anyExponentAllOnes<uint16_t>(bytes, 7, 8);
  return false;
}
} // namespace

bool TensorData::hasNonFinite() const {
  return anyNonFinite(type.getElementType(), bytes);
}

FailureOr<bool> TensorReader::holdsNonFinite(const TensorProto &tensor,
                                             Location loc,
                                             llvm::StringRef what) {
  FailureOr<RankedTensorType> type = tensorType(tensor, loc, what);
  if (failed(type))
    return failure();
  // Raw data is little-endian: scanned where it lies, not copied.
  const std::string &raw = tensor.raw_data();
  if (tensor.data_location() != TensorProto::EXTERNAL &&
      tensor.has_raw_data() && llvm::sys::IsLittleEndianHost &&
      int64_t(raw.size()) == type->getNumElements() *
                                 storageByteWidth(type->getElementType()))
    return anyNonFinite(type->getElementType(), raw);
  FailureOr<TensorData> data = read(tensor, loc, what);
  if (failed(data))
    return failure();
  return data->hasNonFinite();
}

TensorReader::TensorReader(llvm::StringRef modelPath)
    : hasModelPath(!modelPath.empty()) {
  llvm::StringRef dir = llvm::sys::path::parent_path(modelPath);
  modelDir = dir.empty() ? "." : dir.str();
}

TensorReader::~TensorReader() = default;

FailureOr<RankedTensorType> tensorType(const TensorProto &tensor, Location loc,
                                       llvm::StringRef what) {
  Type element = convertElementType(*loc.getContext(), tensor.data_type());
  if (!element)
    return emitError(loc) << what << " has element type "
                          << dataTypeName(tensor.data_type())
                          << ", which hetc does not support; supported: "
                          << supportedDataTypesText();
  llvm::SmallVector<int64_t> dims(tensor.dims().begin(), tensor.dims().end());
  std::optional<int64_t> count = elementCount(dims);
  int64_t width = storageByteWidth(element);
  if (!count || *count > std::numeric_limits<int64_t>::max() / width)
    return emitError(loc)
           << what << " has invalid dimensions ["
           << llvm::join(llvm::map_range(
                             dims, [](int64_t d) { return std::to_string(d); }),
                         ", ")
           << "]";
  return RankedTensorType::get(dims, element);
}

FailureOr<TensorData> TensorReader::read(const TensorProto &tensor,
                                         Location loc, llvm::StringRef what) {
  FailureOr<RankedTensorType> type = tensorType(tensor, loc, what);
  if (failed(type))
    return failure();
  TensorData data;
  data.type = *type;
  int64_t width = storageByteWidth(type->getElementType());
  int64_t count = type->getNumElements();
  Type element = type->getElementType();
  int64_t expectedBytes = count * width;

  if (tensor.data_location() == TensorProto::EXTERNAL) {
    FailureOr<llvm::ArrayRef<char>> bytes =
        readExternal(tensor, expectedBytes, loc, what);
    if (failed(bytes))
      return failure();
    data.bytes.assign(bytes->begin(), bytes->end());
  } else if (tensor.has_raw_data()) {
    const std::string &raw = tensor.raw_data();
    if (int64_t(raw.size()) != expectedBytes)
      return emitError(loc)
             << what << " has " << raw.size() << " bytes of raw_data, but "
             << data.type << " needs " << expectedBytes;
    data.bytes.assign(raw.begin(), raw.end());
  } else {
    int64_t values = typedFieldSize(tensor);
    if (values != count)
      return emitError(loc) << what << " holds " << values << " values, but "
                            << data.type << " needs " << count;
    readTypedFields(tensor, data.bytes);
    return data;
  }
  toHostOrder(data.bytes, width);
  if (element.isInteger(1))
    for (char &c : data.bytes)
      c = c != 0;
  return data;
}

FailureOr<llvm::ArrayRef<char>>
TensorReader::readExternal(const TensorProto &tensor, int64_t expectedBytes,
                           Location loc, llvm::StringRef what) {
  std::string location;
  std::optional<uint64_t> offset, length;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
    } else if (entry.key() == "offset" || entry.key() == "length") {
      uint64_t value;
      if (!llvm::to_integer(entry.value(), value, 10))
        return emitError(loc)
               << what << " has external data " << entry.key() << " '"
               << entry.value() << "', which is not a byte count";
      (entry.key() == "offset" ? offset : length) = value;
    }
  }
  if (location.empty())
    return emitError(loc) << what << " is stored externally but names no "
                          << "data file ('location' is missing)";
  if (!hasModelPath)
    return emitError(loc) << what << " is stored in external file '" << location
                          << "', but the model has no path to "
                          << "resolve it against";
  // Data files live next to the model, never elsewhere: a model file must
  // not make the importer read arbitrary files.
  if (llvm::sys::path::is_absolute(location) ||
      llvm::is_contained(llvm::make_range(llvm::sys::path::begin(location),
                                          llvm::sys::path::end(location)),
                         ".."))
    return emitError(loc) << what << " names external data file '" << location
                          << "' outside the model's folder; data files must "
                          << "be given relative to it";
  llvm::SmallString<256> path(modelDir);
  llvm::sys::path::append(path, location);
  // Resolved, the file must still lie in the model's folder (a symbolic
  // link may point anywhere) and be a regular file (a FIFO would block).
  llvm::SmallString<256> real, realDir;
  if (std::error_code ec = llvm::sys::fs::real_path(path, real))
    return emitError(loc) << "cannot open external data file '" << path
                          << "' of " << what << ": " << ec.message();
  if (std::error_code ec = llvm::sys::fs::real_path(modelDir, realDir))
    return emitError(loc) << "cannot resolve the model's folder '" << modelDir
                          << "': " << ec.message();
  if (!llvm::StringRef(real).starts_with((realDir + "/").str()))
    return emitError(loc) << what << " names external data file '" << location
                          << "', which resolves to '" << real
                          << "' outside the model's folder '" << realDir
                          << "' (through a symbolic link); data files must "
                          << "lie in it";
  if (!llvm::sys::fs::is_regular_file(real))
    return emitError(loc) << what << " names external data file '" << location
                          << "', which is not a regular file";

  auto [it, inserted] = files.try_emplace(path);
  if (inserted) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (!buffer) {
      files.erase(it);
      return emitError(loc)
             << "cannot open external data file '" << path << "' of " << what
             << ": " << buffer.getError().message();
    }
    it->second = std::move(*buffer);
  }
  llvm::ArrayRef<char> contents(it->second->getBufferStart(),
                                it->second->getBufferSize());
  uint64_t begin = offset.value_or(0);
  if (begin > contents.size())
    return emitError(loc) << what << " starts at offset " << begin
                          << " of external data file '" << path
                          << "', past its end (" << contents.size()
                          << " bytes)";
  uint64_t size = length.value_or(contents.size() - begin);
  if (size != uint64_t(expectedBytes))
    return emitError(loc) << what << " has " << size << " bytes in external "
                          << "data file '" << path << "', but needs "
                          << expectedBytes;
  if (size > contents.size() - begin)
    return emitError(loc) << what << " needs bytes [" << begin << ", "
                          << begin + size << ") of external data file '" << path
                          << "', which has only " << contents.size()
                          << " bytes";
  return contents.slice(begin, size);
}

} // namespace hetc::onnximport
