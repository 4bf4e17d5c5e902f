//===- Driver.cpp - the hetc command line
//----------------------------------===//

#include "compiler/Driver/Driver.h"

#include "compiler/Driver/Commands.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

namespace hetc::driver {

namespace {

constexpr llvm::StringLiteral kOverview =
    "hetc: compiles ONNX transformer models into training programs for "
    "heterogeneous GPU clusters\n\n"
    "  hetc <command> [options]\n\n"
    "Run 'hetc <command> --help' for the options of one command.\n";

} // namespace

int runHetc(int argc, char **argv) {
  llvm::SmallVector<Command> commands = {
      importCommand(),  compileCommand(), inspectCommand(),
      profileCommand(), planCommand(),    measureCommand(),
      exportCommand()};

  // Only the commands' own options appear in --help, not those that LLVM
  // libraries register globally.
  llvm::SmallVector<const llvm::cl::OptionCategory *> categories;
  for (const Command &command : commands) {
    llvm::cl::HideUnrelatedOptions(command.category, command.subcommand);
    categories.push_back(&command.category);
  }
  llvm::cl::HideUnrelatedOptions(categories);

  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (!llvm::cl::ParseCommandLineOptions(argc, argv, kOverview, &errorStream)) {
    llvm::errs() << errors << "Run 'hetc --help' for usage.\n";
    return kExitUsage;
  }
  for (const Command &command : commands)
    if (command.subcommand)
      return command.run();
  llvm::errs() << "hetc: no command given; commands:\n";
  for (const Command &command : commands)
    llvm::errs() << "  " << command.subcommand.getName() << " - "
                 << command.subcommand.getDescription() << "\n";
  llvm::errs() << "Run 'hetc --help' for usage.\n";
  return kExitUsage;
}

} // namespace hetc::driver
