//===- FileDigest.cpp - checksums of a package's files --------------------===//

#include "runtime/package/FileDigest.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

namespace hetc::package {
namespace {

constexpr uint64_t kMultiplier = 0x9E3779B97F4A7C15ull;

// One 64-bit word into the state: multiply, then fold the high bits down.
uint64_t mix(uint64_t state, uint64_t word) {
  state = (state ^ word) * kMultiplier;
  return state ^ (state >> 29);
}

// The digest of a stream, fed in any chunking: whole words as they come,
// the leftover bytes of a chunk carried into the next.
class Digester {
public:
  void add(const unsigned char *data, size_t size) {
    total_ += size;
    while (size > 0) {
      size_t take = std::min(size, sizeof(pending_) - pendingBytes_);
      std::memcpy(reinterpret_cast<unsigned char *>(&pending_) + pendingBytes_,
                  data, take);
      pendingBytes_ += take;
      data += take;
      size -= take;
      if (pendingBytes_ == sizeof(pending_)) {
        state_ = mix(state_, pending_);
        pending_ = 0;
        pendingBytes_ = 0;
      }
    }
  }
  uint64_t finish() const {
    uint64_t state = pendingBytes_ ? mix(state_, pending_) : state_;
    return mix(state, total_);
  }

private:
  uint64_t state_ = 0x243F6A8885A308D3ull, pending_ = 0, total_ = 0;
  size_t pendingBytes_ = 0;
};

} // namespace

uint64_t digestBytes(const void *data, size_t size) {
  Digester digester;
  digester.add(static_cast<const unsigned char *>(data), size);
  return digester.finish();
}

bool digestFile(const std::string &path, int64_t *bytes, uint64_t *digest,
                std::string *error) {
  FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    *error = "cannot open '" + path + "'";
    return false;
  }
  Digester digester;
  std::vector<unsigned char> chunk(1 << 20);
  int64_t total = 0;
  for (size_t n; (n = std::fread(chunk.data(), 1, chunk.size(), file)) > 0;) {
    digester.add(chunk.data(), n);
    total += static_cast<int64_t>(n);
  }
  bool failed = std::ferror(file);
  std::fclose(file);
  if (failed) {
    *error = "cannot read '" + path + "'";
    return false;
  }
  *bytes = total;
  *digest = digester.finish();
  return true;
}

} // namespace hetc::package
