//===- SafetensorsTest.cpp - safetensors files round-trip -----------------===//

#include "runtime/package/Safetensors.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

using hetc::package::decodeSafetensors;
using hetc::package::encodeSafetensors;
using hetc::package::NamedTensor;
using hetc::package::readSafetensorsFile;
using hetc::package::writeSafetensorsFile;

namespace {

template <typename T>
NamedTensor makeTensor(std::string name, std::string dtype,
                       std::vector<int64_t> shape, std::vector<T> values) {
  NamedTensor tensor{std::move(name), std::move(dtype), std::move(shape), {}};
  tensor.data.resize(values.size() * sizeof(T));
  std::memcpy(tensor.data.data(), values.data(), tensor.data.size());
  return tensor;
}

uint64_t headerLength(const std::string &bytes) {
  uint64_t length = 0;
  for (int i = 0; i < 8; ++i)
    length |= uint64_t(static_cast<unsigned char>(bytes[i])) << (8 * i);
  return length;
}

TEST(Safetensors, RoundTripsTensorsAndMetadata) {
  std::vector<NamedTensor> tensors = {
      makeTensor<float>("h.0.attn.weight", "F32", {2, 3},
                        {1, 2, 3, 4, 5, -6.5f}),
      makeTensor<int64_t>("mask", "I64", {3}, {0, -1, 1ll << 40}),
      makeTensor<uint8_t>("flags", "BOOL", {2, 2}, {1, 0, 0, 1}),
      makeTensor<double>("scalar \"quoted\"", "F64", {}, {0.25}),
      makeTensor<uint16_t>("half", "BF16", {2}, {0x3f80, 0xc000}),
      makeTensor<float>("empty", "F32", {0, 4}, {}),
  };
  std::string bytes, error;
  ASSERT_TRUE(encodeSafetensors(tensors, {{"format", "pt"}}, &bytes, &error))
      << error;
  // The data starts 8-byte aligned after the header.
  EXPECT_EQ((8 + headerLength(bytes)) % 8, 0u);

  std::vector<NamedTensor> read;
  std::map<std::string, std::string> metadata;
  ASSERT_TRUE(decodeSafetensors(bytes, &read, &metadata, &error)) << error;
  EXPECT_EQ(metadata.at("format"), "pt");
  ASSERT_EQ(read.size(), tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    EXPECT_EQ(read[i].name, tensors[i].name);
    EXPECT_EQ(read[i].dtype, tensors[i].dtype);
    EXPECT_EQ(read[i].shape, tensors[i].shape);
    EXPECT_EQ(read[i].data, tensors[i].data);
  }
}

TEST(Safetensors, HeaderIsStandardJson) {
  std::string bytes, error;
  ASSERT_TRUE(encodeSafetensors(
      {makeTensor<float>("w", "F32", {2}, {1, 2})}, {}, &bytes, &error));
  std::string header = bytes.substr(8, headerLength(bytes));
  EXPECT_EQ(header.substr(0, header.find_last_not_of(' ') + 1),
            R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})");
}

TEST(Safetensors, WritesAndReadsFiles) {
  std::string path = ::testing::TempDir() + "/hetc-safetensors-test.safetensors";
  std::string error;
  std::vector<NamedTensor> tensors = {makeTensor<int32_t>("x", "I32", {2}, {7, 8})};
  ASSERT_TRUE(writeSafetensorsFile(path, tensors, {}, &error)) << error;
  std::vector<NamedTensor> read;
  ASSERT_TRUE(readSafetensorsFile(path, &read, nullptr, &error)) << error;
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].data, tensors[0].data);
  std::remove(path.c_str());
  EXPECT_FALSE(readSafetensorsFile(path, &read, nullptr, &error));
  EXPECT_NE(error.find("cannot open"), std::string::npos);
}

TEST(Safetensors, RejectsInconsistentTensorsWhenWriting) {
  std::string bytes, error;
  NamedTensor shortData = makeTensor<float>("w", "F32", {3}, {1, 2});
  EXPECT_FALSE(encodeSafetensors({shortData}, {}, &bytes, &error));
  EXPECT_EQ(error, "tensor 'w' has 8 bytes of data, its dtype and shape need 12");
  NamedTensor a = makeTensor<float>("w", "F32", {1}, {1});
  EXPECT_FALSE(encodeSafetensors({a, a}, {}, &bytes, &error));
  EXPECT_EQ(error, "tensor 'w' is given twice");
  NamedTensor badType = makeTensor<float>("w", "F8", {1}, {1});
  EXPECT_FALSE(encodeSafetensors({badType}, {}, &bytes, &error));
  EXPECT_EQ(error, "tensor 'w' has unknown dtype 'F8'");
}

std::string fileWithHeader(const std::string &header, size_t dataBytes) {
  std::string bytes;
  for (int i = 0; i < 8; ++i)
    bytes.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xFF));
  return bytes + header + std::string(dataBytes, '\0');
}

TEST(Safetensors, RejectsMalformedFiles) {
  std::vector<NamedTensor> read;
  std::string error;
  EXPECT_FALSE(decodeSafetensors("abc", &read, nullptr, &error));
  EXPECT_NE(error.find("too short"), std::string::npos);

  std::string huge = fileWithHeader("{}", 0);
  huge[0] = 100;
  EXPECT_FALSE(decodeSafetensors(huge, &read, nullptr, &error));
  EXPECT_NE(error.find("exceeds the file"), std::string::npos);

  EXPECT_FALSE(decodeSafetensors(fileWithHeader("{\"w\":", 0), &read, nullptr, &error));
  EXPECT_NE(error.find("invalid JSON header"), std::string::npos);

  EXPECT_FALSE(decodeSafetensors(
      fileWithHeader(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 4),
      &read, nullptr, &error));
  EXPECT_EQ(error, "tensor 'w' needs bytes [0, 8) of data, the file has 4");

  EXPECT_FALSE(decodeSafetensors(
      fileWithHeader(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8),
      &read, nullptr, &error));
  EXPECT_EQ(error, "tensor 'w' has 8 bytes, its dtype and shape need 12");

  EXPECT_FALSE(decodeSafetensors(
      fileWithHeader(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                     R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8),
      &read, nullptr, &error));
  EXPECT_EQ(error, "tensors overlap in the data section");

  EXPECT_FALSE(decodeSafetensors(
      fileWithHeader(R"({"w":{"dtype":"Q4","shape":[1],"data_offsets":[0,1]}})", 1),
      &read, nullptr, &error));
  EXPECT_EQ(error, "tensor 'w' has a missing or unknown dtype");

  EXPECT_FALSE(decodeSafetensors(
      fileWithHeader(R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4),
      &read, nullptr, &error));
  EXPECT_EQ(error, "tensor 'w' has an invalid dimension");
}

} // namespace
