//===- Checkpoint.cpp -----------------------------------------------------===//

#include "runtime/exec/Checkpoint.h"

#include "runtime/package/OutputFolder.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
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
  const package::FolderKind &kind = package::checkpointFolder();
  std::string staged;
  if (std::string error = package::makeStagingFolder(target.string(), kind,
                                                     &staged);
      !error.empty())
    return failedPrecondition(error);

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
    if (std::string error =
            package::replaceFolder(staged, target.string(), kind);
        !error.empty())
      return failedPrecondition(error);
    return okStatus();
  };
  Status status = write();
  if (!status.ok())
    package::removeOwnFolder(staged, kind);
  return status;
}

namespace {

constexpr const char *kLatest = "latest";

// The step of a series member `step-S`; -1 for any other name.
int64_t seriesStep(const std::string &name) {
  if (name.rfind("step-", 0) != 0 || name.size() == 5)
    return -1;
  int64_t step = 0;
  for (char c : name.substr(5)) {
    if (c < '0' || c > '9' || step > (int64_t(1) << 50))
      return -1;
    step = step * 10 + (c - '0');
  }
  return step;
}

// The raw value after `"key": ` in hetrun's one-line state.json.
std::string stateField(const std::string &json, const std::string &key) {
  size_t at = json.find("\"" + key + "\": ");
  if (at == std::string::npos)
    return "";
  size_t begin = at + key.size() + 4;
  if (begin < json.size() && json[begin] == '"') {
    size_t close = json.find('"', begin + 1);
    return close == std::string::npos ? ""
                                      : json.substr(begin + 1, close - begin - 1);
  }
  size_t close = json.find_first_of(",}", begin);
  return json.substr(begin, close - begin);
}

Status readText(const std::string &path, std::string *text) {
  FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    return errnoStatus(errno, "cannot open '" + path + "'");
  char chunk[4096];
  text->clear();
  for (size_t n; (n = std::fread(chunk, 1, sizeof(chunk), file)) > 0;)
    text->append(chunk, n);
  std::fclose(file);
  return okStatus();
}

Status readTensors(const std::string &path,
                   std::vector<NamedTensor> *tensors) {
  std::string error;
  if (!hetc::package::readSafetensorsFile(path, tensors, nullptr, &error))
    return dataLoss("cannot read checkpoint file '", path, "': ", error);
  return okStatus();
}

} // namespace

Status saveCheckpointSeries(const std::string &dir, int64_t keep,
                            const std::vector<RankTensors> &ranks,
                            const hetc::pkg::Manifest &manifest,
                            const CheckpointInfo &info) {
  fs::path root(dir);
  std::error_code ec;
  if (!fs::exists(root, ec)) {
    fs::create_directory(root, ec);
    if (ec)
      return errnoStatus(ec.value(), "cannot create '" + dir + "'");
  } else if (!fs::is_regular_file(root / kLatest, ec) &&
             !fs::is_empty(root, ec)) {
    bool series = false;
    for (const fs::directory_entry &entry : fs::directory_iterator(root, ec))
      series |= seriesStep(entry.path().filename().string()) >= 0;
    if (!series)
      return failedPrecondition("'", dir,
                                "' exists and holds no hetrun checkpoints "
                                "(no latest, no step-*); not writing into it");
  }
  std::string name = "step-" + std::to_string(info.step);
  HETC_RETURN_IF_ERROR(
      saveCheckpoint((root / name).string(), ranks, manifest, info));
  std::string staged = (root / kLatest).string() + ".partial";
  HETC_RETURN_IF_ERROR(writeText(staged, name + "\n"));
  fs::rename(staged, root / kLatest, ec);
  if (ec)
    return errnoStatus(ec.value(), "cannot replace '" +
                                       (root / kLatest).string() + "'");
  if (keep <= 0)
    return okStatus();
  std::vector<int64_t> steps;
  for (const fs::directory_entry &entry : fs::directory_iterator(root, ec))
    if (int64_t step = seriesStep(entry.path().filename().string());
        step >= 0 && fs::is_regular_file(entry.path() / "state.json", ec))
      steps.push_back(step);
  std::sort(steps.begin(), steps.end());
  for (size_t i = 0; i + keep < steps.size(); ++i)
    if (steps[i] != info.step)
      package::removeOwnFolder(
          (root / ("step-" + std::to_string(steps[i]))).string(),
          package::checkpointFolder());
  return okStatus();
}

Status loadCheckpoint(const std::string &path, CheckpointTensors *tensors,
                      CheckpointInfo *info, std::string *resolved) {
  fs::path dir(path);
  std::error_code ec;
  if (fs::is_regular_file(dir / kLatest, ec)) {
    std::string name;
    HETC_RETURN_IF_ERROR(readText((dir / kLatest).string(), &name));
    while (!name.empty() && (name.back() == '\n' || name.back() == ' '))
      name.pop_back();
    if (seriesStep(name) < 0)
      return dataLoss("'", (dir / kLatest).string(),
                      "' does not name a step-S checkpoint");
    dir /= name;
  }
  *resolved = dir.string();
  std::string state;
  if (!fs::is_regular_file(dir / "state.json", ec))
    return notFound("'", path,
                    "' is not a hetrun checkpoint (no state.json, no latest)");
  HETC_RETURN_IF_ERROR(readText((dir / "state.json").string(), &state));
  if (stateField(state, "format") != "hetc-checkpoint")
    return dataLoss("'", (dir / "state.json").string(),
                    "' is not a hetc checkpoint's state");
  char *end = nullptr;
  std::string step = stateField(state, "step");
  info->step = std::strtoll(step.c_str(), &end, 10);
  if (step.empty() || *end != '\0' || info->step < 0)
    return dataLoss("'", (dir / "state.json").string(),
                    "' has no valid step");
  info->packagePath = stateField(state, "package");
  info->optimizer = stateField(state, "optimizer");
  HETC_RETURN_IF_ERROR(readTensors((dir / "params.safetensors").string(),
                                   &tensors->parameters));
  return readTensors((dir / "optimizer.safetensors").string(),
                     &tensors->optimizerState);
}

} // namespace hetc::runtime::exec
