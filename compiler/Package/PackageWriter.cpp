//===- PackageWriter.cpp - hetx programs to a package folder --------------===//

#include "compiler/Package/PackageWriter.h"

#include "dialects/HetExec/HetExec.h"
#include "runtime/package/FileDigest.h"
#include "runtime/package/OutputFolder.h"
#include "runtime/package/Package.h"
#include "runtime/package/Safetensors.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cctype>
#include <fstream>

using namespace mlir;

namespace hetc::package {

namespace {

constexpr const char *kCompilerVersion = "hetc 0.1";

std::optional<pkg::DType> dtypeOf(Type type) {
  if (type.isF32()) return pkg::F32;
  if (type.isF64()) return pkg::F64;
  if (type.isF16()) return pkg::F16;
  if (type.isBF16()) return pkg::BF16;
  if (type.isInteger(1)) return pkg::BOOL;
  if (type.isUnsignedInteger(8)) return pkg::U8;
  if (type.isSignlessInteger(8)) return pkg::I8;
  if (type.isSignlessInteger(32)) return pkg::I32;
  if (type.isSignlessInteger(64)) return pkg::I64;
  return std::nullopt;
}

const char *safetensorsName(pkg::DType dtype) {
  switch (dtype) {
  case pkg::F32: return "F32";
  case pkg::F64: return "F64";
  case pkg::F16: return "F16";
  case pkg::BF16: return "BF16";
  case pkg::I64: return "I64";
  case pkg::I32: return "I32";
  case pkg::I8: return "I8";
  case pkg::U8: return "U8";
  case pkg::BOOL: return "BOOL";
  default: return "";
  }
}

/// The little-endian bytes of `value` as the buffer stores them.
FailureOr<std::vector<uint8_t>> bytesOf(hetx::BufferOp buffer) {
  ElementsAttr value = buffer.getInitAttr();
  MemRefType type = buffer.getResult().getType();
  int64_t expected = buffer.getByteSize();
  std::vector<uint8_t> bytes;
  if (auto resource = llvm::dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return buffer.emitOpError("initial value '")
             << resource.getRawHandle().getKey()
             << "' has no data (were the weights elided when printing?)";
    ArrayRef<char> data = blob->getData();
    bytes.assign(data.begin(), data.end());
  } else if (auto dense = llvm::dyn_cast<DenseElementsAttr>(value)) {
    if (type.getElementType().isInteger(1)) {
      for (bool bit : dense.getValues<bool>())
        bytes.push_back(bit ? 1 : 0);
    } else {
      ArrayRef<char> raw = dense.getRawData();
      if (dense.isSplat())
        for (int64_t i = 0; i < type.getNumElements(); ++i)
          bytes.insert(bytes.end(), raw.begin(), raw.end());
      else
        bytes.assign(raw.begin(), raw.end());
    }
  } else {
    return buffer.emitOpError("has an initial value of a kind the package "
                              "writer cannot serialize: ")
           << value;
  }
  if (static_cast<int64_t>(bytes.size()) != expected)
    return buffer.emitOpError("initial value has ")
           << bytes.size() << " bytes; the buffer holds " << expected;
  return bytes;
}

/// The case name of an enum attribute printed as `#dialect<mnemonic case>`.
std::optional<std::string> enumCaseName(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  StringRef printed(text);
  if (!printed.starts_with("#") || !printed.ends_with(">"))
    return std::nullopt;
  StringRef body = printed.drop_back().split('<').second;
  auto [mnemonic, value] = body.split(' ');
  if (mnemonic.empty() || value.empty() || value.contains(' ') ||
      !llvm::all_of(value, [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
    return std::nullopt;
  return value.str();
}

LogicalResult convertAttribute(hetx::LaunchOp launch, NamedAttribute named,
                               pkg::Attribute *out) {
  Attribute attr = named.getValue();
  if (auto boolean = llvm::dyn_cast<BoolAttr>(attr)) {
    out->set_b(boolean.getValue());
  } else if (llvm::isa<UnitAttr>(attr)) {
    out->set_b(true);
  } else if (auto integer = llvm::dyn_cast<IntegerAttr>(attr)) {
    out->set_i(integer.getInt());
  } else if (auto floating = llvm::dyn_cast<FloatAttr>(attr)) {
    out->set_f(floating.getValueAsDouble());
  } else if (auto ints = llvm::dyn_cast<DenseI64ArrayAttr>(attr)) {
    for (int64_t v : ints.asArrayRef())
      out->mutable_ints()->add_values(v);
  } else if (auto ints = llvm::dyn_cast<DenseI32ArrayAttr>(attr)) {
    for (int32_t v : ints.asArrayRef())
      out->mutable_ints()->add_values(v);
  } else if (auto floats = llvm::dyn_cast<DenseF64ArrayAttr>(attr)) {
    for (double v : floats.asArrayRef())
      out->mutable_floats()->add_values(v);
  } else if (auto floats = llvm::dyn_cast<DenseF32ArrayAttr>(attr)) {
    for (float v : floats.asArrayRef())
      out->mutable_floats()->add_values(v);
  } else if (auto type = llvm::dyn_cast<TypeAttr>(attr)) {
    std::string text;
    llvm::raw_string_ostream os(text);
    type.getValue().print(os);
    out->set_s(text);
  } else if (auto string = llvm::dyn_cast<StringAttr>(attr)) {
    out->set_s(string.str());
  } else if (std::optional<std::string> name = enumCaseName(attr)) {
    out->set_s(*name);
  } else {
    return launch.emitOpError("param '")
           << named.getName().getValue() << "' = " << attr
           << " has no package attribute form";
  }
  return success();
}

std::string describe(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

struct Tensors {
  std::vector<NamedTensor> list;
  llvm::StringMap<size_t> index;
  /// The initial value each tensor was written from, by list position.
  std::vector<ElementsAttr> inits;

  LogicalResult add(hetx::BufferOp buffer, pkg::DType dtype) {
    auto known = index.find(buffer.getName());
    // Replicas of a stage hold the same global: the same uniqued value.
    if (known != index.end() && inits[known->second] == buffer.getInitAttr())
      return success();
    FailureOr<std::vector<uint8_t>> bytes = bytesOf(buffer);
    if (failed(bytes))
      return failure();
    ArrayRef<int64_t> shape = buffer.getResult().getType().getShape();
    NamedTensor tensor{buffer.getName().str(), safetensorsName(dtype),
                       std::vector<int64_t>(shape.begin(), shape.end()),
                       std::move(*bytes)};
    if (known == index.end()) {
      index[tensor.name] = list.size();
      list.push_back(std::move(tensor));
      inits.push_back(buffer.getInitAttr());
      return success();
    }
    const NamedTensor &first = list[known->second];
    if (first.dtype != tensor.dtype || first.shape != tensor.shape ||
        first.data != tensor.data)
      return buffer.emitOpError("'")
             << tensor.name
             << "' has another value in another program; names of "
                "parameters and constants are package-wide";
    return success();
  }
};

/// `weights` is null when the parameters' values are not written.
FailureOr<pkg::Program> convertProgram(hetx::ProgramOp program,
                                       Tensors *weights, Tensors &constants) {
  pkg::Program out;
  out.set_rank(static_cast<int32_t>(program.getRankAttr().getInt()));
  out.set_arena_bytes(program.getArenaBytesAttr().getInt());
  out.set_host_arena_bytes(program.getHostArenaBytes());
  out.set_first_sample(program.getFirstSampleAttr().getInt());
  out.set_num_samples(program.getNumSamplesAttr().getInt());

  DenseMap<Value, int32_t> ids;
  for (hetx::BufferOp buffer : program.getBuffers()) {
    MemRefType type = buffer.getResult().getType();
    std::optional<pkg::DType> dtype = dtypeOf(type.getElementType());
    if (!dtype)
      return buffer.emitOpError("has element type ")
             << type.getElementType() << ", which no package dtype holds";
    pkg::Buffer *message = out.add_buffers();
    int32_t id = static_cast<int32_t>(buffer.getIdAttr().getInt());
    ids[buffer.getResult()] = id;
    message->set_id(id);
    message->set_name(buffer.getName().str());
    message->set_dtype(*dtype);
    for (int64_t dim : type.getShape())
      message->add_shape(dim);
    message->set_offset(buffer.getOffsetAttr().getInt());
    message->set_host(buffer.getHost());
    message->set_kind(static_cast<pkg::BufferKind>(buffer.getKind()));
    if (std::optional<hetx::InputRole> role = buffer.getRole())
      message->set_role(static_cast<pkg::InputRole>(*role));
    message->set_first_sample(buffer.getFirstSample().value_or(0));
    if (std::optional<ArrayRef<int64_t>> whole = buffer.getWholeShape())
      for (int64_t dim : *whole)
        message->add_whole_shape(dim);
    message->set_alias_of(buffer.getAliasOf() ? ids.lookup(buffer.getAliasOf())
                                              : -1);
    if (buffer.isAlias())
      continue;
    if (buffer.getKind() == hetx::BufferKind::parameter && weights &&
        failed(weights->add(buffer, *dtype)))
      return failure();
    if (buffer.getKind() == hetx::BufferKind::constant &&
        failed(constants.add(buffer, *dtype)))
      return failure();
  }
  for (hetx::LaunchOp launch : program.getLaunches()) {
    pkg::Instruction *message = out.add_instructions();
    message->set_kernel(launch.getKernel().str());
    for (Value input : launch.getInputs())
      message->add_operands(ids.lookup(input));
    for (Value output : launch.getOutputs())
      message->add_results(ids.lookup(output));
    if (DictionaryAttr params = launch.getParamsAttr())
      for (NamedAttribute param : params)
        if (failed(convertAttribute(
                launch, param,
                &(*message->mutable_attributes())[param.getName().str()])))
          return failure();
    message->set_location(describe(launch.getLoc()));
    message->set_flops(launch.getFlops().value_or(0));
    if (std::optional<hetx::LaunchPhase> phase = launch.getPhase()) {
      message->set_segment(static_cast<int32_t>(*launch.getSegment()));
      message->set_phase(hetx::stringifyLaunchPhase(*phase).str());
    }
  }
  hetx::ReturnOp ret = program.getReturn();
  out.set_loss_buffer(ret.getLoss() ? ids.lookup(ret.getLoss()) : -1);
  for (Value output : ret.getOutputs())
    out.add_output_buffers(ids.lookup(output));
  return out;
}

template <typename Message>
LogicalResult writeMessage(ModuleOp module, const Message &message,
                           const std::string &path) {
  // Deterministic: map fields (launch attributes) in key order, so the same
  // compile writes the same bytes.
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    if (!message.SerializeToCodedStream(&coded))
      return module.emitError("cannot serialize '") << path << "'";
  }
  std::ofstream os(path, std::ios::binary | std::ios::trunc);
  os.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!os || (os.close(), !os))
    return module.emitError("cannot write '") << path << "'";
  return success();
}

LogicalResult writeInto(ModuleOp module, const ManifestSettings &settings,
                        StringRef dir) {
  SmallVector<hetx::ProgramOp> programs, evals;
  for (auto program : module.getOps<hetx::ProgramOp>())
    (program.getEval() ? evals : programs).push_back(program);
  if (programs.empty())
    return module.emitError("the module has no hetx.program to package");
  auto byRank = [](hetx::ProgramOp a, hetx::ProgramOp b) {
    return a.getRankAttr().getInt() < b.getRankAttr().getInt();
  };
  llvm::sort(programs, byRank);

  pkg::Manifest manifest;
  manifest.set_format_version(kFormatVersion);
  manifest.set_model_name(settings.modelName);
  manifest.set_global_batch(settings.globalBatch);
  manifest.set_seq_len(settings.seqLen);
  manifest.set_vocab_size(settings.vocabSize);
  manifest.set_weights_file(kWeightsFile);
  manifest.set_constants_file(kConstantsFile);
  manifest.set_compiler_version(kCompilerVersion);
  manifest.set_plan_json(settings.planJson);
  if (const std::optional<InitializerSummary> &summary = settings.initializers) {
    pkg::Initializers *initializers = manifest.mutable_initializers();
    initializers->set_trainable_tensors(summary->trainableTensors);
    initializers->set_trainable_elements(summary->trainableElements);
    for (const InitializerSummary::Frozen &frozen : summary->frozen) {
      pkg::FrozenInitializer *entry = initializers->add_frozen();
      entry->set_name(frozen.name);
      entry->set_elements(frozen.elements);
      entry->set_reason(frozen.reason);
    }
  }
  pkg::Optimizer *optimizer = manifest.mutable_optimizer();
  optimizer->set_kind(settings.optimizer.kind);
  optimizer->set_lr(settings.optimizer.lr);
  optimizer->set_weight_decay(settings.optimizer.weightDecay);
  optimizer->set_beta1(settings.optimizer.beta1);
  optimizer->set_beta2(settings.optimizer.beta2);
  optimizer->set_eps(settings.optimizer.eps);
  optimizer->set_clip_norm(settings.optimizer.clipNorm);
  optimizer->set_lr_schedule(settings.optimizer.lrSchedule);
  optimizer->set_warmup_steps(settings.optimizer.warmupSteps);
  optimizer->set_decay_steps(settings.optimizer.decaySteps);
  optimizer->set_min_lr(settings.optimizer.minLr);

  Tensors weights, constants;
  // Converts `program` and writes it to `file` of the package.
  auto write = [&](hetx::ProgramOp program,
                   const std::string &file) -> FailureOr<pkg::Program> {
    FailureOr<pkg::Program> converted =
        convertProgram(program, settings.writeWeights ? &weights : nullptr,
                       constants);
    if (failed(converted) ||
        failed(writeMessage(module, *converted, (dir + "/" + file).str())))
      return failure();
    return converted;
  };
  for (auto [index, program] : llvm::enumerate(programs)) {
    if (program.getRankAttr().getInt() != static_cast<int64_t>(index))
      return program.emitOpError("has rank ")
             << program.getRankAttr().getInt() << "; the ranks of a package "
             << "are 0.." << programs.size() - 1 << ", one program each";
    std::string file = programFileName(static_cast<int>(index));
    FailureOr<pkg::Program> converted = write(program, file);
    if (failed(converted))
      return failure();
    pkg::RankInfo *rank = manifest.add_ranks();
    rank->set_rank(static_cast<int32_t>(index));
    rank->set_program_file(file);
    rank->set_arena_bytes(converted->arena_bytes());
    rank->set_host_arena_bytes(converted->host_arena_bytes());
    rank->set_model_flops(program.getModelFlops());
    rank->set_stage(static_cast<int32_t>(program.getStage()));
    rank->set_replica(static_cast<int32_t>(program.getReplica()));
    if (std::optional<StringRef> device = program.getDevice())
      rank->set_device(device->str());
    auto memory = settings.deviceMemoryBytes.find(static_cast<int>(index));
    if (memory != settings.deviceMemoryBytes.end())
      rank->set_device_memory_bytes(memory->second);
    auto peak = settings.devicePeakTflops.find(static_cast<int>(index));
    if (peak != settings.devicePeakTflops.end())
      rank->set_device_peak_tflops(peak->second);
  }
  for (hetx::ProgramOp eval : evals) {
    int64_t index = eval.getRankAttr().getInt();
    if (index >= manifest.ranks_size())
      return eval.emitOpError("evaluates rank ")
             << index << ", which the package does not have";
    std::string file = evalProgramFileName(static_cast<int>(index));
    if (failed(write(eval, file)))
      return failure();
    manifest.mutable_ranks(static_cast<int>(index))->set_eval_program_file(file);
  }

  std::string error;
  std::map<std::string, std::string> metadata = {{"format", "hetc"}};
  // Without weights the manifest names the file all the same: whoever
  // writes it later puts it there (docs/package-format.md).
  if ((settings.writeWeights &&
       !writeSafetensorsFile((dir + "/" + kWeightsFile).str(), weights.list,
                             metadata, &error)) ||
      !writeSafetensorsFile((dir + "/" + kConstantsFile).str(),
                            constants.list, metadata, &error))
    return module.emitError(error);

  // The digests of what was written, read back from the files.
  std::vector<std::string> written;
  for (const pkg::RankInfo &rank : manifest.ranks()) {
    written.push_back(rank.program_file());
    if (!rank.eval_program_file().empty())
      written.push_back(rank.eval_program_file());
  }
  if (settings.writeWeights)
    written.push_back(kWeightsFile);
  written.push_back(kConstantsFile);
  for (const std::string &name : written) {
    pkg::FileDigest *file = manifest.add_files();
    file->set_name(name);
    int64_t bytes = 0;
    uint64_t digest = 0;
    if (!digestFile((dir + "/" + name).str(), &bytes, &digest, &error))
      return module.emitError(error);
    file->set_bytes(bytes);
    file->set_digest(digest);
  }
  return writeMessage(module, manifest,
                      (dir + "/" + kManifestFile).str());
}

} // namespace

LogicalResult writePackage(ModuleOp module, const ManifestSettings &settings,
                           StringRef path) {
  SmallString<256> absolute(path);
  if (std::error_code ec = llvm::sys::fs::make_absolute(absolute))
    return module.emitError("cannot resolve '") << path << "': "
                                                << ec.message();
  llvm::sys::path::remove_dots(absolute, /*remove_dot_dot=*/true);
  StringRef parent = llvm::sys::path::parent_path(absolute);
  if (!llvm::sys::fs::is_directory(parent))
    return module.emitError("cannot write the package '")
           << path << "': folder '" << parent << "' does not exist";

  // Staged next to the destination so the final rename stays on one
  // file system.
  const FolderKind &kind = packageFolder();
  std::string staging;
  if (std::string error =
          makeStagingFolder(absolute.str().str(), kind, &staging);
      !error.empty())
    return module.emitError("cannot write the package: ") << error;
  if (failed(writeInto(module, settings, staging))) {
    removeOwnFolder(staging, kind);
    return failure();
  }
  if (std::string error = replaceFolder(staging, absolute.str().str(), kind);
      !error.empty()) {
    removeOwnFolder(staging, kind);
    return module.emitError(error);
  }
  return success();
}

} // namespace hetc::package
