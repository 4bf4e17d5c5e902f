//===- OpTable.cpp - ONNX op type to hetg converter
//------------------------===//

#include "compiler/Import/ONNX/OpTable.h"

#include "compiler/Import/ONNX/ONNXImporter.h"

#include "llvm/ADT/STLExtras.h"

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
