//===- InspectCommand.cpp - hetc inspect ----------------------------------===//
//
// Summarizes a package: its manifest and plan, and per rank the sample
// range, the launches by kernel, the buffers by kind with their bytes, the
// arena, where the rank runs in the plan and what it communicates.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/Commands.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Driver/InitializerSelection.h"
#include "runtime/package/Package.h"
#include "runtime/package/Safetensors.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>

namespace cl = llvm::cl;

namespace hetc::driver {

namespace {

cl::SubCommand inspectSubcommand(
    "inspect", "Summarize a training package written by 'hetc compile'");

cl::OptionCategory inspectCategory("hetc inspect options");

cl::opt<std::string> packagePath(cl::Positional, cl::Required,
                                 cl::sub(inspectSubcommand),
                                 cl::cat(inspectCategory),
                                 cl::desc("<PKG.hetpkg>"));

const char *kindName(pkg::BufferKind kind) {
  switch (kind) {
  case pkg::PARAMETER: return "parameter";
  case pkg::OPTIMIZER_STATE: return "optimizer_state";
  case pkg::CONSTANT: return "constant";
  case pkg::INPUT: return "input";
  case pkg::ACTIVATION: return "activation";
  default: return "unspecified";
  }
}

/// Kernels that cross ranks, in the order the summary lists them.
constexpr const char *kCommunicationKernels[] = {
    "send", "recv", "all_reduce", "reduce_scatter", "all_gather"};

/// Where the rank runs and the micro-batches it reads from the data loader:
/// one TOKENS and/or LABELS input each (a middle stage reads none), listed
/// by their first sample.
void printPlacement(const pkg::RankInfo &rank, const pkg::Program &program) {
  std::vector<int64_t> tokens, labels;
  for (const pkg::Buffer &buffer : program.buffers())
    if (buffer.alias_of() < 0 && buffer.kind() == pkg::INPUT) {
      if (buffer.role() == pkg::TOKENS)
        tokens.push_back(buffer.first_sample());
      if (buffer.role() == pkg::LABELS)
        labels.push_back(buffer.first_sample());
    }
  std::vector<int64_t> &inputs = tokens.empty() ? labels : tokens;
  std::sort(inputs.begin(), inputs.end());
  llvm::outs() << "  placement: stage " << rank.stage() << ", replica "
               << rank.replica();
  if (!rank.device().empty())
    llvm::outs() << ", device " << rank.device();
  if (rank.device_memory_bytes() > 0)
    llvm::outs() << ", device memory " << rank.device_memory_bytes()
                 << " bytes";
  if (rank.device_peak_tflops() > 0)
    llvm::outs() << ", peak " << llvm::format("%g", rank.device_peak_tflops())
                 << " TFLOP/s";
  bool one = inputs.size() == 1;
  llvm::outs() << ", " << inputs.size()
               << (one ? " micro-batch input" : " micro-batch inputs");
  for (auto [index, first] : llvm::enumerate(inputs))
    llvm::outs() << (index > 0 ? ", " : one ? " at sample " : " at samples ")
                 << first;
  llvm::outs() << "\n";
}

void printCommunication(const pkg::Program &program) {
  std::map<std::string, int> counts;
  for (const pkg::Instruction &instruction : program.instructions())
    ++counts[instruction.kernel()];
  llvm::outs() << "  communication:";
  bool any = false;
  for (const char *kernel : kCommunicationKernels)
    if (int count = counts[kernel]) {
      llvm::outs() << " " << kernel << " " << count;
      any = true;
    }
  llvm::outs() << (any ? "\n" : " none\n");
}

int fail(const std::string &message) {
  llvm::errs() << "hetc inspect: error: " << message << "\n";
  return kExitFailure;
}

int runInspect() {
  std::string error;
  pkg::Manifest manifest;
  if (!package::readManifest(packagePath, &manifest, &error))
    return fail(error);

  llvm::outs() << "package " << packagePath << " (format "
               << manifest.format_version() << ", "
               << manifest.compiler_version() << ")\n";
  llvm::outs() << "model " << manifest.model_name() << ": global batch "
               << manifest.global_batch() << " x seq " << manifest.seq_len()
               << ", vocab " << manifest.vocab_size() << "\n";
  const pkg::Optimizer &opt = manifest.optimizer();
  if (opt.kind() == "none")
    llvm::outs() << "optimizer none: forward only (hetc compile "
                    "--forward-only)\n";
  else
    llvm::outs() << "optimizer " << opt.kind()
                 << llvm::format(": lr %g, weight_decay %g, betas (%g, %g), "
                                 "eps %g, clip_norm %g\n",
                                 opt.lr(), opt.weight_decay(), opt.beta1(),
                                 opt.beta2(), opt.eps(), opt.clip_norm());
  if (opt.warmup_steps() > 0 ||
      (!opt.lr_schedule().empty() && opt.lr_schedule() != "constant"))
    llvm::outs() << "lr schedule " << opt.lr_schedule()
                 << llvm::format(": warmup %lld steps",
                                 static_cast<long long>(opt.warmup_steps()))
                 << (opt.lr_schedule() == "constant"
                         ? std::string()
                         : llvm::formatv(", decay to {0} at step {1}",
                                         llvm::format("%g", opt.min_lr()),
                                         opt.decay_steps())
                               .str())
                 << "\n";
  if (manifest.has_initializers())
    printInitializerSummary(summarizeInitializers(manifest), "", llvm::outs());
  for (const std::string &file :
       {manifest.weights_file(), manifest.constants_file()}) {
    if (file.empty())
      continue;
    std::vector<package::NamedTensor> tensors;
    if (!package::readSafetensorsFile(packagePath + "/" + file, &tensors,
                                      nullptr, &error))
      return fail(error);
    int64_t bytes = 0;
    for (const package::NamedTensor &tensor : tensors)
      bytes += static_cast<int64_t>(tensor.data.size());
    llvm::outs() << file << ": " << tensors.size() << " tensors, " << bytes
                 << " bytes\n";
  }
  if (!manifest.plan_json().empty())
    llvm::outs() << "plan: " << manifest.plan_json() << "\n";
  llvm::outs() << "ranks: " << manifest.ranks_size() << "\n";

  for (const pkg::RankInfo &rank : manifest.ranks()) {
    pkg::Program program;
    if (!package::readProgram(packagePath, rank.program_file(), &program,
                              &error))
      return fail(error);
    llvm::outs() << "rank " << rank.rank() << ": samples ["
                 << program.first_sample() << ", "
                 << program.first_sample() + program.num_samples()
                 << "), arena " << program.arena_bytes() << " bytes, "
                 << program.instructions_size() << " launches, "
                 << program.buffers_size() << " buffers, "
                 << llvm::format("%.3g", rank.model_flops() / 1e9)
                 << " model GFLOP per step\n";

    std::map<std::string, int> kernels;
    for (const pkg::Instruction &instruction : program.instructions())
      ++kernels[instruction.kernel()];
    std::vector<std::pair<std::string, int>> byCount(kernels.begin(),
                                                     kernels.end());
    std::stable_sort(byCount.begin(), byCount.end(),
                     [](const auto &a, const auto &b) {
                       return a.second > b.second;
                     });
    llvm::outs() << "  kernels:";
    for (const auto &[kernel, count] : byCount)
      llvm::outs() << " " << kernel << " " << count;
    llvm::outs() << "\n";

    std::map<int, std::pair<int, int64_t>> kinds; // kind -> count, bytes
    int aliases = 0;
    for (const pkg::Buffer &buffer : program.buffers()) {
      if (buffer.alias_of() >= 0) {
        ++aliases;
        continue;
      }
      int64_t elements = 1;
      for (int64_t dim : buffer.shape())
        elements *= dim;
      auto &entry = kinds[buffer.kind()];
      ++entry.first;
      entry.second += elements * package::dtypeSize(buffer.dtype());
    }
    llvm::outs() << "  buffers:\n";
    for (const auto &[kind, entry] : kinds)
      llvm::outs() << "    " << llvm::format("%-16s", kindName(
                                                  static_cast<pkg::BufferKind>(kind)))
                   << llvm::format("%6d", entry.first) << " buffers "
                   << llvm::format("%12lld", static_cast<long long>(entry.second))
                   << " bytes\n";
    llvm::outs() << "    " << llvm::format("%-16s", "alias")
                 << llvm::format("%6d", aliases) << " buffers\n";
    if (program.loss_buffer() >= 0 &&
        program.loss_buffer() < program.buffers_size())
      llvm::outs() << "  loss: buffer " << program.loss_buffer() << " '"
                   << program.buffers(program.loss_buffer()).name() << "'\n";
    for (int output : program.output_buffers())
      if (output >= 0 && output < program.buffers_size())
        llvm::outs() << "  output: buffer " << output << " '"
                     << program.buffers(output).name() << "'\n";
    llvm::outs() << "  peak arena: " << program.arena_bytes() << " bytes\n";
    if (program.host_arena_bytes() > 0)
      llvm::outs() << "  host arena: " << program.host_arena_bytes()
                   << " bytes (offloaded optimizer state)\n";
    printPlacement(rank, program);
    printCommunication(program);
    if (rank.eval_program_file().empty())
      continue;
    pkg::Program eval;
    if (!package::readProgram(packagePath, rank.eval_program_file(), &eval,
                              &error))
      return fail(error);
    llvm::outs() << "  evaluation: " << rank.eval_program_file() << ", "
                 << eval.instructions_size() << " launches, "
                 << eval.buffers_size() << " buffers, arena "
                 << eval.arena_bytes() << " bytes (shared with the step)\n";
  }
  return kExitSuccess;
}

} // namespace

Command inspectCommand() {
  return {inspectSubcommand, inspectCategory, runInspect};
}

} // namespace hetc::driver
