//===- ONNXNodeTests.cpp - selecting and binding ONNX node tests ----------===//

#include "test/unit/ONNXNodeTests.h"

#include "compiler/Import/ONNX/ONNXImporter.h"
#include "compiler/Import/ONNX/TensorReader.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

namespace hetc::testing {
namespace {

/// Tests hetc rejects on purpose, with the text its diagnostic must carry.
struct ExpectedRejection {
  const char *test;
  const char *reason;
};
const ExpectedRejection kOutOfScope[] = {
    // Training-mode dropout with ratio > 0 is random; hetc imports graphs
    // exported in eval mode.
    {"test_training_dropout", "is random"},
    {"test_training_dropout_default", "is random"},
    {"test_training_dropout_default_mask", "is random"},
    {"test_training_dropout_mask", "is random"},
    // Class-weighted cross-entropy is not part of LM training.
    {"test_sce_NCd1_mean_weight_negative_ii", "class weights"},
    {"test_sce_NCd1_mean_weight_negative_ii_log_prob", "class weights"},
    {"test_sce_NCd1d2d3_sum_weight_high_ii", "class weights"},
    {"test_sce_NCd1d2d3_sum_weight_high_ii_log_prob", "class weights"},
    {"test_sce_NCd1d2d3d4d5_mean_weight", "class weights"},
    {"test_sce_NCd1d2d3d4d5_mean_weight_log_prob", "class weights"},
    {"test_sce_mean_weight", "class weights"},
    {"test_sce_mean_weight_ii", "class weights"},
    {"test_sce_mean_weight_ii_3d", "class weights"},
    {"test_sce_mean_weight_ii_3d_log_prob", "class weights"},
    {"test_sce_mean_weight_ii_4d", "class weights"},
    {"test_sce_mean_weight_ii_4d_log_prob", "class weights"},
    {"test_sce_mean_weight_ii_log_prob", "class weights"},
    {"test_sce_mean_weight_log_prob", "class weights"},
    {"test_sce_none_weights", "class weights"},
    {"test_sce_none_weights_log_prob", "class weights"},
};

bool hasSupportedType(mlir::MLIRContext &context, const onnx::TypeProto &type) {
  return type.has_tensor_type() && hetc::onnximport::convertElementType(
                                       context, type.tensor_type().elem_type());
}

} // namespace

std::vector<std::string> listNodeTests() {
  std::vector<std::string> tests;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(kNodeTestDir, ec), end;
       it != end && !ec; it.increment(ec))
    tests.push_back(it->path());
  std::sort(tests.begin(), tests.end());
  return tests;
}

const char *expectedRejection(llvm::StringRef test) {
  for (const ExpectedRejection &r : kOutOfScope)
    if (test == r.test)
      return r.reason;
  return nullptr;
}

bool readProto(llvm::StringRef path, google::protobuf::MessageLite &message) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  return buffer && message.ParseFromArray((*buffer)->getBufferStart(),
                                          int((*buffer)->getBufferSize()));
}

bool hasSupportedOps(const onnx::ModelProto &model) {
  for (const onnx::NodeProto &node : model.graph().node())
    if (!(node.domain().empty() || node.domain() == "ai.onnx") ||
        !hetc::isSupportedONNXOp(node.op_type()))
      return false;
  return true;
}

bool hasSupportedTypes(mlir::MLIRContext &context,
                       const onnx::ModelProto &model) {
  for (const onnx::ValueInfoProto &value : model.graph().input())
    if (!hasSupportedType(context, value.type()))
      return false;
  for (const onnx::ValueInfoProto &value : model.graph().output())
    if (!hasSupportedType(context, value.type()))
      return false;
  return true;
}

int64_t defaultOpset(const onnx::ModelProto &model) {
  for (const onnx::OperatorSetIdProto &import : model.opset_import())
    if (import.domain().empty() || import.domain() == "ai.onnx")
      return import.version();
  return 0;
}

bool isAttributeLikeInput(const onnx::ModelProto &model,
                          const std::string &name) {
  for (const onnx::NodeProto &node : model.graph().node())
    for (int slot = 0; slot < node.input_size(); ++slot)
      if (node.input(slot) == name &&
          hetc::isAttributeLikeONNXOperand(node.op_type(), slot))
        return true;
  return false;
}

std::string testDataPath(llvm::StringRef testDir, llvm::StringRef kind,
                         int index) {
  llvm::SmallString<256> path(testDir);
  llvm::sys::path::append(path, "test_data_set_0",
                          kind + "_" + std::to_string(index) + ".pb");
  return path.str().str();
}

bool bindAttributeLikeInputs(onnx::ModelProto &model, llvm::StringRef testDir) {
  onnx::GraphProto &graph = *model.mutable_graph();
  for (int i = 0; i < graph.input_size(); ++i) {
    const std::string &name = graph.input(i).name();
    if (!isAttributeLikeInput(model, name))
      continue;
    onnx::TensorProto value;
    if (!readProto(testDataPath(testDir, "input", i), value))
      return false;
    value.set_name(name);
    *graph.add_initializer() = value;
  }
  return true;
}

} // namespace hetc::testing
