//===- Executor.cpp - a rank's arena, initial values and step -------------===//

#include "runtime/exec/Executor.h"
#include "runtime/exec/ProgramCheck.h"

#include <cstring>
#include <map>

namespace hetc::runtime::exec {
namespace {

using hetc::package::NamedTensor;
using hetc::pkg::Buffer;

std::string tensorType(const std::string &dtype, const std::vector<int64_t> &shape) {
  return dtype + shapeToString(shape);
}

// Copies the tensor named like `buffer` from `tensors` (a file's contents)
// into the buffer's bytes.
Status loadNamed(const Buffer &buffer, const TensorView &view,
                 const std::map<std::string, const NamedTensor *> &tensors,
                 const char *file) {
  std::string what = std::string(buffer.kind() == hetc::pkg::PARAMETER
                                     ? "parameter "
                                     : "constant ") +
                     describeBuffer(buffer);
  auto it = tensors.find(buffer.name());
  if (it == tensors.end())
    return notFound(file, " has no tensor '", buffer.name(), "' for ", what);
  const NamedTensor &tensor = *it->second;
  std::vector<int64_t> shape(buffer.shape().begin(), buffer.shape().end());
  if (tensor.dtype != packageDTypeName(buffer.dtype()) || tensor.shape != shape)
    return invalidArgument("tensor '", tensor.name, "' in ", file, " is ",
                           tensorType(tensor.dtype, tensor.shape), " but ",
                           what, " is ",
                           tensorType(packageDTypeName(buffer.dtype()), shape));
  if (tensor.data.size() != view.byteSize())
    return dataLoss("tensor '", tensor.name, "' in ", file, " has ",
                    tensor.data.size(), " bytes, not ", view.byteSize());
  if (!tensor.data.empty())
    std::memcpy(view.data, tensor.data.data(), tensor.data.size());
  return okStatus();
}

std::map<std::string, const NamedTensor *>
byName(const std::vector<NamedTensor> &tensors) {
  std::map<std::string, const NamedTensor *> map;
  for (const NamedTensor &tensor : tensors)
    map.emplace(tensor.name, &tensor);
  return map;
}

} // namespace

Status RankExecutor::create(const LoadedPackage &package, int rank,
                            const KernelRegistry &registry,
                            std::unique_ptr<RankExecutor> *executor) {
  if (rank < 0 || rank >= static_cast<int>(package.programs.size()) ||
      rank >= package.manifest.ranks_size())
    return outOfRange("rank ", rank, " is not a rank of the package (",
                      package.programs.size(), " programs)");
  std::string file = package.manifest.ranks(rank).program_file();
  const hetc::pkg::Program &program = package.programs[rank];
  HETC_RETURN_IF_ERROR(
      validateProgram(package.manifest, rank, program, registry), file);
  std::unique_ptr<RankExecutor> result(new RankExecutor());
  result->package_ = &package;
  result->program_ = &program;
  result->rank_ = rank;
  for (const hetc::pkg::Instruction &inst : program.instructions())
    result->kernels_.push_back(registry.find(inst.kernel()));
  HETC_RETURN_IF_ERROR(result->initialize(), "rank ", rank);
  *executor = std::move(result);
  return okStatus();
}

Status RankExecutor::initialize() {
  HETC_RETURN_IF_ERROR(arena_.allocate(program_->arena_bytes()));
  HETC_RETURN_IF_ERROR(buffers_.build(*program_, arena_));
  auto weights = byName(package_->weights);
  auto constants = byName(package_->constants);
  std::string weightsFile = package_->manifest.weights_file().empty()
                                ? "weights.safetensors"
                                : package_->manifest.weights_file();
  std::string constantsFile = package_->manifest.constants_file().empty()
                                  ? "the package (no constants file)"
                                  : package_->manifest.constants_file();
  for (const Buffer &buffer : program_->buffers()) {
    if (buffer.alias_of() >= 0)
      continue; // loaders skip aliases
    const TensorView &view = buffers_.view(buffer.id());
    switch (buffer.kind()) {
    case hetc::pkg::PARAMETER:
      HETC_RETURN_IF_ERROR(loadNamed(buffer, view, weights, weightsFile.c_str()));
      break;
    case hetc::pkg::CONSTANT:
      HETC_RETURN_IF_ERROR(
          loadNamed(buffer, view, constants, constantsFile.c_str()));
      break;
    case hetc::pkg::OPTIMIZER_STATE:
      std::memset(view.data, 0, view.byteSize());
      break;
    case hetc::pkg::INPUT:
      if (buffer.role() == hetc::pkg::TOKENS)
        tokensBuffer_ = buffer.id();
      else if (buffer.role() == hetc::pkg::LABELS)
        labelsBuffer_ = buffer.id();
      else
        feedBuffers_.push_back(buffer.id());
      break;
    default:
      break;
    }
  }
  int64_t count = program_->num_samples() * package_->manifest.seq_len();
  tokens_.assign(static_cast<size_t>(count), 0);
  labels_.assign(static_cast<size_t>(count), 0);
  return okStatus();
}

int64_t RankExecutor::tokensPerStep() const {
  return program_->num_samples() * package_->manifest.seq_len();
}

namespace {

void writeTokens(const std::vector<int64_t> &values, const TensorView &view) {
  if (view.dtype == DType::kI64) {
    std::memcpy(view.data, values.data(), values.size() * sizeof(int64_t));
    return;
  }
  int32_t *out = view.as<int32_t>();
  for (size_t i = 0; i < values.size(); ++i)
    out[i] = static_cast<int32_t>(values[i]); // < vocab_size: checked
}

} // namespace

Status RankExecutor::fillInputs(int64_t step, const TokenLoader &data) {
  if (tokensBuffer_ < 0 || !feedBuffers_.empty())
    return failedPrecondition(
        "the program ",
        tokensBuffer_ < 0 ? "reads no TOKENS input"
                          : "reads FEED input '" +
                                program_->buffers(feedBuffers_[0]).name() +
                                "'",
        "; the data loader fills only TOKENS and LABELS (write FEED inputs "
        "and call runInstructions)");
  const hetc::pkg::Manifest &manifest = package_->manifest;
  int64_t seqLen = manifest.seq_len(), vocab = manifest.vocab_size();
  int64_t first = program_->first_sample(), count = program_->num_samples();
  HETC_RETURN_IF_ERROR(data.fill(step, manifest.global_batch(), first, count,
                                 seqLen, tokens_.data(), labels_.data()),
                       "step ", step);
  // Sample j reads tokens [start, start + T]: the inputs are positions
  // 0..T-1 and the last label is position T.
  for (int64_t j = 0; j < count; ++j) {
    const int64_t *in = tokens_.data() + j * seqLen;
    const int64_t *next = labels_.data() + j * seqLen;
    for (int64_t p = 0; p <= seqLen; ++p) {
      int64_t id = p < seqLen ? in[p] : next[seqLen - 1];
      if (id < vocab)
        continue;
      int64_t start = 0;
      HETC_RETURN_IF_ERROR(data.sampleStart(step, manifest.global_batch(),
                                            first + j, seqLen, &start));
      return outOfRange("step ", step, ", sample ", first + j, ", position ",
                        p, ": token id ", id, " (token ", start + p,
                        " of data file '", data.path(),
                        "') is out of range for the vocabulary size ", vocab,
                        " (is --data-dtype right?)");
    }
  }
  writeTokens(tokens_, buffers_.view(tokensBuffer_));
  if (labelsBuffer_ >= 0)
    writeTokens(labels_, buffers_.view(labelsBuffer_));
  return okStatus();
}

Status RankExecutor::runInstructions() {
  for (int i = 0; i < program_->instructions_size(); ++i) {
    const hetc::pkg::Instruction &inst = program_->instructions(i);
    HETC_RETURN_IF_ERROR(kernels_[i]->run(inst, buffers_),
                         describeInstruction(i, inst));
  }
  return okStatus();
}

Status RankExecutor::runStep(int64_t step, const TokenLoader &data,
                             float *loss) {
  HETC_RETURN_IF_ERROR(fillInputs(step, data), "rank ", rank_);
  HETC_RETURN_IF_ERROR(runInstructions(), "rank ", rank_, ", step ", step);
  *loss = this->loss();
  return okStatus();
}

std::vector<NamedTensor>
RankExecutor::snapshot(hetc::pkg::BufferKind kind) const {
  std::vector<NamedTensor> tensors;
  for (const Buffer &buffer : program_->buffers()) {
    if (buffer.alias_of() >= 0 || buffer.kind() != kind)
      continue;
    const TensorView &view = buffers_.view(buffer.id());
    NamedTensor tensor;
    tensor.name = buffer.name();
    tensor.dtype = packageDTypeName(buffer.dtype());
    tensor.shape.assign(buffer.shape().begin(), buffer.shape().end());
    const uint8_t *bytes = static_cast<const uint8_t *>(view.data);
    tensor.data.assign(bytes, bytes + view.byteSize());
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

} // namespace hetc::runtime::exec
