//===- FuzzCheckpoint.cpp - a checkpoint folder, as hetrun --resume reads it ===//
//
// The input holds state.json, params.safetensors and optimizer.safetensors,
// separated by kFileSeparator; they are written to a scratch folder, which
// loadCheckpoint reads.
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

#include "runtime/exec/Checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string input(reinterpret_cast<const char *>(data), size);
  hetc::fuzz::ScratchFolder folder;
  const char *files[] = {"state.json", "params.safetensors",
                         "optimizer.safetensors"};
  for (int i = 0; i < 3; ++i)
    folder.write(files[i], hetc::fuzz::piece(input, i));
  hetc::runtime::exec::CheckpointTensors tensors;
  hetc::runtime::exec::CheckpointInfo info;
  std::string resolved;
  (void)hetc::runtime::exec::loadCheckpoint(folder.path(), &tensors, &info,
                                            &resolved);
  return 0;
}
