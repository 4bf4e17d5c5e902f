//===- TrainableInitializers.h - which initializers are parameters --------===//
//
// An ONNX initializer is not necessarily a parameter: exports also store
// buffers (rotary tables, inv_freq, masks, position ids) as initializers.
// This decides, for each float weight initializer, whether the train step
// updates it or holds it as a constant: by the user's --freeze/--train
// globs, by the buffer list an export records in the model's metadata, and
// never for an initializer holding a non-finite value.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_IMPORT_ONNX_TRAINABLEINITIALIZERS_H
#define HETC_COMPILER_IMPORT_ONNX_TRAINABLEINITIALIZERS_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/GlobPattern.h"

#include <optional>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace hetc::onnximport {

class TrainableInitializers {
public:
  /// Compiles the globs and reads the model's buffer list; an error (a bad
  /// glob, a glob matching no initializer, a malformed buffer list) is
  /// emitted at `loc`.
  static mlir::FailureOr<TrainableInitializers>
  create(const onnx::ModelProto &model, llvm::ArrayRef<std::string> freeze,
         llvm::ArrayRef<std::string> train, mlir::Location loc);

  /// Why the weight initializer `name` is frozen, or nothing when it is
  /// trained. Its values are not looked at here: the importer freezes a
  /// non-finite one whatever this says.
  std::optional<std::string> frozenReason(llvm::StringRef name) const;

private:
  std::vector<llvm::GlobPattern> freeze, train;
  llvm::StringMap<bool> buffers;
};

/// The reason an initializer holding a non-finite value is frozen.
constexpr llvm::StringLiteral kNonFiniteReason = "holds non-finite values";

} // namespace hetc::onnximport

#endif // HETC_COMPILER_IMPORT_ONNX_TRAINABLEINITIALIZERS_H
