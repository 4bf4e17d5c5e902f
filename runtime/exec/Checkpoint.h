//===- Checkpoint.h - saving parameters and optimizer state -----*- C++ -*-===//
//
// `hetrun --save DIR` writes
//   DIR/params.safetensors     every PARAMETER buffer by name (the ONNX
//                              initializer names), with its dtype and shape
//   DIR/optimizer.safetensors  every OPTIMIZER_STATE buffer by name (AdamW
//                              moments `<param>.adam_m`/`.adam_v`, the step
//                              count `optimizer.step`)
//   DIR/state.json             {"format": "hetc-checkpoint", "version": 1,
//                              "step": K, "package": PATH, ...}
// into a sibling folder DIR.partial-XXXXXX that is renamed into place, so a
// failed or interrupted save leaves no half-written DIR. An existing
// checkpoint at DIR is replaced whole; an existing folder that is not a
// checkpoint (no state.json) and not empty is never touched.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_CHECKPOINT_H
#define HETC_RUNTIME_EXEC_CHECKPOINT_H

#include "runtime/exec/Executor.h"

namespace hetc::runtime::exec {

struct CheckpointInfo {
  int64_t step = 0;          // steps trained so far
  std::string packagePath;   // the package the run executed
};

/// Writes the checkpoint of `ranks` (one rank for now: it holds every
/// parameter whole) to `dir`.
Status saveCheckpoint(const std::string &dir,
                      const std::vector<const RankExecutor *> &ranks,
                      const hetc::pkg::Manifest &manifest,
                      const CheckpointInfo &info);

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_CHECKPOINT_H
