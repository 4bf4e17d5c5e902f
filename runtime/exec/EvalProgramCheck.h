//===- EvalProgramCheck.h - an evaluation leaves training as it was -*- C++ -*-===//
//
// A rank's evaluation program runs between two training steps in the same
// arena (docs/package-format.md). Before step 0 it is checked to read the
// training program's parameters and constants in place and to change
// nothing the training program keeps: its inputs and activations lie
// outside the parameters, optimizer state and constants, no launch writes
// any of them, and a constant of its own lies past the training arena.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_EVALPROGRAMCHECK_H
#define HETC_RUNTIME_EXEC_EVALPROGRAMCHECK_H

#include "runtime/exec/KernelRegistry.h"

namespace hetc::runtime::exec {

/// `train` and `eval` are rank `rank`'s programs; `train` was validated.
/// INVALID_ARGUMENT naming the buffer or instruction that breaks a rule.
Status validateEvalProgram(const hetc::pkg::Manifest &manifest, int rank,
                           const hetc::pkg::Program &train,
                           const hetc::pkg::Program &eval,
                           const KernelRegistry &registry);

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_EVALPROGRAMCHECK_H
