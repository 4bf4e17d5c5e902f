//===- HetrunDriver.h - the hetrun command ----------------------*- C++ -*-===//
//
// `hetrun PKG --data FILE --steps K [...]`: loads a package, runs K training
// steps on the CPU or the CUDA backend and reports each step: every rank as
// a thread of this process, or, under mpirun, this process's rank. The main
// is a call to runHetrun.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_TOOLS_HETRUN_HETRUNDRIVER_H
#define HETC_TOOLS_HETRUN_HETRUNDRIVER_H

#include "runtime/base/Status.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace hetc::hetrun {

struct HetrunOptions {
  std::string package;
  std::string data;
  std::string dataDType = "uint16";
  int64_t steps = -1;
  std::string backend = "cpu";
  bool shareGpu = false;   // cuda: every rank on GPU 0 in SM partitions
  bool cudaGraphs = true;  // cuda: replay the steps as CUDA graphs
  int threads = 0; // per rank; 0: the OpenMP default over the local ranks
  std::string save;
  int64_t saveEvery = 0; // with save: DIR/step-S every N steps
  int64_t keep = 0;      // with saveEvery: the newest K (0: all)
  std::string resume;    // a checkpoint, or a folder of step-S ones
  int64_t logEvery = 1;  // print every N-th step line (and the last)
  std::string valData;   // validation tokens (same format as data)
  int64_t evalEvery = 0; // with valData: every N steps (0: the last only)
  int64_t evalBatches = 10; // with valData: batches per evaluation
  std::string metrics;
  std::string profile; // Chrome trace of every launch (CPU backend)
  std::string outputs; // safetensors file of the last step's outputs
  double peakTflops = 0; // per rank, where the package names no peak
  double commTimeout = 0; // seconds; 0: the defaults (HetrunDriver.cpp)
  /// --on-nonfinite: what a step whose loss is not finite does.
  enum class NonFinite { kStop, kContinue, kSkip };
  NonFinite onNonFinite = NonFinite::kStop;
  bool help = false;
};

/// Parses the arguments (without argv[0]). INVALID_ARGUMENT with the
/// problem for bad usage.
runtime::Status parseArguments(const std::vector<std::string> &args,
                               HetrunOptions *options);

/// The --help text.
std::string usageText();

/// How a run that returned no error ended.
enum class RunEnd {
  kCompleted, // every step up to --steps
  kSignaled,  // SIGTERM/SIGINT stopped it at a step boundary
  kNonFinite, // a step's loss was not finite (--on-nonfinite stop)
};

/// Runs the training; progress lines go to `out`, notes to `err`. Under
/// MPI, a process that fails reports its error on `err` and ends the job.
/// `*end` (when given) tells how the run ended.
runtime::Status runTraining(const HetrunOptions &options, FILE *out, FILE *err,
                            RunEnd *end = nullptr);

/// The whole command: 0 on success, 1 on failure, 2 on bad usage.
int runHetrun(int argc, char **argv);

} // namespace hetc::hetrun

#endif // HETC_TOOLS_HETRUN_HETRUNDRIVER_H
