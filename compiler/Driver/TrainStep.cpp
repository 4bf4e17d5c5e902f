//===- TrainStep.cpp - the passes from a model to its gradients -----------===//

#include "compiler/Driver/TrainStep.h"

#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace hetc::driver {

LogicalResult runPipeline(ModuleOp module, StringRef pipeline) {
  PassManager pm(module.getContext());
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (failed(parsePassPipeline(pipeline, pm, errorStream)))
    return module.emitError("cannot build the pass pipeline '")
           << pipeline << "': " << errors;
  return pm.run(module);
}

int64_t countSegments(ModuleOp module) {
  int64_t count = 0;
  for (auto func : module.getOps<func::FuncOp>())
    if (auto segments = func->getAttrOfType<ArrayAttr>("hetg.segments"))
      count = std::max<int64_t>(count, segments.size());
  return count;
}

/// hetg-segment with the `--recompute` flags ("all": every segment).
static LogicalResult segmentForRecompute(ModuleOp module, StringRef recompute) {
  std::string list = recompute == "none" ? "" : recompute.str();
  if (recompute == "all") {
    if (failed(runPipeline(module, "hetg-segment")))
      return failure();
    list.clear();
    for (int64_t s = 0, e = countSegments(module); s < e; ++s)
      list += (s ? "," : "") + std::to_string(s);
  }
  std::string pipeline = "hetg-segment";
  if (!list.empty())
    pipeline += "{recompute=" + list + "}";
  return runPipeline(module, pipeline);
}

/// "bf16", or per segment "bf16 in segments 0-3, f16 in 4-8".
static std::string describePrecision(const GradientStepOptions &options) {
  if (options.segmentPrecision.empty())
    return options.precision;
  std::string text;
  const std::vector<std::string> &types = options.segmentPrecision;
  for (size_t first = 0; first < types.size();) {
    size_t end = first;
    while (end < types.size() && types[end] == types[first])
      ++end;
    text += (first ? ", " : "") + types[first] + " in segment" +
            (end - first > 1 ? "s " + std::to_string(first) + "-" +
                                   std::to_string(end - 1)
                             : " " + std::to_string(first));
    first = end;
  }
  return text;
}

/// hetg-mixed-precision when anything computes in bf16 or f16.
static LogicalResult
lowerPrecision(ModuleOp module, const GradientStepOptions &options,
               llvm::function_ref<void(const Twine &)> progress) {
  auto isF32 = [](const std::string &type) { return type == "f32"; };
  if (isF32(options.precision) && llvm::all_of(options.segmentPrecision, isF32))
    return success();
  progress("compute in " + describePrecision(options) +
           ", with f32 master weights and optimizer state");
  std::string pipeline =
      "hetg-mixed-precision{precision=" + options.precision;
  if (!options.segmentPrecision.empty())
    pipeline += " segment-precision=" +
                llvm::join(options.segmentPrecision, ",");
  return runPipeline(module, pipeline + "}");
}

/// Specializes the model to the batch and attaches its loss.
static LogicalResult
specializeWithLoss(ModuleOp module, const GradientStepOptions &options,
                   bool keepLogits,
                   llvm::function_ref<void(const Twine &)> progress) {
  progress("simplify to batch " + Twine(options.batch) + ", sequence " +
           Twine(options.seq));
  PassManager simplify(module.getContext());
  SimplifyPipelineOptions simplifyOptions;
  simplifyOptions.batch = options.batch;
  simplifyOptions.seq = options.seq;
  buildSimplifyPipeline(simplify, simplifyOptions);
  if (failed(simplify.run(module)))
    return failure();

  progress("attach the loss");
  return runPipeline(module, "hetg-attach-loss{tokens=" +
                                 std::to_string(options.lossTokens) +
                                 (keepLogits ? " keep-logits=true" : "") + "}");
}

LogicalResult
buildForwardStep(ModuleOp module, const GradientStepOptions &options,
                 llvm::function_ref<void(const Twine &)> progress) {
  if (failed(specializeWithLoss(module, options, /*keepLogits=*/true,
                                progress)))
    return failure();
  return lowerPrecision(module, options, progress);
}

LogicalResult
buildGradientStep(ModuleOp module, const GradientStepOptions &options,
                  llvm::function_ref<void(const Twine &)> progress) {
  if (failed(specializeWithLoss(module, options, /*keepLogits=*/false,
                                progress)))
    return failure();
  bool recompute = options.recompute != "none";
  if (recompute || options.segment) {
    progress("segment the forward graph" +
             (recompute ? ", recompute " + Twine(options.recompute) : Twine()));
    if (failed(segmentForRecompute(module, options.recompute)))
      return failure();
  }
  if (failed(lowerPrecision(module, options, progress)))
    return failure();
  progress("differentiate");
  if (failed(runPipeline(module, "hetg-autodiff,cse")))
    return failure();
  if (recompute) {
    progress("recompute the flagged segments' activations");
    if (failed(runPipeline(module, "hetg-recompute")))
      return failure();
  }
  return success();
}

} // namespace hetc::driver
