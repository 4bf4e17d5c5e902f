//===- TokenLoader.h - the training token file ------------------*- C++ -*-===//
//
// The data contract (docs/runtime.md): a flat file of little-endian token
// ids, uint16 (nanoGPT's train.bin) or uint32, N tokens. With global batch B
// and sequence length T, sample j of step s (both 0-based) starts at token
//   start = ((s * B + j) * T) mod (N - T - 1)
// and is the inputs tokens[start, start + T) with labels tokens[start + 1,
// start + T + 1). The layout of the plan plays no part: every rank computes
// the samples it owns from (s, j) alone.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_DATA_TOKENLOADER_H
#define HETC_RUNTIME_DATA_TOKENLOADER_H

#include "runtime/base/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace hetc::runtime {

enum class TokenDType { kUInt16, kUInt32 };

// "uint16" or "uint32" (hetrun's --data-dtype).
Status parseTokenDType(const std::string &name, TokenDType *dtype);
const char *tokenDTypeName(TokenDType dtype);

// A read-only memory map of a token file. Move-only; fill() is const and
// safe to call from several threads at once.
class TokenLoader {
public:
  TokenLoader() = default;
  ~TokenLoader();
  TokenLoader(TokenLoader &&other) noexcept;
  TokenLoader &operator=(TokenLoader &&other) noexcept;
  TokenLoader(const TokenLoader &) = delete;
  TokenLoader &operator=(const TokenLoader &) = delete;

  // Maps the file. Errors: the file cannot be opened (NOT_FOUND when it does
  // not exist), its size is not a multiple of the token width (DATA_LOSS).
  // An empty file opens; fill() then reports it too short.
  Status open(const std::string &path, TokenDType dtype);
  void close();

  bool isOpen() const { return opened_; }
  int64_t numTokens() const { return numTokens_; }
  TokenDType dtype() const { return dtype_; }
  const std::string &path() const { return path_; }

  // Writes samples [firstSample, firstSample + count) of step `step` of a
  // global batch of `globalBatch` samples: inputs and labels are each
  // [count, seqLen] row-major. Errors: not open, fewer than seqLen + 2 tokens
  // ("data shorter than one sequence"), a sample range outside
  // [0, globalBatch), a negative step, seqLen < 1.
  Status fill(int64_t step, int64_t globalBatch, int64_t firstSample,
              int64_t count, int64_t seqLen, int64_t *inputs,
              int64_t *labels) const;

  // The first token of sample `sample` of step `step` (same checks as fill).
  Status sampleStart(int64_t step, int64_t globalBatch, int64_t sample,
                     int64_t seqLen, int64_t *start) const;

private:
  Status checkRequest(int64_t step, int64_t globalBatch, int64_t seqLen) const;
  int64_t startOf(int64_t step, int64_t globalBatch, int64_t sample,
                  int64_t seqLen) const;
  int64_t tokenAt(int64_t i) const;

  std::string path_;
  TokenDType dtype_ = TokenDType::kUInt16;
  const unsigned char *bytes_ = nullptr; // the mapping; null for empty files
  size_t mappedBytes_ = 0;
  int64_t numTokens_ = 0;
  bool opened_ = false;
};

} // namespace hetc::runtime

#endif // HETC_RUNTIME_DATA_TOKENLOADER_H
