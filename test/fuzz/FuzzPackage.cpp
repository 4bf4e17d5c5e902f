//===- FuzzPackage.cpp - the files of a package, as hetrun checks them ----===//
//
// The first byte picks the reader, the rest is the file:
//   0  manifest.pb: parsed and validated;
//   1  rank<N>.pb: parsed, then validated against a manifest made to fit
//      its rank, samples and arena, with the communication check;
//   2  a safetensors file (weights, constants), decoded;
//   3  a training and an evaluation program (separated by
//      kFileSeparator): both validated, then the evaluation against the
//      training program.
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

#include "runtime/exec/CommunicationCheck.h"
#include "runtime/exec/EvalProgramCheck.h"
#include "runtime/exec/KernelRegistry.h"
#include "runtime/exec/ProgramCheck.h"
#include "runtime/package/Package.h"
#include "runtime/package/Safetensors.h"

namespace {

using namespace hetc;
using runtime::exec::cpuKernelRegistry;

/// A manifest `program` could belong to: its rank among rank + 1, its
/// arena, the global batch its samples end at.
pkg::Manifest manifestFor(const pkg::Program &program) {
  pkg::Manifest manifest;
  manifest.set_format_version(package::kFormatVersion);
  manifest.set_global_batch(
      std::max<int64_t>(1, program.first_sample() + program.num_samples()));
  manifest.set_seq_len(16);
  manifest.set_vocab_size(256);
  for (int r = 0; r <= program.rank(); ++r) {
    pkg::RankInfo *rank = manifest.add_ranks();
    rank->set_rank(r);
    rank->set_program_file(package::programFileName(r));
    rank->set_arena_bytes(program.arena_bytes());
  }
  return manifest;
}

bool parse(const std::string &bytes, pkg::Program *program) {
  std::string error;
  return package::parseProgram(bytes, "fuzz.pb", program, &error) &&
         program->rank() >= 0 && program->rank() < 64;
}

void checkProgram(const std::string &bytes) {
  pkg::Program program;
  if (!parse(bytes, &program))
    return;
  pkg::Manifest manifest = manifestFor(program);
  if (!runtime::exec::validateProgram(manifest, program.rank(), program,
                                      cpuKernelRegistry())
           .ok())
    return;
  std::vector<pkg::Program> programs(program.rank() + 1);
  programs[program.rank()] = program;
  (void)runtime::exec::validateCommunication(programs);
}

void checkEvaluation(const std::string &bytes) {
  pkg::Program train, eval;
  if (!parse(fuzz::piece(bytes, 0), &train) ||
      !parse(fuzz::piece(bytes, 1), &eval))
    return;
  pkg::Manifest manifest = manifestFor(train);
  if (runtime::exec::validateProgram(manifest, train.rank(), train,
                                     cpuKernelRegistry())
          .ok())
    (void)runtime::exec::validateEvalProgram(manifest, train.rank(), train,
                                             eval, cpuKernelRegistry());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  std::string bytes(reinterpret_cast<const char *>(data) + 1, size - 1);
  std::string error;
  switch (data[0] % 4) {
  case 0: {
    pkg::Manifest manifest;
    if (package::parseManifest(bytes, "fuzz", &manifest, &error))
      (void)runtime::exec::validateManifest(manifest);
    break;
  }
  case 1:
    checkProgram(bytes);
    break;
  case 2: {
    std::vector<package::NamedTensor> tensors;
    std::map<std::string, std::string> metadata;
    (void)package::decodeSafetensors(bytes, &tensors, &metadata, &error);
    break;
  }
  case 3:
    checkEvaluation(bytes);
    break;
  }
  return 0;
}
