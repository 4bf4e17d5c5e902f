//===- OpTable.cpp - ONNX op type to hetg converter
//------------------------===//

#include "compiler/Import/ONNX/OpTable.h"

#include "compiler/Import/ONNX/ONNXImporter.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace hetc::onnximport {

const OpTable &onnxOpTable() {
  static const OpTable table = [] {
    OpTable t;
    addElementwiseConverters(t);
    addShapeConverters(t);
    addSliceConverters(t);
    addSequenceConverters(t);
    addLogicConverters(t);
    addNNConverters(t);
    return t;
  }();
  return table;
}

llvm::StringRef adviceForUnsupportedOp(llvm::StringRef opType) {
  static const llvm::StringMap<llvm::StringRef> advice = {
      {"ScatterElements", "export the model without writes into slices"},
      {"CumSum", "position ids computed from an attention_mask use it: "
                 "export with input_ids only"},
      {"NegativeLogLikelihoodLoss",
       "export the logits (hetc appends the cross-entropy loss) or use "
       "SoftmaxCrossEntropyLoss"},
      {"GatherElements", "export the logits; hetc appends the loss itself"},
      {"ArgMax", "it is for inference (no gradient): export the logits"},
      {"TopK", "it is for inference (no gradient): export the logits"},
      {"Einsum", "write the product with matmul and mul in the model"},
      {"If", "export with static control flow (no data-dependent branches)"},
      {"Loop", "export with static control flow (unrolled loops)"},
  };
  auto found = advice.find(opType);
  return found == advice.end() ? llvm::StringRef() : found->second;
}

} // namespace hetc::onnximport

namespace hetc {

bool isSupportedONNXOp(llvm::StringRef opType) {
  return onnximport::onnxOpTable().contains(opType);
}

llvm::ArrayRef<llvm::StringRef> supportedONNXOps() {
  static const std::vector<llvm::StringRef> names = [] {
    std::vector<llvm::StringRef> sorted;
    for (const auto &entry : onnximport::onnxOpTable())
      sorted.push_back(entry.getKey());
    llvm::sort(sorted);
    return sorted;
  }();
  return names;
}

bool isAttributeLikeONNXOperand(llvm::StringRef opType, unsigned index) {
  const onnximport::OpTable &table = onnximport::onnxOpTable();
  auto it = table.find(opType);
  return it != table.end() &&
         llvm::is_contained(it->second.attributeLikeInputs, index);
}

} // namespace hetc
