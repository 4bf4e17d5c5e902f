//===- ProgramCheck.cpp ---------------------------------------------------===//

#include "runtime/exec/ProgramCheck.h"

#include "runtime/package/Package.h"
#include "runtime/exec/CommKernels.h"

#include <algorithm>

namespace hetc::runtime::exec {
namespace {

using hetc::pkg::Buffer;
using hetc::pkg::Instruction;
using hetc::pkg::Program;

const char *kindName(hetc::pkg::BufferKind kind) {
  switch (kind) {
  case hetc::pkg::PARAMETER:
    return "parameter";
  case hetc::pkg::OPTIMIZER_STATE:
    return "optimizer state";
  case hetc::pkg::CONSTANT:
    return "constant";
  case hetc::pkg::INPUT:
    return "input";
  case hetc::pkg::ACTIVATION:
    return "activation";
  default:
    return "unspecified";
  }
}

std::string shapeOf(const Buffer &buffer) {
  return shapeToString(Shape(buffer.shape().begin(), buffer.shape().end()));
}

Status checkBuffer(const Program &program, int64_t index, int64_t seqLen) {
  const Buffer &buffer = program.buffers(static_cast<int>(index));
  if (buffer.id() != index)
    return invalidArgument("buffer ", index, " '", buffer.name(),
                           "' has id ", buffer.id(),
                           "; buffers[i].id must be i");
  std::string what = describeBuffer(buffer);
  DType dtype;
  HETC_RETURN_IF_ERROR(runtimeDType(buffer.dtype(), &dtype), what);
  int64_t bytes = bufferBytes(buffer);
  if (bytes < 0)
    return invalidArgument(what, " has an invalid shape ", shapeOf(buffer));
  if (buffer.kind() == hetc::pkg::KIND_UNSPECIFIED ||
      !hetc::pkg::BufferKind_IsValid(buffer.kind()))
    return invalidArgument(what, " has no kind");
  if (buffer.alias_of() >= 0) {
    if (buffer.alias_of() >= program.buffers_size() ||
        buffer.alias_of() == index)
      return invalidArgument(what, " aliases buffer ", buffer.alias_of(),
                             ", which is not another buffer of the program");
    const Buffer &target = program.buffers(buffer.alias_of());
    if (target.alias_of() >= 0)
      return invalidArgument(what, " aliases ", describeBuffer(target),
                             ", itself an alias; aliases point at a buffer "
                             "owning its bytes");
    if (target.host() != buffer.host())
      return invalidArgument(what, " lies on the ",
                             buffer.host() ? "host" : "device", " but views ",
                             describeBuffer(target), ", which does not");
    if (target.kind() != buffer.kind())
      return invalidArgument(what, " is ", kindName(buffer.kind()),
                             " but views ", describeBuffer(target), ", ",
                             kindName(target.kind()),
                             "; a view has the kind of the buffer it views");
    // A view may be any slice of the bytes it views: a reshape, a sample
    // range of an activation, one parameter of a flat vector.
    int64_t begin = buffer.offset() - target.offset();
    int64_t targetBytes = bufferBytes(target);
    if (begin < 0 || targetBytes < 0 || begin > targetBytes - bytes)
      return invalidArgument(
          what, " (", bytes, " bytes at offset ", buffer.offset(),
          ") lies outside the bytes [", target.offset(), ", ",
          target.offset() + std::max<int64_t>(targetBytes, 0), ") of ",
          describeBuffer(target), ", which it views");
    if (begin % static_cast<int64_t>(dtypeSize(dtype)) != 0)
      return invalidArgument(what, " starts at byte ", begin, " of ",
                             describeBuffer(target), ", not at a whole ",
                             packageDTypeName(buffer.dtype()), " element");
    return okStatus();
  }
  if (buffer.alias_of() < -1)
    return invalidArgument(what, " has alias_of ", buffer.alias_of());
  if (buffer.offset() < 0 || buffer.offset() % kArenaAlignment != 0)
    return invalidArgument(what, " has offset ", buffer.offset(),
                           "; offsets are non-negative multiples of ",
                           kArenaAlignment);
  if (buffer.host() && buffer.kind() != hetc::pkg::OPTIMIZER_STATE &&
      buffer.kind() != hetc::pkg::ACTIVATION)
    return invalidArgument(what, " is a host buffer but ",
                           kindName(buffer.kind()),
                           "; only optimizer state and activations live on "
                           "the host");
  int64_t arenaBytes =
      buffer.host() ? program.host_arena_bytes() : program.arena_bytes();
  if (bytes > arenaBytes - buffer.offset())
    return invalidArgument(what, " (", bytes, " bytes at offset ",
                           buffer.offset(), ") does not fit in the ",
                           buffer.host() ? "host arena" : "arena", " of ",
                           arenaBytes, " bytes");
  if (buffer.kind() == hetc::pkg::INPUT && buffer.role() == hetc::pkg::STEP) {
    if (buffer.dtype() != hetc::pkg::I64 || buffer.shape_size() != 0)
      return invalidArgument(what, " is the step index, of dtype ",
                             packageDTypeName(buffer.dtype()), " and shape ",
                             shapeOf(buffer), "; it must be 0-D I64");
    return okStatus();
  }
  if (buffer.kind() == hetc::pkg::INPUT &&
      buffer.role() != hetc::pkg::FEED) {
    if (buffer.role() != hetc::pkg::TOKENS && buffer.role() != hetc::pkg::LABELS)
      return invalidArgument(what, " is an input with no role (TOKENS, "
                                   "LABELS, FEED or STEP)");
    if (dtype != DType::kI64 && dtype != DType::kI32)
      return invalidArgument(what, " is an input of dtype ",
                             packageDTypeName(buffer.dtype()),
                             "; token inputs are I64 or I32");
    if (buffer.shape_size() != 2 || buffer.shape(0) < 1 ||
        buffer.shape(1) != seqLen)
      return invalidArgument(what, " is an input of shape ", shapeOf(buffer),
                             "; token inputs are [samples, ", seqLen, "]");
    // Each micro-batch's inputs are samples of the rank's own range.
    int64_t first = buffer.first_sample(), end = first + buffer.shape(0);
    int64_t rankEnd = program.first_sample() + program.num_samples();
    if (first < program.first_sample() || end > rankEnd)
      return invalidArgument(what, " holds samples [", first, ", ", end,
                             "), outside the rank's samples [",
                             program.first_sample(), ", ", rankEnd, ")");
  }
  return okStatus();
}

// The persistent buffers (all kinds but activations) of one arena never
// share bytes.
Status checkPersistentOverlap(const Program &program) {
  std::vector<const Buffer *> owners;
  for (const Buffer &buffer : program.buffers())
    if (buffer.alias_of() < 0 && buffer.kind() != hetc::pkg::ACTIVATION &&
        bufferBytes(buffer) > 0)
      owners.push_back(&buffer);
  std::sort(owners.begin(), owners.end(), [](const Buffer *a, const Buffer *b) {
    return std::make_pair(a->host(), a->offset()) <
           std::make_pair(b->host(), b->offset());
  });
  for (size_t i = 1; i < owners.size(); ++i) {
    const Buffer &prev = *owners[i - 1], &next = *owners[i];
    if (prev.host() == next.host() &&
        prev.offset() + bufferBytes(prev) > next.offset())
      return invalidArgument(describeBuffer(prev), " and ", describeBuffer(next),
                             " (", kindName(prev.kind()), ", ",
                             kindName(next.kind()),
                             ") share arena bytes; persistent buffers never do");
  }
  return okStatus();
}

/// Bytes of the device's arena or of the host's.
struct Extent {
  int64_t begin, end;
  bool host;
  bool overlaps(const Extent &other) const {
    return host == other.host && begin < other.end && other.begin < end;
  }
  bool operator==(const Extent &other) const {
    return host == other.host && begin == other.begin && end == other.end;
  }
};

Extent extentOf(const Program &program, int id) {
  const Buffer &buffer = program.buffers(id);
  return {buffer.offset(), buffer.offset() + bufferBytes(buffer),
          buffer.host()};
}

/// Only a copy moves bytes between the host and the device, and ranks
/// exchange device memory.
Status checkPlacement(const Program &program, const Instruction &inst,
                      const KernelInfo &info) {
  int onHost = 0, count = inst.operands_size() + inst.results_size();
  for (int id : inst.operands())
    onHost += program.buffers(id).host();
  for (int id : inst.results())
    onHost += program.buffers(id).host();
  if (onHost == 0 || inst.kernel() == "copy")
    return okStatus();
  if (info.comm != CommKind::kNone)
    return invalidArgument("communicates host buffers; ranks exchange "
                           "device buffers");
  if (onHost != count)
    return invalidArgument("mixes host and device buffers; only a copy "
                           "moves bytes between them");
  return okStatus();
}

bool sameType(const Buffer &a, const Buffer &b) {
  return a.dtype() == b.dtype() &&
         std::equal(a.shape().begin(), a.shape().end(), b.shape().begin(),
                    b.shape().end());
}

Status checkInstruction(const Program &program, const Instruction &inst,
                        const KernelInfo &info) {
  int operands = inst.operands_size(), results = inst.results_size();
  if (operands < info.minOperands ||
      (info.maxOperands >= 0 && operands > info.maxOperands))
    return invalidArgument("has ", operands, " operands; ", info.name,
                           " takes ", info.operandCountText());
  int mostResults = info.numResults + info.optionalResults;
  if (results < info.numResults || results > mostResults)
    return invalidArgument(
        "has ", results, " results; ", info.name, " gives ", info.numResults,
        mostResults > info.numResults ? " to " + std::to_string(mostResults)
                                      : std::string());
  int numBuffers = program.buffers_size();
  for (int i = 0; i < operands; ++i)
    if (inst.operands(i) < 0 || inst.operands(i) >= numBuffers)
      return invalidArgument("operand ", i, " is buffer ", inst.operands(i),
                             ", outside the program's ", numBuffers,
                             " buffers");
  for (int i = 0; i < results; ++i)
    if (inst.results(i) < 0 || inst.results(i) >= numBuffers)
      return invalidArgument("result ", i, " is buffer ", inst.results(i),
                             ", outside the program's ", numBuffers,
                             " buffers");
  for (const AttrSpec &attr : info.attrs)
    HETC_RETURN_IF_ERROR(checkAttr(inst, attr.name, attr.kind, attr.optional));
  HETC_RETURN_IF_ERROR(checkPlacement(program, inst, info));

  for (int r = 0; r < results; ++r) {
    const Buffer &out = program.buffers(inst.results(r));
    if (out.kind() == hetc::pkg::CONSTANT || out.kind() == hetc::pkg::INPUT)
      return invalidArgument("result ", r, " is ", describeBuffer(out),
                             ", a read-only ", kindName(out.kind()),
                             " buffer");
    // Buffers conflict by bytes, not by ids: two views of one buffer may
    // be disjoint slices, and two owners may share bytes across lifetimes.
    Extent outExtent = extentOf(program, inst.results(r));
    for (int other = 0; other < r; ++other)
      if (extentOf(program, inst.results(other)).overlaps(outExtent))
        return invalidArgument("results ", other, " and ", r, " (",
                               describeBuffer(out),
                               ") share bytes; every result needs its own "
                               "buffer");
    for (int o = 0; o < operands; ++o) {
      const Buffer &in = program.buffers(inst.operands(o));
      Extent inExtent = extentOf(program, inst.operands(o));
      if (!inExtent.overlaps(outExtent))
        continue;
      if (!(inExtent == outExtent))
        return invalidArgument("result ", r, " (", describeBuffer(out),
                               ") shares arena bytes with operand ", o, " (",
                               describeBuffer(in), ")");
      bool allowed =
          (info.inPlace.elementwise && sameType(in, out)) ||
          std::find(info.inPlace.pairs.begin(), info.inPlace.pairs.end(),
                    std::make_pair(o, r)) != info.inPlace.pairs.end();
      if (!allowed)
        return invalidArgument("result ", r, " is operand ", o, " (",
                               describeBuffer(out), "), but ", info.name,
                               " cannot write that result over that "
                               "operand");
    }
  }
  return okStatus();
}

} // namespace

std::string describeInstruction(int index, const Instruction &inst) {
  std::string text = "instruction " + std::to_string(index) + " (" +
                     inst.kernel() + ")";
  if (!inst.location().empty())
    text += " at " + inst.location();
  return text;
}

Status validateManifest(const hetc::pkg::Manifest &manifest) {
  if (manifest.global_batch() <= 0 || manifest.seq_len() <= 0 ||
      manifest.vocab_size() <= 0)
    return invalidArgument("the manifest has global batch ",
                           manifest.global_batch(), ", sequence length ",
                           manifest.seq_len(), " and vocabulary size ",
                           manifest.vocab_size(), "; all must be positive");
  if (manifest.ranks_size() == 0)
    return invalidArgument("the manifest lists no ranks");
  for (const std::string &file :
       {manifest.weights_file(), manifest.constants_file()})
    if (!file.empty() && !hetc::package::isPlainFileName(file))
      return invalidArgument("the manifest names file '", file,
                             "'; package files are plain names in the "
                             "package folder");
  for (int i = 0; i < manifest.ranks_size(); ++i) {
    const hetc::pkg::RankInfo &rank = manifest.ranks(i);
    if (rank.rank() != i)
      return invalidArgument("manifest rank entry ", i, " says rank ",
                             rank.rank());
    bool hasEval = !rank.eval_program_file().empty();
    for (const std::string &file : {rank.program_file(),
                                    hasEval ? rank.eval_program_file()
                                            : rank.program_file()})
      if (!hetc::package::isPlainFileName(file))
        return invalidArgument("manifest rank ", i, " names program file '",
                               file,
                               "'; package files are plain names in the "
                               "package folder");
    if (hasEval == manifest.ranks(0).eval_program_file().empty())
      return invalidArgument("manifest rank ", i,
                             hasEval ? " has" : " lacks",
                             " an evaluation program but rank 0 ",
                             hasEval ? "does not" : "has one");
    if (rank.arena_bytes() < 0 || rank.host_arena_bytes() < 0)
      return invalidArgument("manifest rank ", i, " has arena_bytes ",
                             rank.arena_bytes(), " and host_arena_bytes ",
                             rank.host_arena_bytes());
  }
  return okStatus();
}

Status validateProgram(const hetc::pkg::Manifest &manifest, int rank,
                       const Program &program, const KernelRegistry &registry) {
  const hetc::pkg::RankInfo &info = manifest.ranks(rank);
  if (program.arena_bytes() != info.arena_bytes() ||
      program.host_arena_bytes() != info.host_arena_bytes())
    return invalidArgument(
        "the program's arenas are ", program.arena_bytes(), " bytes and ",
        program.host_arena_bytes(), " on the host, but the manifest says ",
        info.arena_bytes(), " and ", info.host_arena_bytes());
  return validateProgramBody(manifest, rank, program, registry);
}

Status validateProgramBody(const hetc::pkg::Manifest &manifest, int rank,
                           const Program &program,
                           const KernelRegistry &registry) {
  if (program.rank() != rank)
    return invalidArgument("the program is for rank ", program.rank(),
                           ", not ", rank);
  if (program.num_samples() <= 0 || program.first_sample() < 0 ||
      program.first_sample() > manifest.global_batch() - program.num_samples())
    return invalidArgument("the program's samples [", program.first_sample(),
                           ", ", program.first_sample() + program.num_samples(),
                           ") are not a non-empty range of the global batch "
                           "[0, ",
                           manifest.global_batch(), ")");
  // Any number of TOKENS and LABELS inputs (one pair per micro-batch, none
  // on a middle pipeline stage), and a loss only where the rank computes
  // one: whether the package as a whole has a loss is the job's check.
  for (int64_t i = 0; i < program.buffers_size(); ++i)
    HETC_RETURN_IF_ERROR(checkBuffer(program, i, manifest.seq_len()));
  HETC_RETURN_IF_ERROR(checkPersistentOverlap(program));
  int loss = program.loss_buffer();
  if (loss < -1 || loss >= program.buffers_size())
    return invalidArgument("the loss buffer ", loss,
                           " is not a buffer of the program");
  if (loss >= 0) {
    const Buffer &lossBuffer = program.buffers(loss);
    if (lossBuffer.dtype() != hetc::pkg::F32 || lossBuffer.shape_size() != 0)
      return invalidArgument("the loss ", describeBuffer(lossBuffer), " is ",
                             packageDTypeName(lossBuffer.dtype()),
                             shapeOf(lossBuffer), "; it must be 0-D F32");
  }
  for (int output : program.output_buffers())
    if (output < 0 || output >= program.buffers_size())
      return invalidArgument("output buffer ", output,
                             " is not a buffer of the program");
  // A forward program may only forward its inputs or constants (a reshape
  // lowers to an alias); a step computing a loss runs something.
  if (program.instructions_size() == 0 && loss >= 0)
    return invalidArgument("the program has no instructions");
  for (int i = 0; i < program.instructions_size(); ++i) {
    const Instruction &inst = program.instructions(i);
    const KernelInfo *info = registry.find(inst.kernel());
    if (!info)
      return unimplemented(describeInstruction(i, inst), ": unknown kernel '",
                           inst.kernel(), "'");
    HETC_RETURN_IF_ERROR(checkInstruction(program, inst, *info),
                         describeInstruction(i, inst));
    if (info->comm == CommKind::kNone)
      continue;
    CommLaunch launch;
    HETC_RETURN_IF_ERROR(resolveCommLaunch(program, rank, manifest.ranks_size(),
                                           inst, info->comm, &launch),
                         describeInstruction(i, inst));
  }
  return okStatus();
}

} // namespace hetc::runtime::exec
