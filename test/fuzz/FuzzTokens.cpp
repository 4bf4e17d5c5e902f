//===- FuzzTokens.cpp - a token file, as hetrun --data reads it -----------===//
//
// Bytes 0-3 pick the token width, the global batch (1-8), the sequence
// length (1-32) and the step; the rest is the file, which is mapped and
// read for every sample of that step.
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

#include "runtime/data/TokenLoader.h"

#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4)
    return 0;
  using namespace hetc::runtime;
  TokenDType dtype = data[0] % 2 ? TokenDType::kUInt32 : TokenDType::kUInt16;
  int64_t batch = 1 + data[1] % 8, seq = 1 + data[2] % 32, step = data[3];
  hetc::fuzz::ScratchFolder folder;
  std::string path = folder.write(
      "tokens.bin", std::string(reinterpret_cast<const char *>(data) + 4,
                                size - 4));
  TokenLoader loader;
  if (!loader.open(path, dtype).ok())
    return 0;
  std::vector<int64_t> inputs(batch * seq), labels(batch * seq);
  if (!loader.fill(step, batch, 0, batch, seq, inputs.data(), labels.data())
           .ok())
    return 0;
  int64_t start = 0;
  (void)loader.sampleStart(step, batch, batch - 1, seq, &start);
  return 0;
}
