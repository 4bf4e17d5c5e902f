//===- TensorReaderTest.cpp - reading ONNX tensor contents
//-----------------===//

#include "compiler/Import/ONNX/TensorReader.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>

using namespace hetc::onnximport;
using onnx::TensorProto;

namespace {

class TensorReaderTest : public ::testing::Test {
protected:
  TensorReaderTest()
      : context(mlir::MLIRContext::Threading::DISABLED),
        capture(&context, [this](mlir::Diagnostic &d) {
          errors += d.str() + "\n";
          return mlir::success();
        }) {}

  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tensor-reader", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  mlir::Location loc() { return mlir::UnknownLoc::get(&context); }

  /// Writes `bytes` to `name` in the test folder.
  void writeFile(llvm::StringRef name, llvm::StringRef bytes) {
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path, name);
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << bytes;
  }

  /// A reader for a model that lives in the test folder.
  TensorReader reader() {
    llvm::SmallString<128> model(dir);
    llvm::sys::path::append(model, "model.onnx");
    return TensorReader(model);
  }

  static void setExternal(TensorProto &tensor, llvm::StringRef location,
                          std::optional<int> offset,
                          std::optional<int> length) {
    tensor.set_data_location(TensorProto::EXTERNAL);
    auto add = [&](const char *key, std::string value) {
      onnx::StringStringEntryProto *entry = tensor.add_external_data();
      entry->set_key(key);
      entry->set_value(value);
    };
    add("location", location.str());
    if (offset)
      add("offset", std::to_string(*offset));
    if (length)
      add("length", std::to_string(*length));
  }

  static std::string bytesOf(llvm::ArrayRef<float> values) {
    return std::string(reinterpret_cast<const char *>(values.data()),
                       values.size() * sizeof(float));
  }

  mlir::MLIRContext context;
  std::string errors;
  mlir::ScopedDiagnosticHandler capture;
  llvm::SmallString<128> dir;
};

TEST_F(TensorReaderTest, RawDataAndTypedFieldsAgree) {
  TensorProto typed, raw;
  for (TensorProto *t : {&typed, &raw}) {
    t->set_data_type(TensorProto::FLOAT);
    t->add_dims(2);
    t->add_dims(2);
  }
  for (float v : {1.0f, -2.5f, 3.0f, 0.125f})
    typed.add_float_data(v);
  raw.set_raw_data(bytesOf({1.0f, -2.5f, 3.0f, 0.125f}));

  TensorReader r = reader();
  mlir::FailureOr<TensorData> a = r.read(typed, loc(), "typed");
  mlir::FailureOr<TensorData> b = r.read(raw, loc(), "raw");
  ASSERT_TRUE(succeeded(a) && succeeded(b)) << errors;
  EXPECT_EQ(a->type, b->type);
  EXPECT_EQ(a->bytes, b->bytes);
  auto values = a->toElementsAttr().getValues<float>();
  EXPECT_EQ(values[1], -2.5f);
  EXPECT_EQ(values[3], 0.125f);
}

TEST_F(TensorReaderTest, Float16BitsFromInt32Data) {
  TensorProto tensor;
  tensor.set_data_type(TensorProto::FLOAT16);
  tensor.add_dims(3);
  // 1.0, -2.0, 0.5 in IEEE half precision.
  for (int32_t bits : {0x3c00, 0xc000, 0x3800})
    tensor.add_int32_data(bits);
  TensorReader r = reader();
  mlir::FailureOr<TensorData> data = r.read(tensor, loc(), "half");
  ASSERT_TRUE(succeeded(data)) << errors;
  EXPECT_TRUE(data->type.getElementType().isF16());
  ASSERT_EQ(data->bytes.size(), 6u);
  auto values = data->toElementsAttr().getValues<llvm::APFloat>();
  EXPECT_EQ(values[0].convertToDouble(), 1.0);
  EXPECT_EQ(values[1].convertToDouble(), -2.0);
  EXPECT_EQ(values[2].convertToDouble(), 0.5);

  TensorProto raw;
  raw.set_data_type(TensorProto::FLOAT16);
  raw.add_dims(3);
  raw.set_raw_data(std::string("\x00\x3c\x00\xc0\x00\x38", 6));
  mlir::FailureOr<TensorData> fromRaw = r.read(raw, loc(), "raw half");
  ASSERT_TRUE(succeeded(fromRaw)) << errors;
  EXPECT_EQ(fromRaw->bytes, data->bytes);
}

TEST_F(TensorReaderTest, BoolsAreOneBytePerElement) {
  TensorProto typed;
  typed.set_data_type(TensorProto::BOOL);
  typed.add_dims(3);
  for (int32_t v : {0, 1, 5})
    typed.add_int32_data(v);
  TensorProto raw;
  raw.set_data_type(TensorProto::BOOL);
  raw.add_dims(3);
  raw.set_raw_data(std::string("\x00\x01\x07", 3));

  TensorReader r = reader();
  for (TensorProto *t : {&typed, &raw}) {
    mlir::FailureOr<TensorData> data = r.read(*t, loc(), "mask");
    ASSERT_TRUE(succeeded(data)) << errors;
    EXPECT_TRUE(data->type.getElementType().isInteger(1));
    EXPECT_EQ(data->bytes, (std::vector<char>{0, 1, 1}));
    auto values = data->toElementsAttr().getValues<bool>();
    EXPECT_FALSE(values[0]);
    EXPECT_TRUE(values[1]);
    EXPECT_TRUE(values[2]);
  }
}

TEST_F(TensorReaderTest, SmallIntegersAndUnsupportedTypes) {
  TensorProto int8;
  int8.set_data_type(TensorProto::INT8);
  int8.add_dims(2);
  int8.add_int32_data(-3);
  int8.add_int32_data(7);
  TensorReader r = reader();
  mlir::FailureOr<TensorData> data = r.read(int8, loc(), "int8");
  ASSERT_TRUE(succeeded(data)) << errors;
  EXPECT_EQ(data->bytes, (std::vector<char>{-3, 7}));

  TensorProto strings;
  strings.set_data_type(TensorProto::STRING);
  strings.add_dims(1);
  strings.add_string_data("x");
  EXPECT_TRUE(failed(r.read(strings, loc(), "initializer 's'")));
  EXPECT_NE(errors.find("initializer 's' has element type STRING"),
            std::string::npos)
      << errors;
}

TEST_F(TensorReaderTest, WrongValueCountsAreErrors) {
  TensorProto tensor;
  tensor.set_data_type(TensorProto::FLOAT);
  tensor.add_dims(3);
  tensor.add_float_data(1.0f);
  TensorReader r = reader();
  EXPECT_TRUE(failed(r.read(tensor, loc(), "initializer 'w'")));
  EXPECT_NE(errors.find("holds 1 values"), std::string::npos) << errors;

  TensorProto raw;
  raw.set_data_type(TensorProto::FLOAT);
  raw.add_dims(2);
  raw.set_raw_data("abc");
  EXPECT_TRUE(failed(r.read(raw, loc(), "initializer 'r'")));
  EXPECT_NE(errors.find("3 bytes of raw_data"), std::string::npos) << errors;
}

TEST_F(TensorReaderTest, ExternalDataHonoursOffsetAndLength) {
  writeFile("weights.bin", "junk" + bytesOf({4.0f, 5.0f}) + "tail");
  TensorProto tensor;
  tensor.set_data_type(TensorProto::FLOAT);
  tensor.add_dims(2);
  setExternal(tensor, "weights.bin", 4, 8);
  TensorReader r = reader();
  mlir::FailureOr<TensorData> data = r.read(tensor, loc(), "initializer 'w'");
  ASSERT_TRUE(succeeded(data)) << errors;
  auto values = data->toElementsAttr().getValues<float>();
  EXPECT_EQ(values[0], 4.0f);
  EXPECT_EQ(values[1], 5.0f);

  // Without a length, the tensor runs to the end of the file.
  writeFile("exact.bin", bytesOf({6.0f, 7.0f}));
  TensorProto rest;
  rest.set_data_type(TensorProto::FLOAT);
  rest.add_dims(2);
  setExternal(rest, "exact.bin", std::nullopt, std::nullopt);
  data = r.read(rest, loc(), "initializer 'rest'");
  ASSERT_TRUE(succeeded(data)) << errors;
  EXPECT_EQ(data->toElementsAttr().getValues<float>()[1], 7.0f);
}

TEST_F(TensorReaderTest, ExternalDataErrorsNameTensorAndFile) {
  writeFile("short.bin", bytesOf({1.0f}));
  TensorReader r = reader();
  auto tensorWith = [](llvm::StringRef location, std::optional<int> offset,
                       std::optional<int> length) {
    TensorProto tensor;
    tensor.set_data_type(TensorProto::FLOAT);
    tensor.add_dims(2);
    setExternal(tensor, location, offset, length);
    return tensor;
  };

  EXPECT_TRUE(failed(
      r.read(tensorWith("missing.bin", 0, 8), loc(), "initializer 'a'")));
  EXPECT_NE(errors.find("cannot open external data file"), std::string::npos);
  EXPECT_NE(errors.find("missing.bin' of initializer 'a'"), std::string::npos)
      << errors;

  errors.clear();
  EXPECT_TRUE(
      failed(r.read(tensorWith("short.bin", 0, 8), loc(), "initializer 'b'")));
  EXPECT_NE(errors.find("initializer 'b' needs bytes [0, 8)"),
            std::string::npos)
      << errors;
  EXPECT_NE(errors.find("short.bin"), std::string::npos) << errors;

  errors.clear();
  EXPECT_TRUE(
      failed(r.read(tensorWith("short.bin", 64, 8), loc(), "initializer 'c'")));
  EXPECT_NE(errors.find("initializer 'c' starts at offset 64"),
            std::string::npos)
      << errors;

  errors.clear();
  EXPECT_TRUE(failed(
      r.read(tensorWith("../escape.bin", 0, 8), loc(), "initializer 'd'")));
  EXPECT_NE(errors.find("outside the model's folder"), std::string::npos)
      << errors;

  errors.clear();
  TensorReader inMemory("");
  EXPECT_TRUE(failed(
      inMemory.read(tensorWith("short.bin", 0, 4), loc(), "initializer 'e'")));
  EXPECT_NE(errors.find("no path to resolve it against"), std::string::npos)
      << errors;
}

} // namespace
