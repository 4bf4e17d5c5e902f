//===- ONNXNodeRuntimeTest.cpp - ONNX node tests through the runtime ------===//
//
// Every ONNX backend node test that imports (ONNXConformanceTest's
// selection) is canonicalized, lowered to a hetx.program, written as a
// package, loaded and run by a RankExecutor: its graph inputs are FEED
// buffers written from test_data_set_0/input_*.pb, and its output buffers
// are compared with output_*.pb. Floats match like numpy.allclose with
// ONNX's backend-test tolerances (|got - want| <= 1e-7 + 1e-3 * |want|,
// NaN equal to NaN); integers and bools match exactly. Programs holding
// dtypes the CPU runtime does not run (f16, bf16, i8, u8) are skipped, and
// so are those whose results have shapes computed from input values.
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/ONNX/ONNXImporter.h"
#include "compiler/Import/ONNX/TensorReader.h"
#include "compiler/Package/PackageWriter.h"
#include "passes/Passes.h"
#include "runtime/exec/Executor.h"
#include "test/unit/ONNXNodeTests.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

using namespace hetc::testing;
namespace exec = hetc::runtime::exec;
using hetc::runtime::DType;

constexpr double kRtol = 1e-3, kAtol = 1e-7;

/// Element `i` of `bytes` holding ONNX-typed data of MLIR type `type`.
double elementAt(mlir::Type type, const char *bytes, int64_t i) {
  if (type.isF32()) {
    float v;
    std::memcpy(&v, bytes + 4 * i, 4);
    return v;
  }
  if (type.isF64()) {
    double v;
    std::memcpy(&v, bytes + 8 * i, 8);
    return v;
  }
  if (type.isInteger(64)) {
    int64_t v;
    std::memcpy(&v, bytes + 8 * i, 8);
    return static_cast<double>(v);
  }
  if (type.isInteger(32)) {
    int32_t v;
    std::memcpy(&v, bytes + 4 * i, 4);
    return v;
  }
  return bytes[i] != 0; // i1: one byte
}

double viewAt(const hetc::runtime::TensorView &view, int64_t i) {
  switch (view.dtype) {
  case DType::kF32: return view.as<float>()[i];
  case DType::kF64: return view.as<double>()[i];
  case DType::kI64: return static_cast<double>(view.as<int64_t>()[i]);
  case DType::kI32: return view.as<int32_t>()[i];
  case DType::kBool: return view.as<uint8_t>()[i] != 0;
  }
  return 0;
}

void setViewAt(const hetc::runtime::TensorView &view, int64_t i, double v) {
  switch (view.dtype) {
  case DType::kF32: view.as<float>()[i] = static_cast<float>(v); return;
  case DType::kF64: view.as<double>()[i] = v; return;
  case DType::kI64: view.as<int64_t>()[i] = static_cast<int64_t>(v); return;
  case DType::kI32: view.as<int32_t>()[i] = static_cast<int32_t>(v); return;
  case DType::kBool: view.as<uint8_t>()[i] = v != 0; return;
  }
}

bool isFloat(DType dtype) { return dtype == DType::kF32 || dtype == DType::kF64; }

/// Reads test data file `path` into `data`; false with `error` set on failure.
bool readTensorFile(mlir::MLIRContext &context, const std::string &path,
                    hetc::onnximport::TensorData *data, std::string *error) {
  onnx::TensorProto proto;
  if (!readProto(path, proto)) {
    *error = "cannot read '" + path + "'";
    return false;
  }
  hetc::onnximport::TensorReader reader("");
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler capture(&context, [&](mlir::Diagnostic &d) {
    diagnostics += d.str();
    return mlir::success();
  });
  auto read = reader.read(proto, mlir::UnknownLoc::get(&context), path);
  if (mlir::failed(read)) {
    *error = "'" + path + "': " + diagnostics;
    return false;
  }
  *data = std::move(*read);
  return true;
}

enum class Outcome { kPassed, kSkippedDType, kSkippedDynamicShape, kFailed };

/// Whether every function result has a static shape: programs hold static
/// buffers, so a result whose shape depends on input values (a window
/// whose length is an input) cannot run.
bool hasStaticResults(mlir::ModuleOp module) {
  bool allStatic = true;
  module.walk([&](mlir::func::FuncOp func) {
    for (mlir::Type type : func.getResultTypes())
      if (auto shaped = llvm::dyn_cast<mlir::ShapedType>(type))
        allStatic &= shaped.hasStaticShape();
  });
  return allStatic;
}

/// Runs one imported node test; `why` says why it was skipped or failed.
Outcome runNodeTest(mlir::MLIRContext &context, mlir::ModuleOp module,
                    const onnx::ModelProto &model, llvm::StringRef dir,
                    const std::string &scratch, std::string *why) {
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler capture(&context, [&](mlir::Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return mlir::success();
  });
  mlir::PassManager fold(&context);
  fold.addPass(mlir::createCanonicalizerPass());
  if (mlir::failed(fold.run(module))) {
    *why = "canonicalize: " + diagnostics;
    return Outcome::kFailed;
  }
  if (!hasStaticResults(module))
    return Outcome::kSkippedDynamicShape;
  mlir::PassManager pm(&context);
  pm.addPass(hetc::createHetxLowerToProgram());
  if (mlir::failed(pm.run(module))) {
    *why = "lowering: " + diagnostics;
    return Outcome::kFailed;
  }
  hetc::package::ManifestSettings settings;
  settings.modelName = llvm::sys::path::filename(dir).str();
  settings.globalBatch = settings.seqLen = settings.vocabSize = 1;
  std::string path = scratch + "/" + settings.modelName + ".hetpkg";
  if (mlir::failed(hetc::package::writePackage(module, settings, path))) {
    *why = "package: " + diagnostics;
    return Outcome::kFailed;
  }

  exec::LoadedPackage package;
  hetc::runtime::Status status = exec::loadPackage(path, &package);
  if (!status.ok()) {
    *why = "load: " + status.message();
    return Outcome::kFailed;
  }
  for (const hetc::pkg::Buffer &buffer : package.programs[0].buffers())
    if (buffer.dtype() == hetc::pkg::F16 || buffer.dtype() == hetc::pkg::BF16 ||
        buffer.dtype() == hetc::pkg::I8 || buffer.dtype() == hetc::pkg::U8) {
      *why = "buffer '" + buffer.name() + "' is " +
             hetc::pkg::DType_Name(buffer.dtype());
      return Outcome::kSkippedDType;
    }
  std::unique_ptr<exec::RankExecutor> rank;
  status = exec::RankExecutor::create(package, 0, exec::cpuKernelRegistry(),
                                      &rank);
  if (!status.ok()) {
    *why = "create: " + status.message();
    return Outcome::kFailed;
  }

  // FEED buffers are named like the graph inputs.
  std::map<std::string, int> inputIndex;
  for (int i = 0; i < model.graph().input_size(); ++i)
    inputIndex[model.graph().input(i).name()] = i;
  for (int id : rank->feedBuffers()) {
    const std::string &name = rank->program().buffers(id).name();
    auto it = inputIndex.find(name);
    if (it == inputIndex.end()) {
      *why = "FEED buffer '" + name + "' is no graph input";
      return Outcome::kFailed;
    }
    hetc::onnximport::TensorData data;
    if (!readTensorFile(context, testDataPath(dir, "input", it->second), &data,
                        why))
      return Outcome::kFailed;
    const hetc::runtime::TensorView &view = rank->buffers().view(id);
    if (view.numel() != data.numElements()) {
      *why = "input '" + name + "' has " +
             std::to_string(data.numElements()) + " elements; the buffer " +
             view.describe();
      return Outcome::kFailed;
    }
    for (int64_t i = 0; i < view.numel(); ++i)
      setViewAt(view, i, elementAt(data.type.getElementType(),
                                   data.bytes.data(), i));
  }

  status = rank->runInstructions();
  if (!status.ok()) {
    *why = "run: " + status.message();
    return Outcome::kFailed;
  }

  const auto &outputs = rank->program().output_buffers();
  if (outputs.size() != model.graph().output_size()) {
    *why = std::to_string(outputs.size()) + " output buffers for " +
           std::to_string(model.graph().output_size()) + " graph outputs";
    return Outcome::kFailed;
  }
  for (int k = 0; k < outputs.size(); ++k) {
    hetc::onnximport::TensorData want;
    if (!readTensorFile(context, testDataPath(dir, "output", k), &want, why))
      return Outcome::kFailed;
    const hetc::runtime::TensorView &view = rank->buffers().view(outputs[k]);
    std::string name = model.graph().output(k).name();
    if (view.numel() != want.numElements()) {
      *why = "output '" + name + "' is " + view.describe() + ", expected " +
             std::to_string(want.numElements()) + " elements";
      return Outcome::kFailed;
    }
    for (int64_t i = 0; i < view.numel(); ++i) {
      double got = viewAt(view, i);
      double expected = elementAt(want.type.getElementType(), want.bytes.data(), i);
      bool ok = isFloat(view.dtype)
                    ? (std::isnan(got) && std::isnan(expected)) ||
                          got == expected ||
                          std::fabs(got - expected) <=
                              kAtol + kRtol * std::fabs(expected)
                    : got == expected;
      if (!ok) {
        *why = "output '" + name + "' element " + std::to_string(i) + " is " +
               std::to_string(got) + ", expected " + std::to_string(expected);
        return Outcome::kFailed;
      }
    }
  }
  return Outcome::kPassed;
}

TEST(ONNXNodeRuntime, ImportedNodeTestsRunAndMatch) {
  if (!llvm::sys::fs::is_directory(kNodeTestDir))
    GTEST_SKIP() << kNodeTestDir << " is absent (Debian libonnx-testdata)";
  llvm::SmallString<128> scratch;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("hetc-node-tests", scratch));

  int passed = 0, notImported = 0, dynamicShapes = 0;
  std::map<std::string, int> skippedDTypes;
  std::vector<std::string> failures;
  for (const std::string &dir : listNodeTests()) {
    llvm::StringRef test = llvm::sys::path::filename(dir);
    llvm::SmallString<256> modelPath(dir);
    llvm::sys::path::append(modelPath, "model.onnx");
    onnx::ModelProto model;
    if (!readProto(modelPath, model))
      continue;
    mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
    int64_t opset = defaultOpset(model);
    if (!hasSupportedOps(model) || !hasSupportedTypes(context, model) ||
        opset < hetc::kMinONNXOpset || opset > hetc::kMaxONNXOpset ||
        expectedRejection(test) || !bindAttributeLikeInputs(model, dir))
      continue; // ONNXConformanceTest accounts for these
    std::string diagnostics;
    auto module = [&] {
      mlir::ScopedDiagnosticHandler capture(&context, [&](mlir::Diagnostic &d) {
        diagnostics += d.str() + "\n";
        return mlir::success();
      });
      hetc::ONNXImportOptions options;
      options.modelPath = modelPath.str().str();
      return hetc::importONNXModel(context, model, options);
    }();
    if (mlir::failed(module)) {
      ++notImported; // an importer failure, which ONNXConformanceTest reports
      continue;
    }
    std::string why;
    switch (runNodeTest(context, **module, model, dir, scratch.str().str(),
                        &why)) {
    case Outcome::kPassed:
      ++passed;
      break;
    case Outcome::kSkippedDType:
      ++skippedDTypes[why.substr(why.rfind(' ') + 1)];
      break;
    case Outcome::kSkippedDynamicShape:
      ++dynamicShapes;
      break;
    case Outcome::kFailed:
      failures.push_back(test.str() + ": " + why);
      break;
    }
  }
  (void)llvm::sys::fs::remove_directories(scratch);

  int skipped = 0;
  std::string reasons;
  for (const auto &[dtype, count] : skippedDTypes) {
    skipped += count;
    reasons += (reasons.empty() ? "" : ", ") + std::to_string(count) + " " +
               dtype;
  }
  std::string summary;
  llvm::raw_string_ostream os(summary);
  os << "ONNX node tests through the runtime: " << passed << " passed, "
     << skipped << " skipped (dtypes the CPU runtime does not run"
     << (reasons.empty() ? "" : ": " + reasons) << "), " << dynamicShapes
     << " skipped (a result's shape depends on input values), "
     << failures.size() << " failed";
  if (notImported)
    os << " (" << notImported << " did not import; see ONNXConformance)";
  os << "\n";
  for (const std::string &failure : failures)
    os << "  FAILED " << failure << "\n";
  std::printf("%s", summary.c_str());
  EXPECT_TRUE(failures.empty()) << summary;
  EXPECT_GT(passed, 0);
}

} // namespace
