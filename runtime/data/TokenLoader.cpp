//===- TokenLoader.cpp ----------------------------------------------------===//

#include "runtime/data/TokenLoader.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hetc::runtime {

namespace {
size_t tokenWidth(TokenDType dtype) {
  return dtype == TokenDType::kUInt16 ? 2 : 4;
}
} // namespace

Status parseTokenDType(const std::string &name, TokenDType *dtype) {
  if (name == "uint16")
    *dtype = TokenDType::kUInt16;
  else if (name == "uint32")
    *dtype = TokenDType::kUInt32;
  else
    return invalidArgument("unknown token dtype '", name,
                           "' (expected uint16 or uint32)");
  return okStatus();
}

const char *tokenDTypeName(TokenDType dtype) {
  return dtype == TokenDType::kUInt16 ? "uint16" : "uint32";
}

TokenLoader::~TokenLoader() { close(); }

TokenLoader::TokenLoader(TokenLoader &&other) noexcept { *this = std::move(other); }

TokenLoader &TokenLoader::operator=(TokenLoader &&other) noexcept {
  if (this != &other) {
    close();
    path_ = std::move(other.path_);
    dtype_ = other.dtype_;
    bytes_ = other.bytes_;
    mappedBytes_ = other.mappedBytes_;
    numTokens_ = other.numTokens_;
    opened_ = other.opened_;
    other.bytes_ = nullptr;
    other.mappedBytes_ = 0;
    other.numTokens_ = 0;
    other.opened_ = false;
  }
  return *this;
}

void TokenLoader::close() {
  if (bytes_)
    ::munmap(const_cast<unsigned char *>(bytes_), mappedBytes_);
  bytes_ = nullptr;
  mappedBytes_ = 0;
  numTokens_ = 0;
  opened_ = false;
}

Status TokenLoader::open(const std::string &path, TokenDType dtype) {
  close();
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return errnoStatus(errno, "cannot open data file '" + path + "'");
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return errnoStatus(err, "cannot stat data file '" + path + "'");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return invalidArgument("data file '", path, "' is not a regular file");
  }
  size_t size = static_cast<size_t>(st.st_size);
  size_t width = tokenWidth(dtype);
  if (size % width != 0) {
    ::close(fd);
    return dataLoss("data file '", path, "' has ", size,
                    " bytes, not a multiple of the ", width, "-byte ",
                    tokenDTypeName(dtype), " token");
  }
  const unsigned char *bytes = nullptr;
  if (size > 0) {
    void *map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      return errnoStatus(err, "cannot map data file '" + path + "'");
    }
    bytes = static_cast<const unsigned char *>(map);
  }
  ::close(fd); // the mapping stays valid
  path_ = path;
  dtype_ = dtype;
  bytes_ = bytes;
  mappedBytes_ = size;
  numTokens_ = static_cast<int64_t>(size / width);
  opened_ = true;
  return okStatus();
}

int64_t TokenLoader::tokenAt(int64_t i) const {
  // Little-endian whatever the host's byte order.
  if (dtype_ == TokenDType::kUInt16) {
    const unsigned char *p = bytes_ + 2 * i;
    return static_cast<int64_t>(p[0] | (p[1] << 8));
  }
  const unsigned char *p = bytes_ + 4 * i;
  return static_cast<int64_t>(static_cast<uint32_t>(p[0]) |
                              (static_cast<uint32_t>(p[1]) << 8) |
                              (static_cast<uint32_t>(p[2]) << 16) |
                              (static_cast<uint32_t>(p[3]) << 24));
}

Status TokenLoader::checkRequest(int64_t step, int64_t globalBatch,
                                 int64_t seqLen) const {
  if (!opened_)
    return failedPrecondition("token loader: no data file is open");
  if (seqLen < 1)
    return invalidArgument("token loader: sequence length must be >= 1, got ",
                           seqLen);
  if (globalBatch < 1)
    return invalidArgument("token loader: global batch must be >= 1, got ",
                           globalBatch);
  if (step < 0)
    return invalidArgument("token loader: step must be >= 0, got ", step);
  if (numTokens_ < seqLen + 2)
    return failedPrecondition("data shorter than one sequence: '", path_,
                              "' has ", numTokens_, " tokens, a sequence of ",
                              seqLen, " needs at least ", seqLen + 2);
  return okStatus();
}

int64_t TokenLoader::startOf(int64_t step, int64_t globalBatch, int64_t sample,
                             int64_t seqLen) const {
  // (s * B + j) * T can pass 2^63 on long runs; 128 bits cannot overflow.
  __int128 span = numTokens_ - seqLen - 1;
  __int128 pos = (static_cast<__int128>(step) * globalBatch + sample) * seqLen;
  return static_cast<int64_t>(pos % span);
}

Status TokenLoader::sampleStart(int64_t step, int64_t globalBatch,
                                int64_t sample, int64_t seqLen,
                                int64_t *start) const {
  HETC_RETURN_IF_ERROR(checkRequest(step, globalBatch, seqLen));
  if (sample < 0 || sample >= globalBatch)
    return outOfRange("token loader: sample ", sample,
                      " is outside the global batch [0, ", globalBatch, ")");
  *start = startOf(step, globalBatch, sample, seqLen);
  return okStatus();
}

Status TokenLoader::fill(int64_t step, int64_t globalBatch,
                         int64_t firstSample, int64_t count, int64_t seqLen,
                         int64_t *inputs, int64_t *labels) const {
  HETC_RETURN_IF_ERROR(checkRequest(step, globalBatch, seqLen));
  if (count < 0 || firstSample < 0 || firstSample + count > globalBatch)
    return outOfRange("token loader: samples [", firstSample, ", ",
                      firstSample + count,
                      ") are not a range of the global batch [0, ",
                      globalBatch, ")");
  if (count > 0 && (!inputs || !labels))
    return invalidArgument("token loader: null inputs or labels buffer");
  for (int64_t k = 0; k < count; ++k) {
    int64_t start = startOf(step, globalBatch, firstSample + k, seqLen);
    int64_t *in = inputs + k * seqLen;
    int64_t *lab = labels + k * seqLen;
    for (int64_t t = 0; t < seqLen; ++t) {
      in[t] = tokenAt(start + t);
      lab[t] = tokenAt(start + t + 1);
    }
  }
  return okStatus();
}

} // namespace hetc::runtime
