//===- Package.cpp - reading a package's protobuf files -------------------===//

#include "runtime/package/Package.h"

#include <fstream>
#include <limits>

namespace hetc::package {

namespace {

template <typename Message>
bool notValid(const std::string &path, const Message &message,
              std::string *error) {
  *error = "'" + path + "' is not a valid " + message.GetTypeName() +
           " message";
  return false;
}

template <typename Message>
bool readMessage(const std::string &path, Message *message,
                 std::string *error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot open '" + path + "'";
    return false;
  }
  return message->ParseFromIstream(&in) || notValid(path, *message, error);
}

} // namespace

std::string programFileName(int rank) {
  return "rank" + std::to_string(rank) + ".pb";
}

std::string evalProgramFileName(int rank) {
  return "rank" + std::to_string(rank) + ".eval.pb";
}

namespace {
// The parsed manifest of package `dir` has this build's format version.
bool checkFormatVersion(const std::string &dir, const pkg::Manifest *manifest,
                        std::string *error) {
  if (manifest->format_version() != kFormatVersion) {
    *error = "'" + dir + "' has package format version " +
             std::to_string(manifest->format_version()) +
             "; this build reads version " + std::to_string(kFormatVersion);
    return false;
  }
  return true;
}
} // namespace

bool readManifest(const std::string &dir, pkg::Manifest *manifest,
                  std::string *error) {
  return readMessage(dir + "/" + kManifestFile, manifest, error) &&
         checkFormatVersion(dir, manifest, error);
}

bool parseManifest(const std::string &bytes, const std::string &dir,
                   pkg::Manifest *manifest, std::string *error) {
  if (!manifest->ParseFromString(bytes))
    return notValid(dir + "/" + kManifestFile, *manifest, error);
  return checkFormatVersion(dir, manifest, error);
}

bool readProgram(const std::string &dir, const std::string &file,
                 pkg::Program *program, std::string *error) {
  return readMessage(dir + "/" + file, program, error);
}

bool parseProgram(const std::string &bytes, const std::string &path,
                  pkg::Program *program, std::string *error) {
  return program->ParseFromString(bytes) || notValid(path, *program, error);
}

bool isPlainFileName(const std::string &name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
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

int64_t bufferBytes(const pkg::Buffer &buffer) {
  int64_t bytes = dtypeSize(buffer.dtype());
  if (bytes == 0)
    return -1;
  for (int64_t dim : buffer.shape()) {
    if (dim < 0)
      return -1;
    if (dim != 0 && bytes > std::numeric_limits<int64_t>::max() / dim)
      return -1;
    bytes *= dim;
  }
  return bytes;
}

} // namespace hetc::package
