//===- LowerToProgram.cpp - hetx-lower-to-program -------------------------===//
//
// Turns the functions of a module into hetx.programs. A module of rank
// functions (hetd.rank) gets one program per rank, `@rank<N>`, in rank
// order; a module without them holds one function (a train step, or any
// func.func of hetg ops over ml_program globals), which becomes `@rank0`.
// A function's evaluation copy (hetd.eval) becomes `@rank<N>_eval`, right
// after it, in its arena. The globals become the programs' parameter, state and constant buffers;
// the functions and globals are then erased.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/HetGraphToHetExec/FunctionLowering.h"

#include "dialects/HetDist/HetDist.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/BuiltinOps.h"

#include <limits>

namespace hetc {
#define GEN_PASS_DEF_HETXLOWERTOPROGRAM
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;
using hetx::BufferKind;

namespace {

// hetg-optimizer marks the globals holding optimizer state with this.

bool isZeroSplat(ElementsAttr value) {
  auto dense = llvm::dyn_cast<DenseElementsAttr>(value);
  if (!dense || !dense.isSplat())
    return false;
  Type element = dense.getElementType();
  if (llvm::isa<FloatType>(element))
    return dense.getSplatValue<APFloat>().isZero();
  if (llvm::isa<IntegerType>(element))
    return dense.getSplatValue<APInt>().isZero();
  return false;
}

FailureOr<GlobalBuffer> classifyGlobal(ml_program::GlobalOp global) {
  std::string what = ("global @" + global.getSymName()).str();
  FailureOr<MemRefType> type =
      bufferTypeOf(global.getType(), global.getLoc(), what);
  if (failed(type))
    return failure();
  std::optional<Attribute> valueAttr = global.getValue();
  ElementsAttr init =
      valueAttr ? llvm::dyn_cast<ElementsAttr>(*valueAttr) : ElementsAttr();
  if (valueAttr && !init)
    return global.emitOpError("has an initial value that is not a tensor "
                              "of elements");
  bool isFloat = llvm::isa<FloatType>(type->getElementType());
  BufferKind kind;
  if (!global.getIsMutable()) {
    if (!init)
      return global.emitOpError("is immutable but has no value");
    kind = isFloat ? BufferKind::parameter : BufferKind::constant;
  } else if (!init || isZeroSplat(init) || global->hasAttr(hetg::kStateOfAttr)) {
    // Optimizer state starts at zero and is not in the weights file.
    if (init && !isZeroSplat(init))
      return global.emitOpError("is optimizer state (hetg.state_of) but "
                                "does not start at zero");
    kind = BufferKind::optimizer_state;
    init = ElementsAttr();
  } else if (isFloat && !llvm::isa<SplatElementsAttr>(init)) {
    kind = BufferKind::parameter;
  } else {
    return global.emitOpError(
        "is mutable and starts at a non-zero splat or integer value; "
        "trained parameters are float tensors with data and optimizer "
        "state starts at zero");
  }
  bool onHost = global->hasAttr(hetd::kHostAttr);
  if (onHost && kind != BufferKind::optimizer_state)
    return global.emitOpError("lives on the host (")
           << hetd::kHostAttr
           << ") but is no optimizer state; only optimizer state is offloaded";
  return GlobalBuffer{
      global.getSymName().str(),
      *type,
      kind,
      init,
      global.getLoc(),
      global->getAttrOfType<DenseI64ArrayAttr>(hetd::kWholeShapeAttr),
      onHost};
}

/// A non-negative i32 from the integer attribute `name` of `func`;
/// `fallback` when it is absent.
FailureOr<int32_t> readIndex(func::FuncOp func, StringRef name,
                             int32_t fallback) {
  Attribute attr = func->getAttr(name);
  if (!attr)
    return fallback;
  auto integer = llvm::dyn_cast<IntegerAttr>(attr);
  if (!integer || integer.getType().isInteger(1) || integer.getInt() < 0 ||
      integer.getInt() > std::numeric_limits<int32_t>::max())
    return func.emitOpError()
           << name << " must be a non-negative 32-bit integer, got " << attr;
  return static_cast<int32_t>(integer.getInt());
}

/// The program attributes of a rank function, from its hetd attributes.
FailureOr<ProgramPlacement> readPlacement(func::FuncOp func) {
  ProgramPlacement placement;
  FailureOr<int32_t> rank = readIndex(func, hetd::kRankAttr, 0);
  FailureOr<int32_t> stage = readIndex(func, hetd::kStageAttr, 0);
  FailureOr<int32_t> replica = readIndex(func, hetd::kReplicaAttr, 0);
  if (failed(rank) || failed(stage) || failed(replica))
    return failure();
  placement.rank = *rank;
  placement.stage = *stage;
  placement.replica = *replica;
  if (Attribute device = func->getAttr(hetd::kDeviceAttr)) {
    auto name = llvm::dyn_cast<StringAttr>(device);
    if (!name)
      return func.emitOpError()
             << hetd::kDeviceAttr << " must be a string, got " << device;
    placement.device = name.str();
  }
  auto samples = func->getAttrOfType<DenseI64ArrayAttr>(hetd::kSamplesAttr);
  if (!samples || samples.size() != 2 || samples[0] < 0 ||
      samples[0] > samples[1])
    return func.emitOpError()
           << "needs " << hetd::kSamplesAttr
           << " = array<i64: first, end> with 0 <= first <= end: the rank's "
              "samples of the global batch";
  placement.firstSample = samples[0];
  placement.numSamples = samples[1] - samples[0];
  return placement;
}

struct FunctionToLower {
  func::FuncOp func;
  std::optional<ProgramPlacement> placement;
  /// Its evaluation copy (hetd.eval), if the module has one.
  func::FuncOp eval;
};

/// The single function of a module without rank functions.
FailureOr<FunctionToLower>
selectSingleFunction(ModuleOp module, MutableArrayRef<func::FuncOp> funcs) {
  if (funcs.empty())
    return module.emitError("the module has no function to lower");
  if (funcs.size() > 1) {
    InFlightDiagnostic diag = funcs[1].emitOpError(
        "is a second function; hetx-lower-to-program lowers a module "
        "holding one train-step function or rank functions (hetd.rank)");
    diag.attachNote(funcs[0].getLoc()) << "the first function is here";
    return diag;
  }
  return FunctionToLower{funcs[0], std::nullopt};
}

/// The rank functions of a module, in rank order.
FailureOr<SmallVector<FunctionToLower>>
selectRankFunctions(ArrayRef<func::FuncOp> funcs) {
  SmallVector<std::pair<ProgramPlacement, func::FuncOp>> ranks;
  for (func::FuncOp func : funcs) {
    if (!func->hasAttr(hetd::kRankAttr))
      return func.emitOpError(
          "is not a rank function (no hetd.rank) in a module of rank "
          "functions; run the inliner and symbol-dce first");
    FailureOr<ProgramPlacement> placement = readPlacement(func);
    if (failed(placement))
      return failure();
    ranks.push_back({*placement, func});
  }
  llvm::stable_sort(ranks, [](const auto &a, const auto &b) {
    return a.first.rank < b.first.rank;
  });
  SmallVector<FunctionToLower> functions;
  for (auto [index, rank] : llvm::enumerate(ranks)) {
    if (index > 0 && ranks[index - 1].first.rank == rank.first.rank) {
      InFlightDiagnostic diag =
          rank.second.emitOpError("is a second function of rank ")
          << rank.first.rank;
      diag.attachNote(ranks[index - 1].second.getLoc())
          << "the first function of that rank is here";
      return diag;
    }
    functions.push_back({rank.second, rank.first});
  }
  return functions;
}

/// Gives each evaluation copy (hetd.eval) to the function of its rank.
LogicalResult attachEvaluations(ArrayRef<func::FuncOp> evals,
                                MutableArrayRef<FunctionToLower> functions) {
  for (func::FuncOp eval : evals) {
    FunctionToLower *owner = &functions.front();
    if (functions.front().placement) {
      FailureOr<int32_t> rank = readIndex(eval, hetd::kRankAttr, -1);
      if (failed(rank))
        return failure();
      owner = llvm::find_if(functions, [&](const FunctionToLower &function) {
        return function.placement->rank == *rank;
      });
      if (owner == functions.end())
        return eval.emitOpError("evaluates rank ")
               << *rank << " (hetd.rank), which no rank function has";
    }
    if (owner->eval) {
      InFlightDiagnostic diag =
          eval.emitOpError("is a second evaluation (hetd.eval) of @")
          << owner->func.getName();
      diag.attachNote(owner->eval.getLoc()) << "the first one is here";
      return diag;
    }
    owner->eval = eval;
  }
  return success();
}

FailureOr<SmallVector<FunctionToLower>> selectFunctions(ModuleOp module) {
  SmallVector<func::FuncOp> funcs, evals;
  bool anyRank = false;
  for (Operation &op : module.getBody()->getOperations()) {
    if (auto func = llvm::dyn_cast<func::FuncOp>(op)) {
      (func->hasAttr(hetd::kEvalAttr) ? evals : funcs).push_back(func);
      anyRank |= func->hasAttr(hetd::kRankAttr);
      continue;
    }
    if (!llvm::isa<ml_program::GlobalOp>(op))
      return op.emitOpError("cannot be lowered into a hetx program; the "
                            "module may hold only ml_program globals and "
                            "func.funcs");
  }
  SmallVector<FunctionToLower> functions;
  if (anyRank) {
    FailureOr<SmallVector<FunctionToLower>> ranks = selectRankFunctions(funcs);
    if (failed(ranks))
      return failure();
    functions = std::move(*ranks);
  } else {
    FailureOr<FunctionToLower> single = selectSingleFunction(module, funcs);
    if (failed(single))
      return failure();
    functions.push_back(*single);
  }
  if (failed(attachEvaluations(evals, functions)))
    return failure();
  return functions;
}

struct HetxLowerToProgram
    : hetc::impl::HetxLowerToProgramBase<HetxLowerToProgram> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<SmallVector<FunctionToLower>> functions =
        selectFunctions(module);
    if (failed(functions))
      return signalPassFailure();
    for (FunctionToLower &function : *functions)
      for (func::FuncOp func : {function.func, function.eval})
        if (func && func.isExternal()) {
          func.emitOpError("is only a declaration; a program lowers a "
                           "function with a body");
          return signalPassFailure();
        }
    SmallVector<GlobalBuffer> globals;
    for (auto global : module.getOps<ml_program::GlobalOp>()) {
      FailureOr<GlobalBuffer> buffer = classifyGlobal(global);
      if (failed(buffer))
        return signalPassFailure();
      globals.push_back(*buffer);
    }

    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    ConstantNames constantNames;
    for (FunctionToLower &function : *functions) {
      FailureOr<hetx::ProgramOp> program =
          FunctionLowering(function.func, globals, constantNames,
                           function.placement)
              .run(builder);
      if (failed(program) ||
          (function.eval &&
           failed(FunctionLowering(function.eval, globals, constantNames,
                                   function.placement, *program)
                      .run(builder))))
        return signalPassFailure();
    }
    // The programs replace the functions and the globals they read.
    for (Operation &op :
         llvm::make_early_inc_range(module.getBody()->getOperations()))
      if (!llvm::isa<hetx::ProgramOp>(op))
        op.erase();
  }
};

} // namespace
