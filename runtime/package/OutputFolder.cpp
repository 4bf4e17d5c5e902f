//===- OutputFolder.cpp - writing a folder of ours safely -----------------===//

#include "runtime/package/OutputFolder.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

namespace hetc::package {
namespace {

namespace fs = std::filesystem;

bool isPackageFile(const std::string &name) {
  if (name == "manifest.pb" || name == "weights.safetensors" ||
      name == "constants.safetensors")
    return true;
  // rank<N>.pb or rank<N>.eval.pb
  std::string suffix = ".pb";
  if (name.size() > 8 && name.compare(name.size() - 8, 8, ".eval.pb") == 0)
    suffix = ".eval.pb";
  if (name.size() < 5 + suffix.size() || name.compare(0, 4, "rank") != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  for (size_t i = 4; i + suffix.size() < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9')
      return false;
  return true;
}

bool isCheckpointFile(const std::string &name) {
  return name == "state.json" || name == "params.safetensors" ||
         name == "optimizer.safetensors";
}

std::string errnoText(int err) { return std::strerror(err); }

// Whether `dir` (not followed if a link) is a real folder holding only
// regular files of `kind`, the marker among them when `needMarker`.
bool holdsOnlyOwnFiles(const fs::path &dir, const FolderKind &kind,
                       bool needMarker) {
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(dir, ec)))
    return false;
  bool marker = false;
  for (const fs::directory_entry &entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (!fs::is_regular_file(entry.symlink_status(ec)) || !kind.ownsFile(name))
      return false;
    marker |= name == kind.marker;
  }
  return !ec && (marker || !needMarker);
}

// renameat2(RENAME_EXCHANGE): both paths stay valid throughout.
int exchange(const std::string &a, const std::string &b) {
#ifdef SYS_renameat2
  constexpr unsigned kRenameExchange = 1u << 1;
  return static_cast<int>(::syscall(SYS_renameat2, AT_FDCWD, a.c_str(),
                                    AT_FDCWD, b.c_str(), kRenameExchange));
#else
  errno = ENOSYS;
  return -1;
#endif
}

} // namespace

const FolderKind &packageFolder() {
  static const FolderKind kind{"package", "manifest.pb", isPackageFile};
  return kind;
}

const FolderKind &checkpointFolder() {
  static const FolderKind kind{"checkpoint", "state.json", isCheckpointFile};
  return kind;
}

std::string makeStagingFolder(const std::string &target, const FolderKind &kind,
                              std::string *staged) {
  fs::path path(target);
  fs::path parent = path.parent_path().empty() ? fs::path(".")
                                               : path.parent_path();
  std::string prefix = path.filename().string() + ".partial-";
  std::error_code ec;
  for (const fs::directory_entry &entry : fs::directory_iterator(parent, ec)) {
    // <target>.partial-XXXXXX, and its .old (a replace killed halfway).
    std::string name = entry.path().filename().string();
    bool staging = name.compare(0, prefix.size(), prefix) == 0 &&
                   (name.size() == prefix.size() + 6 ||
                    (name.size() == prefix.size() + 10 &&
                     name.compare(name.size() - 4, 4, ".old") == 0));
    if (staging)
      removeOwnFolder(entry.path().string(), kind);
  }
  std::string pattern = target + ".partial-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (!::mkdtemp(buffer.data()))
    return "cannot create a folder next to '" + target + "': " +
           errnoText(errno);
  *staged = buffer.data();
  return "";
}

void removeOwnFolder(const std::string &dir, const FolderKind &kind) {
  if (!holdsOnlyOwnFiles(dir, kind, /*needMarker=*/false))
    return;
  std::error_code ec;
  fs::remove_all(dir, ec);
}

std::string replaceFolder(const std::string &staged, const std::string &target,
                          const FolderKind &kind) {
  struct stat info;
  if (::lstat(target.c_str(), &info) != 0) {
    if (errno != ENOENT)
      return "cannot inspect '" + target + "': " + errnoText(errno);
    if (std::rename(staged.c_str(), target.c_str()) != 0)
      return "cannot rename '" + staged + "' to '" + target +
             "': " + errnoText(errno);
    return "";
  }
  std::string notOurs = "'" + target + "' exists and is not a " + kind.what;
  if (S_ISLNK(info.st_mode))
    return notOurs + " (a symbolic link); not replacing it";
  if (!S_ISDIR(info.st_mode))
    return notOurs + " (not a folder); not replacing it";
  std::error_code ec;
  bool empty = fs::is_empty(target, ec) && !ec;
  if (!empty && !holdsOnlyOwnFiles(target, kind, /*needMarker=*/true))
    return notOurs + " (it holds files a " + kind.what +
           " does not have, or no " + kind.marker + "); not replacing it";
  if (exchange(staged, target) == 0) {
    // `staged` now holds the old folder.
    fs::remove_all(staged, ec);
    return "";
  }
  if (errno != EINVAL && errno != ENOSYS)
    return "cannot replace '" + target + "': " + errnoText(errno);
  // No exchange on this file system: move the old one aside first.
  std::string old = staged + ".old";
  if (std::rename(target.c_str(), old.c_str()) != 0)
    return "cannot move the old " + std::string(kind.what) + " '" + target +
           "' aside: " + errnoText(errno);
  if (std::rename(staged.c_str(), target.c_str()) != 0) {
    int err = errno;
    std::rename(old.c_str(), target.c_str()); // put the old one back
    return "cannot rename '" + staged + "' to '" + target + "': " +
           errnoText(err);
  }
  fs::remove_all(old, ec);
  return "";
}

} // namespace hetc::package
