//===- LoadPackage.cpp - reading a package folder into memory -------------===//

#include "runtime/exec/Executor.h"
#include "runtime/exec/ProgramCheck.h"
#include "runtime/package/Package.h"

#include <sys/stat.h>

#include <cerrno>

namespace hetc::runtime::exec {
namespace {

Status checkFile(const std::string &path, const std::string &what) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT)
      return notFound("the package has no ", what, " '", path, "'");
    return errnoStatus(errno, "cannot read " + what + " '" + path + "'");
  }
  if (!S_ISREG(info.st_mode))
    return dataLoss(what, " '", path, "' is not a regular file");
  return okStatus();
}

Status readTensors(const std::string &path, const std::string &what,
                   std::vector<hetc::package::NamedTensor> *tensors) {
  HETC_RETURN_IF_ERROR(checkFile(path, what));
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
  HETC_RETURN_IF_ERROR(checkFile(manifestPath, "manifest"));
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

  package->programs.clear();
  package->programs.resize(package->manifest.ranks_size());
  for (int r = 0; r < package->manifest.ranks_size(); ++r) {
    const std::string &file = package->manifest.ranks(r).program_file();
    HETC_RETURN_IF_ERROR(checkFile(dir + "/" + file, "program"));
    if (!hetc::package::readProgram(dir, file, &package->programs[r], &error))
      return dataLoss(error);
  }

  std::string weights = package->manifest.weights_file().empty()
                            ? hetc::package::kWeightsFile
                            : package->manifest.weights_file();
  HETC_RETURN_IF_ERROR(
      readTensors(dir + "/" + weights, "weights file", &package->weights));
  package->constants.clear();
  if (!package->manifest.constants_file().empty())
    HETC_RETURN_IF_ERROR(readTensors(dir + "/" +
                                         package->manifest.constants_file(),
                                     "constants file", &package->constants));
  return okStatus();
}

} // namespace hetc::runtime::exec
