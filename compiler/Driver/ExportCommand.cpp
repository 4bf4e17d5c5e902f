//===- ExportCommand.cpp - hetc export ------------------------------------===//
//
// Trained weights back to ONNX: the original model's graph, unchanged, with
// every initializer that the checkpoint holds (by its ONNX name) replaced by
// the trained values. The other initializers (frozen buffers, integer
// tables) keep theirs. Every initializer is written inline, or, when they
// add up to more than protobuf's 2 GB, all into one external data file
// beside the model.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/Commands.h"
#include "compiler/Driver/Diagnostics.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Driver/OutputFile.h"
#include "compiler/Import/ONNX/ONNXImporter.h"
#include "compiler/Import/ONNX/TensorReader.h"
#include "passes/Passes.h"
#include "runtime/package/Safetensors.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <onnx/onnx_pb.h>

using namespace mlir;
namespace cl = llvm::cl;

namespace hetc::driver {

namespace {

cl::SubCommand exportSubcommand(
    "export", "Write an ONNX model with the trained weights of a hetrun "
              "checkpoint (the original graph, the trained initializers)");

cl::OptionCategory exportCategory("hetc export options");

cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                               cl::sub(exportSubcommand),
                               cl::cat(exportCategory),
                               cl::desc("<MODEL.onnx> (the model trained)"));

cl::opt<std::string> checkpointPath(
    "checkpoint", cl::sub(exportSubcommand), cl::cat(exportCategory),
    cl::Required, cl::value_desc("DIR"),
    cl::desc("A hetrun checkpoint: a --save folder (params.safetensors), "
             "or a --save-every folder (its latest)"));

cl::opt<std::string> outputPath(
    "o", cl::sub(exportSubcommand), cl::cat(exportCategory), cl::Required,
    cl::value_desc("TRAINED.onnx"),
    cl::desc("The model to write (with TRAINED.onnx.data beside it when the "
             "weights exceed 2 GB); written whole or not at all"));

constexpr llvm::StringLiteral kPrefix = "hetc export: ";
/// Protobuf refuses messages of 2 GiB; leave room for the graph.
constexpr uint64_t kMaxInlineBytes = (uint64_t(1) << 31) - (uint64_t(64) << 20);

int fail(const llvm::Twine &message) {
  llvm::errs() << kPrefix << "error: " << message << "\n";
  return kExitFailure;
}

/// The safetensors dtype of an ONNX float element type; empty for others.
llvm::StringRef safetensorsDType(int32_t onnxType) {
  switch (onnxType) {
  case onnx::TensorProto::FLOAT: return "F32";
  case onnx::TensorProto::FLOAT16: return "F16";
  case onnx::TensorProto::BFLOAT16: return "BF16";
  case onnx::TensorProto::DOUBLE: return "F64";
  default: return "";
  }
}

/// The checkpoint folder `path` names (a series folder's latest).
std::string checkpointFolder(llvm::StringRef path) {
  llvm::SmallString<256> latest(path);
  llvm::sys::path::append(latest, "latest");
  auto buffer = llvm::MemoryBuffer::getFile(latest);
  if (!buffer)
    return path.str();
  llvm::SmallString<256> folder(path);
  llvm::sys::path::append(folder, (*buffer)->getBuffer().trim());
  return folder.str().str();
}

/// Writes `model` to `path` (writeOutputFile).
llvm::Error writeModel(const onnx::ModelProto &model, const std::string &path) {
  return writeOutputFile(path, [&](llvm::raw_ostream &os) -> llvm::Error {
    std::string bytes;
    if (!model.SerializeToString(&bytes))
      return llvm::createStringError("the model does not serialize");
    os << bytes;
    return llvm::Error::success();
  });
}

int runExport() {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  UserDiagnosticHandler diagnostics(&context);

  onnx::ModelProto model;
  if (failed(loadONNXModel(context, modelPath, model)))
    return kExitFailure;

  std::string folder = checkpointFolder(checkpointPath);
  std::string paramsPath = folder + "/params.safetensors";
  std::vector<package::NamedTensor> trained;
  std::string error;
  if (!package::readSafetensorsFile(paramsPath, &trained, nullptr, &error))
    return fail("cannot read checkpoint '" + paramsPath + "': " + error);
  llvm::StringMap<const package::NamedTensor *> byName;
  for (const package::NamedTensor &tensor : trained)
    byName[tensor.name] = &tensor;

  // Every initializer inline first (external data read where it lies), the
  // trained ones with the checkpoint's values.
  onnximport::TensorReader reader(modelPath);
  uint64_t totalBytes = 0;
  int replaced = 0;
  for (onnx::TensorProto &initializer :
       *model.mutable_graph()->mutable_initializer()) {
    auto found = byName.find(initializer.name());
    std::string bytes;
    if (found != byName.end()) {
      const package::NamedTensor &tensor = *found->second;
      std::vector<int64_t> dims(initializer.dims().begin(),
                                initializer.dims().end());
      if (tensor.dtype != safetensorsDType(initializer.data_type()) ||
          tensor.shape != dims)
        return fail("the checkpoint's '" + tensor.name + "' (" +
                    tensor.dtype + ") does not fit the model's initializer "
                    "of that name: another model's checkpoint?");
      bytes.assign(tensor.data.begin(), tensor.data.end());
      byName.erase(found);
      ++replaced;
    } else {
      FailureOr<onnximport::TensorData> data =
          reader.read(initializer, UnknownLoc::get(&context),
                      "initializer '" + initializer.name() + "'");
      if (failed(data))
        return kExitFailure;
      bytes.assign(data->bytes.begin(), data->bytes.end());
    }
    onnx::TensorProto copy;
    copy.set_name(initializer.name());
    copy.set_data_type(initializer.data_type());
    *copy.mutable_dims() = initializer.dims();
    copy.set_raw_data(std::move(bytes));
    totalBytes += copy.raw_data().size();
    initializer = std::move(copy);
  }
  if (!byName.empty())
    return fail("the checkpoint's '" + byName.begin()->getKey() +
                "' is no initializer of '" + modelPath +
                "' (a checkpoint of another model, or of untied copies)");

  if (totalBytes > kMaxInlineBytes) {
    std::string dataName = llvm::sys::path::filename(outputPath).str() + ".data";
    std::string dataPath = outputPath + ".data";
    // The data file first: the model that names it is renamed in last.
    if (llvm::Error error = writeOutputFile(
            dataPath, [&](llvm::raw_ostream &os) -> llvm::Error {
              for (const onnx::TensorProto &initializer :
                   model.graph().initializer())
                os << initializer.raw_data();
              return llvm::Error::success();
            }))
      return fail("cannot write '" + dataPath +
                  "': " + llvm::toString(std::move(error)));
    uint64_t offset = 0;
    for (onnx::TensorProto &initializer :
         *model.mutable_graph()->mutable_initializer()) {
      const std::string &raw = initializer.raw_data();
      auto addEntry = [&](const std::string &key, const std::string &value) {
        onnx::StringStringEntryProto *entry = initializer.add_external_data();
        entry->set_key(key);
        entry->set_value(value);
      };
      addEntry("location", dataName);
      addEntry("offset", std::to_string(offset));
      addEntry("length", std::to_string(raw.size()));
      offset += raw.size();
      initializer.clear_raw_data();
      initializer.set_data_location(onnx::TensorProto::EXTERNAL);
    }
  }
  if (llvm::Error error = writeModel(model, outputPath))
    return fail("cannot write '" + outputPath +
                "': " + llvm::toString(std::move(error)));
  llvm::errs() << kPrefix << "wrote " << outputPath << ": " << replaced
               << " trained initializers from " << folder << ", "
               << model.graph().initializer_size() - replaced
               << " kept\n";
  return kExitSuccess;
}

} // namespace

Command exportCommand() {
  return {exportSubcommand, exportCategory, runExport};
}

} // namespace hetc::driver
