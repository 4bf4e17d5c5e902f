//===- ProgramCheck.h - validating a package before step 0 ------*- C++ -*-===//
//
// A bad package must fail before the first step, with a message naming the
// buffer or the instruction (and its `location`). validateManifest checks
// the manifest's numbers; validateProgram checks one rank's program against
// the format's rules (docs/package-format.md) and the kernel registry:
// buffer ids and extents, views, token inputs inside the rank's samples,
// the loss buffer, every kernel known with the right operand and result
// counts and attributes, no result sharing bytes with an operand or another
// result except where the kernel updates in place, and the peers, groups
// and counts of the communication kernels.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_PROGRAMCHECK_H
#define HETC_RUNTIME_EXEC_PROGRAMCHECK_H

#include "runtime/exec/KernelRegistry.h"

namespace hetc::runtime::exec {

Status validateManifest(const hetc::pkg::Manifest &manifest);

/// `rank` indexes manifest.ranks. Errors are INVALID_ARGUMENT (a malformed
/// program) or UNIMPLEMENTED (a dtype or kernel this backend lacks).
Status validateProgram(const hetc::pkg::Manifest &manifest, int rank,
                       const hetc::pkg::Program &program,
                       const KernelRegistry &registry);

/// validateProgram without comparing the arena with the manifest's: the
/// rules every program of a rank follows (evaluation programs included).
Status validateProgramBody(const hetc::pkg::Manifest &manifest, int rank,
                           const hetc::pkg::Program &program,
                           const KernelRegistry &registry);

/// "instruction 12 (matmul) at loc(...)": how errors name an instruction.
std::string describeInstruction(int index, const hetc::pkg::Instruction &inst);

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_PROGRAMCHECK_H
