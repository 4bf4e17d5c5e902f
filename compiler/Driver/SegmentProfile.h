//===- SegmentProfile.h - a model's segment profile for the planner -*- C++ -*-===//
//
// `hetc profile` prints it, `hetc plan` and `hetc compile --cluster` plan
// with it: the model specialized to one sample, its loss attached, cut into
// segments by hetg-segment, read back from the `hetg.segments` annotation.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_DRIVER_SEGMENTPROFILE_H
#define HETC_COMPILER_DRIVER_SEGMENTPROFILE_H

#include "planner/ModelProfile.h"

#include "mlir/IR/BuiltinOps.h"

namespace hetc::driver {

/// Simplifies the imported `module` to `batch` x `seq`, attaches the loss and
/// segments it, marking `recompute` segments (in place).
mlir::LogicalResult segmentModel(mlir::ModuleOp module, int64_t batch,
                                 int64_t seq,
                                 llvm::ArrayRef<int64_t> recompute = {});

/// The profile hetg-segment left on the one function of `module`, per
/// sample (the annotation's FLOPs and bytes are for its whole batch).
mlir::FailureOr<planner::ModelProfile>
readModelProfile(mlir::ModuleOp module, llvm::StringRef modelName, int64_t seq);

} // namespace hetc::driver

#endif // HETC_COMPILER_DRIVER_SEGMENTPROFILE_H
