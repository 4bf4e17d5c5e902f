//===- Driver.h - the hetc command line
//------------------------------------===//
//
// `hetc <command> [options]`: each command is an llvm::cl::SubCommand with
// its own options and a run function. Exit codes: 0 success, 1 the command
// failed (diagnostics on stderr), 2 bad usage.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_DRIVER_DRIVER_H
#define HETC_COMPILER_DRIVER_DRIVER_H

namespace hetc::driver {

constexpr int kExitSuccess = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

/// Parses the command line and runs the chosen command; returns the exit
/// code. Call once per process (the options are process-global).
int runHetc(int argc, char **argv);

} // namespace hetc::driver

#endif // HETC_COMPILER_DRIVER_DRIVER_H
