//===- Executor.h - running a rank's training step --------------*- C++ -*-===//
//
// A package is read once (loadPackage: manifest, programs, initial weights
// and constants). Each rank gets a RankExecutor on a Device (the host or a
// GPU): its arena, the views of its buffers, its program validated up front
// and its kernels resolved. A step fills the TOKENS and LABELS buffers with
// their samples of that step (the data order of docs/runtime.md), runs the
// instructions in order — the compute launches between two communication
// launches form a span, which a GPU replays as a CUDA graph; the
// communication kernels go through the rank's Communicator — and reads the
// rank's share of the loss. A rank's evaluation program (a validation
// batch's forward and loss) runs the same way between two steps, in the
// same arena, reading the parameters where the step keeps them. Executors
// share nothing mutable, so ranks run as threads of one process (Job.h) or
// one per process.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_EXECUTOR_H
#define HETC_RUNTIME_EXEC_EXECUTOR_H

#include "runtime/comm/Communicator.h"
#include "runtime/data/TokenLoader.h"
#include "runtime/exec/Arena.h"
#include "runtime/exec/CommKernels.h"
#include "runtime/exec/Device.h"
#include "runtime/exec/HostPipeline.h"
#include "runtime/exec/KernelRegistry.h"
#include "runtime/exec/Profile.h"
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
  /// evalPrograms[r] is rank r's evaluation program; empty when the
  /// package has none.
  std::vector<hetc::pkg::Program> evalPrograms;
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
  /// and zeroes the optimizer state. A buffer whose name the weights (or
  /// constants) do not hold is loaded through its views that they do hold:
  /// the parameters of a flat vector. The communication
  /// kernels run through `communicator`, rank `rank` of a world of the
  /// package's ranks; it may be null for a program without them.
  /// The rank runs on `device` (bound on the calling thread), with its
  /// kernels. `package` and `communicator` must outlive the executor; a
  /// communicator of a GPU rank takes device pointers.
  static Status create(const LoadedPackage &package, int rank,
                       std::unique_ptr<Device> device,
                       std::unique_ptr<RankExecutor> *executor,
                       comm::Communicator *communicator = nullptr);
  /// On the host, with `registry`'s kernels (which must outlive it).
  static Status create(const LoadedPackage &package, int rank,
                       const KernelRegistry &registry,
                       std::unique_ptr<RankExecutor> *executor,
                       comm::Communicator *communicator = nullptr);

  /// Writes every TOKENS and LABELS buffer for step `step` (0-based) from
  /// `data`, rows from the buffer's first_sample on, and `step` into the
  /// STEP buffer (learning-rate schedules read it). OUT_OF_RANGE, naming
  /// the step, sample and position, for a token id >= the manifest's
  /// vocab_size. A program without token inputs has nothing to fill.
  Status fillInputs(int64_t step, const TokenLoader &data);

  /// Runs every instruction in order and waits for the device; errors name
  /// the instruction.
  Status runInstructions();

  /// fillInputs, runInstructions, then loss(). Errors name the step.
  Status runStep(int64_t step, const TokenLoader &data, float *loss);

  /// Whether the package has this rank's evaluation program.
  bool hasEvaluation() const { return eval_.program != nullptr; }
  /// Runs the evaluation program on batch `batch` of `data` (the samples
  /// training step `batch` would read) and gives the rank's share of its
  /// loss; the parameters and optimizer state stay as they are. Errors
  /// name the batch.
  Status runEvaluation(int64_t batch, const TokenLoader &data, float *loss);

  int rank() const { return rank_; }
  const hetc::pkg::Program &program() const { return *train_.program; }
  Device &device() const { return *device_; }
  /// The views of the rank's buffers, in the device's memory (host memory
  /// only on the CPU).
  const BufferTable &buffers() const { return train_.buffers; }
  BufferTable &buffers() { return train_.buffers; }
  /// The rank's share of the last step's loss (scaled by 1/(B*T): the
  /// step's loss is the sum over ranks); NaN for a program without a loss
  /// buffer or before the first step.
  float loss() const { return train_.loss; }
  bool hasLoss() const { return train_.program->loss_buffer() >= 0; }
  /// The ids of the FEED input buffers, which the caller writes before
  /// runInstructions (fillInputs refuses programs that have any).
  const std::vector<int> &feedBuffers() const { return train_.feedBuffers; }

  /// Copies of the tensors of `kind` as they are now, by name: the
  /// parameters and constants that were loaded; the optimizer state
  /// buffers, and where a state buffer has narrower views (the pieces of a
  /// flat state vector), those views instead. Checkpoints take these.
  Status snapshot(hetc::pkg::BufferKind kind,
                  std::vector<hetc::package::NamedTensor> *tensors) const;
  /// Overwrites the rank's parameters and optimizer state with a
  /// checkpoint's (whole tensors by name; a rank's pieces are sliced out).
  Status restore(const std::vector<hetc::package::NamedTensor> &parameters,
                 const std::vector<hetc::package::NamedTensor> &state);
  /// Times every launch from now on into `profile` (null: stop), which
  /// must outlive the runs: by the device's marks around each launch
  /// (Device::mark; CUDA events on a GPU), added to the profile once the
  /// run of instructions has synchronized.
  void setProfile(RankProfile *profile);

  /// Keeps a copy of the training state (the bytes of the parameters and
  /// optimizer state, on the device) that restoreTrainingState() puts back:
  /// a step whose loss is not finite is undone so (--on-nonfinite skip).
  /// The copy takes as much device memory as the state.
  Status keepTrainingState();
  Status restoreTrainingState();

  /// Copies of the program's output buffers (a forward-only step's logits)
  /// after the last step, by buffer name.
  Status outputs(std::vector<hetc::package::NamedTensor> *tensors) const;

private:
  /// A run of compute launches [begin, end), or one communication launch;
  /// on a device whose memory is not the host's, also a run of launches
  /// on the host: host kernels and copies between host and device.
  struct Span {
    int begin = 0, end = 0;
    bool crossesRanks = false;
    bool onHost = false;
    HostPipeline lanes; // of a span on the host
  };

  /// One program over the rank's arena: the training step, or its
  /// evaluation.
  struct RankProgram {
    const hetc::pkg::Program *program = nullptr;
    BufferTable buffers;
    std::vector<const KernelInfo *> kernels; // per instruction
    std::vector<CommLaunch> commLaunches;    // per instruction (kNone: compute)
    std::vector<Span> spans;
    int firstSpan = 0; // its spans' ids on the device start here
    std::vector<int> tokenInputs; // the TOKENS and LABELS buffers
    std::vector<int> stepInputs;  // the STEP buffers: the step's index
    std::vector<int> feedBuffers;
    float loss = std::numeric_limits<float>::quiet_NaN();
  };

  RankExecutor() = default;
  /// Resolves the kernels and spans of `program` (from `file`) into `into`.
  Status resolve(const hetc::pkg::Program &program, const std::string &file,
                 RankProgram *into);
  Status initialize();
  /// Builds `loaded`'s views and finds its inputs.
  Status bindBuffers(RankProgram &loaded);
  Status fillInputs(RankProgram &loaded, int64_t step, const TokenLoader &data);
  Status runInstructions(RankProgram &loaded);
  Status runSpan(RankProgram &loaded, int index);
  /// Instruction `index` of a host span: a copy between device and host,
  /// or a host kernel.
  Status runHostLaunch(RankProgram &loaded, int index);
  /// The host, whose memory holds the host buffers: the device itself
  /// where its memory is the host's.
  Device &host() const { return hostDevice_ ? *hostDevice_ : *device_; }
  /// The device whose memory holds `buffer`.
  Device &holder(const hetc::pkg::Buffer &buffer) const {
    return buffer.host() ? host() : *device_;
  }
  /// Runs `launch`, instruction `index` of `loaded`, timed into the profile
  /// when there is one (a template: no std::function per launch).
  template <typename Launch>
  Status timed(const RankProgram &loaded, int index, Launch &&launch);
  /// Adds the launches timed since the last call to the profile; the
  /// device must have synchronized.
  Status recordTimedLaunches();
  /// A sign of life for the ranks waiting on this one (Communicator.h).
  void noteProgress();
  Status copyOut(const std::vector<int> &ids,
                 std::vector<hetc::package::NamedTensor> *tensors) const;
  Status fillTokenInput(RankProgram &loaded, int64_t step,
                        const TokenLoader &data,
                        const hetc::pkg::Buffer &buffer);

  const LoadedPackage *package_ = nullptr;
  int rank_ = 0;
  std::unique_ptr<Device> device_;
  /// The host, for a device whose memory is not the host's.
  std::unique_ptr<Device> hostDevice_;
  Arena arena_, hostArena_;
  RankProgram train_, eval_;
  // keepTrainingState's copies of the arenas' first bytes.
  Arena keptState_, keptHostState_;
  RankProfile *profile_ = nullptr;
  // Launches timed but not yet recorded: their records and device marks.
  struct TimedLaunch {
    LaunchRecord record;
    size_t begin = 0, end = 0;
  };
  std::vector<TimedLaunch> timedLaunches_;
  // What the launches being run belong to, for the profile.
  int64_t profiledStep_ = 0;
  bool profilingEvaluation_ = false;
  comm::Communicator *communicator_ = nullptr;
  // The buffers holding named tensors (snapshot), by kind.
  std::vector<int> parameterBuffers_, constantBuffers_, stateBuffers_;
  std::vector<int64_t> tokens_, labels_; // loader output, reused each step
  std::vector<uint8_t> upload_;          // a token buffer's bytes
};

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_EXECUTOR_H
