//===- Attributes.h - discardable attributes of the hetg level --*- C++ -*-===//
//
// The names the importer and the hetg passes annotate IR with, in one place
// so that the passes that write them and those that read them agree.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_DIALECTS_HETGRAPH_ATTRIBUTES_H
#define HETC_DIALECTS_HETGRAPH_ATTRIBUTES_H

#include "llvm/ADT/StringRef.h"

namespace hetc::hetg {

/// On an imported module: the float initializers imported as constants
/// rather than parameters, as a dictionary from the initializer's name to
/// [number of elements, reason].
constexpr llvm::StringLiteral kFrozenInitializersAttr =
    "hetg.frozen_initializers";
/// On function arguments and results: the ONNX name (input_ids, labels,
/// logits, loss).
constexpr llvm::StringLiteral kNameAttr = "hetg.name";
/// On a training step's argument `step` (0-D i64): the 0-based index of
/// the step, which the runtime writes before each step (learning-rate
/// schedules read it).
constexpr llvm::StringLiteral kStepIndexAttr = "hetg.step_index";
/// On the results of a differentiated step: the parameter a result is the
/// gradient of.
constexpr llvm::StringLiteral kGradientOfAttr = "hetg.gradient_of";
/// On optimizer state globals: the parameter they belong to.
constexpr llvm::StringLiteral kStateOfAttr = "hetg.state_of";
/// On globals made by hetg-untie-parameters: the shared global they copy.
constexpr llvm::StringLiteral kUntiedFromAttr = "hetg.untied_from";
/// hetg-segment: the segment of a forward op, the result of an op that is a
/// cut, and on the function the segment profiles and the batch.
constexpr llvm::StringLiteral kSegmentAttr = "hetg.segment";
constexpr llvm::StringLiteral kCutAttr = "hetg.cut";
constexpr llvm::StringLiteral kSegmentsAttr = "hetg.segments";
/// hetg-segment, on the function: the parameters read in several segments
/// (a tied embedding and LM head), each a dictionary of its name, elements,
/// bytes and the segments reading it.
constexpr llvm::StringLiteral kSharedParametersAttr = "hetg.shared_parameters";
constexpr llvm::StringLiteral kBatchAttr = "hetg.batch";
/// hetg-autodiff: the segment whose forward op a gradient op differentiates.
constexpr llvm::StringLiteral kGradSegmentAttr = "hetg.grad_segment";
/// hetg-recompute: the segment a recomputed clone belongs to.
constexpr llvm::StringLiteral kRecomputedAttr = "hetg.recomputed";
/// hetg-mixed-precision with loss scaling: on the training function, the
/// global holding the loss scale (hetg-autodiff seeds the loss gradient
/// with it); on that global, the scaler's settings (a dictionary).
constexpr llvm::StringLiteral kLossScaleAttr = "hetg.loss_scale";

} // namespace hetc::hetg

#endif // HETC_DIALECTS_HETGRAPH_ATTRIBUTES_H
