//===- ModelReader.cpp - reading ONNX model files
//--------------------------===//
//
// Binary models are protobuf; `.onnxtxt` files use the ONNX textual syntax
// (onnx::OnnxParser), which is how the importer's tests spell their models.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/ONNX/ONNXImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/MemoryBuffer.h"

#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <limits>

using namespace mlir;

namespace hetc {

LogicalResult loadONNXModel(MLIRContext &context, llvm::StringRef path,
                            onnx::ModelProto &model) {
  Location loc = FileLineColLoc::get(&context, path, 0, 0);
  bool isText = path.ends_with(".onnxtxt");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/isText,
                                         /*RequiresNullTerminator=*/isText);
  if (!buffer)
    return emitError(loc) << "cannot read ONNX model '" << path
                          << "': " << buffer.getError().message();

  if (isText) {
    // The buffer is null-terminated, as the parser expects.
    onnx::Status status =
        onnx::OnnxParser::Parse(model, (*buffer)->getBufferStart());
    if (!status.IsOK())
      return emitError(loc)
             << "cannot parse '" << path
             << "' as ONNX textual syntax: " << status.ErrorMessage();
    return success();
  }

  size_t size = (*buffer)->getBufferSize();
  if (size > size_t(std::numeric_limits<int>::max()))
    return emitError(loc) << "ONNX model '" << path << "' is " << size
                          << " bytes; protobuf models are limited to 2 GiB "
                          << "(store the weights as external data)";
  if (!model.ParseFromArray((*buffer)->getBufferStart(), int(size)))
    return emitError(loc) << "cannot parse '" << path << "' as a binary ONNX "
                          << "model (for ONNX textual syntax, name the file "
                          << "*.onnxtxt)";
  return success();
}

} // namespace hetc
