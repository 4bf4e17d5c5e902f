//===- RankUpdate.cpp - a rank's gradient reduction and update ------------===//
//
// Gradients of a stage are the sum over its replicas (DESIGN.md, "Plan
// semantics"). One replica updates its parameters alone. Several replicas
// split the stage's parameters, flattened into one vector, into uneven
// shards by their fractions: a reduce-scatter sums the gradients onto the
// shards, each replica updates its pieces of the parameters, and either an
// all-gather gives every replica the whole parameters back (optimizer
// sharding) or the parameters stay sharded and are gathered before each use
// (full sharding). A stage that offloads its optimizer updates its pieces
// on the host, where their state lives.
//
//===----------------------------------------------------------------------===//

#include "passes/RankBuilder.h"

#include "passes/LossScaling.h"

#include "dialects/HetDist/HetDist.h"
#include "dialects/HetGraph/Gradients/GradientBuilders.h"
#include "dialects/HetGraph/HetGraph.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
namespace mlp = mlir::ml_program;

namespace hetc {


FlatLayout::FlatLayout(ArrayRef<mlp::GlobalOp> parameters,
                       const planner::Stage &stage, int64_t replica)
    : parameters(parameters) {
  offsets.push_back(0);
  for (mlp::GlobalOp global : parameters)
    offsets.push_back(offsets.back() +
                      llvm::cast<RankedTensorType>(global.getType())
                          .getNumElements());
  counts = planner::shardCounts(stage, total());
  for (int64_t i = 0; i < replica; ++i)
    shardBegin += counts[i];
  shardEnd = shardBegin + counts[replica];
}

std::pair<int64_t, int64_t> FlatLayout::pieceOf(size_t index) const {
  int64_t begin = std::max(offsets[index], shardBegin);
  int64_t end = std::min(offsets[index + 1], shardEnd);
  if (begin >= end)
    return {0, 0};
  return {begin - offsets[index], end - offsets[index]};
}

std::string FlatLayout::pieceSuffix(int64_t begin, int64_t end) {
  return llvm::formatv("[{0}:{1}]", begin, end).str();
}

void takeParametersAsArguments(func::FuncOp stageFunction,
                               ArrayRef<mlp::GlobalOp> parameters) {
  MLIRContext *context = stageFunction.getContext();
  for (mlp::GlobalOp global : parameters) {
    SmallVector<mlp::GlobalLoadOp> loads;
    stageFunction.walk([&](mlp::GlobalLoadOp load) {
      if (load.getGlobal().getRootReference() == global.getSymNameAttr())
        loads.push_back(load);
    });
    if (loads.empty())
      continue;
    unsigned index = stageFunction.getNumArguments();
    NamedAttribute attr(StringAttr::get(context, hetd::kParameterAttr),
                        FlatSymbolRefAttr::get(global));
    (void)stageFunction.insertArgument(index, global.getType(),
                                       DictionaryAttr::get(context, {attr}),
                                       global.getLoc());
    for (mlp::GlobalLoadOp load : loads) {
      load.replaceAllUsesWith(stageFunction.getArgument(index));
      load.erase();
    }
  }
}

static Value flatten(OpBuilder &builder, Location loc, Value value) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  if (type.getRank() == 1)
    return value;
  return hetg::ReshapeOp::create(builder, loc,
                                 type.clone({type.getNumElements()}), value);
}

static Value sliceFlat(OpBuilder &builder, Location loc, Value flat,
                       int64_t begin, int64_t end) {
  auto type = llvm::cast<RankedTensorType>(flat.getType());
  if (begin == 0 && end == type.getNumElements())
    return flat;
  return hetg::SliceOp::create(builder, loc, flat,
                               builder.getDenseI64ArrayAttr({begin}),
                               builder.getDenseI64ArrayAttr({end}),
                               builder.getDenseI64ArrayAttr({1}));
}

static Value concatFlat(OpBuilder &builder, Location loc,
                        ArrayRef<Value> values, RankedTensorType type) {
  if (values.empty())
    return hetg::ConstantOp::create(
        builder, loc, DenseElementsAttr::get(type, ArrayRef<Attribute>{}));
  if (values.size() == 1)
    return values.front();
  return hetg::ConcatOp::create(builder, loc, values, 0);
}

Value RankBuilder::reduceScatterGradients(ArrayRef<Value> grads) {
  FlatLayout layout(parameters, stage(), schedule.replica);
  auto element =
      llvm::cast<RankedTensorType>(grads.front().getType()).getElementType();
  SmallVector<Value> parts;
  for (auto [first, end] : llvm::reverse(parameterGroups)) {
    SmallVector<Value> flats;
    for (size_t i = first; i < end; ++i)
      flats.push_back(flatten(builder, loc, grads[i]));
    int64_t begin = layout.offsets[first], groupEnd = layout.offsets[end];
    Value all = concatFlat(builder, loc, flats,
                           RankedTensorType::get({groupEnd - begin}, element));
    std::vector<int64_t> counts =
        planner::countsWithin(layout.counts, begin, groupEnd);
    auto partType = RankedTensorType::get({counts[schedule.replica]}, element);
    Value part = hetd::ReduceScatterOp::create(builder, loc, partType, all,
                                               stageGroup(), counts);
    if (counts[schedule.replica] > 0)
      parts.push_back(part);
  }
  std::reverse(parts.begin(), parts.end());
  return concatFlat(
      builder, loc, parts,
      RankedTensorType::get({layout.shardEnd - layout.shardBegin}, element));
}

void RankBuilder::groupParametersBySegment() {
  parameterGroups.clear();
  if (parameters.empty())
    return;
  if (!shardsParameters()) {
    parameterGroups.push_back({0, parameters.size()});
    return;
  }
  // The segment of the forward's first op reading each parameter.
  DenseMap<Attribute, int64_t> segmentOf;
  func::FuncOp forward = functions.forward;
  for (BlockArgument arg : forward.getArguments()) {
    Attribute owner =
        forward.getArgAttr(arg.getArgNumber(), hetd::kParameterAttr);
    if (!owner || arg.use_empty())
      continue;
    Operation *first =
        *llvm::min_element(arg.getUsers(), [](Operation *a, Operation *b) {
          return a->isBeforeInBlock(b);
        });
    auto segment = first->getAttrOfType<IntegerAttr>(hetg::kSegmentAttr);
    segmentOf[owner] = segment ? segment.getInt() : -1;
  }
  auto segment = [&](size_t i) {
    return segmentOf.lookup(FlatSymbolRefAttr::get(parameters[i]));
  };
  for (size_t i = 0; i < parameters.size(); ++i)
    if (i == 0 || segment(i) != segment(i - 1))
      parameterGroups.push_back({i, i + 1});
    else
      parameterGroups.back().second = i + 1;
}

/// The global holding this rank's piece [begin, end) of `parameter` (flat
/// elements), initialized from the parameter's initial value.
FailureOr<mlp::GlobalOp> RankBuilder::parameterPiece(mlp::GlobalOp parameter,
                                                     int64_t begin,
                                                     int64_t end) {
  std::string name =
      (parameter.getSymName() + FlatLayout::pieceSuffix(begin, end)).str();
  SymbolTable symbols(module);
  if (auto existing = symbols.lookup<mlp::GlobalOp>(name))
    return existing;
  auto type = llvm::cast<RankedTensorType>(parameter.getType());
  auto pieceType = RankedTensorType::get({end - begin}, type.getElementType());
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  std::optional<Attribute> value = parameter.getValue();
  ArrayRef<char> bytes;
  if (auto resource =
          llvm::dyn_cast_or_null<DenseResourceElementsAttr>(value.value_or(
              Attribute()))) {
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob())
      bytes = blob->getData();
  } else if (auto dense = llvm::dyn_cast_or_null<DenseElementsAttr>(
                 value.value_or(Attribute()))) {
    bytes = dense.getRawData();
  }
  ElementsAttr init;
  if (auto dense = llvm::dyn_cast_or_null<DenseElementsAttr>(
          value.value_or(Attribute()));
      dense && dense.isSplat()) {
    init = dense.resizeSplat(pieceType);
  } else if (static_cast<int64_t>(bytes.size()) ==
             type.getNumElements() * elementBytes) {
    // A blob like the imported weights': a piece of ones stays data, not a
    // splat, and big pieces stay out of the printed IR.
    ArrayRef<char> data =
        bytes.slice(begin * elementBytes, (end - begin) * elementBytes);
    init = DenseResourceElementsAttr::get(
        pieceType, name,
        HeapAsmResourceBlob::allocateAndCopyWithAlign(data, elementBytes));
  } else {
    return parameter.emitError("has no initial data to shard (were the "
                               "weights elided?)");
  }
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointAfter(parameter);
  auto piece = mlp::GlobalOp::create(builder, parameter.getLoc(), name,
                                     pieceType, /*is_mutable=*/true, init,
                                     builder.getStringAttr("private"));
  piece->setAttr(hetd::kWholeShapeAttr,
                 builder.getDenseI64ArrayAttr(type.getShape()));
  return piece;
}

FailureOr<SmallVector<Value>> RankBuilder::gatherParameters(func::FuncOp callee,
                                                            bool backward) {
  FlatLayout layout(parameters, stage(), schedule.replica);
  DenseSet<Attribute> read;
  for (unsigned i = 0; i < callee.getNumArguments(); ++i)
    if (Attribute owner = callee.getArgAttr(i, hetd::kParameterAttr))
      read.insert(owner);
  SmallVector<Value> values(parameters.size());
  SmallVector<std::pair<size_t, size_t>> groups(parameterGroups);
  if (backward)
    std::reverse(groups.begin(), groups.end());
  for (auto [first, end] : groups) {
    if (llvm::none_of(llvm::seq(first, end), [&](size_t i) {
          return read.contains(FlatSymbolRefAttr::get(parameters[i]));
        }))
      continue;
    auto element = llvm::cast<RankedTensorType>(parameters[first].getType())
                       .getElementType();
    int64_t begin = layout.offsets[first], groupEnd = layout.offsets[end];
    std::vector<int64_t> counts =
        planner::countsWithin(layout.counts, begin, groupEnd);
    SmallVector<Value> pieces;
    for (size_t i = first; i < end; ++i) {
      auto [pieceBegin, pieceEnd] = layout.pieceOf(i);
      if (pieceBegin == pieceEnd)
        continue;
      FailureOr<mlp::GlobalOp> piece =
          parameterPiece(parameters[i], pieceBegin, pieceEnd);
      if (failed(piece))
        return failure();
      pieces.push_back(mlp::GlobalLoadOp::create(
          builder, loc, piece->getType(), FlatSymbolRefAttr::get(*piece)));
    }
    Value mine =
        concatFlat(builder, loc, pieces,
                   RankedTensorType::get({counts[schedule.replica]}, element));
    Value all = hetd::AllGatherOp::create(
        builder, loc, RankedTensorType::get({groupEnd - begin}, element), mine,
        stageGroup(), counts);
    for (size_t i = first; i < end; ++i) {
      auto type = llvm::cast<RankedTensorType>(parameters[i].getType());
      Value flat = sliceFlat(builder, loc, all, layout.offsets[i] - begin,
                             layout.offsets[i + 1] - begin);
      values[i] =
          type.getRank() == 1
              ? flat
              : Value(hetg::ReshapeOp::create(builder, loc, type, flat));
    }
  }
  return values;
}

SmallVector<UpdatePiece> RankBuilder::gradientPieces() {
  SmallVector<UpdatePiece> pieces;
  auto wholeNumel = [](mlp::GlobalOp global) {
    return llvm::cast<RankedTensorType>(global.getType()).getNumElements();
  };
  if (stage().replicas.size() == 1) {
    for (auto [global, grad] : llvm::zip(parameters, gradients))
      pieces.push_back({global, 0, wholeNumel(global), true, grad});
  } else if (!parameters.empty()) {
    Value shard =
        shardsParameters() ? shardGradients : reduceScatterGradients(gradients);
    FlatLayout layout(parameters, stage(), schedule.replica);
    for (size_t i = 0; i < parameters.size(); ++i) {
      auto [begin, end] = layout.pieceOf(i);
      if (begin == end)
        continue;
      int64_t inShard = layout.offsets[i] + begin - layout.shardBegin;
      pieces.push_back({parameters[i], begin, end, false,
                        sliceFlat(builder, loc, shard, inShard,
                                  inShard + end - begin)});
    }
  }
  // A tied parameter's partial gradients add up over every rank of every
  // stage reading it; each of them updates its whole copy the same way.
  for (auto [global, grad] : llvm::zip(tiedParameters, tiedGradients)) {
    const SmallVector<int64_t> &group = tiedGroups.lookup(global);
    Value sum = hetd::AllReduceOp::create(builder, loc, grad.getType(), grad,
                                          group);
    pieces.push_back({global, 0, wholeNumel(global), true, sum,
                      group.front() == schedule.rank, /*tied=*/true});
  }
  return pieces;
}

Value RankBuilder::globalNorm(ArrayRef<UpdatePiece> pieces) {
  // The pieces of all ranks are disjoint, so the squares of the ranks' local
  // norms add up to the square of the global norm, the same on every rank.
  SmallVector<Value> counted;
  for (const UpdatePiece &piece : pieces)
    if (piece.countsInNorm)
      counted.push_back(piece.grad);
  auto scalar = RankedTensorType::get({}, builder.getF32Type());
  Value local = counted.empty()
                    ? hetg::buildSplat(builder, loc, scalar, 0.0)
                    : Value(hetg::GlobalNormOp::create(builder, loc, scalar,
                                                       counted));
  Value square = hetg::MulOp::create(builder, loc, local, local);
  if (plan.numRanks() > 1) {
    SmallVector<int64_t> world;
    for (int64_t rank = 0; rank < plan.numRanks(); ++rank)
      world.push_back(rank);
    square = hetd::AllReduceOp::create(builder, loc, square.getType(), square,
                                       world);
  }
  return hetg::SqrtOp::create(builder, loc, square);
}

/// Every replica gets every updated piece of the stage's parameters back.
Value RankBuilder::gatherUpdatedShard(ArrayRef<Value> updatedPieces) {
  FlatLayout layout(parameters, stage(), schedule.replica);
  auto element =
      llvm::cast<RankedTensorType>(parameters.front().getType())
          .getElementType();
  Value mine = concatFlat(
      builder, loc, updatedPieces,
      RankedTensorType::get({layout.shardEnd - layout.shardBegin}, element));
  return hetd::AllGatherOp::create(
      builder, loc, RankedTensorType::get({layout.total()}, element), mine,
      stageGroup(), layout.counts);
}

LogicalResult RankBuilder::update() {
  ParameterUpdateBuilder updates(module, builder, loc, settings);
  if (failed(updates.beginStep(rankFunc)))
    return failure();
  SmallVector<UpdatePiece> pieces = gradientPieces();
  FailureOr<std::optional<LossScaler>> scaler = LossScaler::find(module);
  if (failed(scaler))
    return failure();
  // The gradients of a scaled loss are scaled too.
  Value scale;
  if (*scaler) {
    scale = (*scaler)->buildScale(builder, loc);
    Value inverse = hetg::ReciprocalOp::create(builder, loc, scale);
    for (UpdatePiece &piece : pieces)
      piece.grad = hetg::MulOp::create(builder, loc, piece.grad, inverse);
  }
  Value norm =
      settings.clipNorm > 0 || scale ? globalNorm(pieces) : Value();
  if (settings.clipNorm > 0) {
    Value coefficient =
        buildClipCoefficient(builder, loc, norm, settings.clipNorm);
    for (UpdatePiece &piece : pieces)
      piece.grad = hetg::MulOp::create(builder, loc, piece.grad, coefficient);
  }
  // The norm is global, so every rank skips an overflowing step alike.
  Value finite = scale ? buildIsFinite(builder, loc, norm) : Value();
  if (finite)
    updates.skipUnless(finite);

  auto load = [&](mlp::GlobalOp global) -> Value {
    return mlp::GlobalLoadOp::create(builder, loc, global.getType(),
                                     FlatSymbolRefAttr::get(global));
  };
  SmallVector<std::pair<mlp::GlobalOp, Value>> stores;
  SmallVector<Value> updatedPieces;
  for (UpdatePiece &piece : pieces) {
    std::string suffix =
        piece.whole ? "" : FlatLayout::pieceSuffix(piece.begin, piece.end);
    // Whole parameters and, with full sharding, the pieces that are the
    // parameters' only copies are read and stored where they live.
    mlp::GlobalOp home = piece.parameter;
    if (!piece.whole && shardsParameters()) {
      FailureOr<mlp::GlobalOp> global =
          parameterPiece(piece.parameter, piece.begin, piece.end);
      if (failed(global))
        return failure();
      home = *global;
    }
    Value param = load(home);
    if (!piece.whole && !shardsParameters())
      param = sliceFlat(builder, loc, flatten(builder, loc, param),
                        piece.begin, piece.end);
    FailureOr<Value> updated =
        updates.update(piece.parameter, suffix, param, piece.grad,
                       stage().offloadOptimizer && !piece.tied);
    if (failed(updated))
      return failure();
    if (piece.whole || shardsParameters())
      stores.push_back({home, updates.guarded(home, *updated)});
    else
      updatedPieces.push_back(*updated);
  }

  // Optimizer sharding: the replicas exchange their updated pieces.
  if (stage().replicas.size() > 1 && !shardsParameters() &&
      !parameters.empty()) {
    FlatLayout layout(parameters, stage(), schedule.replica);
    Value gathered = gatherUpdatedShard(updatedPieces);
    for (auto [i, global] : llvm::enumerate(parameters)) {
      auto type = llvm::cast<RankedTensorType>(global.getType());
      Value flat = sliceFlat(builder, loc, gathered, layout.offsets[i],
                             layout.offsets[i + 1]);
      Value whole = type.getRank() == 1
                        ? flat
                        : Value(hetg::ReshapeOp::create(builder, loc, type,
                                                        flat));
      stores.push_back({global, updates.guarded(global, whole)});
    }
  }
  for (auto [global, value] : stores)
    mlp::GlobalStoreOp::create(builder, loc, FlatSymbolRefAttr::get(global),
                               value);
  updates.storeState();
  if (scale)
    (*scaler)->buildUpdate(builder, loc, scale, finite);
  return success();
}

} // namespace hetc
