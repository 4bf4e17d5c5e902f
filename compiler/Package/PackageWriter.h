//===- PackageWriter.h - hetx programs to a package folder ------*- C++ -*-===//
//
// Serializes the hetx.programs of a module and a manifest to the folder
// layout of docs/package-format.md. The package is assembled in a temporary
// folder next to the destination and renamed into place, so a failure
// leaves nothing half-written.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_PACKAGE_PACKAGEWRITER_H
#define HETC_COMPILER_PACKAGE_PACKAGEWRITER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hetc::package {

struct OptimizerSettings {
  std::string kind = "adamw";
  double lr = 1e-3, weightDecay = 0.0, beta1 = 0.9, beta2 = 0.999, eps = 1e-8,
         clipNorm = 0.0;
  std::string lrSchedule = "constant";
  int64_t warmupSteps = 0, decaySteps = 0;
  double minLr = 0.0;
};

/// The model's float initializers: those trained and those frozen
/// (constants of the step), as the importer decided.
struct InitializerSummary {
  struct Frozen {
    std::string name;
    int64_t elements = 0;
    std::string reason;
  };
  int64_t trainableTensors = 0;
  int64_t trainableElements = 0;
  std::vector<Frozen> frozen;
};

struct ManifestSettings {
  std::string modelName;
  int64_t globalBatch = 0;
  int64_t seqLen = 0;
  int64_t vocabSize = 0;
  OptimizerSettings optimizer;
  /// The distribution plan, as JSON; empty without one.
  std::string planJson;
  /// By rank: the memory of the device its arena was checked against.
  /// Ranks not listed get 0 (none given).
  std::map<int, int64_t> deviceMemoryBytes;
  /// By rank: its device's peak TFLOP/s at the rank's precision (what
  /// `hetrun --share-gpu` splits one GPU's SMs by). Ranks not listed get 0.
  std::map<int, double> devicePeakTflops;
  /// False: the parameters' values are not written. The manifest still
  /// names the weights file (`weights_file`, "weights.safetensors"), which
  /// is written later, one tensor per PARAMETER buffer that owns its bytes
  /// (`hetc compile --no-weights`).
  bool writeWeights = true;
  /// Absent for a package compiled from a train step (.mlir).
  std::optional<InitializerSummary> initializers;
};

/// Writes `module`'s hetx.programs (one per rank, ranks 0..N-1) to the
/// package folder `path`. A parameter several programs hold (replicas of a
/// stage) is written once; without `settings.writeWeights`, no weights file
/// is written at all. An existing package folder at `path` is replaced;
/// anything else there is an error. Errors are emitted as diagnostics.
mlir::LogicalResult writePackage(mlir::ModuleOp module,
                                 const ManifestSettings &settings,
                                 llvm::StringRef path);

} // namespace hetc::package

#endif // HETC_COMPILER_PACKAGE_PACKAGEWRITER_H
