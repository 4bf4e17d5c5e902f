//===- ModelProfile.h - what each segment of a model costs ------*- C++ -*-===//
//
// The compiler's segment profile (hetg-segment on the model specialized to
// one sample), as the planner's cost model reads it: all figures are per
// sample of `seqLen` tokens, for the segments in chain order.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PLANNER_MODELPROFILE_H
#define HETC_PLANNER_MODELPROFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hetc::planner {

/// What the ops of one kind (the hetg op's name without its dialect, as
/// the launches running them are named) cost in a segment: launches per
/// call (0 in profiles that predate them), the rest per sample.
struct KindCost {
  double forwardFlops = 0;
  double backwardFlops = 0;
  double forwardBytes = 0;
  double backwardBytes = 0;
  int64_t forwardOps = 0;
  int64_t backwardOps = 0;
};

struct SegmentCost {
  int64_t ops = 0;             // hetg ops in the segment
  int64_t parameters = 0;      // elements of the parameters first read here
  int64_t parameterBytes = 0;
  double forwardFlops = 0;     // per sample
  double backwardFlops = 0;    // per sample
  double forwardBytes = 0;     // bytes the forward's ops move, per sample
  double backwardBytes = 0;
  int64_t savedActivationBytes = 0; // kept for the backward, per sample
  int64_t boundaryBytes = 0;   // the activation leaving the segment, per sample
  /// The figures above by op kind; empty in profiles that predate them.
  std::map<std::string, KindCost> kinds;
};

/// A parameter several segments read (a tied embedding and LM head). The
/// first of them counts it in its `parameters`; a plan whose stages split
/// them gives every rank of every stage reading it a whole copy, with its
/// gradient and optimizer state, and sums the copies' gradients over all
/// those ranks before the update.
struct SharedParameter {
  std::string name;
  int64_t elements = 0;
  int64_t bytes = 0;
  std::vector<int64_t> segments; // increasing
};

struct ModelProfile {
  std::string model;
  int64_t seqLen = 0;
  std::vector<SegmentCost> segments;
  std::vector<SharedParameter> sharedParameters;
  /// Optimizer state per parameter byte (AdamW: 2, SGD: 0).
  int64_t optimizerStatePerParameterByte = 2;

  int64_t numSegments() const { return static_cast<int64_t>(segments.size()); }
  /// Sum over segments [first, end).
  SegmentCost range(int64_t first, int64_t end) const;
};

/// Parses the JSON of `hetc profile --json` (at any --batch: FLOPs and bytes
/// moved are divided by it; `forward_bytes`/`backward_bytes` default to 0,
/// `kinds` and `shared_parameters` to none). Errors name the field.
llvm::Expected<ModelProfile> parseModelProfile(llvm::StringRef json);
/// Reads and parses the profile file `path`; errors name the file.
llvm::Expected<ModelProfile> readModelProfileFile(llvm::StringRef path);

} // namespace hetc::planner

#endif // HETC_PLANNER_MODELPROFILE_H
