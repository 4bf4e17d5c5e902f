//===- CompileCommand.cpp - hetc compile ----------------------------------===//
//
// ONNX model (or hetg IR) to a training package: import, simplify, the
// train-step passes (attach-loss, autodiff, optimizer), hetx lowering with
// the memory plan, then the package writer. One progress line per stage on
// stderr.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/ClusterPlanning.h"
#include "compiler/Driver/Commands.h"
#include "compiler/Driver/DeviceMemory.h"
#include "compiler/Driver/CompileProgress.h"
#include "compiler/Driver/Diagnostics.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Driver/InitializerSelection.h"
#include "compiler/Driver/OutputFile.h"
#include "compiler/Driver/UpdateFlags.h"
#include "compiler/Import/ONNX/ONNXImporter.h"
#include "compiler/Package/PackageWriter.h"
#include "dialects/HetExec/HetExec.h"
#include "dialects/HetGraph/HetGraph.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <memory>

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

UpdateFlags updateFlags(compileSubcommand, compileCategory);

cl::opt<bool> forwardOnly(
    "forward-only", cl::sub(compileSubcommand), cl::cat(compileCategory),
    cl::desc("Write a package that runs the forward pass only, on one "
             "device: each step computes the batch's loss and the logits "
             "and updates nothing (`hetrun --outputs` saves the logits); "
             "for evaluation and for checking outputs against another "
             "runtime"));

/// What `hetc compile` writes: the package, or the IR where the pipeline
/// stops.
enum class EmitStage { package, hetg, hetd, hetx };

llvm::StringRef stringifyEmitStage(EmitStage stage) {
  switch (stage) {
  case EmitStage::package: return "package";
  case EmitStage::hetg: return "hetg";
  case EmitStage::hetd: return "hetd";
  case EmitStage::hetx: return "hetx";
  }
  return "";
}

cl::opt<EmitStage> emitStage(
    "emit", cl::sub(compileSubcommand), cl::cat(compileCategory),
    cl::init(EmitStage::package),
    cl::desc("What to write to -o (default: the package)"),
    cl::values(
        clEnumValN(EmitStage::package, "package", "the training package"),
        clEnumValN(EmitStage::hetg, "hetg",
                   "the hetg train step (with a plan: the stage functions "
                   "of every micro-batch size)"),
        clEnumValN(EmitStage::hetd, "hetd",
                   "the rank functions of a plan (one device: the train "
                   "step)"),
        clEnumValN(EmitStage::hetx, "hetx",
                   "the hetx programs, as the package writer takes them")));

cl::opt<bool> untieWeights(
    "untie-weights", cl::sub(compileSubcommand), cl::cat(compileCategory),
    cl::desc("Give every use of a shared weight initializer its own "
             "parameter (hetg-untie-parameters), for exporters that merge "
             "initializers of equal value; the copies are named NAME.1, "
             "NAME.2, ..."));

cl::opt<bool> noWeights(
    "no-weights", cl::sub(compileSubcommand), cl::cat(compileCategory),
    cl::desc("Do not read the model's weights (each is a zero splat, as "
             "with `hetc import --no-weights`) and do not write the "
             "package's weights file: the manifest still names it "
             "(weights.safetensors), to be written later by name, shape and "
             "dtype of the programs' parameters (bench/gpu/write_weights.py)"));

cl::opt<std::string> recomputeSegments(
    "recompute", cl::sub(compileSubcommand), cl::cat(compileCategory),
    cl::value_desc("all|none|N,M,..."), cl::init("none"),
    cl::desc("Segments (hetg-segment numbering) whose activations are "
             "recomputed in the backward pass instead of saved "
             "(hetg-recompute; default none)"));

cl::opt<PrecisionFlag> precisionFlag(
    "precision", cl::sub(compileSubcommand), cl::cat(compileCategory),
    cl::init(PrecisionFlag::f32), precisionFlagValues(),
    cl::desc("What the float ops compute in, with f32 master weights and "
             "optimizer state; f16 adds dynamic loss scaling. auto: per "
             "stage, bf16 where all its GPUs have it (--cluster), else f16; "
             "bf16 without a cluster. Stages of a --plan that name their own "
             "precision keep it (default f32)"));

cl::opt<std::string> planPath(
    "plan", cl::sub(compileSubcommand), cl::cat(compileCategory),
    cl::value_desc("PLAN.json"),
    cl::desc("Distribute the step as this plan says: pipeline stages, "
             "replicas with their sample ranges, micro-batches and state "
             "shards (docs/plan-format.md)"));

cl::list<std::string> measuredProfilePaths(
    "profile", cl::sub(compileSubcommand), cl::cat(compileCategory), cl::CommaSeparated,
    cl::value_desc("PROFILE.json[,PROFILE.json...]"),
    cl::desc("Time the planner's calls by these measured profiles (hetc "
             "measure) where they cover them: device type, precision and "
             "every segment"));

cl::opt<std::string> clusterPath(
    "cluster", cl::sub(compileSubcommand), cl::cat(compileCategory),
    cl::value_desc("CLUSTER.yaml"),
    cl::desc("The machines to train on (models/clusters/README.md): without "
             "--plan, the planner chooses one (as `hetc plan` would); the "
             "devices' memory bounds every rank"));

cl::opt<ShardingFlag> shardingFlag(
    "sharding", cl::sub(compileSubcommand), cl::cat(compileCategory),
    cl::init(ShardingFlag::automatic), shardingFlagValues(),
    cl::desc("With --cluster and no --plan: what of a stage's state its "
             "replicas shard (default auto: the planner chooses)"));

cl::opt<bool> noOffload(
    "no-offload", cl::sub(compileSubcommand), cl::cat(compileCategory),
    cl::desc("With --cluster and no --plan: keep every stage's optimizer "
             "state on its devices (by default the planner may keep a "
             "stage's in host memory and update it there)"));

cl::opt<int64_t> numDevices(
    "devices", cl::sub(compileSubcommand), cl::cat(compileCategory),
    cl::value_desc("N"), cl::init(1),
    cl::desc("Without --plan: plain data parallelism over N identical "
             "devices (default 1)"));

cl::opt<std::string> deviceMemory(
    "device-memory", cl::sub(compileSubcommand), cl::cat(compileCategory),
    cl::value_desc("SIZE | DEVICE=SIZE,..."),
    cl::desc("Memory of every device, or of each named device (e.g. 24GiB, "
             "80GB, 1073741824); a rank whose planned arena does not fit is "
             "an error"));

InitializerSelectionFlags initializerFlags(compileSubcommand,
                                           compileCategory);

constexpr llvm::StringLiteral kPrefix = "hetc compile: ";

void progress(const Twine &line) { llvm::errs() << kPrefix << line << "\n"; }

int usageError(const Twine &message) {
  llvm::errs() << kPrefix << message << "\n";
  return kExitUsage;
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

/// Zeros that back every weight of a --no-weights compile: calloc maps a
/// large block as fresh zero pages, which take no memory until touched.
using ZeroBytes = std::unique_ptr<char, decltype(&std::free)>;

/// --no-weights: the importer gives each weight a zero splat, which the
/// lowering would take for optimizer state (state starts at zero). Each
/// becomes a read-only blob over `zeros` instead, as the weights it stands
/// for are blobs, so that the programs are those of the compile with the
/// weights; the package writer then leaves the values out.
void blankWeights(ModuleOp module, ZeroBytes &zeros) {
  SmallVector<std::pair<ml_program::GlobalOp, int64_t>> weights;
  int64_t largest = 0;
  for (auto global : module.getOps<ml_program::GlobalOp>()) {
    auto value = llvm::dyn_cast_or_null<DenseElementsAttr>(
        global.getValue().value_or(Attribute()));
    auto type = llvm::dyn_cast<RankedTensorType>(global.getType());
    if (global.getIsMutable() || !value || !value.isSplat() || !type ||
        !llvm::isa<FloatType>(type.getElementType()))
      continue;
    int64_t bytes = type.getNumElements() * type.getElementTypeBitWidth() / 8;
    weights.push_back({global, bytes});
    largest = std::max(largest, bytes);
  }
  zeros.reset(
      static_cast<char *>(std::calloc(std::max<int64_t>(largest, 1), 1)));
  for (auto [global, bytes] : weights)
    global.setValueAttr(DenseResourceElementsAttr::get(
        llvm::cast<ShapedType>(global.getType()), global.getSymName(),
        UnmanagedAsmResourceBlob::allocateWithAlign(
            ArrayRef<char>(zeros.get(), bytes), alignof(uint64_t))));
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

/// --emit: the module as text at -o ("-": stdout).
int writeIR(ModuleOp module) {
  if (llvm::Error error = writeOutputFile(
          outputPath, [&](llvm::raw_ostream &os) -> llvm::Error {
            module.print(os);
            os << "\n";
            return llvm::Error::success();
          })) {
    llvm::errs() << kPrefix << "error: cannot write '" << outputPath
                 << "': " << llvm::toString(std::move(error)) << "\n";
    return kExitFailure;
  }
  return kExitSuccess;
}

/// A single-device step reads the whole batch: its input_ids must match
/// --global-batch and --seq.
LogicalResult checkInputShape(ModuleOp module) {
  for (auto program : module.getOps<hetx::ProgramOp>()) {
    auto tokens = llvm::find_if(program.getBuffers(), [](hetx::BufferOp b) {
      return b.getRole() == hetx::InputRole::tokens && !b.isAlias();
    });
    if (tokens == program.getBuffers().end())
      continue;
    MemRefType type = (*tokens).getResult().getType();
    if (type.getDimSize(0) != globalBatch || type.getDimSize(1) != seqLength)
      return program.emitError("the train step reads input_ids of shape [")
             << type.getDimSize(0) << ", " << type.getDimSize(1)
             << "] but --global-batch " << globalBatch.getValue()
             << " --seq " << seqLength.getValue() << " were given";
  }
  return success();
}

FailureOr<OwningOpRef<ModuleOp>> loadModel(MLIRContext &context) {
  if (StringRef(modelPath).ends_with(".mlir")) {
    if (initializerFlags.given())
      return emitError(UnknownLoc::get(&context))
             << "--freeze and --train choose among an ONNX model's "
             << "initializers; '" << modelPath << "' is IR";
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
  options.loadWeights = !noWeights;
  initializerFlags.applyTo(options);
  return importONNXFile(context, modelPath, options);
}

int runCompile() {
  if (globalBatch <= 0 || seqLength <= 0)
    return usageError("--global-batch and --seq must be positive (got "
                      "--global-batch=" +
                      Twine(globalBatch.getValue()) + " --seq=" + Twine(seqLength.getValue()) + ")");
  if (std::optional<std::string> problem = updateFlags.problem())
    return usageError(*problem);

  FailureOr<SmallVector<int64_t>> recomputeList =
      parseRecomputeList(recomputeSegments);
  if (failed(recomputeList))
    return usageError("--recompute must be all, none or a comma-separated "
                      "list of segment numbers (got '" +
                      recomputeSegments + "')");
  planner::PrecisionChoice precision = precisionChoice(precisionFlag);
  bool distributed = !planPath.empty() || numDevices != 1;
  if (numDevices < 1 || numDevices > globalBatch)
    return usageError("--devices must be between 1 and --global-batch (got " +
                      Twine(numDevices.getValue()) + ")");
  if (!planPath.empty() && numDevices != 1)
    return usageError("give --plan or --devices, not both");
  if (!clusterPath.empty() && numDevices != 1)
    return usageError("give --cluster or --devices, not both");
  if (!measuredProfilePaths.empty() && clusterPath.empty())
    return usageError("--profile times the planner's choice: it needs "
                      "--cluster");
  if (shardingFlag != ShardingFlag::automatic &&
      (clusterPath.empty() || !planPath.empty()))
    return usageError("--sharding constrains the planner's choice: it needs "
                      "--cluster, and a --plan file states its own");
  if (noOffload && (clusterPath.empty() || !planPath.empty()))
    return usageError("--no-offload constrains the planner's choice: it "
                      "needs --cluster, and a --plan file states its own");
  distributed |= !clusterPath.empty();
  if (forwardOnly && (distributed || recomputeSegments != "none"))
    return usageError("--forward-only compiles for one device, without "
                      "--plan, --cluster, --devices or --recompute");
  FailureOr<DeviceMemorySpec> memory = parseDeviceMemory(deviceMemory);
  if (failed(memory))
    return usageError("--device-memory must be SIZE or DEVICE=SIZE,... with "
                      "sizes like 24GiB, 80GB or 1073741824 (got '" +
                      deviceMemory + "')");

  ZeroBytes zeros(nullptr, &std::free); // outlives the context's blobs
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  UserDiagnosticHandler diagnostics(&context);

  std::optional<planner::Plan> plan;
  if (!planPath.empty()) {
    llvm::Expected<planner::Plan> parsed = planner::readPlanFile(planPath);
    if (!parsed) {
      llvm::errs() << kPrefix << "error: "
                   << llvm::toString(parsed.takeError()) << "\n";
      return kExitFailure;
    }
    plan = std::move(*parsed);
  }

  progress("import " + modelPath);
  FailureOr<OwningOpRef<ModuleOp>> loaded = loadModel(context);
  if (failed(loaded))
    return kExitFailure;
  OwningOpRef<ModuleOp> owned = std::move(*loaded);
  ModuleOp module = *owned;
  if (noWeights)
    blankWeights(module, zeros);
  std::optional<package::InitializerSummary> initializers;
  if (!isTrainStep(module)) {
    initializers = summarizeInitializers(module);
    printInitializerSummary(*initializers, kPrefix, llvm::errs());
  }

  // With a cluster: its devices' memory, and a plan when none is given.
  std::optional<planner::Cluster> cluster;
  if (!clusterPath.empty() && !isTrainStep(module)) {
    FailureOr<PlanningInput> input = preparePlanning(
        module, llvm::sys::path::stem(modelPath), clusterPath, globalBatch,
        seqLength, updateFlags.adamw(), measuredProfilePaths);
    if (failed(input))
      return kExitFailure;
    if (deviceMemory.empty())
      *memory = memoryOf(input->cluster);
    cluster = input->cluster;
    if (!plan) {
      input->request.sharding = shardingChoice(shardingFlag);
      input->request.allowOffload = !noOffload;
      planner::CostModel cost = input->costModel(precision);
      llvm::Expected<planner::PlanResult> chosen =
          planner::choosePlan(input->cluster, cost, input->request);
      if (!chosen) {
        llvm::errs() << kPrefix << "error: "
                     << llvm::toString(chosen.takeError()) << "\n";
        return kExitFailure;
      }
      progress("plan for " + input->cluster.name + ": " +
               Twine(chosen->plan.stages.size()) + " stages, " +
               Twine(chosen->plan.numRanks()) + " ranks, predicted " +
               Twine(static_cast<int64_t>(chosen->predicted.tokensPerSecond)) +
               " tokens/s");
      plan = std::move(chosen->plan);
    }
    for (const planner::Stage &stage : plan->stages)
      for (const planner::Replica &replica : stage.replicas)
        if (input->cluster.deviceIndex(replica.device) < 0) {
          llvm::errs() << kPrefix << "error: the plan names device '"
                       << replica.device << "', which cluster '"
                       << input->cluster.name << "' does not have\n";
          return kExitFailure;
        }
  }

  PassManager pm(&context);
  if (failed(applyPassManagerCLOptions(pm)))
    return kExitFailure;
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope timingScope = timing.getRootScope();
  pm.enableTiming(timingScope);
  pm.addInstrumentation(std::make_unique<CompileProgress>(progress));
  int64_t vocabSize = findVocabSize(module);
  if (isTrainStep(module)) {
    if (precisionFlag != PrecisionFlag::f32) {
      llvm::errs() << kPrefix << "error: the input is already a train step; "
                   << "--precision applies to models\n";
      return kExitFailure;
    }
    if (distributed || forwardOnly) {
      llvm::errs() << kPrefix << "error: the input is already a train step; "
                   << "only a model can be distributed over a plan or "
                   << "compiled --forward-only\n";
      return kExitFailure;
    }
    progress("the input is already a train step (it stores globals); "
             "skipping " + Twine(untieWeights ? "untie-weights, " : "") +
             "simplify, attach-loss, autodiff and optimizer");
    if (emitStage == EmitStage::hetx || emitStage == EmitStage::package)
      pm.addPass(createHetxLowerToProgram());
  } else {
    CompilePipelineOptions options;
    options.globalBatch = globalBatch;
    options.seq = seqLength;
    updateFlags.applyTo(options);
    options.recompute = *recomputeList;
    options.recomputeAll = recomputeSegments == "all";
    options.precision =
        planner::precisionName(precision.value_or(planner::Precision::BF16))
            .str();
    options.untieWeights = untieWeights;
    options.forwardOnly = forwardOnly;
    options.devices = numDevices;
    if (plan) {
      // The plan as the cluster's GPUs decide its precision; the pipeline
      // reads it from the module.
      assignPrecision(*plan, precision, cluster ? &*cluster : nullptr);
      module->setAttr(hetd::kPlanAttr,
                      StringAttr::get(&context, planner::printPlan(*plan)));
      options.modulePlan = true;
    }
    options.emit = emitStage == EmitStage::package
                       ? "hetx"
                       : stringifyEmitStage(emitStage).str();
    buildCompilePipeline(pm, options);
  }
  if (failed(pm.run(module)))
    return kExitFailure;
  if (emitStage != EmitStage::package)
    return writeIR(module);
  if (auto json = module->getAttrOfType<StringAttr>(hetd::kPlanAttr)) {
    // The plan as compiled: a data-parallel plan's segments filled in.
    llvm::Expected<planner::Plan> compiled = planner::parsePlan(json.getValue());
    if (!compiled) {
      llvm::errs() << kPrefix << "error: "
                   << llvm::toString(compiled.takeError()) << "\n";
      return kExitFailure;
    }
    plan = std::move(*compiled);
  }
  if (!distributed && failed(checkInputShape(module)))
    return kExitFailure;
  if (failed(checkDeviceMemory(module, *memory)))
    return kExitFailure;

  progress("write " + outputPath +
           (noWeights ? " without its weights file (--no-weights)" : ""));
  package::ManifestSettings settings;
  settings.writeWeights = !noWeights;
  settings.modelName = llvm::sys::path::stem(modelPath).str();
  settings.globalBatch = globalBatch;
  settings.seqLen = seqLength;
  settings.vocabSize = vocabSize;
  if (forwardOnly)
    settings.optimizer.kind = "none";
  else
    settings.optimizer = updateFlags.manifestSettings();
  settings.initializers = std::move(initializers);
  if (plan)
    settings.planJson = planner::printPlan(*plan);
  for (auto program : module.getOps<hetx::ProgramOp>()) {
    if (program.getEval())
      continue;
    auto device = program->getAttrOfType<StringAttr>("device");
    int rank = program.getRankAttr().getInt();
    settings.deviceMemoryBytes[rank] =
        memory->of(device ? device.getValue() : "");
    int index = cluster && device ? cluster->deviceIndex(device.getValue()) : -1;
    if (index >= 0 && plan)
      settings.devicePeakTflops[rank] =
          planner::peakFlopsIn(cluster->devices[index].gpu,
                               plan->stages[program.getStage()]
                                   .precision.value_or(planner::Precision::F32)) /
          1e12;
  }
  if (failed(package::writePackage(module, settings, outputPath)))
    return kExitFailure;
  for (auto program : module.getOps<hetx::ProgramOp>())
    progress("rank " + Twine(program.getRankAttr().getInt()) +
             (program.getEval() ? " (evaluation)" : "") + ": " +
             Twine(llvm::range_size(program.getLaunches())) + " launches, " +
             Twine(llvm::range_size(program.getBuffers())) +
             " buffers, arena " + Twine(program.getArenaBytesAttr().getInt()) +
             " bytes");
  return kExitSuccess;
}

/// MLIR's own flags (--mlir-print-ir-after-all, --mlir-timing,
/// --mlir-pass-pipeline-crash-reproducer, --mlir-print-debuginfo, ...)
/// register at the top level; `hetc compile` takes them.
void exposeMLIRFlags() {
  // --mlir-print-ir-after=PASS and the like name registered passes.
  hetc::registerAllPasses();
  registerTransformsPasses();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  llvm::SetVector<cl::Option *> flags;
  for (auto &entry : cl::getRegisteredOptions(cl::SubCommand::getTopLevel()))
    if (entry.first.starts_with("mlir-"))
      flags.insert(entry.second);
  for (cl::Option *flag : flags) {
    flag->removeArgument();
    flag->addSubCommand(compileSubcommand);
    flag->addArgument();
  }
}

} // namespace

Command compileCommand() {
  exposeMLIRFlags();
  return {compileSubcommand, compileCategory, runCompile};
}

} // namespace hetc::driver
