//===- Checkpoint.h - saving parameters and optimizer state -----*- C++ -*-===//
//
// `hetrun --save DIR` writes
//   DIR/params.safetensors     every parameter by name (the ONNX
//                              initializer names), with its dtype and shape
//   DIR/optimizer.safetensors  every optimizer state tensor whole, by name
//                              (AdamW moments `<param>.adam_m`/`.adam_v` in
//                              their parameter's shape, the step count
//                              `optimizer.step`), whatever the sharding
//   DIR/state.json             {"format": "hetc-checkpoint", "version": 1,
//                              "step": K, "package": PATH, ...}
// into a sibling folder DIR.partial-XXXXXX that is renamed into place, so a
// failed or interrupted save leaves no half-written DIR. An existing
// checkpoint at DIR is replaced whole; an existing folder that is not a
// checkpoint (no state.json) and not empty is never touched. Checkpoints
// store every tensor whole by name, so any package of the same model and
// optimizer can resume from one (`hetrun --resume`).
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_CHECKPOINT_H
#define HETC_RUNTIME_EXEC_CHECKPOINT_H

#include "runtime/exec/CheckpointTensors.h"

namespace hetc::runtime::exec {

struct CheckpointInfo {
  int64_t step = 0;          // steps trained so far
  std::string packagePath;   // the package the run executed
  std::string optimizer;     // read back from state.json
};

/// Writes the checkpoint of the package's ranks (what each holds, in rank
/// order; assembleCheckpoint joins them) to `dir`.
Status saveCheckpoint(const std::string &dir,
                      const std::vector<RankTensors> &ranks,
                      const hetc::pkg::Manifest &manifest,
                      const CheckpointInfo &info);

/// `--save DIR --save-every N`: the checkpoint goes to DIR/step-S (S =
/// info.step) as saveCheckpoint writes it, then DIR/latest (a one-line
/// file naming it) is replaced by rename, and all but the newest `keep`
/// step-* checkpoints are removed (keep 0: none is). DIR is created when
/// missing; a folder that holds neither `latest` nor step-* checkpoints
/// and is not empty is never written into. At every instant `latest`
/// names a complete checkpoint.
Status saveCheckpointSeries(const std::string &dir, int64_t keep,
                            const std::vector<RankTensors> &ranks,
                            const hetc::pkg::Manifest &manifest,
                            const CheckpointInfo &info);

/// Reads the checkpoint at `path`: a checkpoint folder (state.json), or a
/// series folder whose `latest` names one. `*resolved` is the checkpoint
/// folder read.
Status loadCheckpoint(const std::string &path, CheckpointTensors *tensors,
                      CheckpointInfo *info, std::string *resolved);

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_CHECKPOINT_H
