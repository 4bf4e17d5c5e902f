//===- OpTable.h - ONNX op type to hetg converter
//--------------------------===//
//
// One entry per supported default-domain op type: the function that builds
// its hetg ops and the input/output counts the importer checks before
// calling it. The converters live in one file per op family.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_IMPORT_ONNX_OPTABLE_H
#define HETC_COMPILER_IMPORT_ONNX_OPTABLE_H

#include "compiler/Import/ONNX/NodeContext.h"

#include "llvm/ADT/StringMap.h"

namespace hetc::onnximport {

using ConvertFn = mlir::LogicalResult (*)(NodeContext &);

struct OpConverter {
  ConvertFn convert = nullptr;
  /// Inputs that must be present; more up to `maxInputs` are optional.
  unsigned minInputs = 0;
  unsigned maxInputs = 0;
  /// Outputs the op can produce (at least one is always allowed).
  unsigned maxOutputs = 1;
  /// Input slots that play the role of attributes (see
  /// isAttributeLikeONNXOperand).
  llvm::SmallVector<unsigned, 4> attributeLikeInputs = {};
};

using OpTable = llvm::StringMap<OpConverter>;

/// Add Sub Mul Div Mod Pow Equal Max Min Clip, the unary math ops, Where, Cast,
/// CastLike, Identity, Dropout.
void addElementwiseConverters(OpTable &table);
/// Transpose Reshape Flatten Squeeze Unsqueeze Expand Shape Constant
/// ConstantOfShape Range.
void addShapeConverters(OpTable &table);
/// Concat Split Slice Gather.
void addSliceConverters(OpTable &table);
/// Greater GreaterOrEqual Less LessOrEqual Not And Or.
void addLogicConverters(OpTable &table);
/// SplitToSequence SequenceAt.
void addSequenceConverters(OpTable &table);
/// MatMul Gemm Softmax LogSoftmax LayerNormalization Reduce{Mean,Sum,Max}
/// Trilu SoftmaxCrossEntropyLoss.
void addNNConverters(OpTable &table);

/// The full table, built once.
const OpTable &onnxOpTable();

/// What to do about an op type hetc does not import, when there is
/// something better than "use another op"; empty otherwise.
llvm::StringRef adviceForUnsupportedOp(llvm::StringRef opType);

} // namespace hetc::onnximport

#endif // HETC_COMPILER_IMPORT_ONNX_OPTABLE_H
