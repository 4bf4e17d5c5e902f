//===- ModelProfile.cpp - segment costs and their JSON form ---------------===//

#include "planner/ModelProfile.h"
#include "support/BoundedJSON.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <optional>

namespace hetc::planner {

SegmentCost ModelProfile::range(int64_t first, int64_t end) const {
  SegmentCost sum;
  for (int64_t s = first; s < end; ++s) {
    const SegmentCost &cost = segments[s];
    sum.ops += cost.ops;
    sum.parameters += cost.parameters;
    sum.parameterBytes += cost.parameterBytes;
    sum.forwardFlops += cost.forwardFlops;
    sum.backwardFlops += cost.backwardFlops;
    sum.forwardBytes += cost.forwardBytes;
    sum.backwardBytes += cost.backwardBytes;
    sum.savedActivationBytes += cost.savedActivationBytes;
    for (const auto &[name, kind] : cost.kinds) {
      KindCost &into = sum.kinds[name];
      into.forwardOps += kind.forwardOps;
      into.backwardOps += kind.backwardOps;
      into.forwardFlops += kind.forwardFlops;
      into.backwardFlops += kind.backwardFlops;
      into.forwardBytes += kind.forwardBytes;
      into.backwardBytes += kind.backwardBytes;
    }
    // What leaves the range is what leaves its last segment.
    sum.boundaryBytes = cost.boundaryBytes;
  }
  return sum;
}

namespace {

llvm::Error profileError(const llvm::Twine &path, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 path + ": " + message);
}

/// Reads the numbers of one segment entry, naming the first bad field.
class SegmentReader {
public:
  SegmentReader(const llvm::json::Object &object, std::string path)
      : object(object), path(std::move(path)) {}

  /// The non-negative number under `key`; `fallback` when it is absent and
  /// a fallback is given.
  double number(llvm::StringRef key, std::optional<double> fallback = {}) {
    const llvm::json::Value *value = object.get(key);
    std::optional<double> number = value ? value->getAsNumber() : fallback;
    if (!error && (!number || *number < 0))
      error = profileError(
          path + "." + key,
          value ? llvm::formatv("expected a number >= 0, got {0}", *value).str()
                : "missing");
    return number.value_or(0);
  }

  llvm::Error takeError() {
    return error ? std::move(*error) : llvm::Error::success();
  }

private:
  const llvm::json::Object &object;
  std::string path;
  std::optional<llvm::Error> error;
};

llvm::Expected<SegmentCost> parseSegment(const llvm::json::Value &value,
                                         const std::string &path,
                                         double batch) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return profileError(path, "expected an object");
  SegmentReader read(*object, path);
  SegmentCost cost;
  cost.ops = static_cast<int64_t>(read.number("ops", 0));
  cost.parameters = static_cast<int64_t>(read.number("parameters"));
  cost.parameterBytes = static_cast<int64_t>(read.number("parameter_bytes"));
  // FLOPs and bytes moved are for the profiled batch, sizes per sample.
  cost.forwardFlops = read.number("forward_flops") / batch;
  cost.backwardFlops = read.number("backward_flops") / batch;
  // Bytes moved are newer than the rest of the profile.
  cost.forwardBytes = read.number("forward_bytes", 0) / batch;
  cost.backwardBytes = read.number("backward_bytes", 0) / batch;
  cost.savedActivationBytes =
      static_cast<int64_t>(read.number("saved_activation_bytes_per_sample"));
  cost.boundaryBytes =
      static_cast<int64_t>(read.number("boundary_bytes_per_sample"));
  if (llvm::Error error = read.takeError())
    return std::move(error);
  // Op kinds are newer still.
  if (const llvm::json::Object *kinds = object->getObject("kinds"))
    for (const auto &[name, entry] : *kinds) {
      std::string where = path + ".kinds." + name.str();
      const llvm::json::Object *kindObject = entry.getAsObject();
      if (!kindObject)
        return profileError(where, "expected an object");
      SegmentReader readKind(*kindObject, where);
      KindCost &kind = cost.kinds[name.str()];
      // Launches are per call; profiles before them have none.
      kind.forwardOps = static_cast<int64_t>(readKind.number("forward_ops", 0));
      kind.backwardOps =
          static_cast<int64_t>(readKind.number("backward_ops", 0));
      kind.forwardFlops = readKind.number("forward_flops", 0) / batch;
      kind.backwardFlops = readKind.number("backward_flops", 0) / batch;
      kind.forwardBytes = readKind.number("forward_bytes", 0) / batch;
      kind.backwardBytes = readKind.number("backward_bytes", 0) / batch;
      if (llvm::Error error = readKind.takeError())
        return std::move(error);
    }
  return cost;
}

llvm::Expected<SharedParameter> parseShared(const llvm::json::Value &value,
                                            const std::string &path,
                                            int64_t numSegments) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return profileError(path, "expected an object");
  SharedParameter shared;
  if (std::optional<llvm::StringRef> name = object->getString("name"))
    shared.name = name->str();
  SegmentReader read(*object, path);
  shared.elements = static_cast<int64_t>(read.number("elements"));
  shared.bytes = static_cast<int64_t>(read.number("bytes"));
  if (llvm::Error error = read.takeError())
    return std::move(error);
  const llvm::json::Array *segments = object->getArray("segments");
  for (const llvm::json::Value &segment : segments ? *segments
                                                   : llvm::json::Array()) {
    std::optional<int64_t> index = segment.getAsInteger();
    if (!index || *index < 0 || *index >= numSegments ||
        (!shared.segments.empty() && *index <= shared.segments.back()))
      return profileError(path + ".segments",
                          "expected increasing segment indices below " +
                              llvm::Twine(numSegments));
    shared.segments.push_back(*index);
  }
  if (shared.segments.size() < 2)
    return profileError(path + ".segments",
                        "expected the two or more segments reading it");
  return shared;
}

} // namespace

llvm::Expected<ModelProfile> parseModelProfile(llvm::StringRef json) {
  llvm::Expected<llvm::json::Value> root = parseBoundedJSON(json);
  if (!root)
    return profileError("profile", llvm::toString(root.takeError()));
  const llvm::json::Object *object = root->getAsObject();
  if (!object)
    return profileError("profile", "expected a JSON object");

  ModelProfile profile;
  if (std::optional<llvm::StringRef> model = object->getString("model"))
    profile.model = model->str();
  std::optional<int64_t> seq = object->getInteger("seq");
  if (!seq || *seq < 1)
    return profileError("seq", "expected a positive integer");
  profile.seqLen = *seq;
  std::optional<int64_t> batch = object->getInteger("batch");
  if (!batch || *batch < 1)
    return profileError("batch", "expected a positive integer");
  const llvm::json::Array *segments = object->getArray("segments");
  if (!segments || segments->empty())
    return profileError("segments", "expected a non-empty array");
  for (const auto &[i, value] : llvm::enumerate(*segments)) {
    llvm::Expected<SegmentCost> cost =
        parseSegment(value, llvm::formatv("segments[{0}]", i).str(),
                     static_cast<double>(*batch));
    if (!cost)
      return cost.takeError();
    profile.segments.push_back(*cost);
  }
  if (const llvm::json::Array *shared = object->getArray("shared_parameters"))
    for (const auto &[i, value] : llvm::enumerate(*shared)) {
      llvm::Expected<SharedParameter> parameter = parseShared(
          value, llvm::formatv("shared_parameters[{0}]", i).str(),
          profile.numSegments());
      if (!parameter)
        return parameter.takeError();
      profile.sharedParameters.push_back(std::move(*parameter));
    }
  return profile;
}

llvm::Expected<ModelProfile> readModelProfileFile(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path);
  if (!file)
    return profileError(path, file.getError().message());
  llvm::Expected<ModelProfile> profile =
      parseModelProfile((*file)->getBuffer());
  if (!profile)
    return profileError(path, llvm::toString(profile.takeError()));
  return profile;
}

} // namespace hetc::planner
