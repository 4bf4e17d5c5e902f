//===- PlanJSON.cpp - reading and writing plans as JSON -------------------===//
//
// The format is docs/plan-format.md. Parsing stops at the first problem and
// names its JSON path; the checks that need the model and the batch are
// validatePlan's.
//
//===----------------------------------------------------------------------===//

#include "planner/Plan.h"
#include "support/BoundedJSON.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

namespace hetc::planner {

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

namespace {

llvm::Error fieldError(const llvm::Twine &path, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 path + ": " + message);
}

std::string showValue(const llvm::json::Value &value) {
  return llvm::formatv("{0}", value).str();
}

/// Rejects keys outside `known`: a misspelled optional key would otherwise be
/// silently ignored and its default used.
llvm::Error checkKeys(const llvm::json::Object &object, llvm::StringRef path,
                      llvm::ArrayRef<llvm::StringRef> known) {
  std::vector<std::string> unknown;
  for (const auto &entry : object)
    if (!llvm::is_contained(known, llvm::StringRef(entry.first)))
      unknown.push_back(entry.first.str());
  if (unknown.empty())
    return llvm::Error::success();
  // The object's own order is a hash order; sort for a stable message.
  llvm::sort(unknown);
  std::string knownList;
  for (llvm::StringRef key : known)
    knownList += (knownList.empty() ? "\"" : ", \"") + key.str() + "\"";
  return fieldError(path, "unknown key \"" + unknown.front() +
                              "\" (the keys here are " + knownList + ")");
}

llvm::Expected<const llvm::json::Value &>
requireKey(const llvm::json::Object &object, llvm::StringRef path,
           llvm::StringRef key) {
  if (const llvm::json::Value *value = object.get(key))
    return *value;
  return fieldError(path, "missing \"" + key + "\"");
}

/// A half-open range [begin, end) written as a two-element array.
llvm::Expected<std::pair<int64_t, int64_t>>
parseRange(const llvm::json::Value &value, const llvm::Twine &path) {
  const llvm::json::Array *array = value.getAsArray();
  if (array && array->size() == 2) {
    std::optional<int64_t> begin = (*array)[0].getAsInteger();
    std::optional<int64_t> end = (*array)[1].getAsInteger();
    if (begin && end && *begin >= 0 && *begin < *end)
      return std::make_pair(*begin, *end);
  }
  return fieldError(path, "expected [begin, end) with 0 <= begin < end, got " +
                              showValue(value));
}

llvm::Expected<Replica> parseReplica(const llvm::json::Value &value,
                                     const std::string &path) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return fieldError(path, "expected an object with \"device\" and "
                            "\"samples\", got " +
                                showValue(value));
  if (llvm::Error error = checkKeys(
          *object, path, {"device", "samples", "micro_batch", "shard"}))
    return std::move(error);

  Replica replica;
  auto device = requireKey(*object, path, "device");
  if (!device)
    return device.takeError();
  std::optional<llvm::StringRef> name = device->getAsString();
  if (!name || name->empty())
    return fieldError(path + ".device",
                      "expected a non-empty string, got " + showValue(*device));
  replica.device = name->str();

  auto samples = requireKey(*object, path, "samples");
  if (!samples)
    return samples.takeError();
  auto range = parseRange(*samples, path + ".samples");
  if (!range)
    return range.takeError();
  replica.firstSample = range->first;
  replica.numSamples = range->second - range->first;

  replica.microBatch = replica.numSamples;
  if (const llvm::json::Value *microBatch = object->get("micro_batch")) {
    std::optional<int64_t> size = microBatch->getAsInteger();
    if (!size || *size < 1)
      return fieldError(path + ".micro_batch",
                        "expected a positive integer, got " +
                            showValue(*microBatch));
    replica.microBatch = *size;
  }

  // A replica without "shard" is marked with NaN until its stage is complete.
  replica.shard = std::nan("");
  if (const llvm::json::Value *shard = object->get("shard")) {
    std::optional<double> fraction = shard->getAsNumber();
    if (!fraction)
      return fieldError(path + ".shard", "expected a number in [0, 1], got " +
                                             showValue(*shard));
    replica.shard = *fraction;
  }
  return replica;
}

/// Fills in proportional shard fractions when no replica of the stage states
/// one; a stage where only some do is ambiguous.
llvm::Error defaultShards(Stage &stage, const std::string &path) {
  auto stated = [](const Replica &replica) {
    return !std::isnan(replica.shard);
  };
  if (llvm::all_of(stage.replicas, stated))
    return llvm::Error::success();
  auto withShard = llvm::find_if(stage.replicas, stated);
  if (withShard != stage.replicas.end()) {
    auto without = llvm::find_if_not(stage.replicas, stated);
    return fieldError(
        path + ".replicas[" + llvm::Twine(without - stage.replicas.begin()) +
            "]",
        "no \"shard\", but replica " +
            llvm::Twine(withShard - stage.replicas.begin()) +
            " of this stage has one: give every replica of a stage a "
            "\"shard\", or none (fractions proportional to samples)");
  }
  int64_t stageSamples = 0;
  for (const Replica &replica : stage.replicas)
    stageSamples += replica.numSamples;
  for (Replica &replica : stage.replicas)
    replica.shard = static_cast<double>(replica.numSamples) / stageSamples;
  return llvm::Error::success();
}

llvm::Expected<Stage> parseStage(const llvm::json::Value &value,
                                 const std::string &path) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return fieldError(path, "expected an object with \"segments\" and "
                            "\"replicas\", got " +
                                showValue(value));
  if (llvm::Error error = checkKeys(*object, path,
                                    {"segments", "replicas", "recompute",
                                     "offload_optimizer", "precision"}))
    return std::move(error);

  Stage stage;
  if (const llvm::json::Value *precision = object->get("precision")) {
    std::optional<llvm::StringRef> name = precision->getAsString();
    std::optional<Precision> parsed =
        name ? parsePrecision(*name) : std::nullopt;
    if (!parsed)
      return fieldError(path + ".precision", "expected \"f32\", \"bf16\" or "
                                             "\"f16\", got " +
                                                 showValue(*precision));
    stage.precision = parsed;
  }
  if (const llvm::json::Value *recompute = object->get("recompute")) {
    std::optional<bool> flag = recompute->getAsBoolean();
    if (!flag)
      return fieldError(path + ".recompute",
                        "expected true or false, got " + showValue(*recompute));
    stage.recompute = *flag;
  }
  if (const llvm::json::Value *offload = object->get("offload_optimizer")) {
    std::optional<bool> flag = offload->getAsBoolean();
    if (!flag)
      return fieldError(path + ".offload_optimizer",
                        "expected true or false, got " + showValue(*offload));
    stage.offloadOptimizer = *flag;
  }
  auto segments = requireKey(*object, path, "segments");
  if (!segments)
    return segments.takeError();
  auto range = parseRange(*segments, path + ".segments");
  if (!range)
    return range.takeError();
  stage.firstSegment = range->first;
  stage.endSegment = range->second;

  auto replicas = requireKey(*object, path, "replicas");
  if (!replicas)
    return replicas.takeError();
  const llvm::json::Array *list = replicas->getAsArray();
  if (!list)
    return fieldError(path + ".replicas", "expected an array of replicas");
  for (const auto &[index, entry] : llvm::enumerate(*list)) {
    auto replica =
        parseReplica(entry, path + ".replicas[" + std::to_string(index) + "]");
    if (!replica)
      return replica.takeError();
    stage.replicas.push_back(std::move(*replica));
  }
  if (llvm::Error error = defaultShards(stage, path))
    return std::move(error);
  return stage;
}

template <typename Kind>
llvm::Error parseKeyword(const llvm::json::Object &object, llvm::StringRef key,
                         llvm::ArrayRef<std::pair<llvm::StringRef, Kind>> names,
                         Kind &kind) {
  const llvm::json::Value *value = object.get(key);
  if (!value)
    return llvm::Error::success();
  if (std::optional<llvm::StringRef> name = value->getAsString())
    for (const auto &[spelling, meaning] : names)
      if (*name == spelling) {
        kind = meaning;
        return llvm::Error::success();
      }
  return fieldError(key, "expected \"" + names[0].first + "\" or \"" +
                             names[1].first + "\", got " + showValue(*value));
}

constexpr std::pair<llvm::StringRef, ScheduleKind> scheduleNames[] = {
    {"1f1b", ScheduleKind::OneForwardOneBackward},
    {"gpipe", ScheduleKind::GPipe}};
constexpr std::pair<llvm::StringRef, ShardingKind> shardingNames[] = {
    {"optimizer", ShardingKind::Optimizer}, {"full", ShardingKind::Full}};

} // namespace

llvm::Expected<Plan> parsePlan(llvm::StringRef json) {
  llvm::Expected<llvm::json::Value> root = parseBoundedJSON(json);
  if (!root)
    return fieldError("plan",
                      "invalid JSON: " + llvm::toString(root.takeError()));
  const llvm::json::Object *object = root->getAsObject();
  if (!object)
    return fieldError("plan",
                      "expected a JSON object, got " + showValue(*root));
  if (llvm::Error error = checkKeys(
          *object, "plan", {"global_batch", "schedule", "sharding", "stages"}))
    return std::move(error);

  Plan plan;
  if (const llvm::json::Value *batch = object->get("global_batch")) {
    std::optional<int64_t> samples = batch->getAsInteger();
    if (!samples || *samples < 0)
      return fieldError("global_batch",
                        "expected a non-negative integer (0 = unstated), got " +
                            showValue(*batch));
    plan.globalBatch = *samples;
  }
  if (llvm::Error error = parseKeyword<ScheduleKind>(
          *object, "schedule", scheduleNames, plan.schedule))
    return std::move(error);
  if (llvm::Error error = parseKeyword<ShardingKind>(
          *object, "sharding", shardingNames, plan.sharding))
    return std::move(error);

  const llvm::json::Value *stages = object->get("stages");
  if (!stages)
    return fieldError("plan", "missing \"stages\"");
  const llvm::json::Array *list = stages->getAsArray();
  if (!list)
    return fieldError("stages", "expected an array of stages");
  for (const auto &[index, entry] : llvm::enumerate(*list)) {
    auto stage = parseStage(entry, "stages[" + std::to_string(index) + "]");
    if (!stage)
      return stage.takeError();
    plan.stages.push_back(std::move(*stage));
  }
  return plan;
}

llvm::Expected<Plan> readPlanFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read plan file '" + path +
                                       "': " + buffer.getError().message());
  llvm::Expected<Plan> plan = parsePlan((*buffer)->getBuffer());
  if (!plan)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": " +
                                       llvm::toString(plan.takeError()));
  return plan;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

namespace {

/// The shortest decimal that reads back as the same double, so that 0.7
/// prints as 0.7 and still round-trips exactly.
std::string shortestDecimal(double value) {
  char text[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value)
      break;
  }
  return text;
}

template <typename Kind>
llvm::StringRef
spellingOf(llvm::ArrayRef<std::pair<llvm::StringRef, Kind>> names, Kind kind) {
  return llvm::find_if(names,
                       [&](const auto &name) { return name.second == kind; })
      ->first;
}

} // namespace

std::string printPlan(const Plan &plan) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "{\n";
  if (plan.globalBatch != 0)
    os << "  \"global_batch\": " << plan.globalBatch << ",\n";
  os << "  \"schedule\": \""
     << spellingOf<ScheduleKind>(scheduleNames, plan.schedule) << "\",\n";
  os << "  \"sharding\": \""
     << spellingOf<ShardingKind>(shardingNames, plan.sharding) << "\",\n";
  os << "  \"stages\": [";
  for (const auto &[s, stage] : llvm::enumerate(plan.stages)) {
    os << (s == 0 ? "\n" : ",\n");
    os << "    {\"segments\": [" << stage.firstSegment << ", "
       << stage.endSegment << "],";
    if (stage.recompute)
      os << " \"recompute\": true,";
    if (stage.offloadOptimizer)
      os << " \"offload_optimizer\": true,";
    if (stage.precision)
      os << " \"precision\": \"" << precisionName(*stage.precision) << "\",";
    os << "\n";
    os << "     \"replicas\": [";
    for (const auto &[r, replica] : llvm::enumerate(stage.replicas)) {
      os << (r == 0 ? "\n" : ",\n");
      os << "       {\"device\": " << llvm::json::Value(replica.device)
         << ", \"samples\": [" << replica.firstSample << ", "
         << replica.firstSample + replica.numSamples
         << "], \"micro_batch\": " << replica.microBatch
         << ", \"shard\": " << shortestDecimal(replica.shard) << "}";
    }
    os << "]}";
  }
  os << (plan.stages.empty() ? "]\n" : "\n  ]\n");
  os << "}\n";
  return text;
}

} // namespace hetc::planner
