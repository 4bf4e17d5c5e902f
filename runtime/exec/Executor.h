//===- Executor.h - running a rank's training step --------------*- C++ -*-===//
//
// A package is read once (loadPackage: manifest, programs, initial weights
// and constants). Each rank gets a RankExecutor: its arena, the views of its
// buffers, its program validated up front and its kernels resolved. A step
// fills the INPUT buffers with the rank's samples of that step (the data
// order of docs/runtime.md), runs the instructions in order and reads the
// loss. Ranks are independent objects so that ranks can later run as
// threads of one process, one executor each.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_EXECUTOR_H
#define HETC_RUNTIME_EXEC_EXECUTOR_H

#include "runtime/data/TokenLoader.h"
#include "runtime/exec/Arena.h"
#include "runtime/exec/KernelRegistry.h"
#include "runtime/package/Safetensors.h"

#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace hetc::runtime::exec {

/// Everything of a package the executors need, in memory.
struct LoadedPackage {
  std::string dir; // the package folder ("" when built in memory)
  hetc::pkg::Manifest manifest;
  std::vector<hetc::pkg::Program> programs; // programs[r] is rank r's
  std::vector<hetc::package::NamedTensor> weights;
  std::vector<hetc::package::NamedTensor> constants;
};

/// Reads the package folder `dir`: NOT_FOUND for a missing folder or file,
/// DATA_LOSS for files that do not parse, INVALID_ARGUMENT for a manifest
/// that breaks the format's rules (including another format_version).
Status loadPackage(const std::string &dir, LoadedPackage *package);

class RankExecutor {
public:
  /// Validates rank `rank`'s program, allocates its arena, loads parameters
  /// and constants by name (their dtype and shape must match the buffer's)
  /// and zeroes the optimizer state. `package` and `registry` must outlive
  /// the executor.
  static Status create(const LoadedPackage &package, int rank,
                       const KernelRegistry &registry,
                       std::unique_ptr<RankExecutor> *executor);

  /// Writes the TOKENS and LABELS buffers for step `step` (0-based) from
  /// `data`. OUT_OF_RANGE, naming the step, sample and position, for a
  /// token id >= the manifest's vocab_size.
  Status fillInputs(int64_t step, const TokenLoader &data);

  /// Runs every instruction in order; errors name the instruction.
  Status runInstructions();

  /// fillInputs, runInstructions, then the loss (the 0-D loss buffer).
  Status runStep(int64_t step, const TokenLoader &data, float *loss);

  int rank() const { return rank_; }
  const hetc::pkg::Program &program() const { return *program_; }
  const BufferTable &buffers() const { return buffers_; }
  BufferTable &buffers() { return buffers_; }
  /// The loss after a step; NaN for a program without a loss buffer.
  float loss() const {
    return program_->loss_buffer() < 0
               ? std::numeric_limits<float>::quiet_NaN()
               : *buffers_.view(program_->loss_buffer()).as<float>();
  }
  /// The ids of the FEED input buffers, which the caller writes before
  /// runInstructions (fillInputs refuses programs that have any).
  const std::vector<int> &feedBuffers() const { return feedBuffers_; }

  /// Tokens this rank processes per step (its samples times seq_len).
  int64_t tokensPerStep() const;

  /// The non-alias buffers of `kind` as named tensors (copies of their
  /// current bytes): checkpoints of parameters and optimizer state.
  std::vector<hetc::package::NamedTensor>
  snapshot(hetc::pkg::BufferKind kind) const;

private:
  RankExecutor() = default;
  Status initialize();

  const LoadedPackage *package_ = nullptr;
  const hetc::pkg::Program *program_ = nullptr;
  int rank_ = 0;
  Arena arena_;
  BufferTable buffers_;
  std::vector<const KernelInfo *> kernels_; // per instruction
  int tokensBuffer_ = -1, labelsBuffer_ = -1;
  std::vector<int> feedBuffers_;
  std::vector<int64_t> tokens_, labels_; // loader output, reused each step
};

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_EXECUTOR_H
