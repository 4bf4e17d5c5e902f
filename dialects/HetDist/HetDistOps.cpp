//===- HetDistOps.cpp - hetd op verifiers ---------------------------------===//

#include "dialects/HetDist/HetDist.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace hetc::hetd;

/// The rank of the function holding `op`, when it is a rank function.
static std::optional<int64_t> enclosingRank(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func)
    return std::nullopt;
  if (auto rank = func->getAttrOfType<IntegerAttr>(kRankAttr))
    return rank.getInt();
  return std::nullopt;
}

static LogicalResult verifyPeer(Operation *op, int64_t peer) {
  if (peer < 0)
    return op->emitOpError("peer must be a rank (>= 0), got ") << peer;
  if (enclosingRank(op) == peer)
    return op->emitOpError("peer ") << peer << " is the rank itself";
  return success();
}

/// Checks `group` (sorted, distinct ranks) and returns the index of the
/// enclosing rank in it; -1 outside a rank function.
static FailureOr<int64_t> verifyGroup(Operation *op, ArrayRef<int64_t> group) {
  if (group.empty())
    return op->emitOpError("group must not be empty");
  for (auto [i, member] : llvm::enumerate(group))
    if (member < 0 || (i > 0 && group[i - 1] >= member))
      return op->emitOpError("group must list distinct ranks (>= 0) in "
                             "increasing order");
  std::optional<int64_t> rank = enclosingRank(op);
  if (!rank)
    return -1;
  const int64_t *it = llvm::find(group, *rank);
  if (it == group.end())
    return op->emitOpError("group does not contain rank ") << *rank;
  return it - group.begin();
}

/// Checks `counts` against `group` and `total` elements; returns the
/// enclosing rank's count, or -1 outside a rank function.
static FailureOr<int64_t> verifyCounts(Operation *op, ArrayRef<int64_t> group,
                                       ArrayRef<int64_t> counts,
                                       int64_t total) {
  FailureOr<int64_t> index = verifyGroup(op, group);
  if (failed(index))
    return failure();
  if (counts.size() != group.size())
    return op->emitOpError("has ")
           << counts.size() << " counts for a group of " << group.size();
  int64_t sum = 0;
  for (int64_t count : counts) {
    if (count < 0)
      return op->emitOpError("counts must be >= 0");
    sum += count;
  }
  if (sum != total)
    return op->emitOpError("counts sum to ")
           << sum << " but the full tensor has " << total << " elements";
  return *index < 0 ? -1 : counts[*index];
}

LogicalResult SendOp::verify() {
  auto type = llvm::cast<RankedTensorType>(getValue().getType());
  if (type.getRank() == 0)
    return emitOpError("cannot send rows of the 0-D ") << type;
  // The accessors are unsigned; a negative bound must read as one.
  int64_t begin = getBegin(), end = getEnd();
  if (begin < 0 || begin >= end || end > type.getDimSize(0))
    return emitOpError("rows [")
           << begin << ", " << end
           << ") must be a non-empty range of dimension 0 of "
           << getValue().getType();
  return verifyPeer(*this, getPeer());
}

LogicalResult RecvOp::verify() { return verifyPeer(*this, getPeer()); }

LogicalResult AllReduceOp::verify() {
  return failure(failed(verifyGroup(*this, getGroup())));
}

/// Shared by reduce_scatter and all_gather: one side is the full flat
/// tensor, the other this rank's shard of it (`shardName` in messages).
static LogicalResult verifyUnevenCollective(Operation *op,
                                            ArrayRef<int64_t> group,
                                            ArrayRef<int64_t> counts,
                                            RankedTensorType full,
                                            RankedTensorType shard,
                                            StringRef shardName) {
  if (full.getElementType() != shard.getElementType())
    return op->emitOpError("input and result element types differ");
  FailureOr<int64_t> mine =
      verifyCounts(op, group, counts, full.getNumElements());
  if (failed(mine))
    return failure();
  if (*mine >= 0 && *mine != shard.getNumElements())
    return op->emitOpError()
           << shardName << " has " << shard.getNumElements()
           << " elements but this rank's count is " << *mine;
  return success();
}

LogicalResult ReduceScatterOp::verify() {
  return verifyUnevenCollective(*this, getGroup(), getCounts(),
                                getInput().getType(), getResult().getType(),
                                "result");
}

LogicalResult AllGatherOp::verify() {
  return verifyUnevenCollective(*this, getGroup(), getCounts(),
                                getResult().getType(), getInput().getType(),
                                "input");
}

#define GET_OP_CLASSES
#include "dialects/HetDist/HetDistOps.cpp.inc"
