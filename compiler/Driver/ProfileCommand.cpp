//===- ProfileCommand.cpp - hetc profile ----------------------------------===//
//
// The cost profile the planner starts from: import the model without its
// weights (a profile needs only shapes), simplify at the given batch and
// sequence length, attach the loss, and cut the graph into segments
// (hetg-segment); then print the segments' profiles as a table or JSON.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/Commands.h"
#include "compiler/Driver/Diagnostics.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Driver/InitializerSelection.h"
#include "compiler/Driver/SegmentProfile.h"
#include "compiler/Import/ONNX/ONNXImporter.h"
#include "dialects/HetGraph/HetGraph.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace hetc::driver {

namespace {

cl::SubCommand profileSubcommand(
    "profile",
    "Cut a model into segments between its cut points and print each "
    "segment's parameters, FLOPs and activation sizes");

cl::OptionCategory profileCategory("hetc profile options");

cl::opt<std::string>
    modelPath(cl::Positional, cl::Required, cl::sub(profileSubcommand),
              cl::cat(profileCategory),
              cl::desc("<MODEL.onnx | MODEL.onnxtxt | FORWARD.mlir>"));

cl::opt<int64_t> seqLength("seq", cl::sub(profileSubcommand),
                           cl::cat(profileCategory), cl::Required,
                           cl::value_desc("T"), cl::desc("Tokens per sample"));

cl::opt<int64_t>
    batchSize("batch", cl::sub(profileSubcommand), cl::cat(profileCategory),
              cl::value_desc("B"), cl::init(1),
              cl::desc("Samples per step (default 1): FLOPs are for the "
                       "whole batch, activation and boundary sizes per "
                       "sample"));

cl::opt<bool> jsonOutput(
    "json", cl::sub(profileSubcommand), cl::cat(profileCategory),
    cl::desc("Print the profile as one JSON object (for the planner)"));

cl::list<int64_t> recomputeSegments(
    "recompute", cl::sub(profileSubcommand), cl::cat(profileCategory),
    cl::CommaSeparated, cl::value_desc("S,..."),
    cl::desc("Mark these segments for activation recomputation (recorded in "
             "the profile; nothing recomputes yet)"));

InitializerSelectionFlags initializerFlags(profileSubcommand, profileCategory);

constexpr llvm::StringLiteral kPrefix = "hetc profile: ";

FailureOr<OwningOpRef<ModuleOp>> loadModel(MLIRContext &context) {
  if (StringRef(modelPath).ends_with(".mlir")) {
    if (initializerFlags.given())
      return emitError(UnknownLoc::get(&context))
             << "--freeze and --train choose among an ONNX model's "
             << "initializers; '" << modelPath << "' is IR";
    llvm::SourceMgr sources;
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(modelPath, sources, &context);
    if (!module)
      return failure();
    return module;
  }
  // Weights are never read: globals are zero splats of the right types, so
  // a model whose weight files are absent (export.py --shapes-only) works.
  ONNXImportOptions options;
  options.loadWeights = false;
  initializerFlags.applyTo(options);
  return importONNXFile(context, modelPath, options);
}

bool isRecomputed(int64_t segment) {
  return llvm::is_contained(recomputeSegments, segment);
}

/// Whole-batch figures: the profile's are per sample.
struct Totals {
  int64_t parameters = 0, parameterBytes = 0;
  double forwardFlops = 0, backwardFlops = 0;
  int64_t savedBytes = 0;
  double flopsPerSequence() const {
    return (forwardFlops + backwardFlops) / double(batchSize);
  }
  double flopsPerToken() const {
    return flopsPerSequence() / double(seqLength);
  }
};

Totals sum(const planner::ModelProfile &profile) {
  Totals totals;
  for (const planner::SegmentCost &s : profile.segments) {
    totals.parameters += s.parameters;
    totals.parameterBytes += s.parameterBytes;
    totals.forwardFlops += s.forwardFlops * batchSize;
    totals.backwardFlops += s.backwardFlops * batchSize;
    totals.savedBytes += s.savedActivationBytes;
  }
  return totals;
}

/// A segment's op kinds, whole-batch like the segment's own figures (their
/// launches are per call, whatever its batch).
llvm::json::Object kindsJson(const planner::SegmentCost &segment) {
  llvm::json::Object kinds;
  for (const auto &[name, kind] : segment.kinds)
    kinds[name] = llvm::json::Object{
        {"forward_ops", kind.forwardOps},
        {"backward_ops", kind.backwardOps},
        {"forward_flops", int64_t(kind.forwardFlops * batchSize)},
        {"backward_flops", int64_t(kind.backwardFlops * batchSize)},
        {"forward_bytes", int64_t(kind.forwardBytes * batchSize)},
        {"backward_bytes", int64_t(kind.backwardBytes * batchSize)}};
  return kinds;
}

void printJson(const planner::ModelProfile &profile, const Totals &totals) {
  llvm::json::Array array;
  for (const auto &[index, s] : llvm::enumerate(profile.segments))
    array.push_back(llvm::json::Object{
        {"index", int64_t(index)},
        {"ops", s.ops},
        {"parameters", s.parameters},
        {"parameter_bytes", s.parameterBytes},
        {"forward_flops", int64_t(s.forwardFlops * batchSize)},
        {"backward_flops", int64_t(s.backwardFlops * batchSize)},
        {"forward_bytes", int64_t(s.forwardBytes * batchSize)},
        {"backward_bytes", int64_t(s.backwardBytes * batchSize)},
        {"saved_activation_bytes_per_sample", s.savedActivationBytes},
        {"boundary_bytes_per_sample", s.boundaryBytes},
        {"recompute", isRecomputed(index)},
        {"kinds", kindsJson(s)}});
  llvm::json::Array shared;
  for (const planner::SharedParameter &parameter : profile.sharedParameters)
    shared.push_back(llvm::json::Object{
        {"name", parameter.name},
        {"elements", parameter.elements},
        {"bytes", parameter.bytes},
        {"segments", llvm::json::Array(parameter.segments)}});
  llvm::json::Object root{
      {"model", modelPath},
      {"batch", int64_t(batchSize)},
      {"seq", int64_t(seqLength)},
      {"segments", std::move(array)},
      {"shared_parameters", std::move(shared)},
      {"totals",
       llvm::json::Object{
           {"parameters", totals.parameters},
           {"parameter_bytes", totals.parameterBytes},
           {"forward_flops", int64_t(totals.forwardFlops)},
           {"backward_flops", int64_t(totals.backwardFlops)},
           {"flops_per_sequence", totals.flopsPerSequence()},
           {"flops_per_token", totals.flopsPerToken()},
           {"saved_activation_bytes_per_sample", totals.savedBytes}}}};
  llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)))
               << "\n";
}

void printTable(const planner::ModelProfile &profile, const Totals &totals) {
  llvm::raw_ostream &os = llvm::outs();
  os << modelPath << ": batch " << batchSize << ", seq " << seqLength << ", "
     << profile.segments.size()
     << " segments (FLOPs for the batch; activations per sample)\n\n";
  os << llvm::format("%7s %5s %12s %10s %11s %11s %14s %15s %9s\n", "segment",
                     "ops", "params", "param MB", "fwd GFLOP", "bwd GFLOP",
                     "saved MB/smp", "boundary KB/smp", "recompute");
  for (const auto &[index, s] : llvm::enumerate(profile.segments))
    os << llvm::format(
        "%7lld %5lld %12lld %10.3f %11.4g %11.4g %14.3f "
        "%15.3f %9s\n",
        (long long)index, (long long)s.ops, (long long)s.parameters,
        s.parameterBytes / 1e6, s.forwardFlops * batchSize / 1e9,
        s.backwardFlops * batchSize / 1e9, s.savedActivationBytes / 1e6,
        s.boundaryBytes / 1e3, isRecomputed(index) ? "yes" : "no");
  os << llvm::format("%7s %5s %12lld %10.3f %11.4g %11.4g %14.3f\n\n", "total",
                     "", (long long)totals.parameters,
                     totals.parameterBytes / 1e6, totals.forwardFlops / 1e9,
                     totals.backwardFlops / 1e9, totals.savedBytes / 1e6);
  os << llvm::format("parameters:         %lld (%.3f MB)\n",
                     (long long)totals.parameters, totals.parameterBytes / 1e6);
  os << llvm::format("FLOPs per sequence: %.6g (forward %.6g, backward %.6g)\n",
                     totals.flopsPerSequence(),
                     totals.forwardFlops / double(batchSize),
                     totals.backwardFlops / double(batchSize));
  os << llvm::format("FLOPs per token:    %.6g\n", totals.flopsPerToken());
  for (const planner::SharedParameter &parameter : profile.sharedParameters) {
    os << "shared:             " << parameter.name << " ("
       << parameter.elements << " parameters), read by segments";
    for (int64_t segment : parameter.segments)
      os << " " << segment;
    os << "\n";
  }
}

int runProfile() {
  if (batchSize <= 0 || seqLength <= 0) {
    llvm::errs() << kPrefix
                 << "--batch and --seq must be positive (got --batch="
                 << batchSize << " --seq=" << seqLength << ")\n";
    return kExitUsage;
  }
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  // Diagnostics name the ONNX node; a dump of the whole function helps no
  // one.
  context.printOpOnDiagnostic(false);
  UserDiagnosticHandler diagnostics(&context);

  FailureOr<OwningOpRef<ModuleOp>> module = loadModel(context);
  if (failed(module) ||
      failed(segmentModel(**module, batchSize, seqLength,
                          llvm::to_vector(recomputeSegments))))
    return kExitFailure;
  FailureOr<planner::ModelProfile> profile =
      readModelProfile(**module, modelPath, seqLength);
  if (failed(profile))
    return kExitFailure;
  Totals totals = sum(*profile);
  if (jsonOutput)
    printJson(*profile, totals);
  else
    printTable(*profile, totals);
  return kExitSuccess;
}

} // namespace

Command profileCommand() {
  return {profileSubcommand, profileCategory, runProfile};
}

} // namespace hetc::driver
