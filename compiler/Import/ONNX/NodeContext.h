//===- NodeContext.h - what an op converter sees of one ONNX node
//----------===//
//
// Op converters read the node's inputs and attributes, build hetg ops and
// bind the node's outputs through this class. Building goes through
// `create<OpTy>`, which infers result types and verifies the op before it
// exists in the IR, reports any problem as one diagnostic naming the node,
// and folds ops whose operands are constants, so that shape arithmetic on
// static shapes is constant by the time a later node looks at it.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_IMPORT_ONNX_NODECONTEXT_H
#define HETC_COMPILER_IMPORT_ONNX_NODECONTEXT_H

#include "dialects/HetGraph/HetGraph.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>

namespace onnx {
class AttributeProto;
class NodeProto;
} // namespace onnx

namespace hetc::onnximport {

class TensorReader;
struct TensorData;

/// A sequence made by SplitToSequence, kept as what it splits: SequenceAt
/// slices the piece it picks (the number of pieces may be unknown until
/// the shapes are specialized).
struct SplitSequence {
  mlir::Value input;
  int64_t axis = 0;
  /// The piece sizes along `axis`; when empty, pieces of `chunk` each.
  llvm::SmallVector<int64_t> sizes;
  int64_t chunk = 0;
};

class NodeContext {
public:
  NodeContext(mlir::OpBuilder &builder, mlir::Location loc,
              const onnx::NodeProto &node, llvm::StringRef nodeName,
              int64_t opset, llvm::SmallVector<mlir::Value> inputs,
              llvm::StringMap<mlir::Value> &values,
              llvm::StringMap<SplitSequence> &sequences,
              const llvm::StringSet<> &usedNames, TensorReader &tensors);

  const onnx::NodeProto &node() const { return nodeProto; }
  llvm::StringRef opType() const;
  int64_t opset() const { return opsetVersion; }
  mlir::Location loc() const { return location; }
  mlir::OpBuilder &builder() { return b; }
  mlir::MLIRContext *context() { return b.getContext(); }

  /// "node 'name' (OpType, opset N)", the prefix of every message.
  std::string describe() const;
  /// An error at the node's location, already prefixed with `describe()`.
  mlir::InFlightDiagnostic emitError();

  //===--------------------------------------------------------------------===//
  // Inputs and outputs
  //===--------------------------------------------------------------------===//

  /// The number of input slots, including empty (omitted) ones.
  unsigned numInputs() const { return inputValues.size(); }
  /// Input `index`, or null when it is omitted.
  mlir::Value input(unsigned index) const {
    return index < inputValues.size() ? inputValues[index] : mlir::Value();
  }
  bool hasInput(unsigned index) const { return bool(input(index)); }

  unsigned numOutputs() const;
  /// True when output `index` exists and a later node or the graph uses it.
  bool isOutputUsed(unsigned index) const;
  /// Binds output `index` (if the node names it) to `value`.
  void setOutput(unsigned index, mlir::Value value);
  /// Sequence input `index` (made by SplitToSequence), or an error when
  /// the input is not such a sequence.
  mlir::FailureOr<const SplitSequence *> sequenceInput(unsigned index);
  /// Binds output `index` (if the node names it) to a sequence.
  void setSequenceOutput(unsigned index, SplitSequence sequence);
  /// Binds output 0 to `result` unless building it failed.
  mlir::LogicalResult bindResult(mlir::FailureOr<mlir::Value> result) {
    if (mlir::failed(result))
      return mlir::failure();
    setOutput(0, *result);
    return mlir::success();
  }

  //===--------------------------------------------------------------------===//
  // Attributes
  //===--------------------------------------------------------------------===//

  const onnx::AttributeProto *findAttribute(llvm::StringRef name) const;
  mlir::FailureOr<int64_t> intAttr(llvm::StringRef name, int64_t fallback);
  mlir::FailureOr<std::optional<int64_t>> optionalIntAttr(llvm::StringRef name);
  mlir::FailureOr<float> floatAttr(llvm::StringRef name, float fallback);
  mlir::FailureOr<std::string> stringAttr(llvm::StringRef name,
                                          llvm::StringRef fallback);
  mlir::FailureOr<std::optional<llvm::SmallVector<int64_t>>>
  intsAttr(llvm::StringRef name);
  mlir::FailureOr<std::optional<llvm::SmallVector<float>>>
  floatsAttr(llvm::StringRef name);
  /// The contents of a tensor attribute (which may use external data).
  mlir::FailureOr<std::optional<TensorData>> tensorAttr(llvm::StringRef name);

  //===--------------------------------------------------------------------===//
  // Constants
  //===--------------------------------------------------------------------===//

  /// The elements of `value` as integers when it is a constant.
  static std::optional<llvm::SmallVector<int64_t>>
  constantInts(mlir::Value value);
  /// The elements of `value` as doubles when it is a constant.
  static std::optional<llvm::SmallVector<double>>
  constantFloats(mlir::Value value);

  /// The integers of input `index`, which must be a constant: `role` names
  /// the input and `why` says what hetc needs it for.
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  requireConstantInts(unsigned index, llvm::StringRef role,
                      llvm::StringRef why);

  mlir::Value constant(mlir::ElementsAttr value);
  /// A 1-D i64 constant, the form of shapes and axes.
  mlir::Value i64Constant(llvm::ArrayRef<int64_t> values);
  /// A 0-D constant of `elementType` (float or integer).
  mlir::Value scalarConstant(mlir::Type elementType, double value);

  //===--------------------------------------------------------------------===//
  // Building ops
  //===--------------------------------------------------------------------===//

  /// Builds a hetg op. Ops with inferred results take only operands and
  /// attributes; others take their result type first. Inference or
  /// verification failures become one diagnostic naming the node.
  template <typename OpTy, typename... Args>
  mlir::FailureOr<mlir::Value> create(Args &&...args) {
    mlir::OperationState state(location, OpTy::getOperationName());
    if constexpr (OpTy::template hasTrait<
                      mlir::InferTypeOpInterface::Trait>()) {
      mlir::Type placeholder = b.getNoneType();
      OpTy::build(b, state, mlir::TypeRange(placeholder),
                  std::forward<Args>(args)...);
      state.types.clear();
      if (mlir::failed(checkOperands(state)))
        return mlir::failure();
      mlir::MLIRContext *ctx = b.getContext();
      if (mlir::failed(reportFailure(
              OpTy::getOperationName(), [&](std::optional<mlir::Location> loc) {
                return OpTy::inferReturnTypes(
                    ctx, loc, state.operands,
                    state.attributes.getDictionary(ctx),
                    state.getRawProperties(), state.regions, state.types);
              })))
        return mlir::failure();
    } else {
      OpTy::build(b, state, std::forward<Args>(args)...);
      if (mlir::failed(checkOperands(state)))
        return mlir::failure();
    }
    return finish(state);
  }

  static mlir::RankedTensorType typeOf(mlir::Value value) {
    return llvm::cast<mlir::RankedTensorType>(value.getType());
  }

private:
  /// An error when an operand is missing: the node left an input it needs
  /// empty.
  mlir::LogicalResult checkOperands(const mlir::OperationState &state);
  /// Runs `fn`; when it fails, re-emits what it reported as one error
  /// naming the node and `opName`.
  mlir::LogicalResult reportFailure(
      llvm::StringRef opName,
      llvm::function_ref<mlir::LogicalResult(std::optional<mlir::Location>)>
          fn);
  /// Creates the op of `state`, verifies it and folds it when it can.
  mlir::FailureOr<mlir::Value> finish(mlir::OperationState &state);

  mlir::OpBuilder &b;
  mlir::Location location;
  const onnx::NodeProto &nodeProto;
  std::string name;
  int64_t opsetVersion;
  llvm::SmallVector<mlir::Value> inputValues;
  llvm::StringMap<mlir::Value> &values;
  llvm::StringMap<SplitSequence> &sequences;
  const llvm::StringSet<> &usedNames;
  TensorReader &tensors;
};

} // namespace hetc::onnximport

#endif // HETC_COMPILER_IMPORT_ONNX_NODECONTEXT_H
