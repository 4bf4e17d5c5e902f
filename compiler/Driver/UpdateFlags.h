//===- UpdateFlags.h - the optimizer and schedule flags ---------*- C++ -*-===//
//
// `hetc compile`'s parameter-update flags (--optimizer, --lr, ...,
// --lr-schedule, --warmup-steps, --decay-steps, --min-lr): checked once,
// then handed to the compile pipeline and recorded in the manifest.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_DRIVER_UPDATEFLAGS_H
#define HETC_COMPILER_DRIVER_UPDATEFLAGS_H

#include "compiler/Driver/ClusterPlanning.h"
#include "compiler/Package/PackageWriter.h"
#include "passes/Passes.h"

#include "llvm/Support/CommandLine.h"

#include <optional>
#include <string>

namespace hetc::driver {

enum class LrScheduleFlag { constant, cosine, linear };

class UpdateFlags {
public:
  UpdateFlags(llvm::cl::SubCommand &subcommand,
              llvm::cl::OptionCategory &category);

  /// What is wrong with the flags, for a usage error; nullopt when nothing.
  std::optional<std::string> problem() const;
  bool adamw() const { return optimizer == OptimizerFlag::adamw; }
  /// Copies the flags into the compile pipeline's options.
  void applyTo(CompilePipelineOptions &options) const;
  /// The manifest's record of the update.
  package::OptimizerSettings manifestSettings() const;

private:
  llvm::cl::opt<OptimizerFlag> optimizer;
  llvm::cl::opt<double> lr, weightDecay, beta1, beta2, eps, clipNorm;
  llvm::cl::opt<LrScheduleFlag> schedule;
  llvm::cl::opt<int64_t> warmupSteps, decaySteps;
  llvm::cl::opt<double> minLr;
};

} // namespace hetc::driver

#endif // HETC_COMPILER_DRIVER_UPDATEFLAGS_H
