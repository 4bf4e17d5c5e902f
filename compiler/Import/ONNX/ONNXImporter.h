//===- ONNXImporter.h - ONNX model to hetg IR
//------------------------------===//
//
// The importer turns an ONNX model (opsets 13 to 18) into one module:
// float weights become `ml_program.global` symbols holding `dense_resource`
// blobs (frozen ones become inline constants, listed in the module's
// hetg.frozen_initializers), and the graph becomes `func.func @main` of hetg ops whose arguments
// and results carry their ONNX names as `hetg.name`. Every problem with the
// input is reported as one diagnostic at the offending node's location.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_IMPORT_ONNX_ONNXIMPORTER_H
#define HETC_COMPILER_IMPORT_ONNX_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <string>
#include <vector>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace hetc {

/// Oldest and newest default-domain opset the importer understands.
constexpr int64_t kMinONNXOpset = 13;
constexpr int64_t kMaxONNXOpset = 18;

struct ONNXImportOptions {
  /// Path of the model file. External data files are resolved relative to
  /// its folder, and every location names it. May be empty for a model held
  /// only in memory (which then cannot use external data).
  std::string modelPath;
  /// When false, weights are not read: each weight global holds a zero
  /// splat of its type instead of a `dense_resource` blob, and external
  /// data files are never opened. The graph and every shape are the same,
  /// so this is enough for anything that needs only shapes (profiles) and
  /// works on models whose weight files are absent.
  bool loadWeights = true;
  /// When true, a warning at the weight's global for every float weight
  /// initializer consumed by nodes of different layers (a layer is the
  /// node name up to its last '/', as torch names nodes: '/h.0/ln_1/Mul').
  /// ONNX makes such a weight one tied parameter; exporters that merge
  /// initializers of equal value tie layers that were trained apart, which
  /// `hetg-untie-parameters` (--untie-weights) undoes.
  bool warnSharedWeights = false;
  /// Globs (llvm::GlobPattern) over initializer names. A float initializer
  /// matching `freeze`, or matching no `train` glob when `train` is not
  /// empty, is frozen: an inline constant of the step, never a parameter.
  /// So are the buffers an export lists under kBuffersMetadataKey (unless a
  /// `train` glob names them) and, always, initializers holding a
  /// non-finite value. A glob that matches no initializer is an error.
  std::vector<std::string> freeze;
  std::vector<std::string> train;
};

/// The model metadata key under which an export lists its buffers
/// (torch's named_buffers()) as a JSON array of initializer names.
constexpr llvm::StringLiteral kBuffersMetadataKey = "hetc.buffers";

/// Imports `model` into a new module and verifies it. On failure the
/// diagnostics have been emitted through `context`.
llvm::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
importONNXModel(mlir::MLIRContext &context, const onnx::ModelProto &model,
                const ONNXImportOptions &options);

/// Reads `path` (binary protobuf, or ONNX textual syntax when the name ends
/// in `.onnxtxt`) and imports it with `options`, whose `modelPath` becomes
/// `path`.
llvm::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
importONNXFile(mlir::MLIRContext &context, llvm::StringRef path,
               ONNXImportOptions options = {});

/// Reads `path` as `importONNXFile` does, without importing it.
llvm::LogicalResult loadONNXModel(mlir::MLIRContext &context,
                                  llvm::StringRef path,
                                  onnx::ModelProto &model);

/// True when nodes of default-domain op type `opType` can be imported.
bool isSupportedONNXOp(llvm::StringRef opType);

/// The default-domain op types the importer handles, sorted.
llvm::ArrayRef<llvm::StringRef> supportedONNXOps();

/// True when operand `index` of `opType` plays the role of an attribute
/// (Reshape's shape, Slice's bounds, a reduction's axes, ...): graphs
/// normally compute it from constants, and the importer needs it constant
/// whenever it decides a result rank or the split into results.
bool isAttributeLikeONNXOperand(llvm::StringRef opType, unsigned index);

} // namespace hetc

#endif // HETC_COMPILER_IMPORT_ONNX_ONNXIMPORTER_H
