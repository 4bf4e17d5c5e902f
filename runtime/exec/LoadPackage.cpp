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

namespace hetc::runtime::exec {
namespace {

/// Checks a package file before it is read: it resolves inside the package
/// folder, is a regular file and, when the manifest lists it, has the size
/// and digest the compiler recorded.
class FileChecker {
public:
  FileChecker(const std::string &dir, const hetc::pkg::Manifest *manifest)
      : dir_(dir), manifest_(manifest) {}

  Status check(const std::string &name, const std::string &what) const {
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
    if (!manifest_)
      return okStatus();
    for (const hetc::pkg::FileDigest &listed : manifest_->files()) {
      if (listed.name() != name)
        continue;
      int64_t bytes = 0;
      uint64_t digest = 0;
      std::string error;
      if (listed.bytes() != info.st_size)
        return dataLoss(what, " '", path, "' has ", info.st_size,
                        " bytes but the manifest says ", listed.bytes(),
                        ": the file changed after hetc compile wrote it");
      if (!hetc::package::digestFile(path, &bytes, &digest, &error))
        return dataLoss(error);
      if (digest != listed.digest())
        return dataLoss(what, " '", path, "' does not match the digest the "
                        "manifest records: the file is damaged or changed "
                        "after hetc compile wrote it");
    }
    return okStatus();
  }

private:
  std::string dir_;
  const hetc::pkg::Manifest *manifest_;
};

Status readTensors(const FileChecker &files, const std::string &dir,
                   const std::string &name, const std::string &what,
                   std::vector<hetc::package::NamedTensor> *tensors) {
  HETC_RETURN_IF_ERROR(files.check(name, what));
  std::string path = dir + "/" + name;
  std::map<std::string, std::string> metadata;
  std::string error;
  if (!hetc::package::readSafetensorsFile(path, tensors, &metadata, &error))
    return dataLoss(what, " '", path, "': ", error);
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
  HETC_RETURN_IF_ERROR(
      FileChecker(dir, nullptr).check(hetc::package::kManifestFile, "manifest"));
  std::string error;
  if (!hetc::package::readManifest(dir, &package->manifest, &error)) {
    // readManifest reports a parse failure or another format version.
    if (package->manifest.format_version() != hetc::package::kFormatVersion &&
        error.find("format version") != std::string::npos)
      return invalidArgument(error);
    return dataLoss(error);
  }
  HETC_RETURN_IF_ERROR(validateManifest(package->manifest),
                       "manifest '", manifestPath, "'");

  FileChecker files(dir, &package->manifest);
  package->programs.clear();
  package->programs.resize(package->manifest.ranks_size());
  for (int r = 0; r < package->manifest.ranks_size(); ++r) {
    const std::string &file = package->manifest.ranks(r).program_file();
    HETC_RETURN_IF_ERROR(files.check(file, "program"));
    if (!hetc::package::readProgram(dir, file, &package->programs[r], &error))
      return dataLoss(error);
  }
  HETC_RETURN_IF_ERROR(validateCommunication(package->programs), "package '",
                       dir, "'");

  std::string weights = package->manifest.weights_file().empty()
                            ? hetc::package::kWeightsFile
                            : package->manifest.weights_file();
  HETC_RETURN_IF_ERROR(
      readTensors(files, dir, weights, "weights file", &package->weights));
  package->constants.clear();
  if (!package->manifest.constants_file().empty())
    HETC_RETURN_IF_ERROR(readTensors(files, dir,
                                     package->manifest.constants_file(),
                                     "constants file", &package->constants));
  return okStatus();
}

} // namespace hetc::runtime::exec
