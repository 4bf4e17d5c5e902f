//===- Package.h - reading a package's protobuf files -----------*- C++ -*-===//
//
// The file names of a package folder and readers for its manifest and
// programs (docs/package-format.md). Plain C++: the runtime and `hetc
// inspect` both use it.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_PACKAGE_PACKAGE_H
#define HETC_RUNTIME_PACKAGE_PACKAGE_H

#include "runtime/package/hetpkg.pb.h"

#include <string>

namespace hetc::package {

/// Manifest.format_version this build writes and reads.
constexpr uint32_t kFormatVersion = 3;
constexpr const char *kManifestFile = "manifest.pb";
constexpr const char *kWeightsFile = "weights.safetensors";
constexpr const char *kConstantsFile = "constants.safetensors";

/// "rank<N>.pb", and "rank<N>.eval.pb" for its evaluation program.
std::string programFileName(int rank);
std::string evalProgramFileName(int rank);

/// Reads `<dir>/manifest.pb` and checks its format version.
bool readManifest(const std::string &dir, pkg::Manifest *manifest,
                  std::string *error);

/// readManifest on the bytes of `<dir>/manifest.pb`.
bool parseManifest(const std::string &bytes, const std::string &dir,
                   pkg::Manifest *manifest, std::string *error);

/// Reads `<dir>/<file>` as a Program.
bool readProgram(const std::string &dir, const std::string &file,
                 pkg::Program *program, std::string *error);

/// Parses the bytes of the program file `path` (for messages).
bool parseProgram(const std::string &bytes, const std::string &path,
                  pkg::Program *program, std::string *error);

/// Whether `name` names a file in the package folder itself: not empty, no
/// folder part, not "." or "..".
bool isPlainFileName(const std::string &name);

/// The bytes of one element of `dtype`; 0 for DTYPE_UNSPECIFIED.
int64_t dtypeSize(pkg::DType dtype);

/// Byte size of a buffer (elements times element size); -1 when a dimension
/// is negative, the dtype is unknown or the size overflows.
int64_t bufferBytes(const pkg::Buffer &buffer);

} // namespace hetc::package

#endif // HETC_RUNTIME_PACKAGE_PACKAGE_H
