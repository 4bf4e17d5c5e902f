//===- Safetensors.h - read and write .safetensors files --------*- C++ -*-===//
//
// The safetensors layout: an 8-byte little-endian header length N, N bytes
// of JSON mapping each tensor name to {"dtype", "shape", "data_offsets":
// [begin, end)} (offsets relative to the end of the header; an optional
// "__metadata__" object of strings), then the raw little-endian data.
// The compiler writes weights and constants with this; the runtime reads
// them. Plain C++17, no exceptions: failures return false with a message.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_PACKAGE_SAFETENSORS_H
#define HETC_RUNTIME_PACKAGE_SAFETENSORS_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hetc::package {

struct NamedTensor {
  std::string name;
  std::string dtype; // "F32", "F64", "F16", "BF16", "I64", "I32", "I8", "U8", "BOOL"
  std::vector<int64_t> shape;
  std::vector<uint8_t> data; // row-major little-endian, numel * dtype size bytes
};

/// Bytes per element of a safetensors dtype name; 0 when it is unknown.
int64_t safetensorsDTypeSize(const std::string &dtype);

/// Serializes `tensors` (names unique, data of the size dtype and shape
/// give) with the optional string `metadata`. Tensors are laid out in the
/// order given.
bool encodeSafetensors(const std::vector<NamedTensor> &tensors,
                       const std::map<std::string, std::string> &metadata,
                       std::string *bytes, std::string *error);

/// Parses a whole file's bytes; tensors come back in data-offset order.
bool decodeSafetensors(const std::string &bytes,
                       std::vector<NamedTensor> *tensors,
                       std::map<std::string, std::string> *metadata,
                       std::string *error);

bool writeSafetensorsFile(const std::string &path,
                          const std::vector<NamedTensor> &tensors,
                          const std::map<std::string, std::string> &metadata,
                          std::string *error);

bool readSafetensorsFile(const std::string &path,
                         std::vector<NamedTensor> *tensors,
                         std::map<std::string, std::string> *metadata,
                         std::string *error);

} // namespace hetc::package

#endif // HETC_RUNTIME_PACKAGE_SAFETENSORS_H
