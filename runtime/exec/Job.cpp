//===- Job.cpp ------------------------------------------------------------===//

#include "runtime/exec/Job.h"

#include "runtime/comm/InProcessCommunicator.h"
#include "runtime/cpu/Threading.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>

namespace hetc::runtime::exec {
namespace {

using hetc::package::NamedTensor;

// Program tags are >= 0, so the runtime's own messages cannot be mistaken
// for a program's.
constexpr int64_t kCheckpointTag = -1;

// "rank 2 (stage 1, replica 0, device gpu2)"; "rank 0" alone when the
// package has one rank.
std::string describeRank(const hetc::pkg::Manifest &manifest, int rank) {
  std::string text = "rank " + std::to_string(rank);
  if (manifest.ranks_size() == 1)
    return text;
  const hetc::pkg::RankInfo &info = manifest.ranks(rank);
  text += " (stage " + std::to_string(info.stage()) + ", replica " +
          std::to_string(info.replica());
  if (!info.device().empty())
    text += ", device " + info.device();
  return text + ")";
}

Status checkComputesALoss(const LoadedPackage &package) {
  for (const hetc::pkg::Program &program : package.programs)
    if (program.loss_buffer() >= 0)
      return okStatus();
  return invalidArgument("no rank of the package computes a loss; a job runs "
                         "training steps");
}

Status sendTensors(comm::Communicator &communicator, int peer,
                   const std::vector<NamedTensor> &tensors) {
  std::string bytes, error;
  if (!hetc::package::encodeSafetensors(tensors, {}, &bytes, &error))
    return internalError("cannot encode rank ", communicator.rank(),
                         "'s tensors: ", error);
  int64_t size = static_cast<int64_t>(bytes.size());
  HETC_RETURN_IF_ERROR(
      communicator.send(peer, &size, sizeof(size), kCheckpointTag));
  return communicator.send(peer, bytes.data(), bytes.size(), kCheckpointTag);
}

Status receiveTensors(comm::Communicator &communicator, int peer,
                      std::vector<NamedTensor> *tensors) {
  int64_t size = 0;
  HETC_RETURN_IF_ERROR(
      communicator.recv(peer, &size, sizeof(size), kCheckpointTag));
  std::string bytes(static_cast<size_t>(size), '\0');
  HETC_RETURN_IF_ERROR(
      communicator.recv(peer, bytes.data(), bytes.size(), kCheckpointTag));
  std::map<std::string, std::string> metadata;
  std::string error;
  if (!hetc::package::decodeSafetensors(bytes, tensors, &metadata, &error))
    return dataLoss("the tensors from rank ", peer, " do not decode: ", error);
  return okStatus();
}

} // namespace

Status Job::createInProcess(const LoadedPackage &package,
                            const KernelRegistry &registry,
                            const JobOptions &options,
                            std::unique_ptr<Job> *job) {
  std::unique_ptr<Job> result(new Job());
  result->inProcessWorld_ = comm::createInProcessWorld(
      package.manifest.ranks_size(), options.timeout, options.stallTimeout);
  for (const auto &communicator : result->inProcessWorld_)
    result->communicators_.push_back(communicator.get());
  HETC_RETURN_IF_ERROR(result->start(package, registry, options));
  *job = std::move(result);
  return okStatus();
}

Status Job::createForRank(const LoadedPackage &package,
                          const KernelRegistry &registry,
                          comm::Communicator &communicator,
                          const JobOptions &options,
                          std::unique_ptr<Job> *job) {
  int numRanks = package.manifest.ranks_size();
  if (communicator.worldSize() != numRanks)
    return failedPrecondition("the job has ", communicator.worldSize(),
                              " processes but the package has ", numRanks,
                              " ranks: start one process per rank (mpirun "
                              "-np ",
                              numRanks, ")");
  std::unique_ptr<Job> result(new Job());
  result->communicators_ = {&communicator};
  HETC_RETURN_IF_ERROR(result->start(package, registry, options));
  *job = std::move(result);
  return okStatus();
}

Job::~Job() {
  if (threads_ && !threads_->abandoned().empty()) {
    // A rank given up on may still run in the executors and communicators:
    // they stay, for the moment until the process ends.
    for (auto &rank : ranks_)
      (void)rank.release();
    for (auto &communicator : inProcessWorld_)
      (void)communicator.release();
    for (auto &communicator : launchCommunicators_)
      (void)communicator.release();
    (void)threads_.release();
  }
}

Status Job::start(const LoadedPackage &package, const KernelRegistry &registry,
                  const JobOptions &options) {
  package_ = &package;
  HETC_RETURN_IF_ERROR(checkComputesALoss(package));
  int lanes = static_cast<int>(communicators_.size());
  stallTimeout_ = options.stallTimeout;
  threadsPerRank_ = options.threadsPerRank > 0
                        ? options.threadsPerRank
                        : std::max(1, cpu::numThreads() / lanes);
  threads_ =
      std::make_unique<RankThreads>(lanes, [threads = threadsPerRank_](int) {
        // OpenMP's count is per thread, so each lane sets its own.
        (void)cpu::setNumThreads(threads); // >= 1: cannot fail
      });
  // Each rank starts on its own thread: a GPU rank's device is bound
  // there, and setting up NCCL needs every rank at once.
  ranks_.resize(lanes);
  launchCommunicators_.resize(lanes);
  // The executors' own errors name their rank.
  return onEveryRank(
      [&](int lane) { return startRank(lane, registry, options); }, nullptr);
}

Status Job::startRank(int lane, const KernelRegistry &registry,
                      const JobOptions &options) {
  comm::Communicator &bootstrap = *communicators_[lane];
  int rank = bootstrap.rank();
  std::unique_ptr<Device> device;
  if (options.makeDevice)
    HETC_RETURN_IF_ERROR(options.makeDevice(rank, &device), "rank ", rank);
  else
    device = createCpuDevice(registry);
  HETC_RETURN_IF_ERROR(device->bind(), "rank ", rank, ": ", device->describe());
  comm::Communicator *launches = &bootstrap;
  if (options.makeCommunicator) {
    HETC_RETURN_IF_ERROR(options.makeCommunicator(bootstrap, *device,
                                                  &launchCommunicators_[lane]),
                         "rank ", rank);
    launches = launchCommunicators_[lane].get();
  }
  return RankExecutor::create(*package_, rank, std::move(device),
                              &ranks_[lane], launches);
}

Status Job::onEveryRank(const std::function<Status(int lane)> &task,
                        const std::function<std::string(int lane)> &describe) {
  if (!threads_->abandoned().empty())
    return failedPrecondition("the job gave up on a rank stuck in its step");
  bool inProcess = !inProcessWorld_.empty();
  std::mutex mutex;
  Status failure; // the first rank failing for its own reason, else ABORTED
  std::atomic<bool> failed{false};
  bool finished = threads_->run(
      [&](int lane) {
        Status status = task(lane);
        if (status.ok())
          return;
        bool aborted = status.code() == StatusCode::kAborted;
        if (inProcess && !aborted)
          communicators_[lane]->abort(status.message());
        if (describe)
          status.annotate(describe(lane));
        std::lock_guard<std::mutex> lock(mutex);
        if (failure.ok() || (failure.code() == StatusCode::kAborted && !aborted))
          failure = std::move(status);
        failed = true;
      },
      &failed, stallTimeout_);
  std::lock_guard<std::mutex> lock(mutex);
  if (finished)
    return failure;
  // A rank stuck in a kernel ignores the abort: the job goes on without it
  // (and ends with this error) rather than wait forever.
  std::string stuck;
  for (int lane : threads_->abandoned())
    stuck += (stuck.empty() ? "" : ", ") +
             (describe ? describe(lane) : "rank " + std::to_string(lane));
  return makeStatus(failure.code(), failure.message(), "; still running ",
                    stallTimeout_.count() / 1000.0,
                    " s after that, and given up on: ", stuck);
}

Status Job::runStep(int64_t step, const TokenLoader &data, float *loss) {
  std::vector<float> losses(ranks_.size(), 0.0f);
  HETC_RETURN_IF_ERROR(onEveryRank(
      [&](int lane) { return ranks_[lane]->runStep(step, data, &losses[lane]); },
      describeLane()));
  lastLosses_ = losses;
  return sumLosses(losses, loss, "step " + std::to_string(step));
}

bool Job::hasEvaluation() const { return ranks_.front()->hasEvaluation(); }

Status Job::evaluate(int64_t batch, const TokenLoader &data, float *loss) {
  std::vector<float> losses(ranks_.size(), 0.0f);
  HETC_RETURN_IF_ERROR(onEveryRank(
      [&](int lane) {
        return ranks_[lane]->runEvaluation(batch, data, &losses[lane]);
      },
      describeLane()));
  return sumLosses(losses, loss,
                   "evaluation batch " + std::to_string(batch));
}

Status Job::sumLosses(const std::vector<float> &losses, float *loss,
                      const std::string &what) {
  double sum = 0.0;
  for (size_t i = 0; i < ranks_.size(); ++i)
    if (ranks_[i]->hasLoss())
      sum += losses[i];
  int worldSize = communicators_.front()->worldSize();
  if (numLocalRanks() < worldSize) {
    std::vector<int> everyRank(static_cast<size_t>(worldSize));
    for (int r = 0; r < worldSize; ++r)
      everyRank[r] = r;
    HETC_RETURN_IF_ERROR(
        communicators_.front()->allReduceSum(everyRank, DType::kF64, &sum, 1),
        describeRank(package_->manifest, ranks_[0]->rank()), ": ", what,
        ": summing the loss");
  }
  *loss = static_cast<float>(sum);
  return okStatus();
}

std::string Job::describeNonFiniteLosses() const {
  std::string text;
  for (size_t i = 0; i < ranks_.size() && i < lastLosses_.size(); ++i) {
    if (!ranks_[i]->hasLoss() || std::isfinite(lastLosses_[i]))
      continue;
    text += (text.empty() ? "" : "; ") +
            describeRank(package_->manifest, ranks_[i]->rank()) + ": " +
            (std::isnan(lastLosses_[i]) ? "nan" : "inf");
  }
  return text;
}

void Job::abort(const std::string &reason) {
  // A device communicator's abort also stops its GPU work, then aborts the
  // host communicator under it.
  if (launchCommunicators_.front())
    launchCommunicators_.front()->abort(reason);
  else
    communicators_.front()->abort(reason);
}

Status Job::anyAsksToStop(bool mine, bool *stop) {
  double votes = mine ? 1.0 : 0.0;
  int worldSize = communicators_.front()->worldSize();
  if (numLocalRanks() < worldSize) {
    std::vector<int> everyRank(static_cast<size_t>(worldSize));
    for (int r = 0; r < worldSize; ++r)
      everyRank[r] = r;
    HETC_RETURN_IF_ERROR(communicators_.front()->allReduceSum(
                             everyRank, DType::kF64, &votes, 1),
                         "agreeing on a stop request");
  }
  *stop = votes > 0;
  return okStatus();
}

std::function<std::string(int lane)> Job::describeLane() const {
  return [this](int lane) {
    return describeRank(package_->manifest, ranks_[lane]->rank());
  };
}

void Job::startProfile(std::chrono::steady_clock::time_point origin) {
  profiles_.clear();
  for (auto &rank : ranks_) {
    profiles_.push_back(std::make_unique<RankProfile>(origin));
    rank->setProfile(profiles_.back().get());
  }
}

std::vector<LaunchRecord> Job::profileRecords() const {
  std::vector<LaunchRecord> records;
  for (const auto &profile : profiles_)
    records.insert(records.end(), profile->records().begin(),
                   profile->records().end());
  return records;
}

Status Job::keepTrainingState() {
  return onEveryRank([&](int lane) { return ranks_[lane]->keepTrainingState(); },
                     describeLane());
}

Status Job::restoreTrainingState() {
  return onEveryRank(
      [&](int lane) { return ranks_[lane]->restoreTrainingState(); },
      describeLane());
}

Status Job::restore(const CheckpointTensors &checkpoint) {
  return onEveryRank(
      [&](int lane) {
        return ranks_[lane]->restore(checkpoint.parameters,
                                     checkpoint.optimizerState);
      },
      describeLane());
}

Status Job::gatherTensors(std::vector<RankTensors> *ranks) {
  ranks->clear();
  if (!inProcessWorld_.empty()) {
    for (const auto &rank : ranks_) {
      ranks->emplace_back();
      HETC_RETURN_IF_ERROR(takeRankTensors(*rank, &ranks->back()));
    }
    return okStatus();
  }
  comm::Communicator &communicator = *communicators_.front();
  RankTensors mine;
  HETC_RETURN_IF_ERROR(takeRankTensors(*ranks_.front(), &mine));
  if (mine.rank != 0) {
    HETC_RETURN_IF_ERROR(sendTensors(communicator, 0, mine.parameters));
    return sendTensors(communicator, 0, mine.optimizerState);
  }
  ranks->push_back(std::move(mine));
  for (int peer = 1; peer < communicator.worldSize(); ++peer) {
    RankTensors theirs;
    theirs.rank = peer;
    theirs.wholeShapes = wholeShapesOf(package_->programs[peer]);
    HETC_RETURN_IF_ERROR(receiveTensors(communicator, peer, &theirs.parameters),
                         "gathering the checkpoint from rank ", peer);
    HETC_RETURN_IF_ERROR(
        receiveTensors(communicator, peer, &theirs.optimizerState),
        "gathering the checkpoint from rank ", peer);
    ranks->push_back(std::move(theirs));
  }
  return okStatus();
}

} // namespace hetc::runtime::exec
