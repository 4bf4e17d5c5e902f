//===- CompileCommand.cpp - hetc compile ----------------------------------===//
//
// ONNX model (or hetg IR) to a training package: import, simplify, the
// train-step passes (attach-loss, autodiff, optimizer), hetx lowering with
// the memory plan, then the package writer. One progress line per stage on
// stderr.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/Commands.h"
#include "compiler/Driver/Diagnostics.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Import/ONNX/ONNXImporter.h"
#include "compiler/Package/PackageWriter.h"
#include "dialects/HetExec/HetExec.h"
#include "dialects/HetGraph/HetGraph.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace hetc::driver {

namespace {

cl::SubCommand compileSubcommand(
    "compile",
    "Compile an ONNX model (or hetg IR in a .mlir file) into a training "
    "package for hetrun");

cl::OptionCategory compileCategory("hetc compile options");

cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                               cl::sub(compileSubcommand),
                               cl::cat(compileCategory),
                               cl::desc("<MODEL.onnx | MODEL.onnxtxt | STEP.mlir>"));

cl::opt<std::string> outputPath(
    "o", cl::sub(compileSubcommand), cl::cat(compileCategory), cl::Required,
    cl::value_desc("OUT.hetpkg"),
    cl::desc("The package folder to write; written whole or not at all, and "
             "an existing package there is replaced"));

cl::opt<int64_t> globalBatch("global-batch", cl::sub(compileSubcommand),
                             cl::cat(compileCategory), cl::Required,
                             cl::value_desc("B"),
                             cl::desc("Samples per training step"));

cl::opt<int64_t> seqLength("seq", cl::sub(compileSubcommand),
                           cl::cat(compileCategory), cl::Required,
                           cl::value_desc("T"),
                           cl::desc("Tokens per sample"));

cl::opt<std::string> optimizerKind(
    "optimizer", cl::sub(compileSubcommand), cl::cat(compileCategory),
    cl::value_desc("sgd|adamw"), cl::init("adamw"),
    cl::desc("Parameter update, with torch.optim semantics (default adamw)"));

cl::opt<double> learningRate("lr", cl::sub(compileSubcommand),
                             cl::cat(compileCategory), cl::value_desc("X"),
                             cl::init(1e-3),
                             cl::desc("Learning rate (default 1e-3)"));

cl::opt<double> weightDecay(
    "weight-decay", cl::sub(compileSubcommand), cl::cat(compileCategory),
    cl::value_desc("W"), cl::init(0.0),
    cl::desc("Weight decay of parameters of rank >= 2 (default 0)"));

cl::opt<double> beta1("beta1", cl::sub(compileSubcommand),
                      cl::cat(compileCategory), cl::init(0.9),
                      cl::desc("AdamW beta1 (default 0.9)"));
cl::opt<double> beta2("beta2", cl::sub(compileSubcommand),
                      cl::cat(compileCategory), cl::init(0.999),
                      cl::desc("AdamW beta2 (default 0.999)"));
cl::opt<double> epsilon("eps", cl::sub(compileSubcommand),
                        cl::cat(compileCategory), cl::init(1e-8),
                        cl::desc("AdamW epsilon (default 1e-8)"));
cl::opt<double> clipNorm(
    "clip-norm", cl::sub(compileSubcommand), cl::cat(compileCategory),
    cl::init(0.0),
    cl::desc("Clip the global gradient norm to this value (default 0: off)"));

cl::opt<bool> untieWeights(
    "untie-weights", cl::sub(compileSubcommand), cl::cat(compileCategory),
    cl::desc("Give every use of a shared weight initializer its own "
             "parameter (hetg-untie-parameters), for exporters that merge "
             "initializers of equal value; the copies are named NAME.1, "
             "NAME.2, ..."));

cl::opt<std::string> recomputeSegments(
    "recompute", cl::sub(compileSubcommand), cl::cat(compileCategory),
    cl::value_desc("all|none|N,M,..."), cl::init("none"),
    cl::desc("Segments (hetg-segment numbering) whose activations are "
             "recomputed in the backward pass instead of saved "
             "(hetg-recompute; default none)"));

constexpr llvm::StringLiteral kPrefix = "hetc compile: ";

void progress(const Twine &line) { llvm::errs() << kPrefix << line << "\n"; }

int usageError(const Twine &message) {
  llvm::errs() << kPrefix << message << "\n";
  return kExitUsage;
}

/// Runs the passes `pipeline` lists (textual pass-list syntax, anchored on
/// the module) on `module`.
/// Training passes are looked up by name so the driver does not depend on
/// which of them a build has.
LogicalResult runPipeline(ModuleOp module, StringRef pipeline) {
  PassManager pm(module.getContext());
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (failed(parsePassPipeline(pipeline, pm, errorStream)))
    return module.emitError("cannot build the pass pipeline '")
           << pipeline << "': " << errors;
  return pm.run(module);
}

/// The segment list of `--recompute` N,M,...; nothing for none or all.
FailureOr<SmallVector<int64_t>> parseRecomputeList(StringRef text) {
  SmallVector<int64_t> segments;
  if (text == "none" || text == "all")
    return segments;
  SmallVector<StringRef> parts;
  text.split(parts, ',');
  for (StringRef part : parts) {
    int64_t index;
    if (part.trim().getAsInteger(10, index) || index < 0)
      return failure();
    segments.push_back(index);
  }
  return segments;
}

/// The most segments `hetg-segment` found in any function of `module`.
int64_t countSegments(ModuleOp module) {
  int64_t count = 0;
  for (auto func : module.getOps<func::FuncOp>())
    if (auto segments = func->getAttrOfType<ArrayAttr>("hetg.segments"))
      count = std::max<int64_t>(count, segments.size());
  return count;
}

/// Runs hetg-segment with the `--recompute` flags.
LogicalResult segmentForRecompute(ModuleOp module,
                                  SmallVector<int64_t> segments) {
  if (recomputeSegments == "all") {
    if (failed(runPipeline(module, "hetg-segment")))
      return failure();
    for (int64_t s = 0, e = countSegments(module); s < e; ++s)
      segments.push_back(s);
  }
  std::string pipeline = "hetg-segment";
  if (!segments.empty()) {
    pipeline += "{recompute=";
    for (auto [i, s] : llvm::enumerate(segments))
      pipeline += (i ? "," : "") + std::to_string(s);
    pipeline += "}";
  }
  return runPipeline(module, pipeline);
}

bool isTrainStep(ModuleOp module) {
  return !module.getOps<func::FuncOp>().empty() &&
         module
             .walk([](ml_program::GlobalStoreOp) {
               return WalkResult::interrupt();
             })
             .wasInterrupted();
}

/// The vocabulary size: the last dimension of the logits a forward function
/// returns, else the rows of the table the input ids index.
int64_t findVocabSize(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.getNumResults() >= 1)
      if (auto logits =
              llvm::dyn_cast<RankedTensorType>(func.getResultTypes()[0]))
        if (logits.getRank() == 3 && !logits.isDynamicDim(2))
          return logits.getDimSize(2);
    if (func.isExternal())
      continue;
    for (BlockArgument arg : func.getArguments()) {
      auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                    "hetg.name");
      if (!name || name.getValue() != "input_ids")
        continue;
      for (Operation *user : arg.getUsers())
        if (auto gather = llvm::dyn_cast<hetg::GatherOp>(user))
          if (gather.getIndices() == arg && gather.getAxis() == 0)
            if (auto table =
                    llvm::dyn_cast<RankedTensorType>(gather.getData().getType()))
              return table.getDimSize(0);
    }
  }
  return 0;
}

FailureOr<OwningOpRef<ModuleOp>> loadModel(MLIRContext &context) {
  if (StringRef(modelPath).ends_with(".mlir")) {
    if (!llvm::sys::fs::exists(modelPath))
      return emitError(UnknownLoc::get(&context))
             << "cannot read '" << modelPath << "': no such file";
    llvm::SourceMgr sourceMgr;
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(modelPath, sourceMgr, &context);
    if (!module)
      return failure();
    return module;
  }
  ONNXImportOptions options;
  options.warnSharedWeights = !untieWeights;
  return importONNXFile(context, modelPath, options);
}

int runCompile() {
  if (globalBatch <= 0 || seqLength <= 0)
    return usageError("--global-batch and --seq must be positive (got "
                      "--global-batch=" +
                      Twine(globalBatch.getValue()) + " --seq=" + Twine(seqLength.getValue()) + ")");
  if (optimizerKind != "sgd" && optimizerKind != "adamw")
    return usageError("--optimizer must be sgd or adamw (got '" +
                      optimizerKind + "')");
  if (!(learningRate > 0))
    return usageError("--lr must be positive (got " + Twine(std::to_string(learningRate.getValue())) +
                      ")");
  if (weightDecay < 0 || clipNorm < 0 || epsilon <= 0 || beta1 < 0 ||
      beta1 >= 1 || beta2 < 0 || beta2 >= 1)
    return usageError("--weight-decay and --clip-norm must be >= 0, --eps > "
                      "0, and --beta1/--beta2 in [0, 1)");

  FailureOr<SmallVector<int64_t>> recomputeList =
      parseRecomputeList(recomputeSegments);
  if (failed(recomputeList))
    return usageError("--recompute must be all, none or a comma-separated "
                      "list of segment numbers (got '" +
                      recomputeSegments + "')");
  bool recompute = recomputeSegments != "none";

  static bool passesRegistered = (hetc::registerAllPasses(),
                                  mlir::registerTransformsPasses(), true);
  (void)passesRegistered;

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  UserDiagnosticHandler diagnostics(&context);

  progress("import " + modelPath);
  FailureOr<OwningOpRef<ModuleOp>> loaded = loadModel(context);
  if (failed(loaded))
    return kExitFailure;
  ModuleOp module = **loaded;

  int64_t vocabSize = 0;
  if (isTrainStep(module)) {
    progress("the input is already a train step (it stores globals); "
             "skipping " + Twine(untieWeights ? "untie-weights, " : "") +
             "simplify, attach-loss, autodiff and optimizer");
    vocabSize = findVocabSize(module);
  } else {
    if (untieWeights) {
      progress("untie shared weights");
      PassManager untie(&context);
      untie.addPass(createHetgUntieParameters());
      if (failed(untie.run(module)))
        return kExitFailure;
    }
    progress("simplify to batch " + Twine(globalBatch.getValue()) + ", sequence " +
             Twine(seqLength.getValue()));
    PassManager simplify(&context);
    SimplifyPipelineOptions options;
    options.batch = globalBatch;
    options.seq = seqLength;
    buildSimplifyPipeline(simplify, options);
    if (failed(simplify.run(module)))
      return kExitFailure;
    vocabSize = findVocabSize(module);

    progress("attach the loss");
    if (failed(runPipeline(module, "hetg-attach-loss")))
      return kExitFailure;
    if (recompute) {
      progress("segment the forward graph, recompute " + recomputeSegments);
      if (failed(segmentForRecompute(module, *recomputeList)))
        return kExitFailure;
    }
    progress("differentiate");
    if (failed(runPipeline(module, "hetg-autodiff,cse")))
      return kExitFailure;
    if (recompute) {
      progress("recompute the flagged segments' activations");
      if (failed(runPipeline(module, "hetg-recompute")))
        return kExitFailure;
    }
    std::string optimizer;
    llvm::raw_string_ostream os(optimizer);
    os << "hetg-optimizer{optimizer=" << optimizerKind
       << " lr=" << llvm::format("%.17g", learningRate.getValue())
       << " weight-decay=" << llvm::format("%.17g", weightDecay.getValue())
       << " beta1=" << llvm::format("%.17g", beta1.getValue())
       << " beta2=" << llvm::format("%.17g", beta2.getValue())
       << " eps=" << llvm::format("%.17g", epsilon.getValue())
       << " clip-norm=" << llvm::format("%.17g", clipNorm.getValue())
       << "},canonicalize,cse";
    progress("add the " + optimizerKind + " update");
    if (failed(runPipeline(module, optimizer)))
      return kExitFailure;
  }

  progress("lower to a hetx program and plan memory");
  if (failed(runPipeline(module, "hetx-lower-to-program")))
    return kExitFailure;
  for (auto program : module.getOps<hetx::ProgramOp>()) {
    auto tokens = llvm::find_if(program.getBuffers(), [](hetx::BufferOp b) {
      return b.getRole() == hetx::InputRole::tokens && !b.isAlias();
    });
    MemRefType type = (*tokens).getResult().getType();
    if (type.getDimSize(0) != globalBatch || type.getDimSize(1) != seqLength) {
      llvm::errs() << kPrefix << "error: the train step reads input_ids of "
                   << "shape [" << type.getDimSize(0) << ", "
                   << type.getDimSize(1) << "] but --global-batch "
                   << globalBatch << " --seq " << seqLength
                   << " were given\n";
      return kExitFailure;
    }
  }

  progress("write " + outputPath);
  package::ManifestSettings settings;
  settings.modelName = llvm::sys::path::stem(modelPath).str();
  settings.globalBatch = globalBatch;
  settings.seqLen = seqLength;
  settings.vocabSize = vocabSize;
  settings.optimizer = {optimizerKind, learningRate, weightDecay, beta1,
                        beta2,         epsilon,      clipNorm};
  if (failed(package::writePackage(module, settings, outputPath)))
    return kExitFailure;
  for (auto program : module.getOps<hetx::ProgramOp>())
    progress("rank " + Twine(program.getRankAttr().getInt()) + ": " +
             Twine(llvm::range_size(program.getLaunches())) + " launches, " +
             Twine(llvm::range_size(program.getBuffers())) +
             " buffers, arena " + Twine(program.getArenaBytesAttr().getInt()) +
             " bytes");
  return kExitSuccess;
}

} // namespace

Command compileCommand() {
  return {compileSubcommand, compileCategory, runCompile};
}

} // namespace hetc::driver
