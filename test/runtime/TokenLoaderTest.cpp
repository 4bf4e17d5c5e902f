//===- TokenLoaderTest.cpp - the training data contract --------------------===//

#include "runtime/data/TokenLoader.h"

#include "TestUtil.h"

#include <cstdio>
#include <fstream>
#include <unistd.h>

namespace hetc::runtime::test {
namespace {

// A temporary file removed at the end of the test.
class TempFile {
public:
  explicit TempFile(const std::vector<unsigned char> &bytes) {
    char name[] = "/tmp/hetc-tokens-XXXXXX";
    int fd = ::mkstemp(name);
    EXPECT_GE(fd, 0);
    path_ = name;
    if (!bytes.empty()) {
      EXPECT_EQ(::write(fd, bytes.data(), bytes.size()),
                static_cast<ssize_t>(bytes.size()));
    }
    ::close(fd);
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

// Little-endian bytes of the tokens, written byte by byte.
std::vector<unsigned char> encode(const std::vector<uint32_t> &tokens, int width) {
  std::vector<unsigned char> bytes;
  for (uint32_t t : tokens)
    for (int b = 0; b < width; ++b)
      bytes.push_back(static_cast<unsigned char>(t >> (8 * b)));
  return bytes;
}

// The contract, straight from the design document.
void expectContract(const TokenLoader &loader, const std::vector<uint32_t> &tokens,
                    int64_t step, int64_t batch, int64_t first, int64_t count,
                    int64_t seqLen) {
  std::vector<int64_t> inputs(count * seqLen, -1), labels(count * seqLen, -1);
  HETC_ASSERT_OK(loader.fill(step, batch, first, count, seqLen, inputs.data(),
                             labels.data()));
  int64_t n = static_cast<int64_t>(tokens.size());
  for (int64_t k = 0; k < count; ++k) {
    int64_t j = first + k;
    int64_t start = ((step * batch + j) * seqLen) % (n - seqLen - 1);
    for (int64_t t = 0; t < seqLen; ++t) {
      ASSERT_EQ(inputs[k * seqLen + t], tokens[start + t])
          << "step " << step << " sample " << j << " position " << t;
      ASSERT_EQ(labels[k * seqLen + t], tokens[start + t + 1])
          << "step " << step << " sample " << j << " position " << t;
    }
  }
}

std::vector<uint32_t> makeTokens(int64_t n, uint32_t base) {
  std::vector<uint32_t> tokens(n);
  for (int64_t i = 0; i < n; ++i)
    tokens[i] = base + static_cast<uint32_t>((i * 7919) % 60000);
  return tokens;
}

TEST(TokenLoader, HandComputedSampleStarts) {
  // N = 20, T = 4, B = 3: starts mod 15 are 0, 4, 8 at step 0 and
  // 12, 1 (16), 5 (20) at step 1.
  std::vector<uint32_t> tokens(20);
  for (uint32_t i = 0; i < 20; ++i)
    tokens[i] = 100 + i;
  TempFile file(encode(tokens, 2));
  TokenLoader loader;
  HETC_ASSERT_OK(loader.open(file.path(), TokenDType::kUInt16));
  EXPECT_EQ(loader.numTokens(), 20);
  std::vector<int64_t> starts;
  for (int64_t s = 0; s < 2; ++s)
    for (int64_t j = 0; j < 3; ++j) {
      int64_t start = -1;
      HETC_ASSERT_OK(loader.sampleStart(s, 3, j, 4, &start));
      starts.push_back(start);
    }
  EXPECT_EQ(starts, (std::vector<int64_t>{0, 4, 8, 12, 1, 5}));
  std::vector<int64_t> in(4), lab(4);
  HETC_ASSERT_OK(loader.fill(1, 3, 1, 1, 4, in.data(), lab.data()));
  EXPECT_EQ(in, (std::vector<int64_t>{101, 102, 103, 104}));
  EXPECT_EQ(lab, (std::vector<int64_t>{102, 103, 104, 105}));
}

class TokenWidths : public ::testing::TestWithParam<TokenDType> {};

TEST_P(TokenWidths, SampleOrderFollowsTheContract) {
  TokenDType dtype = GetParam();
  int width = dtype == TokenDType::kUInt16 ? 2 : 4;
  // uint32 tokens above 65535 check all four bytes are read.
  std::vector<uint32_t> tokens = makeTokens(1001, width == 2 ? 0 : 70000);
  TempFile file(encode(tokens, width));
  TokenLoader loader;
  HETC_ASSERT_OK(loader.open(file.path(), dtype));
  EXPECT_EQ(loader.numTokens(), 1001);
  // Many steps, so starts wrap around the file several times.
  for (int64_t step : {0, 1, 2, 7, 50, 1000})
    expectContract(loader, tokens, step, 6, 0, 6, 16);
  // A rank's sub-range is exactly those rows of the full batch.
  std::vector<int64_t> all(6 * 16), allLab(6 * 16), part(2 * 16), partLab(2 * 16);
  HETC_ASSERT_OK(loader.fill(3, 6, 0, 6, 16, all.data(), allLab.data()));
  HETC_ASSERT_OK(loader.fill(3, 6, 3, 2, 16, part.data(), partLab.data()));
  EXPECT_TRUE(std::equal(part.begin(), part.end(), all.begin() + 3 * 16));
  EXPECT_TRUE(std::equal(partLab.begin(), partLab.end(), allLab.begin() + 3 * 16));
}

INSTANTIATE_TEST_SUITE_P(Data, TokenWidths,
                         ::testing::Values(TokenDType::kUInt16, TokenDType::kUInt32),
                         [](const auto &info) {
                           return std::string(tokenDTypeName(info.param));
                         });

TEST(TokenLoader, ShortestUsableFile) {
  // N = T + 2: every sample starts at 0.
  std::vector<uint32_t> tokens = {5, 6, 7, 8, 9, 10};
  TempFile file(encode(tokens, 2));
  TokenLoader loader;
  HETC_ASSERT_OK(loader.open(file.path(), TokenDType::kUInt16));
  expectContract(loader, tokens, 3, 4, 0, 4, 4);
}

TEST(TokenLoader, MissingFile) {
  TokenLoader loader;
  Status s = loader.open("/nonexistent/dir/tokens.bin", TokenDType::kUInt16);
  EXPECT_TRUE(isError(s, StatusCode::kNotFound,
                      "cannot open data file '/nonexistent/dir/tokens.bin'"));
  EXPECT_FALSE(loader.isOpen());
}

TEST(TokenLoader, SizeNotAMultipleOfTheTokenWidth) {
  TempFile odd(std::vector<unsigned char>(7, 1));
  TokenLoader loader;
  EXPECT_TRUE(isError(loader.open(odd.path(), TokenDType::kUInt16),
                      StatusCode::kDataLoss,
                      "has 7 bytes, not a multiple of the 2-byte uint16 token"));
  TempFile six(std::vector<unsigned char>(6, 1));
  EXPECT_TRUE(isError(loader.open(six.path(), TokenDType::kUInt32),
                      StatusCode::kDataLoss,
                      "has 6 bytes, not a multiple of the 4-byte uint32 token"));
  HETC_ASSERT_OK(loader.open(six.path(), TokenDType::kUInt16));
}

TEST(TokenLoader, DataShorterThanOneSequence) {
  TempFile file(encode({1, 2, 3, 4, 5}, 2)); // T + 1 tokens for T = 4
  TokenLoader loader;
  HETC_ASSERT_OK(loader.open(file.path(), TokenDType::kUInt16));
  std::vector<int64_t> in(4), lab(4);
  EXPECT_TRUE(isError(loader.fill(0, 1, 0, 1, 4, in.data(), lab.data()),
                      StatusCode::kFailedPrecondition,
                      "data shorter than one sequence: '" + file.path() +
                          "' has 5 tokens, a sequence of 4 needs at least 6"));
  TempFile empty({});
  HETC_ASSERT_OK(loader.open(empty.path(), TokenDType::kUInt32));
  EXPECT_EQ(loader.numTokens(), 0);
  EXPECT_TRUE(isError(loader.fill(0, 1, 0, 1, 4, in.data(), lab.data()),
                      StatusCode::kFailedPrecondition,
                      "data shorter than one sequence"));
}

TEST(TokenLoader, BadRequests) {
  TokenLoader closed;
  std::vector<int64_t> in(8), lab(8);
  EXPECT_TRUE(isError(closed.fill(0, 1, 0, 1, 4, in.data(), lab.data()),
                      StatusCode::kFailedPrecondition, "no data file is open"));
  TempFile file(encode(makeTokens(100, 0), 2));
  TokenLoader loader;
  HETC_ASSERT_OK(loader.open(file.path(), TokenDType::kUInt16));
  EXPECT_TRUE(isError(loader.fill(0, 4, 3, 2, 4, in.data(), lab.data()),
                      StatusCode::kOutOfRange,
                      "samples [3, 5) are not a range of the global batch [0, 4)"));
  EXPECT_TRUE(isError(loader.fill(-1, 4, 0, 1, 4, in.data(), lab.data()),
                      StatusCode::kInvalidArgument, "step must be >= 0, got -1"));
  EXPECT_TRUE(isError(loader.fill(0, 4, 0, 1, 0, in.data(), lab.data()),
                      StatusCode::kInvalidArgument,
                      "sequence length must be >= 1, got 0"));
  EXPECT_TRUE(isError(loader.fill(0, 4, 0, 1, 4, nullptr, lab.data()),
                      StatusCode::kInvalidArgument, "null inputs or labels"));
  int64_t start;
  EXPECT_TRUE(isError(loader.sampleStart(0, 4, 4, 4, &start),
                      StatusCode::kOutOfRange,
                      "sample 4 is outside the global batch [0, 4)"));
}

TEST(TokenLoader, MoveKeepsTheMapping) {
  std::vector<uint32_t> tokens = makeTokens(50, 0);
  TempFile file(encode(tokens, 2));
  TokenLoader a;
  HETC_ASSERT_OK(a.open(file.path(), TokenDType::kUInt16));
  TokenLoader b = std::move(a);
  EXPECT_FALSE(a.isOpen());
  expectContract(b, tokens, 2, 3, 0, 3, 5);
}

TEST(TokenDType, Parse) {
  TokenDType d;
  HETC_ASSERT_OK(parseTokenDType("uint32", &d));
  EXPECT_EQ(d, TokenDType::kUInt32);
  HETC_ASSERT_OK(parseTokenDType("uint16", &d));
  EXPECT_EQ(d, TokenDType::kUInt16);
  EXPECT_TRUE(isError(parseTokenDType("int8", &d), StatusCode::kInvalidArgument,
                      "unknown token dtype 'int8' (expected uint16 or uint32)"));
}

} // namespace
} // namespace hetc::runtime::test
