//===- HetrunDriver.cpp - the hetrun command ------------------------------===//

#include "tools/hetrun/HetrunDriver.h"

#include "runtime/comm/MpiCommunicator.h"
#include "runtime/data/TokenLoader.h"
#include "runtime/exec/Checkpoint.h"
#include "runtime/exec/Job.h"
#include "runtime/package/Safetensors.h"
#include "tools/hetrun/Backend.h"
#include "tools/hetrun/Progress.h"

#include <cerrno>
#include <csignal>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>

namespace hetc::hetrun {

using runtime::Status;
using runtime::invalidArgument;

std::string usageText() {
  return R"(usage: hetrun PACKAGE --data FILE --steps K [options]

Runs K training steps of a package that `hetc compile` wrote.

  PACKAGE                 the package folder (OUT.hetpkg)
  --data FILE             training tokens: a flat file of little-endian token
                          ids (nanoGPT's train.bin). Sample j of step s starts
                          at token ((s*B + j)*T) mod (N - T - 1); its labels
                          are the next T tokens.
  --steps K               the step to stop at: steps 0..K-1 run (from the
                          checkpoint's step with --resume; K >= 0)
  --data-dtype uint16|uint32
                          token width of the data file (default uint16)
  --backend cpu|cuda      kernels to run on (default cpu). cuda: rank r on
                          GPU r (under mpirun, the process's node-local rank
                          picks the GPU), NCCL between ranks, each step's
                          launches replayed as CUDA graphs from step 2 on
  --share-gpu             cuda: run every rank on GPU 0, each in a green
                          context with a share of the SMs in proportion to
                          its planned device's peak and a memory cap of its
                          planned device's memory: a heterogeneous plan on
                          one GPU (messages go through the host)
  --no-cuda-graphs        cuda: launch every kernel every step
  --threads N             CPU threads for each rank's kernels (default: the
                          OpenMP default divided among the ranks this
                          process runs)
  --save DIR              after the last step, write DIR/params.safetensors
                          (every parameter by its ONNX initializer name),
                          DIR/optimizer.safetensors (the optimizer state,
                          each tensor whole whatever the sharding) and
                          DIR/state.json (step count, package); written to a
                          temporary folder and renamed into place
  --save-every N          with --save: write DIR/step-S every N steps and
                          after the last, each complete before DIR/latest
                          names it
  --keep K                with --save-every: keep the newest K checkpoints
                          (default: all)
  --resume PATH           continue from a checkpoint (a --save folder, or a
                          --save-every folder: its latest): parameters,
                          optimizer state and the step count; any package
                          of the same model and optimizer (other plan,
                          devices, precision) can resume it, and a
                          --forward-only package takes its parameters
  --outputs FILE.safetensors
                          after the last step, write the program's outputs
                          for that step's batch by name: the logits of a
                          package from `hetc compile --forward-only` (whose
                          steps compute the loss and update nothing)
  --metrics FILE.jsonl    write (replacing FILE) one JSON object per step:
                          {"step", "loss", "lr", "tokens_per_s", "mfu",
                          "peak_mem_bytes", "step_ms", "elapsed_s", "eta_s"}
                          and "val_loss" after an evaluation (loss null
                          when not finite; no lr for a forward-only
                          package; no mfu without peaks;
                          peak_mem_bytes: one number per rank this process
                          runs, in rank order)
  --profile TRACE.json    time every launch of every step and write a
                          Chrome trace (open it in Perfetto or
                          chrome://tracing; the format of `hetc plan
                          --trace`: one process per rank, thread 0 its
                          compute launches, thread 1 its sends, receives
                          and collectives with their bytes and waits),
                          and print the time per kernel on stderr at the
                          end. Under MPI each process writes its rank's
                          TRACE.json.rank<N>. On cuda each launch is timed
                          by CUDA events on its rank's stream, and the
                          steps run without CUDA graphs
  --peak-tflops X         the peak dense TFLOP/s of each rank's device,
                          for MFU, where the package has none (packages
                          compiled with --cluster carry their GPUs' peaks)
  --log-every N           print every N-th step line and the last (the
                          metrics file still gets every step)
  --val-data FILE         validation tokens (the format of --data): after
                          the last step, and with --eval-every N every N
                          steps and at the start (step 0, or the resumed
                          step when N divides it), the
                          mean loss of --eval-batches global batches of
                          FILE, read from its start in the data order above
                          (batch m as step m), with the weights as trained
                          so far: "val loss V" in the step line and
                          "val_loss" in the metrics. The package's
                          evaluation programs compute it (the forward of the
                          same plan); nothing is trained on it. The start's
                          line is "step S/K: val loss V", its metrics record
                          {"step", "val_loss"}
  --eval-every N          with --val-data: evaluate every N steps (default:
                          after the last step only)
  --eval-batches M        with --val-data: batches per evaluation (default
                          10); FILE must hold M*B*T + 2 tokens,
                          so that no batch wraps around
  --comm-timeout SECONDS  a rank waiting for another that shows no sign of
                          life for SECONDS ends the job with an error
                          naming it (default 30; a long step does not trip
                          it). Ranks as threads: no completed instruction
                          and no wait of its own. Under MPI: no heartbeat
                          (each process's watch thread sends them; a
                          stopped process or an unreachable host sends
                          none). Any one wait lasts at most 10 minutes
  --on-nonfinite stop|skip|continue
                          when a step's loss is NaN or infinite: stop
                          (default; exit status 4, nothing saved), skip
                          the step (its update is undone: every rank keeps
                          a copy of its parameters and optimizer state on
                          its device, as much memory again, and restores
                          it; the data and the learning-rate schedule move
                          on, as torch's GradScaler skips a step), or
                          continue with the update
  -h, --help              print this help

All ranks of the package run as threads of this process; under mpirun (or
srun) each process runs one rank, and the job needs one process per rank.

Each step prints one line on stdout (under mpirun, rank 0 prints, and
writes --metrics and --save):
  step S/K: loss L, [val loss V,] lr X, R tokens/s, mfu U%, mem P MiB,
  M ms, elapsed E s, eta T s
V is the validation loss, after the steps --val-data evaluates. X is the learning rate the step applied (the package's schedule, see
`hetc compile --lr-schedule`). U is the model FLOPs of the step (the
package's count over all ranks, recomputation left out) per second over
the devices' summed peaks, shown when every rank's peak is known. P is
the most memory a rank's device has allocated so far (arena and kernel
scratch; libraries such as cuBLAS and NCCL hold more). T is the time the
remaining steps take at the mean step time so far.
L is the step's loss over the whole global batch (the sum of the ranks'
shares); R counts every token of the global batch. Steps count from 1 in
the output; the data order counts them from 0.

SIGTERM or SIGINT stops the run at the next step boundary (every rank at
the same step): with --save, after writing the checkpoint of that step
(resume it with --resume); a second SIGINT stops at once.

Exit status: 0 on success, 1 when the package, data or a step fails (the
error is printed on stderr), 2 for bad usage, 3 when a signal stopped the
run (after its checkpoint, with --save), 4 when a non-finite loss stopped
it, 130 for a second SIGINT.
)";
}

namespace {

constexpr int kExitStopped = 3;
constexpr int kExitNonFinite = 4;
constexpr int kExitInterrupted = 130;

Status parseInt(const std::string &flag, const std::string &text,
                int64_t *value) {
  char *end = nullptr;
  errno = 0;
  long long parsed = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0)
    return invalidArgument(flag, " expects an integer, got '", text, "'");
  *value = parsed;
  return runtime::okStatus();
}

} // namespace

Status parseArguments(const std::vector<std::string> &args,
                      HetrunOptions *options) {
  std::vector<std::string> positional;
  std::string evalFlag; // an --eval-* flag given, which needs --val-data
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg == "-h" || arg == "--help") {
      options->help = true;
      return runtime::okStatus();
    }
    if (arg.size() < 2 || arg[0] != '-' || arg == "-") {
      positional.push_back(arg);
      continue;
    }
    if (arg == "--share-gpu" || arg == "--no-cuda-graphs") {
      (arg == "--share-gpu" ? options->shareGpu : options->cudaGraphs) =
          arg == "--share-gpu";
      continue;
    }
    std::string value;
    bool inlineValue = false;
    size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      inlineValue = true;
    }
    static const char *const kFlags[] = {
        "--data",    "--steps",   "--data-dtype", "--backend",
        "--threads", "--save",    "--metrics",    "--outputs",
        "--save-every", "--keep", "--resume", "--log-every",
        "--peak-tflops", "--on-nonfinite", "--comm-timeout", "--val-data",
        "--eval-every", "--eval-batches", "--profile"};
    bool known = false;
    for (const char *flag : kFlags)
      known |= arg == flag;
    if (!known)
      return invalidArgument("unknown option '", arg, "'");
    if (!inlineValue) {
      if (i + 1 >= args.size())
        return invalidArgument(arg, " needs a value");
      value = args[++i];
    }
    if (arg == "--data") {
      options->data = value;
    } else if (arg == "--steps") {
      HETC_RETURN_IF_ERROR(parseInt(arg, value, &options->steps));
      if (options->steps < 0)
        return invalidArgument("--steps must be >= 0, got ", options->steps);
    } else if (arg == "--data-dtype") {
      if (value != "uint16" && value != "uint32")
        return invalidArgument("--data-dtype must be uint16 or uint32, got '",
                               value, "'");
      options->dataDType = value;
    } else if (arg == "--backend") {
      if (value != "cpu" && value != "cuda")
        return invalidArgument("--backend must be cpu or cuda, got '", value,
                               "'");
      options->backend = value;
    } else if (arg == "--threads") {
      int64_t threads;
      HETC_RETURN_IF_ERROR(parseInt(arg, value, &threads));
      if (threads < 1 || threads > 4096)
        return invalidArgument("--threads must be in [1, 4096], got ", threads);
      options->threads = static_cast<int>(threads);
    } else if (arg == "--save") {
      options->save = value;
    } else if (arg == "--metrics") {
      options->metrics = value;
    } else if (arg == "--profile") {
      options->profile = value;
    } else if (arg == "--outputs") {
      options->outputs = value;
    } else if (arg == "--val-data") {
      options->valData = value;
    } else if (arg == "--save-every" || arg == "--keep" ||
               arg == "--log-every" || arg == "--eval-every" ||
               arg == "--eval-batches") {
      if (arg == "--eval-every" || arg == "--eval-batches")
        evalFlag = arg;
      int64_t *count = arg == "--keep"           ? &options->keep
                       : arg == "--log-every"    ? &options->logEvery
                       : arg == "--eval-every"   ? &options->evalEvery
                       : arg == "--eval-batches" ? &options->evalBatches
                                                 : &options->saveEvery;
      HETC_RETURN_IF_ERROR(parseInt(arg, value, count));
      if (*count < 1)
        return invalidArgument(arg, " must be >= 1, got ", *count);
    } else if (arg == "--resume") {
      options->resume = value;
    } else if (arg == "--on-nonfinite") {
      using NonFinite = HetrunOptions::NonFinite;
      if (value != "stop" && value != "skip" && value != "continue")
        return invalidArgument(
            "--on-nonfinite must be stop, skip or continue, got '", value,
            "'");
      options->onNonFinite = value == "stop"   ? NonFinite::kStop
                             : value == "skip" ? NonFinite::kSkip
                                               : NonFinite::kContinue;
    } else if (arg == "--peak-tflops" || arg == "--comm-timeout") {
      double *number = arg == "--peak-tflops" ? &options->peakTflops
                                              : &options->commTimeout;
      char *end = nullptr;
      *number = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(*number > 0) ||
          !std::isfinite(*number) || *number > 1e6)
        return invalidArgument(arg, " expects a positive number, got '",
                               value, "'");
    }
  }
  if (positional.empty())
    return invalidArgument("no package given");
  if (positional.size() > 1)
    return invalidArgument("one package expected, got '", positional[0],
                           "' and '", positional[1], "'");
  options->package = positional[0];
  if (options->data.empty())
    return invalidArgument("--data FILE is required");
  if (options->steps < 0)
    return invalidArgument("--steps K is required");
  if (options->saveEvery > 0 && options->save.empty())
    return invalidArgument("--save-every needs --save DIR");
  if (options->keep > 0 && options->saveEvery == 0)
    return invalidArgument("--keep needs --save-every");
  if (!evalFlag.empty() && options->valData.empty())
    return invalidArgument(evalFlag, " needs --val-data FILE");
  if (!options->outputs.empty() && options->steps == 0)
    return invalidArgument("--outputs needs at least one step (--steps)");
  if (options->backend != "cuda" && (options->shareGpu || !options->cudaGraphs))
    return invalidArgument(options->shareGpu ? "--share-gpu" : "--no-cuda-graphs",
                           " needs --backend cuda");
  return runtime::okStatus();
}

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// "1 rank, arena N bytes", or "3 ranks" and one line per rank.
void printLayout(const hetc::pkg::Manifest &manifest,
                 const runtime::exec::LoadedPackage &package, FILE *err) {
  if (manifest.ranks_size() == 1) {
    std::fprintf(err, ", 1 rank, arena %lld bytes\n",
                 static_cast<long long>(manifest.ranks(0).arena_bytes()));
    return;
  }
  std::fprintf(err, ", %d ranks\n", manifest.ranks_size());
  for (const hetc::pkg::RankInfo &rank : manifest.ranks()) {
    const hetc::pkg::Program &program = package.programs[rank.rank()];
    std::string device =
        rank.device().empty() ? "" : ", device " + rank.device();
    std::fprintf(
        err,
        "hetrun: rank %d: stage %d, replica %d%s, samples [%lld, "
        "%lld), arena %lld bytes\n",
        rank.rank(), rank.stage(), rank.replica(), device.c_str(),
        static_cast<long long>(program.first_sample()),
        static_cast<long long>(program.first_sample() + program.num_samples()),
        static_cast<long long>(rank.arena_bytes()));
  }
}

// --outputs: rank 0's outputs (a forward-only package has one rank),
// written to a temporary sibling and renamed into place.
Status writeOutputs(const runtime::exec::RankExecutor &rank,
                    const std::string &path, FILE *err) {
  std::vector<hetc::package::NamedTensor> tensors;
  HETC_RETURN_IF_ERROR(rank.outputs(&tensors));
  std::string partial = path + ".partial", error;
  if (!hetc::package::writeSafetensorsFile(partial, tensors, {}, &error))
    return runtime::resourceExhausted(error);
  if (std::rename(partial.c_str(), path.c_str()) != 0)
    return runtime::errnoStatus(errno, "cannot rename '" + partial +
                                           "' to '" + path + "'");
  std::fprintf(err, "hetrun: wrote %zu output(s) to %s\n", tensors.size(),
               path.c_str());
  return runtime::okStatus();
}

// Writes `text` to a temporary sibling of `path`, renamed into place.
Status writeFileAtomically(const std::string &path, const std::string &text) {
  std::string partial = path + ".partial";
  FILE *file = std::fopen(partial.c_str(), "wb");
  if (!file)
    return runtime::errnoStatus(errno, "cannot create '" + partial + "'");
  bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  written &= std::fclose(file) == 0;
  if (!written) {
    int error = errno;
    std::remove(partial.c_str());
    return runtime::errnoStatus(error, "cannot write '" + partial + "'");
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0)
    return runtime::errnoStatus(errno, "cannot rename '" + partial +
                                           "' to '" + path + "'");
  return runtime::okStatus();
}

// --profile: the trace of this process's ranks (under MPI, to PATH.rank<N>)
// and the time per kernel on `err`.
Status writeProfile(const runtime::exec::Job &job,
                    const runtime::exec::LoadedPackage &package,
                    const std::string &path, bool perProcess, int64_t steps,
                    FILE *err) {
  std::vector<runtime::exec::LaunchRecord> records = job.profileRecords();
  std::string file =
      perProcess ? path + ".rank" + std::to_string(job.localRank(0).rank())
                 : path;
  HETC_RETURN_IF_ERROR(writeFileAtomically(
      file, runtime::exec::chromeTrace(package.manifest, package.programs,
                                        package.evalPrograms, records)));
  std::fprintf(err, "hetrun: wrote the profile of %zu launches to %s\n%s",
               records.size(), file.c_str(),
               runtime::exec::profileSummary(package.programs,
                                             package.evalPrograms, records,
                                             steps)
                   .c_str());
  std::fflush(err);
  return runtime::okStatus();
}

// SIGTERM and SIGINT ask the run to stop at the next step boundary; a
// second SIGINT ends the process at once.
volatile std::sig_atomic_t stopRequests = 0;

extern "C" void requestStop(int signal) {
  if (signal == SIGINT && stopRequests > 0)
    std::_Exit(kExitInterrupted);
  stopRequests = stopRequests + 1;
}

// How long a rank waits for another before the job fails, and, with ranks
// as threads, for one that shows no progress (--comm-timeout).
constexpr std::chrono::minutes kCommTimeout(10);
constexpr std::chrono::seconds kStallTimeout(30);

std::chrono::milliseconds seconds(double value) {
  return std::chrono::milliseconds(static_cast<int64_t>(value * 1e3));
}

// Runs the job: every rank here, or, given `world` (MPI), its rank only.
// `*end` tells how it ended.
Status train(const HetrunOptions &options, runtime::comm::Communicator *world,
             FILE *out, FILE *err, RunEnd *end) {
  runtime::exec::LoadedPackage package;
  HETC_RETURN_IF_ERROR(runtime::exec::loadPackage(options.package, &package));
  const hetc::pkg::Manifest &manifest = package.manifest;
  runtime::exec::JobOptions jobOptions;
  jobOptions.threadsPerRank = options.threads;
  jobOptions.timeout = kCommTimeout;
  jobOptions.stallTimeout = options.commTimeout > 0
                                ? seconds(options.commTimeout)
                                : std::chrono::milliseconds(kStallTimeout);
  std::vector<std::string> layout;
  HETC_RETURN_IF_ERROR(
      configureBackend(options, package, world != nullptr, &jobOptions, &layout));
  std::unique_ptr<runtime::exec::Job> job;
  const runtime::exec::KernelRegistry &registry =
      runtime::exec::cpuKernelRegistry();
  HETC_RETURN_IF_ERROR(world ? runtime::exec::Job::createForRank(
                                   package, registry, *world, jobOptions, &job)
                             : runtime::exec::Job::createInProcess(
                                   package, registry, jobOptions, &job),
                       "package '", options.package, "'");

  if (!options.outputs.empty() &&
      package.programs[0].output_buffers_size() == 0)
    return invalidArgument("--outputs: the package's program returns no "
                           "outputs (a train step returns its loss only); "
                           "compile the model with `hetc compile "
                           "--forward-only`");

  runtime::TokenDType dtype;
  HETC_RETURN_IF_ERROR(runtime::parseTokenDType(options.dataDType, &dtype));
  runtime::TokenLoader data;
  HETC_RETURN_IF_ERROR(data.open(options.data, dtype));
  int64_t start;
  // Checks the file holds at least one sequence before step 0.
  HETC_RETURN_IF_ERROR(data.sampleStart(0, manifest.global_batch(), 0,
                                        manifest.seq_len(), &start));

  runtime::TokenLoader valData;
  if (!options.valData.empty()) {
    if (!job->hasEvaluation())
      return invalidArgument(
          "--val-data: package '", options.package,
          "' has no evaluation programs (a --forward-only package, or one "
          "compiled before they existed); compile it again");
    HETC_RETURN_IF_ERROR(valData.open(options.valData, dtype), "--val-data");
    // Batch m reads tokens from (m*B + j)*T on: M batches fit unwrapped.
    int64_t needed =
        options.evalBatches * manifest.global_batch() * manifest.seq_len() + 2;
    if (valData.numTokens() < needed)
      return invalidArgument(
          "--val-data '", options.valData, "' has ", valData.numTokens(),
          " tokens but --eval-batches ", options.evalBatches, " of ",
          manifest.global_batch(), " x ", manifest.seq_len(),
          " tokens need ", needed, "; give fewer batches or more data");
  }
  // The mean loss of the validation batches, with the weights as they are.
  auto validate = [&](double *mean) -> Status {
    double sum = 0.0;
    for (int64_t batch = 0; batch < options.evalBatches; ++batch) {
      float loss = 0.0f;
      HETC_RETURN_IF_ERROR(job->evaluate(batch, valData, &loss), "--val-data");
      sum += loss;
    }
    *mean = sum / static_cast<double>(options.evalBatches);
    return runtime::okStatus();
  };

  // Under MPI only rank 0's process reports and writes files.
  bool reports = job->hostsRankZero();
  FILE *metrics = nullptr;
  if (reports && !options.metrics.empty()) {
    metrics = std::fopen(options.metrics.c_str(), "w");
    if (!metrics)
      return runtime::errnoStatus(errno, "cannot create metrics file '" +
                                             options.metrics + "'");
  }
  std::unique_ptr<FILE, int (*)(FILE *)> metricsCloser(
      metrics, [](FILE *f) { return f ? std::fclose(f) : 0; });

  if (reports) {
    std::fprintf(err,
                 "hetrun: package %s: model '%s', global batch %lld x seq "
                 "%lld, vocab %lld, optimizer %s",
                 options.package.c_str(), manifest.model_name().c_str(),
                 static_cast<long long>(manifest.global_batch()),
                 static_cast<long long>(manifest.seq_len()),
                 static_cast<long long>(manifest.vocab_size()),
                 manifest.optimizer().kind().c_str());
    printLayout(manifest, package, err);
    std::string threads =
        world ? "one process per rank, " +
                    std::to_string(job->threadsPerRank()) + " threads each"
        : manifest.ranks_size() > 1
            ? std::to_string(manifest.ranks_size()) + " ranks as threads, " +
                  std::to_string(job->threadsPerRank()) + " threads each"
            : std::to_string(job->threadsPerRank()) + " threads";
    if (options.backend == "cuda")
      threads = world ? "one process per rank" : std::to_string(manifest.ranks_size()) + " rank(s) as threads";
    std::fprintf(err, "hetrun: data %s: %lld %s tokens; backend %s, %s\n",
                 options.data.c_str(), static_cast<long long>(data.numTokens()),
                 runtime::tokenDTypeName(dtype), options.backend.c_str(),
                 threads.c_str());
    for (const std::string &line : layout)
      std::fprintf(err, "hetrun: %s\n", line.c_str());
    std::fflush(err);
  }

  int64_t firstStep = 0;
  if (!options.resume.empty()) {
    runtime::exec::CheckpointTensors checkpoint;
    runtime::exec::CheckpointInfo resumed;
    std::string from;
    HETC_RETURN_IF_ERROR(runtime::exec::loadCheckpoint(
                             options.resume, &checkpoint, &resumed, &from),
                         "--resume");
    // A forward-only package takes the parameters alone.
    if (manifest.optimizer().kind() != "none" &&
        resumed.optimizer != manifest.optimizer().kind())
      return invalidArgument("--resume: checkpoint '", from, "' holds ",
                             resumed.optimizer, " state but the package's "
                             "optimizer is ",
                             manifest.optimizer().kind());
    if (resumed.step > options.steps)
      return invalidArgument("--resume: checkpoint '", from, "' is at step ",
                             resumed.step, ", past --steps ", options.steps,
                             " (the step to stop at)");
    HETC_RETURN_IF_ERROR(job->restore(checkpoint), "--resume '", from, "'");
    firstStep = resumed.step;
    if (reports)
      std::fprintf(err, "hetrun: resumed at step %lld from %s\n",
                   static_cast<long long>(firstStep), from.c_str());
  }

  // What every process calls at a checkpoint step; rank 0's writes.
  auto save = [&](int64_t steps, bool series) -> Status {
    std::vector<runtime::exec::RankTensors> ranks;
    HETC_RETURN_IF_ERROR(job->gatherTensors(&ranks));
    if (!reports)
      return runtime::okStatus();
    runtime::exec::CheckpointInfo info;
    info.step = steps;
    info.packagePath = options.package;
    HETC_RETURN_IF_ERROR(
        series ? runtime::exec::saveCheckpointSeries(options.save, options.keep,
                                                     ranks, manifest, info)
               : runtime::exec::saveCheckpoint(options.save, ranks, manifest,
                                               info));
    std::fprintf(err, "hetrun: saved step %lld to %s%s\n",
                 static_cast<long long>(steps), options.save.c_str(),
                 series ? ("/step-" + std::to_string(steps)).c_str() : "");
    std::fflush(err);
    return runtime::okStatus();
  };

  int64_t tokensPerStep = manifest.global_batch() * manifest.seq_len();
  ProgressReporter progress(manifest, options.steps, options.logEvery,
                            options.peakTflops, reports ? out : nullptr,
                            metrics);
  // The weights the run starts with, when --eval-every falls on them.
  if (valData.isOpen() && options.evalEvery > 0 &&
      firstStep % options.evalEvery == 0) {
    double valLoss = 0.0;
    HETC_RETURN_IF_ERROR(validate(&valLoss), "at step ", firstStep);
    if (reports)
      HETC_RETURN_IF_ERROR(progress.reportValidation(firstStep, valLoss),
                           "--metrics '", options.metrics, "'");
  }
  Clock::time_point begin = Clock::now();
  if (!options.profile.empty())
    job->startProfile(begin);
  for (int64_t step = firstStep; step < options.steps; ++step) {
    Clock::time_point stepBegin = Clock::now();
    float loss = 0.0f;
    bool skips = options.onNonFinite == HetrunOptions::NonFinite::kSkip;
    if (skips)
      HETC_RETURN_IF_ERROR(job->keepTrainingState());
    HETC_RETURN_IF_ERROR(job->runStep(step, data, &loss));
    // Every process has the summed loss, so all skip or stop alike.
    if (skips && !std::isfinite(loss)) {
      HETC_RETURN_IF_ERROR(job->restoreTrainingState());
      std::string ranks = job->describeNonFiniteLosses();
      if (!ranks.empty())
        std::fprintf(err,
                     "hetrun: step %lld: non-finite loss on %s; skipped: "
                     "the parameters and optimizer state are those before "
                     "it\n",
                     static_cast<long long>(step + 1), ranks.c_str());
    }
    StepRecord record;
    record.step = step + 1;
    record.loss = loss;
    record.seconds = secondsSince(stepBegin);
    record.elapsed = secondsSince(begin);
    record.eta = record.elapsed / static_cast<double>(step + 1 - firstStep) *
                 static_cast<double>(options.steps - step - 1);
    bool evaluates = valData.isOpen() &&
                     ((options.evalEvery > 0 &&
                       (step + 1) % options.evalEvery == 0) ||
                      step + 1 == options.steps);
    if (evaluates) {
      double valLoss = 0.0;
      HETC_RETURN_IF_ERROR(validate(&valLoss), "after step ", step + 1);
      record.valLoss = valLoss;
    }
    for (int i = 0; i < job->numLocalRanks(); ++i)
      record.peakMemoryBytes.push_back(
          job->localRank(i).device().peakAllocatedBytes());
    if (reports)
      HETC_RETURN_IF_ERROR(progress.report(record), "--metrics '",
                           options.metrics, "'");
    if (!std::isfinite(loss) &&
        options.onNonFinite == HetrunOptions::NonFinite::kStop) {
      std::string ranks = job->describeNonFiniteLosses();
      if (!ranks.empty())
        std::fprintf(err, "hetrun: step %lld: non-finite loss on %s\n",
                     static_cast<long long>(step + 1), ranks.c_str());
      if (reports)
        std::fprintf(err,
                     "hetrun: error: step %lld: the loss is %s; stopping "
                     "without saving (the parameters may no longer be "
                     "finite). Resume from an earlier checkpoint with a "
                     "smaller --lr or --clip-norm, or skip such steps "
                     "with --on-nonfinite skip\n",
                     static_cast<long long>(step + 1),
                     std::isnan(loss) ? "nan" : "infinite");
      std::fflush(err);
      *end = RunEnd::kNonFinite;
      return runtime::okStatus();
    }
    bool stop = false;
    HETC_RETURN_IF_ERROR(job->anyAsksToStop(stopRequests > 0, &stop));
    if (stop && step + 1 < options.steps) {
      if (reports)
        std::fprintf(err, "hetrun: stopping after step %lld (signal)%s\n",
                     static_cast<long long>(step + 1),
                     options.save.empty() ? "; no --save: nothing saved" : "");
      if (!options.save.empty())
        HETC_RETURN_IF_ERROR(save(step + 1, options.saveEvery > 0));
      *end = RunEnd::kSignaled;
      return runtime::okStatus();
    }
    if (options.saveEvery > 0 && (step + 1) % options.saveEvery == 0 &&
        step + 1 < options.steps)
      HETC_RETURN_IF_ERROR(save(step + 1, /*series=*/true));
  }
  int64_t ran = options.steps - firstStep;
  double total = secondsSince(begin);
  if (reports && ran > 0)
    std::fprintf(err,
                 "hetrun: %lld steps in %.3f s (%.2f ms/step, %.0f tokens/s)\n",
                 static_cast<long long>(ran), total,
                 total * 1e3 / static_cast<double>(ran),
                 static_cast<double>(tokensPerStep * ran) / total);

  if (!options.profile.empty())
    HETC_RETURN_IF_ERROR(writeProfile(*job, package, options.profile,
                                      world != nullptr, ran, err),
                         "--profile '", options.profile, "'");
  if (reports && !options.outputs.empty())
    HETC_RETURN_IF_ERROR(writeOutputs(job->localRank(0), options.outputs, err));
  if (options.save.empty())
    return runtime::okStatus();
  return save(options.steps, /*series=*/options.saveEvery > 0);
}

} // namespace

Status runTraining(const HetrunOptions &options, FILE *out, FILE *err,
                   RunEnd *end) {
  RunEnd ignored = RunEnd::kCompleted;
  end = end ? end : &ignored;
  *end = RunEnd::kCompleted;
  if (!runtime::comm::launchedByMpi())
    return train(options, nullptr, out, err, end);
  std::unique_ptr<runtime::comm::Communicator> world;
  // A wait ends when its peer sends no heartbeat for the stall limit, and
  // in any case after kCommTimeout.
  // A peer's process that ends is reported the moment it does: the
  // launcher may end this process soon after.
  auto reportLoss = [err](const std::string &loss) {
    std::fprintf(err, "hetrun: %s\n", loss.c_str());
    std::fflush(err);
  };
  HETC_RETURN_IF_ERROR(runtime::comm::createMpiCommunicator(
      std::chrono::duration_cast<std::chrono::milliseconds>(kCommTimeout),
      options.commTimeout > 0 ? seconds(options.commTimeout)
                              : std::chrono::milliseconds(kStallTimeout),
      &world, reportLoss));
  Status status = train(options, world.get(), out, err, end);
  if (!status.ok()) {
    // The other processes may be waiting for this one: report, then end
    // them all (MPI_Abort does not return).
    std::fprintf(err, "hetrun: error: %s\n", status.message().c_str());
    std::fflush(err);
    world->abort(status.message());
  }
  return status;
}

int runHetrun(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  HetrunOptions options;
  Status status = parseArguments(args, &options);
  if (!status.ok()) {
    std::fprintf(stderr, "hetrun: error: %s\n(run 'hetrun --help' for usage)\n",
                 status.message().c_str());
    return 2;
  }
  if (options.help) {
    std::fputs(usageText().c_str(), stdout);
    return 0;
  }
  std::signal(SIGTERM, requestStop);
  std::signal(SIGINT, requestStop);
  RunEnd end = RunEnd::kCompleted;
  status = runTraining(options, stdout, stderr, &end);
  if (!status.ok()) {
    std::fprintf(stderr, "hetrun: error: %s\n", status.message().c_str());
    return 1;
  }
  switch (end) {
  case RunEnd::kSignaled:
    return kExitStopped;
  case RunEnd::kNonFinite:
    return kExitNonFinite;
  case RunEnd::kCompleted:
    break;
  }
  return 0;
}

} // namespace hetc::hetrun
