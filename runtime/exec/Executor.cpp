//===- Executor.cpp - a rank's arena, initial values and step -------------===//

#include "runtime/exec/Executor.h"

#include "runtime/exec/CheckpointTensors.h"
#include "runtime/exec/EvalProgramCheck.h"
#include "runtime/exec/ProgramCheck.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace hetc::runtime::exec {
namespace {

using hetc::package::NamedTensor;
using hetc::pkg::Buffer;

std::string tensorType(const std::string &dtype, const std::vector<int64_t> &shape) {
  return dtype + shapeToString(shape);
}

// "parameter buffer 3 'w'".
std::string describeLoaded(const Buffer &buffer) {
  return std::string(buffer.kind() == hetc::pkg::PARAMETER ? "parameter "
                                                           : "constant ") +
         describeBuffer(buffer);
}

// Copies `tensor` (from `file`) into the bytes of `buffer`, named alike, on
// `device`.
Status loadNamed(Device &device, const Buffer &buffer, const TensorView &view,
                 const NamedTensor &tensor, const char *file) {
  std::string what = describeLoaded(buffer);
  std::vector<int64_t> shape(buffer.shape().begin(), buffer.shape().end());
  if (tensor.dtype != packageDTypeName(buffer.dtype()) || tensor.shape != shape)
    return invalidArgument("tensor '", tensor.name, "' in ", file, " is ",
                           tensorType(tensor.dtype, tensor.shape), " but ",
                           what, " is ",
                           tensorType(packageDTypeName(buffer.dtype()), shape));
  if (tensor.data.size() != view.byteSize())
    return dataLoss("tensor '", tensor.name, "' in ", file, " has ",
                    tensor.data.size(), " bytes, not ", view.byteSize());
  return device.copyToDevice(view.data, tensor.data.data(),
                             tensor.data.size());
}

std::map<std::string, const NamedTensor *>
byName(const std::vector<NamedTensor> &tensors) {
  std::map<std::string, const NamedTensor *> map;
  for (const NamedTensor &tensor : tensors)
    map.emplace(tensor.name, &tensor);
  return map;
}

// The buffers of `kind` that take a tensor of `file` by name: every owner
// the file names, and for an owner it does not name, its views that the
// file names (the parameters of a flat vector). NOT_FOUND for an owner with
// neither.
Status buffersNamedIn(const hetc::pkg::Program &program,
                      hetc::pkg::BufferKind kind,
                      const std::map<std::string, const NamedTensor *> &tensors,
                      const char *file, std::vector<int> *ids) {
  std::vector<bool> loadedViews(program.buffers_size(), false);
  for (const Buffer &buffer : program.buffers()) {
    if (buffer.kind() != kind || buffer.alias_of() < 0 ||
        !tensors.count(buffer.name()) ||
        tensors.count(program.buffers(buffer.alias_of()).name()))
      continue;
    ids->push_back(buffer.id());
    loadedViews[buffer.alias_of()] = true;
  }
  for (const Buffer &buffer : program.buffers()) {
    if (buffer.kind() != kind || buffer.alias_of() >= 0 ||
        loadedViews[buffer.id()])
      continue;
    if (!tensors.count(buffer.name()))
      return notFound(file, " has no tensor '", buffer.name(), "' for ",
                      describeLoaded(buffer));
    ids->push_back(buffer.id());
  }
  std::sort(ids->begin(), ids->end());
  return okStatus();
}

// Each optimizer state buffer, or where one has narrower views (the pieces
// of a flat state vector), those views.
std::vector<int> stateBuffers(const hetc::pkg::Program &program) {
  auto narrower = [&](const Buffer &view) {
    const Buffer &owner = program.buffers(view.alias_of());
    return view.offset() != owner.offset() ||
           bufferBytes(view) != bufferBytes(owner);
  };
  std::vector<bool> hasNarrowerViews(program.buffers_size(), false);
  for (const Buffer &buffer : program.buffers())
    if (buffer.alias_of() >= 0 && narrower(buffer))
      hasNarrowerViews[buffer.alias_of()] = true;
  std::vector<int> ids;
  for (const Buffer &buffer : program.buffers())
    if (buffer.kind() == hetc::pkg::OPTIMIZER_STATE &&
        (buffer.alias_of() >= 0 ? narrower(buffer)
                                : !hasNarrowerViews[buffer.id()]))
      ids.push_back(buffer.id());
  return ids;
}

} // namespace

Status RankExecutor::create(const LoadedPackage &package, int rank,
                            const KernelRegistry &registry,
                            std::unique_ptr<RankExecutor> *executor,
                            comm::Communicator *communicator) {
  return create(package, rank, createCpuDevice(registry), executor,
                communicator);
}

Status RankExecutor::create(const LoadedPackage &package, int rank,
                            std::unique_ptr<Device> device,
                            std::unique_ptr<RankExecutor> *executor,
                            comm::Communicator *communicator) {
  const KernelRegistry &registry = device->registry();
  if (rank < 0 || rank >= static_cast<int>(package.programs.size()) ||
      rank >= package.manifest.ranks_size())
    return outOfRange("rank ", rank, " is not a rank of the package (",
                      package.programs.size(), " programs)");
  const hetc::pkg::RankInfo &info = package.manifest.ranks(rank);
  const hetc::pkg::Program &program = package.programs[rank];
  HETC_RETURN_IF_ERROR(
      validateProgram(package.manifest, rank, program, registry),
      info.program_file());
  int numRanks = package.manifest.ranks_size();
  if (communicator &&
      (communicator->rank() != rank || communicator->worldSize() != numRanks))
    return invalidArgument("rank ", rank, " of a package of ", numRanks,
                           " ranks was given the communicator of rank ",
                           communicator->rank(), " of ",
                           communicator->worldSize());
  std::unique_ptr<RankExecutor> result(new RankExecutor());
  result->package_ = &package;
  result->rank_ = rank;
  result->device_ = std::move(device);
  if (!result->device_->hostMemory())
    result->hostDevice_ = createCpuDevice(cpuKernelRegistry());
  result->communicator_ = communicator;
  HETC_RETURN_IF_ERROR(
      result->resolve(program, info.program_file(), &result->train_));
  if (!package.evalPrograms.empty()) {
    const hetc::pkg::Program &eval = package.evalPrograms[rank];
    HETC_RETURN_IF_ERROR(
        validateEvalProgram(package.manifest, rank, program, eval, registry),
        info.eval_program_file());
    result->eval_.firstSpan = static_cast<int>(result->train_.spans.size());
    HETC_RETURN_IF_ERROR(
        result->resolve(eval, info.eval_program_file(), &result->eval_));
  }
  HETC_RETURN_IF_ERROR(result->initialize(), "rank ", rank);
  *executor = std::move(result);
  return okStatus();
}

Status RankExecutor::resolve(const hetc::pkg::Program &program,
                             const std::string &file, RankProgram *into) {
  const KernelRegistry &registry = device_->registry();
  int numRanks = package_->manifest.ranks_size();
  into->program = &program;
  into->commLaunches.resize(program.instructions_size());
  std::vector<Span> &spans = into->spans;
  auto touchesHost = [&](const hetc::pkg::Instruction &inst) {
    auto isHost = [&](int id) { return program.buffers(id).host(); };
    return std::any_of(inst.operands().begin(), inst.operands().end(),
                       isHost) ||
           std::any_of(inst.results().begin(), inst.results().end(), isHost);
  };
  for (int i = 0; i < program.instructions_size(); ++i) {
    const hetc::pkg::Instruction &inst = program.instructions(i);
    bool onHost = hostDevice_ && touchesHost(inst);
    const KernelInfo *kernel =
        (onHost ? host().registry() : registry).find(inst.kernel());
    if (!kernel)
      return unimplemented(file, ": ", describeInstruction(i, inst),
                           " runs on the host, which has no kernel '",
                           inst.kernel(), "'");
    into->kernels.push_back(kernel);
    bool crossesRanks = kernel->comm != CommKind::kNone;
    if (crossesRanks || spans.empty() || spans.back().crossesRanks ||
        spans.back().onHost != onHost)
      spans.push_back({i, i + 1, crossesRanks, onHost, {}});
    else
      spans.back().end = i + 1;
    if (!crossesRanks)
      continue;
    if (!communicator_)
      return failedPrecondition("rank ", rank_, ": ", file, ": ",
                                describeInstruction(i, inst),
                                " crosses ranks, but the rank has no "
                                "communicator");
    HETC_RETURN_IF_ERROR(resolveCommLaunch(program, rank_, numRanks, inst,
                                           kernel->comm,
                                           &into->commLaunches[i]),
                         file, ": ", describeInstruction(i, inst));
  }
  for (Span &span : spans)
    if (span.onHost)
      span.lanes = HostPipeline(program, span.begin, span.end);
  return okStatus();
}

Status RankExecutor::initialize() {
  HETC_RETURN_IF_ERROR(device_->bind());
  int64_t arenaBytes = train_.program->arena_bytes();
  if (hasEvaluation())
    arenaBytes = std::max(arenaBytes, eval_.program->arena_bytes());
  HETC_RETURN_IF_ERROR(arena_.allocate(*device_, arenaBytes));
  const hetc::pkg::Program &program = *train_.program;
  // Zeroed too: the offloaded optimizer state's initial value.
  HETC_RETURN_IF_ERROR(hostArena_.allocate(host(), program.host_arena_bytes()),
                       "the host arena");
  HETC_RETURN_IF_ERROR(bindBuffers(train_));
  auto weights = byName(package_->weights);
  auto constants = byName(package_->constants);
  std::string weightsFile = package_->manifest.weights_file().empty()
                                ? "weights.safetensors"
                                : package_->manifest.weights_file();
  std::string constantsFile = package_->manifest.constants_file().empty()
                                  ? "the package (no constants file)"
                                  : package_->manifest.constants_file();
  HETC_RETURN_IF_ERROR(buffersNamedIn(program, hetc::pkg::PARAMETER, weights,
                                      weightsFile.c_str(), &parameterBuffers_));
  for (int id : parameterBuffers_) {
    const Buffer &buffer = program.buffers(id);
    HETC_RETURN_IF_ERROR(loadNamed(*device_, buffer, train_.buffers.view(id),
                                   *weights.at(buffer.name()),
                                   weightsFile.c_str()));
  }
  HETC_RETURN_IF_ERROR(buffersNamedIn(program, hetc::pkg::CONSTANT, constants,
                                      constantsFile.c_str(),
                                      &constantBuffers_));
  for (int id : constantBuffers_) {
    const Buffer &buffer = program.buffers(id);
    HETC_RETURN_IF_ERROR(loadNamed(*device_, buffer, train_.buffers.view(id),
                                   *constants.at(buffer.name()),
                                   constantsFile.c_str()));
  }
  // The arena starts zeroed, which is the optimizer state's initial value.
  stateBuffers_ = stateBuffers(program);
  if (!hasEvaluation())
    return okStatus();
  // The evaluation reads the training program's parameters and constants
  // in place (validateEvalProgram); only its own constants, past the
  // training program's arena, are loaded here.
  HETC_RETURN_IF_ERROR(bindBuffers(eval_));
  std::vector<int> evalConstants;
  HETC_RETURN_IF_ERROR(buffersNamedIn(*eval_.program, hetc::pkg::CONSTANT,
                                      constants, constantsFile.c_str(),
                                      &evalConstants));
  for (int id : evalConstants) {
    const Buffer &buffer = eval_.program->buffers(id);
    if (buffer.offset() >= program.arena_bytes())
      HETC_RETURN_IF_ERROR(loadNamed(*device_, buffer, eval_.buffers.view(id),
                                     *constants.at(buffer.name()),
                                     constantsFile.c_str()));
  }
  return okStatus();
}

Status RankExecutor::bindBuffers(RankProgram &loaded) {
  const hetc::pkg::Program &program = *loaded.program;
  HETC_RETURN_IF_ERROR(loaded.buffers.build(program, arena_, hostArena_));
  int64_t maxRows = 0;
  for (const Buffer &buffer : program.buffers()) {
    if (buffer.alias_of() >= 0 || buffer.kind() != hetc::pkg::INPUT)
      continue;
    if (buffer.role() == hetc::pkg::FEED) {
      loaded.feedBuffers.push_back(buffer.id());
      continue;
    }
    if (buffer.role() == hetc::pkg::STEP) {
      loaded.stepInputs.push_back(buffer.id());
      continue;
    }
    loaded.tokenInputs.push_back(buffer.id());
    maxRows = std::max(maxRows, buffer.shape(0));
  }
  auto count = static_cast<size_t>(maxRows * package_->manifest.seq_len());
  tokens_.resize(std::max(tokens_.size(), count), 0);
  labels_.resize(std::max(labels_.size(), count), 0);
  return okStatus();
}

namespace {

// The bytes of a token buffer of `dtype` (i64 or i32) holding `values`.
void encodeTokens(const int64_t *values, int64_t count, DType dtype,
                  std::vector<uint8_t> *bytes) {
  bytes->resize(static_cast<size_t>(count) * dtypeSize(dtype));
  if (dtype == DType::kI64) {
    std::memcpy(bytes->data(), values, bytes->size());
    return;
  }
  int32_t *out = reinterpret_cast<int32_t *>(bytes->data());
  for (int64_t i = 0; i < count; ++i)
    out[i] = static_cast<int32_t>(values[i]); // < vocab_size: checked
}

} // namespace

Status RankExecutor::fillInputs(int64_t step, const TokenLoader &data) {
  return fillInputs(train_, step, data);
}

Status RankExecutor::fillInputs(RankProgram &loaded, int64_t step,
                                const TokenLoader &data) {
  if (!loaded.feedBuffers.empty())
    return failedPrecondition(
        "the program reads FEED input '",
        loaded.program->buffers(loaded.feedBuffers[0]).name(),
        "'; the data loader fills only TOKENS and LABELS (write FEED inputs "
        "and call runInstructions)");
  for (int id : loaded.tokenInputs)
    HETC_RETURN_IF_ERROR(
        fillTokenInput(loaded, step, data, loaded.program->buffers(id)));
  for (int id : loaded.stepInputs)
    HETC_RETURN_IF_ERROR(device_->copyToDevice(loaded.buffers.view(id).data,
                                               &step, sizeof(step)));
  return okStatus();
}

Status RankExecutor::fillTokenInput(RankProgram &loaded, int64_t step,
                                    const TokenLoader &data,
                                    const Buffer &buffer) {
  const hetc::pkg::Manifest &manifest = package_->manifest;
  int64_t seqLen = manifest.seq_len(), vocab = manifest.vocab_size();
  int64_t first = buffer.first_sample(), rows = buffer.shape(0);
  HETC_RETURN_IF_ERROR(data.fill(step, manifest.global_batch(), first, rows,
                                 seqLen, tokens_.data(), labels_.data()),
                       "step ", step);
  // Sample j reads tokens [start, start + T]: the inputs are positions
  // 0..T-1, the labels positions 1..T.
  bool labels = buffer.role() == hetc::pkg::LABELS;
  const int64_t *values = labels ? labels_.data() : tokens_.data();
  int64_t shift = labels ? 1 : 0;
  for (int64_t j = 0; j < rows; ++j) {
    for (int64_t p = 0; p < seqLen; ++p) {
      int64_t id = values[j * seqLen + p];
      if (id < vocab)
        continue;
      int64_t start = 0;
      HETC_RETURN_IF_ERROR(data.sampleStart(step, manifest.global_batch(),
                                            first + j, seqLen, &start));
      return outOfRange("step ", step, ", sample ", first + j, ", position ",
                        p + shift, ": token id ", id, " (token ",
                        start + p + shift, " of data file '", data.path(),
                        "') is out of range for the vocabulary size ", vocab,
                        " (is --data-dtype right?)");
    }
  }
  const TensorView &view = loaded.buffers.view(buffer.id());
  encodeTokens(values, rows * seqLen, view.dtype, &upload_);
  return device_->copyToDevice(view.data, upload_.data(), upload_.size());
}

template <typename Launch>
Status RankExecutor::timed(const RankProgram &loaded, int index,
                           Launch &&launch) {
  if (!profile_)
    return launch();
  TimedLaunch timed;
  HETC_RETURN_IF_ERROR(device_->mark(&timed.begin));
  Status status = launch();
  HETC_RETURN_IF_ERROR(device_->mark(&timed.end));
  LaunchRecord &record = timed.record;
  record.rank = rank_;
  record.step = profiledStep_;
  record.instruction = index;
  record.evaluation = profilingEvaluation_;
  record.communication = loaded.commLaunches[index].kind != CommKind::kNone;
  if (record.communication) {
    const hetc::pkg::Instruction &inst = loaded.program->instructions(index);
    int id = inst.operands_size() ? inst.operands(0) : inst.results(0);
    record.bytes = bufferBytes(loaded.program->buffers(id));
  }
  timedLaunches_.push_back(timed);
  return status;
}

void RankExecutor::setProfile(RankProfile *profile) {
  profile_ = profile;
  if (profile)
    device_->startTiming();
}

Status RankExecutor::recordTimedLaunches() {
  for (TimedLaunch &timed : timedLaunches_) {
    Device::TimePoint begin, end;
    HETC_RETURN_IF_ERROR(device_->markedTime(timed.begin, &begin));
    HETC_RETURN_IF_ERROR(device_->markedTime(timed.end, &end));
    timed.record.start = profile_->since(begin);
    timed.record.seconds = profile_->since(end) - timed.record.start;
    profile_->add(timed.record);
  }
  timedLaunches_.clear();
  device_->forgetMarks();
  return okStatus();
}

Status RankExecutor::runSpan(RankProgram &loaded, int index) {
  const Span &span = loaded.spans[index];
  const hetc::pkg::Program &program = *loaded.program;
  if (span.crossesRanks) {
    const hetc::pkg::Instruction &inst = program.instructions(span.begin);
    HETC_RETURN_IF_ERROR(timed(loaded, span.begin,
                               [&] {
                                 return runCommLaunch(
                                     loaded.commLaunches[span.begin], inst,
                                     loaded.buffers, *communicator_);
                               }),
                         describeInstruction(span.begin, inst));
    return okStatus();
  }
  if (span.onHost) {
    // The host reads what the device has computed so far.
    HETC_RETURN_IF_ERROR(device_->synchronize());
    auto describe = [&](int i) {
      return describeInstruction(i, program.instructions(i));
    };
    // Timed, each launch runs alone, so that its time is its own.
    if (!profile_)
      return span.lanes.run([&] { return device_->bind(); },
                            [&](int i) {
                              return detail::annotateWith(
                                  runHostLaunch(loaded, i), describe(i));
                            });
    for (int i = span.begin; i < span.end; ++i)
      HETC_RETURN_IF_ERROR(
          timed(loaded, i, [&] { return runHostLaunch(loaded, i); }),
          describe(i));
    return okStatus();
  }
  return device_->runSpan(loaded.firstSpan + index, [&]() -> Status {
    for (int i = span.begin; i < span.end; ++i) {
      const hetc::pkg::Instruction &inst = program.instructions(i);
      HETC_RETURN_IF_ERROR(timed(loaded, i,
                                 [&] {
                                   return loaded.kernels[i]->run(
                                       inst, loaded.buffers);
                                 }),
                           describeInstruction(i, inst));
      noteProgress();
    }
    return okStatus();
  });
}

Status RankExecutor::runHostLaunch(RankProgram &loaded, int index) {
  const hetc::pkg::Program &program = *loaded.program;
  const hetc::pkg::Instruction &inst = program.instructions(index);
  if (inst.kernel() == "copy") {
    const Buffer &from = program.buffers(inst.operands(0));
    const Buffer &to = program.buffers(inst.results(0));
    const TensorView &source = loaded.buffers.view(from.id());
    void *target = loaded.buffers.view(to.id()).data;
    if (!from.host())
      return device_->copyToHost(target, source.data, source.byteSize());
    if (!to.host())
      return device_->copyToDevice(target, source.data, source.byteSize());
  }
  return loaded.kernels[index]->run(inst, loaded.buffers);
}

void RankExecutor::noteProgress() {
  if (communicator_)
    communicator_->noteProgress();
}

Status RankExecutor::runInstructions() { return runInstructions(train_); }

Status RankExecutor::runInstructions(RankProgram &loaded) {
  HETC_RETURN_IF_ERROR(device_->bind());
  // A run that failed left its timings behind.
  timedLaunches_.clear();
  device_->forgetMarks();
  // Per span as well: a replayed CUDA graph runs no launch code.
  for (int index = 0; index < static_cast<int>(loaded.spans.size()); ++index) {
    HETC_RETURN_IF_ERROR(runSpan(loaded, index));
    noteProgress();
  }
  HETC_RETURN_IF_ERROR(device_->synchronize());
  if (profile_)
    HETC_RETURN_IF_ERROR(recordTimedLaunches());
  int lossBuffer = loaded.program->loss_buffer();
  if (lossBuffer < 0)
    return okStatus();
  return device_->copyToHost(&loaded.loss, loaded.buffers.view(lossBuffer).data,
                             sizeof(float));
}

Status RankExecutor::runStep(int64_t step, const TokenLoader &data,
                             float *loss) {
  profiledStep_ = step;
  profilingEvaluation_ = false;
  if (communicator_)
    communicator_->noteStep(step);
  HETC_RETURN_IF_ERROR(fillInputs(train_, step, data));
  HETC_RETURN_IF_ERROR(runInstructions(train_), "step ", step);
  *loss = train_.loss;
  return okStatus();
}

Status RankExecutor::runEvaluation(int64_t batch, const TokenLoader &data,
                                   float *loss) {
  if (!hasEvaluation())
    return failedPrecondition("the package has no evaluation program for "
                              "rank ", rank_, " (compile it again)");
  profiledStep_ = batch;
  profilingEvaluation_ = true;
  HETC_RETURN_IF_ERROR(fillInputs(eval_, batch, data), "evaluation");
  HETC_RETURN_IF_ERROR(runInstructions(eval_), "evaluation batch ", batch);
  *loss = eval_.loss;
  return okStatus();
}

Status RankExecutor::snapshot(hetc::pkg::BufferKind kind,
                              std::vector<NamedTensor> *tensors) const {
  return copyOut(kind == hetc::pkg::PARAMETER  ? parameterBuffers_
                 : kind == hetc::pkg::CONSTANT ? constantBuffers_
                                               : stateBuffers_,
                 tensors);
}

Status RankExecutor::restore(const std::vector<NamedTensor> &parameters,
                             const std::vector<NamedTensor> &state) {
  HETC_RETURN_IF_ERROR(device_->bind());
  std::vector<uint8_t> bytes;
  for (const auto &[ids, tensors] :
       {std::pair(&parameterBuffers_, byName(parameters)),
        std::pair(&stateBuffers_, byName(state))})
    for (int id : *ids) {
      const Buffer &buffer = train_.program->buffers(id);
      HETC_RETURN_IF_ERROR(checkpointBytes(tensors, buffer, &bytes));
      HETC_RETURN_IF_ERROR(holder(buffer).copyToDevice(
          train_.buffers.view(id).data, bytes.data(), bytes.size()));
    }
  return okStatus();
}

namespace {

// The bytes the training state spans in the device's arena or the host's:
// the parameters and optimizer state lie in the persistent region at the
// start of the arena.
int64_t trainingStateBytes(const hetc::pkg::Program &program, bool host) {
  int64_t end = 0;
  for (const Buffer &buffer : program.buffers())
    if (buffer.alias_of() < 0 && buffer.host() == host &&
        (buffer.kind() == hetc::pkg::PARAMETER ||
         buffer.kind() == hetc::pkg::OPTIMIZER_STATE))
      end = std::max(end, buffer.offset() + bufferBytes(buffer));
  return end;
}

Status keepFirstBytes(const Arena &arena, int64_t bytes, Arena &copy) {
  Device &device = *arena.device();
  if (copy.size() != bytes)
    HETC_RETURN_IF_ERROR(copy.allocate(device, bytes),
                         "keeping a copy of the training state");
  return device.copyOnDevice(copy.data(), arena.data(),
                             static_cast<size_t>(bytes));
}

} // namespace

Status RankExecutor::keepTrainingState() {
  HETC_RETURN_IF_ERROR(device_->bind());
  HETC_RETURN_IF_ERROR(keepFirstBytes(
      arena_, trainingStateBytes(*train_.program, false), keptState_));
  return keepFirstBytes(hostArena_, trainingStateBytes(*train_.program, true),
                        keptHostState_);
}

Status RankExecutor::restoreTrainingState() {
  HETC_RETURN_IF_ERROR(device_->bind());
  HETC_RETURN_IF_ERROR(
      device_->copyOnDevice(arena_.data(), keptState_.data(),
                            static_cast<size_t>(keptState_.size())));
  return host().copyOnDevice(hostArena_.data(), keptHostState_.data(),
                             static_cast<size_t>(keptHostState_.size()));
}

Status RankExecutor::outputs(std::vector<NamedTensor> *tensors) const {
  return copyOut({train_.program->output_buffers().begin(),
                  train_.program->output_buffers().end()},
                 tensors);
}

Status RankExecutor::copyOut(const std::vector<int> &ids,
                             std::vector<NamedTensor> *tensors) const {
  HETC_RETURN_IF_ERROR(device_->bind());
  tensors->clear();
  for (int id : ids) {
    const Buffer &buffer = train_.program->buffers(id);
    const TensorView &view = train_.buffers.view(buffer.id());
    NamedTensor tensor;
    tensor.name = buffer.name();
    tensor.dtype = packageDTypeName(buffer.dtype());
    tensor.shape.assign(buffer.shape().begin(), buffer.shape().end());
    tensor.data.resize(view.byteSize());
    HETC_RETURN_IF_ERROR(holder(buffer).copyToHost(tensor.data.data(),
                                                   view.data, view.byteSize()),
                         "reading ", describeBuffer(buffer));
    tensors->push_back(std::move(tensor));
  }
  return okStatus();
}

} // namespace hetc::runtime::exec
