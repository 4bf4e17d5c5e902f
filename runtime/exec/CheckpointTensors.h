//===- CheckpointTensors.h - checkpoint tensors from all ranks --*- C++ -*-===//
//
// A checkpoint does not depend on the plan: every parameter by its ONNX
// initializer name, every optimizer state tensor whole. Ranks hold parts of
// that: the replicas of a stage hold the same parameters, and sharded
// optimizer state (with full sharding, parameters too) is spread over them
// as 1-D pieces named `NAME[begin:end]` (flat elements [begin, end) of
// `NAME`). assembleCheckpoint puts the pieces back together.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_CHECKPOINTTENSORS_H
#define HETC_RUNTIME_EXEC_CHECKPOINTTENSORS_H

#include "runtime/exec/Executor.h"

#include <map>

namespace hetc::runtime::exec {

/// What one rank holds of a checkpoint.
struct RankTensors {
  int rank = 0;
  std::vector<hetc::package::NamedTensor> parameters;
  std::vector<hetc::package::NamedTensor> optimizerState;
  /// For pieces `NAME[begin:end]`: NAME's shape, where the package says.
  std::map<std::string, std::vector<int64_t>> wholeShapes;
};

/// The whole shapes `program` gives its pieces `NAME[begin:end]`, by piece
/// name (Buffer.whole_shape).
std::map<std::string, std::vector<int64_t>>
wholeShapesOf(const hetc::pkg::Program &program);

/// The rank's parameters and optimizer state now (RankExecutor::snapshot).
Status takeRankTensors(const RankExecutor &executor, RankTensors *tensors);

struct CheckpointTensors {
  std::vector<hetc::package::NamedTensor> parameters;
  std::vector<hetc::package::NamedTensor> optimizerState;
};

/// Joins what every rank holds (`ranks` in rank order): each whole
/// parameter and state tensor from the lowest rank holding it; the pieces
/// `NAME[begin:end]` of a sharded one concatenated into `NAME`, which they
/// must cover exactly (elements [0, numel), no gap, no overlap: DATA_LOSS
/// naming the elements and ranks otherwise). NAME takes the whole shape the
/// package gives its pieces; without one, a state `P.<suffix>` of a
/// parameter P (the longest such P) takes P's shape, and anything else is
/// 1-D. Tensors keep the order in which they first appear.
Status assembleCheckpoint(const std::vector<RankTensors> &ranks,
                          CheckpointTensors *checkpoint);

/// The bytes `buffer` (a parameter or optimizer state buffer of a program)
/// takes from a checkpoint's tensors by name: the tensor of its name, or
/// for a piece `NAME[begin:end]` those flat elements of NAME. A missing
/// tensor, another dtype, shape or element count is an error naming the
/// tensor: the checkpoint is of another model or optimizer.
Status checkpointBytes(
    const std::map<std::string, const hetc::package::NamedTensor *> &tensors,
    const hetc::pkg::Buffer &buffer, std::vector<uint8_t> *bytes);

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_CHECKPOINTTENSORS_H
