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
#include "test/unit/ONNXNodeTests.h"

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

using namespace hetc::testing;

TEST(ONNXConformance, SupportedNodeTestsImport) {
  if (!llvm::sys::fs::is_directory(kNodeTestDir))
    GTEST_SKIP() << kNodeTestDir << " is absent (Debian libonnx-testdata)";

  std::vector<std::string> tests = listNodeTests();

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
    if (!hasSupportedOps(model)) {
      ++skippedOps;
      continue;
    }
    if (!hasSupportedTypes(context, model)) {
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
