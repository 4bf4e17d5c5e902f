//===- Job.h - training steps over all ranks of a package -------*- C++ -*-===//
//
// A Job runs a package's steps on the ranks this process hosts: all of them
// as threads over an in-process world (hetrun alone), or the one rank of
// this process in a world of processes (hetrun under mpirun). Each step
// runs the local ranks at once, one persistent thread each (RankThreads.h);
// the step's loss is the sum of every rank's share, summed across processes
// with an all-reduce so that every process knows it.
//
// Failure ends the job, never hangs it. In-process, a rank whose step fails
// aborts the world, so the ranks waiting on it stop with ABORTED, and the
// step reports the first rank that failed for its own reason, not the
// ABORTED ones. A rank stuck in a kernel ignores the abort: once another
// rank failed, the job waits for it the stall timeout, then gives up on it
// (the error names it) and leaves its thread and state alone, for the
// process to end. In a world of processes, the process reports its error
// and then calls abort(), which ends the other processes.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_JOB_H
#define HETC_RUNTIME_EXEC_JOB_H

#include "runtime/exec/CheckpointTensors.h"
#include "runtime/exec/Executor.h"
#include "runtime/exec/RankThreads.h"

#include <chrono>
#include <functional>
#include <memory>

namespace hetc::runtime::exec {

struct JobOptions {
  /// Kernel threads of each local rank; 0: max(1, H / local ranks), H the
  /// calling thread's OpenMP default (OMP_NUM_THREADS or the cores it may
  /// run on).
  int threadsPerRank = 0;
  /// How long an in-process rank waits for another before giving up, and
  /// how long it waits for one that shows no progress (a rank stuck in a
  /// kernel): InProcessCommunicator.h.
  std::chrono::milliseconds timeout = std::chrono::minutes(10);
  std::chrono::milliseconds stallTimeout = std::chrono::seconds(30);
  /// The device of rank `rank`; unset: the host, running the job's
  /// registry. Called on the rank's own thread.
  std::function<Status(int rank, std::unique_ptr<Device> *device)> makeDevice;
  /// The communicator a rank's launches go through, made over the rank's
  /// host communicator `bootstrap` once its device is bound (NCCL between
  /// GPUs, or host messages staged through device copies). Every local rank
  /// calls it at once, each on its own thread, so it may be collective.
  /// Unset: the launches use `bootstrap` itself.
  std::function<Status(comm::Communicator &bootstrap, Device &device,
                       std::unique_ptr<comm::Communicator> *communicator)>
      makeCommunicator;
};

class Job {
public:
  /// Every rank of `package`, as threads of this process over an in-process
  /// world. `package` and `registry` must outlive the job.
  static Status createInProcess(const LoadedPackage &package,
                                const KernelRegistry &registry,
                                const JobOptions &options,
                                std::unique_ptr<Job> *job);

  /// Rank `communicator.rank()` of `package` only; the other ranks run in
  /// other processes of the communicator's world, whose size must be the
  /// package's rank count. `communicator` must outlive the job.
  static Status createForRank(const LoadedPackage &package,
                              const KernelRegistry &registry,
                              comm::Communicator &communicator,
                              const JobOptions &options,
                              std::unique_ptr<Job> *job);

  ~Job();

  /// Runs step `step` (0-based) on the local ranks and gives the step's
  /// loss. Errors name the rank: "rank 2 (stage 1, replica 0, device gpu2):
  /// step 3: instruction 7 (recv) ...".
  Status runStep(int64_t step, const TokenLoader &data, float *loss);

  /// Whether the package has evaluation programs (validation).
  bool hasEvaluation() const;
  /// Runs the evaluation programs on batch `batch` of `data` (the samples
  /// of training step `batch`) and gives its mean token loss, as runStep
  /// gives a step's; the training state stays as it is.
  Status evaluate(int64_t batch, const TokenLoader &data, float *loss);

  /// The local ranks whose share of the last step's loss was not finite,
  /// described ("rank 3 (stage 2, replica 0, device gpu3): nan"), joined
  /// by "; "; empty when there are none here (under MPI, another process
  /// may have them).
  std::string describeNonFiniteLosses() const;

  /// Ends the job after this process failed: the other ranks' waits return
  /// ABORTED. In a world of processes this ends every process, this one
  /// included (MPI_Abort): report the error first.
  void abort(const std::string &reason);

  /// Whether any process of the job asks to stop (`mine` on this one):
  /// every process gets the same answer at the same step (under MPI a sum
  /// over the world; in one process, `mine`).
  Status anyAsksToStop(bool mine, bool *stop);

  /// Times every launch of every local rank from now on (Profile.h), with
  /// times counted from `origin`.
  void startProfile(std::chrono::steady_clock::time_point origin);
  /// The local ranks' records so far, rank by rank.
  std::vector<LaunchRecord> profileRecords() const;

  /// Every local rank keeps a copy of its training state (on its device)
  /// that restoreTrainingState() puts back: how a step whose loss is not
  /// finite is skipped.
  Status keepTrainingState();
  Status restoreTrainingState();

  /// Loads a checkpoint's parameters and optimizer state (whole tensors
  /// by name) into every rank this process hosts.
  Status restore(const CheckpointTensors &checkpoint);

  /// What every rank holds of a checkpoint, in rank order, on the process
  /// hosting rank 0 (empty on the others). Every process calls it.
  Status gatherTensors(std::vector<RankTensors> *ranks);

  /// Whether this process hosts rank 0, which reports progress and writes
  /// the files.
  bool hostsRankZero() const { return ranks_.front()->rank() == 0; }
  int numLocalRanks() const { return static_cast<int>(ranks_.size()); }
  int threadsPerRank() const { return threadsPerRank_; }
  const RankExecutor &localRank(int i) const { return *ranks_[i]; }

private:
  Job() = default;
  Status start(const LoadedPackage &package, const KernelRegistry &registry,
               const JobOptions &options);
  Status startRank(int lane, const KernelRegistry &registry,
                   const JobOptions &options);
  /// Runs task(lane) on every local rank at once. A rank that fails aborts
  /// the in-process world; the result is the first rank that failed for
  /// its own reason (not ABORTED), named by `describe(lane)` when given.
  Status onEveryRank(const std::function<Status(int lane)> &task,
                     const std::function<std::string(int lane)> &describe);
  /// Names a local rank in errors: "rank 2 (stage 1, replica 0, ...)".
  std::function<std::string(int lane)> describeLane() const;
  /// The sum of the ranks' shares `losses` over every process (`what`
  /// names the step in errors).
  Status sumLosses(const std::vector<float> &losses, float *loss,
                   const std::string &what);

  const LoadedPackage *package_ = nullptr;
  std::vector<std::unique_ptr<comm::Communicator>> inProcessWorld_;
  std::vector<comm::Communicator *> communicators_; // per local rank
  // What each local rank's launches go through when that is not its host
  // communicator (JobOptions::makeCommunicator).
  std::vector<std::unique_ptr<comm::Communicator>> launchCommunicators_;
  std::vector<std::unique_ptr<RankExecutor>> ranks_;
  std::unique_ptr<RankThreads> threads_;
  int threadsPerRank_ = 1;
  std::vector<float> lastLosses_; // per local rank, from the last step
  std::vector<std::unique_ptr<RankProfile>> profiles_; // per local rank
  /// How long the job waits, after a rank failed, for ranks still in their
  /// step before it gives up on them.
  std::chrono::milliseconds stallTimeout_{0};
};

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_JOB_H
