//===- Checkpoint.cpp -----------------------------------------------------===//

#include "runtime/exec/Checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace hetc::runtime::exec {
namespace {

namespace fs = std::filesystem;
using hetc::package::NamedTensor;

std::string jsonString(const std::string &text) {
  std::ostringstream os;
  os << '"';
  for (unsigned char c : text) {
    if (c == '"' || c == '\\')
      os << '\\' << c;
    else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      os << escaped;
    } else
      os << c;
  }
  os << '"';
  return os.str();
}

Status syncFile(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0)
    return errnoStatus(errno, "cannot reopen '" + path + "'");
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0)
    return errnoStatus(err, "cannot sync '" + path + "'");
  return okStatus();
}

Status writeTensors(const std::string &path,
                    const std::vector<NamedTensor> &tensors) {
  std::string error;
  if (!hetc::package::writeSafetensorsFile(path, tensors, {{"format", "hetc"}},
                                           &error))
    return dataLoss("cannot write '", path, "': ", error);
  return syncFile(path);
}

Status writeText(const std::string &path, const std::string &text) {
  FILE *file = std::fopen(path.c_str(), "wb");
  if (!file)
    return errnoStatus(errno, "cannot create '" + path + "'");
  bool ok = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  ok &= std::fflush(file) == 0 && ::fsync(::fileno(file)) == 0;
  int err = errno;
  ok &= std::fclose(file) == 0;
  if (!ok)
    return errnoStatus(err, "cannot write '" + path + "'");
  return okStatus();
}

// Moves the finished `staged` folder to `dir`, replacing a checkpoint
// already there.
Status publish(const std::string &staged, const std::string &dir) {
  std::error_code ec;
  fs::path target(dir);
  if (!fs::exists(target, ec)) {
    fs::rename(staged, target, ec);
    if (ec)
      return errnoStatus(ec.value(), "cannot rename '" + staged + "' to '" +
                                         dir + "'");
    return okStatus();
  }
  bool isCheckpoint = fs::is_regular_file(target / "state.json", ec);
  bool isEmptyDir = fs::is_directory(target, ec) && fs::is_empty(target, ec);
  if (!isCheckpoint && !isEmptyDir)
    return failedPrecondition("'", dir,
                              "' exists and is not a hetrun checkpoint (no "
                              "state.json); not replacing it");
  std::string old = staged + ".old";
  fs::rename(target, old, ec);
  if (ec)
    return errnoStatus(ec.value(), "cannot move the old checkpoint '" + dir +
                                       "' aside");
  fs::rename(staged, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::rename(old, target, ignored); // put the old one back
    return errnoStatus(ec.value(), "cannot rename '" + staged + "' to '" +
                                       dir + "'");
  }
  fs::remove_all(old, ec);
  return okStatus();
}

} // namespace

Status saveCheckpoint(const std::string &dir,
                      const std::vector<RankTensors> &ranks,
                      const hetc::pkg::Manifest &manifest,
                      const CheckpointInfo &info) {
  CheckpointTensors tensors;
  HETC_RETURN_IF_ERROR(assembleCheckpoint(ranks, &tensors), "cannot save to '",
                       dir, "'");
  fs::path target = fs::path(dir).lexically_normal();
  if (target.filename().empty())
    target = target.parent_path();
  fs::path parent = target.parent_path().empty() ? fs::path(".")
                                                  : target.parent_path();
  std::error_code ec;
  if (!fs::is_directory(parent, ec))
    return notFound("cannot save to '", dir, "': folder '", parent.string(),
                    "' does not exist");
  std::string pattern = target.string() + ".partial-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (!::mkdtemp(buffer.data()))
    return errnoStatus(errno, "cannot create a folder next to '" + dir + "'");
  std::string staged(buffer.data());

  auto write = [&]() -> Status {
    HETC_RETURN_IF_ERROR(
        writeTensors(staged + "/params.safetensors", tensors.parameters));
    HETC_RETURN_IF_ERROR(writeTensors(staged + "/optimizer.safetensors",
                                      tensors.optimizerState));
    std::ostringstream json;
    json << "{\"format\": \"hetc-checkpoint\", \"version\": 1, \"step\": "
         << info.step << ", \"package\": " << jsonString(info.packagePath)
         << ", \"model\": " << jsonString(manifest.model_name())
         << ", \"global_batch\": " << manifest.global_batch()
         << ", \"seq_len\": " << manifest.seq_len()
         << ", \"optimizer\": " << jsonString(manifest.optimizer().kind())
         << "}\n";
    HETC_RETURN_IF_ERROR(writeText(staged + "/state.json", json.str()));
    return publish(staged, target.string());
  };
  Status status = write();
  if (!status.ok()) {
    std::error_code ignored;
    fs::remove_all(staged, ignored);
  }
  return status;
}

} // namespace hetc::runtime::exec
