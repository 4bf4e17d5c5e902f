//===- Package.cpp - reading a package's protobuf files -------------------===//

#include "runtime/package/Package.h"

#include <fstream>

namespace hetc::package {

namespace {

template <typename Message>
bool readMessage(const std::string &path, Message *message,
                 std::string *error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot open '" + path + "'";
    return false;
  }
  if (!message->ParseFromIstream(&in)) {
    *error = "'" + path + "' is not a valid " + message->GetTypeName() +
             " message";
    return false;
  }
  return true;
}

} // namespace

std::string programFileName(int rank) {
  return "rank" + std::to_string(rank) + ".pb";
}

bool readManifest(const std::string &dir, pkg::Manifest *manifest,
                  std::string *error) {
  if (!readMessage(dir + "/" + kManifestFile, manifest, error))
    return false;
  if (manifest->format_version() != kFormatVersion) {
    *error = "'" + dir + "' has package format version " +
             std::to_string(manifest->format_version()) +
             "; this build reads version " + std::to_string(kFormatVersion);
    return false;
  }
  return true;
}

bool readProgram(const std::string &dir, const std::string &file,
                 pkg::Program *program, std::string *error) {
  return readMessage(dir + "/" + file, program, error);
}

int64_t dtypeSize(pkg::DType dtype) {
  switch (dtype) {
  case pkg::F64:
  case pkg::I64:
    return 8;
  case pkg::F32:
  case pkg::I32:
    return 4;
  case pkg::F16:
  case pkg::BF16:
    return 2;
  case pkg::I8:
  case pkg::U8:
  case pkg::BOOL:
    return 1;
  default:
    return 0;
  }
}

} // namespace hetc::package
