//===- Commands.h - hetc subcommands
//---------------------------------------===//
//
// One file per command defines its llvm::cl::SubCommand, options and run
// function; the driver dispatches on whichever subcommand was given.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_DRIVER_COMMANDS_H
#define HETC_COMPILER_DRIVER_COMMANDS_H

#include "llvm/Support/CommandLine.h"

namespace hetc::driver {

struct Command {
  llvm::cl::SubCommand &subcommand;
  /// The options of this command only, for `--help`.
  llvm::cl::OptionCategory &category;
  /// Runs after a successful parse; returns the exit code.
  int (*run)();
};

/// `hetc import MODEL.onnx [-o OUT.mlir] [--batch B --seq T] [--elide-weights]`
Command importCommand();

/// `hetc compile MODEL -o OUT.hetpkg --global-batch B --seq T [--optimizer
/// sgd|adamw --lr X ...]`
Command compileCommand();

/// `hetc export MODEL.onnx --checkpoint DIR -o TRAINED.onnx`
Command exportCommand();

/// `hetc inspect PKG.hetpkg`
Command inspectCommand();

/// `hetc profile MODEL --seq T [--batch B] [--json]`
Command profileCommand();

/// `hetc measure PKG.hetpkg TRACE.json... -o PROFILE.json [--cluster C.yaml]`
Command measureCommand();

/// `hetc plan MODEL --cluster C.yaml --global-batch B --seq T [-o PLAN.json]
/// [--strategy S] [--trace TRACE.json]`
Command planCommand();

} // namespace hetc::driver

#endif // HETC_COMPILER_DRIVER_COMMANDS_H
