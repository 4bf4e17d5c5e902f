//===- ONNXConformanceTest.cpp - ONNX node tests through the importer
//------===//
//
// Imports every model of the ONNX backend node tests (Debian
// libonnx-testdata) whose op types and element types hetc supports, and
// requires each to import and verify. Inputs that play the role of
// attributes (Reshape's shape, Slice's bounds, reduction axes, ...) are
// bound to the test's own input values first: hetc needs them constant, as
// they are in exported models. Models outside hetc's scope must be rejected
// with the expected diagnostic, never crash or import silently.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/ONNX/ONNXImporter.h"
#include "compiler/Import/ONNX/TensorReader.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

constexpr const char *kNodeTestDir = "/usr/share/libonnx-testdata/data/node";

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

bool hasSupportedType(mlir::MLIRContext &context, const onnx::TypeProto &type) {
  return type.has_tensor_type() && hetc::onnximport::convertElementType(
                                       context, type.tensor_type().elem_type());
}

int64_t defaultOpset(const onnx::ModelProto &model) {
  for (const onnx::OperatorSetIdProto &import : model.opset_import())
    if (import.domain().empty() || import.domain() == "ai.onnx")
      return import.version();
  return 0;
}

/// Makes the graph inputs that feed attribute-like operands initializers
/// holding the test's values. Returns false when a value is missing.
bool bindAttributeLikeInputs(onnx::ModelProto &model, llvm::StringRef testDir) {
  onnx::GraphProto &graph = *model.mutable_graph();
  for (int i = 0; i < graph.input_size(); ++i) {
    const std::string &name = graph.input(i).name();
    bool attributeLike = false;
    for (const onnx::NodeProto &node : graph.node())
      for (int slot = 0; slot < node.input_size(); ++slot)
        attributeLike |= node.input(slot) == name &&
                         hetc::isAttributeLikeONNXOperand(node.op_type(), slot);
    if (!attributeLike)
      continue;
    llvm::SmallString<256> path(testDir);
    llvm::sys::path::append(path, "test_data_set_0",
                            "input_" + std::to_string(i) + ".pb");
    onnx::TensorProto value;
    if (!readProto(path, value))
      return false;
    value.set_name(name);
    *graph.add_initializer() = value;
  }
  return true;
}

TEST(ONNXConformance, SupportedNodeTestsImport) {
  if (!llvm::sys::fs::is_directory(kNodeTestDir))
    GTEST_SKIP() << kNodeTestDir << " is absent (Debian libonnx-testdata)";

  std::vector<std::string> tests;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(kNodeTestDir, ec), end;
       it != end && !ec; it.increment(ec))
    tests.push_back(it->path());
  std::sort(tests.begin(), tests.end());

  int imported = 0, skippedOps = 0, skippedTypes = 0, rejectedOpset = 0,
      rejectedOutOfScope = 0;
  std::vector<std::string> failures;
  for (const std::string &dir : tests) {
    llvm::StringRef test = llvm::sys::path::filename(dir);
    llvm::SmallString<256> modelPath(dir);
    llvm::sys::path::append(modelPath, "model.onnx");
    onnx::ModelProto model;
    if (!readProto(modelPath, model))
      continue;

    mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
    bool opsSupported = true;
    for (const onnx::NodeProto &node : model.graph().node())
      opsSupported &= (node.domain().empty() || node.domain() == "ai.onnx") &&
                      hetc::isSupportedONNXOp(node.op_type());
    if (!opsSupported) {
      ++skippedOps;
      continue;
    }
    bool typesSupported = true;
    for (const onnx::ValueInfoProto &value : model.graph().input())
      typesSupported &= hasSupportedType(context, value.type());
    for (const onnx::ValueInfoProto &value : model.graph().output())
      typesSupported &= hasSupportedType(context, value.type());
    if (!typesSupported) {
      ++skippedTypes;
      continue;
    }

    int64_t opset = defaultOpset(model);
    bool opsetInRange =
        opset >= hetc::kMinONNXOpset && opset <= hetc::kMaxONNXOpset;
    const char *rejection =
        opsetInRange ? expectedRejection(test) : "hetc imports opsets";
    if (!bindAttributeLikeInputs(model, dir)) {
      failures.push_back(test.str() + ": cannot read its test inputs");
      continue;
    }

    std::string diagnostics;
    mlir::ScopedDiagnosticHandler capture(&context, [&](mlir::Diagnostic &d) {
      diagnostics += d.str() + "\n";
      return mlir::success();
    });
    hetc::ONNXImportOptions options;
    options.modelPath = modelPath.str().str();
    auto module = hetc::importONNXModel(context, model, options);

    if (rejection) {
      if (succeeded(module))
        failures.push_back(test.str() +
                           ": imported, but hetc should reject "
                           "it (" +
                           rejection + ")");
      else if (!llvm::StringRef(diagnostics).contains(rejection))
        failures.push_back(test.str() +
                           ": rejected for another reason: " + diagnostics);
      else
        ++(opsetInRange ? rejectedOutOfScope : rejectedOpset);
      continue;
    }
    if (failed(module)) {
      failures.push_back(test.str() + ": " + diagnostics);
      continue;
    }
    ++imported;
  }

  std::string summary;
  llvm::raw_string_ostream os(summary);
  os << "ONNX node tests: " << imported << " imported, " << skippedOps
     << " skipped (unsupported op types), " << skippedTypes
     << " skipped (unsupported types), " << rejectedOpset
     << " rejected as expected (opset outside " << hetc::kMinONNXOpset << "-"
     << hetc::kMaxONNXOpset << "), " << rejectedOutOfScope
     << " rejected as expected (out of scope), " << failures.size()
     << " failed\n";
  for (const std::string &failure : failures)
    os << "  FAILED " << failure << "\n";
  std::printf("%s", summary.c_str());
  EXPECT_TRUE(failures.empty()) << summary;
  EXPECT_GT(imported, 0);
}

} // namespace
