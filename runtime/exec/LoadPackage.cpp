//===- LoadPackage.cpp - reading a package folder into memory -------------===//

#include "runtime/exec/CommunicationCheck.h"
#include "runtime/exec/Executor.h"
#include "runtime/exec/ProgramCheck.h"
#include "runtime/package/FileDigest.h"
#include "runtime/package/Package.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>
#include <fstream>

namespace hetc::runtime::exec {
namespace {

/// Reads package files: each must resolve inside the package folder and be
/// a regular file and, when the manifest lists it, have the size and digest
/// the compiler recorded. A file is read once; the checks run on its bytes.
class FileReader {
public:
  /// `manifest` lists the digests; null: no digests to check.
  FileReader(const std::string &dir, const hetc::pkg::Manifest *manifest)
      : dir_(dir), manifest_(manifest) {}

  /// The checked bytes of `name` (`what` names it in errors).
  Status read(const std::string &name, const std::string &what,
              std::string *bytes) const {
    std::string path = dir_ + "/" + name;
    struct stat info;
    if (::stat(path.c_str(), &info) != 0) {
      if (errno == ENOENT)
        return notFound("the package has no ", what, " '", path, "'");
      return errnoStatus(errno, "cannot read " + what + " '" + path + "'");
    }
    if (!S_ISREG(info.st_mode))
      return dataLoss(what, " '", path, "' is not a regular file");
    char real[PATH_MAX], realDir[PATH_MAX];
    if (!::realpath(path.c_str(), real) || !::realpath(dir_.c_str(), realDir))
      return errnoStatus(errno, "cannot resolve " + what + " '" + path + "'");
    if (std::string(real).rfind(std::string(realDir) + "/", 0) != 0)
      return dataLoss(what, " '", path, "' resolves to '", real,
                      "', outside the package folder (a symbolic link)");
    std::ifstream in(path, std::ios::binary);
    bytes->assign(static_cast<size_t>(info.st_size), '\0');
    if (!in || !in.read(bytes->data(), info.st_size))
      return dataLoss("cannot read ", what, " '", path, "'");
    if (!manifest_)
      return okStatus();
    for (const hetc::pkg::FileDigest &listed : manifest_->files()) {
      if (listed.name() != name)
        continue;
      if (listed.bytes() != static_cast<int64_t>(bytes->size()))
        return dataLoss(what, " '", path, "' has ", bytes->size(),
                        " bytes but the manifest says ", listed.bytes(),
                        ": the file changed after hetc compile wrote it");
      if (hetc::package::digestBytes(bytes->data(), bytes->size()) !=
          listed.digest())
        return dataLoss(what, " '", path, "' does not match the digest the "
                        "manifest records: the file is damaged or changed "
                        "after hetc compile wrote it");
    }
    return okStatus();
  }

  std::string path(const std::string &name) const { return dir_ + "/" + name; }

private:
  std::string dir_;
  const hetc::pkg::Manifest *manifest_;
};

Status readTensors(const FileReader &files, const std::string &name,
                   const std::string &what,
                   std::vector<hetc::package::NamedTensor> *tensors) {
  std::string bytes, error;
  HETC_RETURN_IF_ERROR(files.read(name, what, &bytes));
  std::map<std::string, std::string> metadata;
  if (!hetc::package::decodeSafetensors(bytes, tensors, &metadata, &error))
    return dataLoss(what, " '", files.path(name), "': ", files.path(name),
                    ": ", error);
  return okStatus();
}

/// The program of each rank, from the file `fileOf` names.
Status readPrograms(
    const FileReader &files,
    const google::protobuf::RepeatedPtrField<hetc::pkg::RankInfo> &ranks,
    const std::string &(hetc::pkg::RankInfo::*fileOf)() const,
    const std::string &what, std::vector<hetc::pkg::Program> *programs) {
  programs->assign(static_cast<size_t>(ranks.size()), hetc::pkg::Program());
  std::string bytes, error;
  for (int r = 0; r < ranks.size(); ++r) {
    const std::string &file = (ranks[r].*fileOf)();
    HETC_RETURN_IF_ERROR(files.read(file, what, &bytes));
    if (!hetc::package::parseProgram(bytes, files.path(file), &(*programs)[r],
                                     &error))
      return dataLoss(error);
  }
  return okStatus();
}

} // namespace

Status loadPackage(const std::string &dir, LoadedPackage *package) {
  struct stat info;
  if (::stat(dir.c_str(), &info) != 0) {
    if (errno == ENOENT)
      return notFound("package '", dir, "' does not exist");
    return errnoStatus(errno, "cannot read package '" + dir + "'");
  }
  if (!S_ISDIR(info.st_mode))
    return invalidArgument("package '", dir,
                           "' is not a folder (hetc compile writes a folder "
                           "named like OUT.hetpkg)");
  package->dir = dir;
  std::string manifestPath = dir + "/" + hetc::package::kManifestFile;
  // The manifest lists no digest of its own.
  std::string bytes;
  HETC_RETURN_IF_ERROR(FileReader(dir, nullptr)
                           .read(hetc::package::kManifestFile, "manifest",
                                 &bytes));
  std::string error;
  if (!hetc::package::parseManifest(bytes, dir, &package->manifest, &error)) {
    // parseManifest reports a parse failure or another format version.
    if (package->manifest.format_version() != hetc::package::kFormatVersion &&
        error.find("format version") != std::string::npos)
      return invalidArgument(error);
    return dataLoss(error);
  }
  HETC_RETURN_IF_ERROR(validateManifest(package->manifest),
                       "manifest '", manifestPath, "'");

  FileReader files(dir, &package->manifest);
  const auto &ranks = package->manifest.ranks();
  HETC_RETURN_IF_ERROR(readPrograms(
      files, ranks, &hetc::pkg::RankInfo::program_file, "program",
      &package->programs));
  HETC_RETURN_IF_ERROR(validateCommunication(package->programs), "package '",
                       dir, "'");
  package->evalPrograms.clear();
  if (!ranks[0].eval_program_file().empty()) {
    HETC_RETURN_IF_ERROR(readPrograms(
        files, ranks, &hetc::pkg::RankInfo::eval_program_file,
        "evaluation program", &package->evalPrograms));
    HETC_RETURN_IF_ERROR(validateCommunication(package->evalPrograms),
                         "package '", dir, "': the evaluation programs");
  }

  std::string weights = package->manifest.weights_file().empty()
                            ? hetc::package::kWeightsFile
                            : package->manifest.weights_file();
  HETC_RETURN_IF_ERROR(
      readTensors(files, weights, "weights file", &package->weights));
  package->constants.clear();
  if (!package->manifest.constants_file().empty())
    HETC_RETURN_IF_ERROR(readTensors(files, package->manifest.constants_file(),
                                     "constants file", &package->constants));
  return okStatus();
}

} // namespace hetc::runtime::exec
