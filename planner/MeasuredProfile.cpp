//===- MeasuredProfile.cpp ------------------------------------------------===//

#include "planner/MeasuredProfile.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>

namespace hetc::planner {

namespace {

constexpr llvm::StringLiteral kFormat = "hetc-measured-profile";
constexpr int64_t kVersion = 1;

llvm::StringRef passName(Pass pass) {
  return pass == Pass::Forward ? "forward" : "backward";
}

std::optional<Pass> parsePass(llvm::StringRef name) {
  if (name == "forward")
    return Pass::Forward;
  if (name == "backward")
    return Pass::Backward;
  return std::nullopt;
}

} // namespace

void MeasuredProfile::add(const MeasuredCall &call) {
  Sum &sum = calls_[{call.deviceType, call.precision, call.pass,
                     call.segment}][call.microBatch];
  sum.seconds += call.seconds;
  ++sum.count;
}

void MeasuredProfile::addKernel(const MeasuredKernel &kernel) {
  MeasuredKernel &sum = kernels_[{kernel.deviceType, kernel.precision,
                                  kernel.kernel}][kernel.microBatch];
  if (sum.kernel.empty()) {
    sum = kernel;
    return;
  }
  sum.launches += kernel.launches;
  sum.flops += kernel.flops;
  sum.bytes += kernel.bytes;
  sum.seconds += kernel.seconds;
}

llvm::Error MeasuredProfile::merge(const MeasuredProfile &other) {
  if (other.seqLen_ != seqLen_ || other.numSegments_ != numSegments_)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "measured '%s' at seq %lld with %lld segments, but '%s' at seq %lld "
        "with %lld segments",
        other.model_.c_str(), static_cast<long long>(other.seqLen_),
        static_cast<long long>(other.numSegments_), model_.c_str(),
        static_cast<long long>(seqLen_),
        static_cast<long long>(numSegments_));
  for (const auto &[key, sizes] : other.calls_)
    for (const auto &[size, sum] : sizes) {
      Sum &into = calls_[key][size];
      into.seconds += sum.seconds;
      into.count += sum.count;
    }
  for (const MeasuredKernel &kernel : other.kernels())
    addKernel(kernel);
  return llvm::Error::success();
}

std::optional<double> MeasuredProfile::seconds(llvm::StringRef deviceType,
                                               Precision precision, Pass pass,
                                               int64_t segment,
                                               int64_t samples) const {
  auto found = calls_.find({deviceType.str(), precision, pass, segment});
  if (found == calls_.end() || found->second.empty() || samples <= 0)
    return std::nullopt;
  std::vector<std::pair<double, double>> points; // (size, seconds), sorted
  for (const auto &[size, sum] : found->second)
    points.emplace_back(static_cast<double>(size),
                        sum.seconds / static_cast<double>(sum.count));
  double x = static_cast<double>(samples);
  auto line = [&](size_t i, size_t j) {
    auto [x0, y0] = points[i];
    auto [x1, y1] = points[j];
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
  };
  if (x >= points.back().first)
    return points.back().second * x / points.back().first;
  if (x <= points.front().first) {
    double proportional = points.front().second * x / points.front().first;
    if (points.size() == 1)
      return proportional;
    return std::max(line(0, 1), proportional);
  }
  size_t upper = std::upper_bound(points.begin(), points.end(), x,
                                  [](double value, const auto &point) {
                                    return value < point.first;
                                  }) -
                 points.begin();
  return line(upper - 1, upper);
}

std::vector<MeasuredCall> MeasuredProfile::calls() const {
  std::vector<MeasuredCall> all;
  for (const auto &[key, sizes] : calls_) {
    const auto &[type, precision, pass, segment] = key;
    for (const auto &[size, sum] : sizes)
      all.push_back({type, precision, pass, segment, size,
                     sum.seconds / static_cast<double>(sum.count)});
  }
  return all;
}

std::optional<MeasuredKernel>
MeasuredProfile::kernel(llvm::StringRef deviceType, Precision precision,
                        llvm::StringRef kernel) const {
  auto found = kernels_.find({deviceType.str(), precision, kernel.str()});
  if (found == kernels_.end())
    return std::nullopt;
  MeasuredKernel sum = found->second.begin()->second;
  sum.microBatch = 0;
  for (const auto &[size, sizeSum] : llvm::drop_begin(found->second)) {
    sum.launches += sizeSum.launches;
    sum.flops += sizeSum.flops;
    sum.bytes += sizeSum.bytes;
    sum.seconds += sizeSum.seconds;
  }
  return sum;
}

std::optional<double>
MeasuredProfile::kernelSecondsPer(llvm::StringRef deviceType,
                                  Precision precision, llvm::StringRef kernel,
                                  int64_t samples, bool perFlop) const {
  auto found = kernels_.find({deviceType.str(), precision, kernel.str()});
  if (found == kernels_.end())
    return std::nullopt;
  std::vector<std::pair<double, double>> rates; // (size, seconds per unit)
  for (const auto &[size, sum] : found->second)
    if (double work = perFlop ? sum.flops : sum.bytes; work > 0)
      rates.emplace_back(static_cast<double>(size), sum.seconds / work);
  if (rates.empty())
    return std::nullopt;
  double x = static_cast<double>(samples);
  if (x <= rates.front().first)
    return rates.front().second;
  if (x >= rates.back().first)
    return rates.back().second;
  auto upper = llvm::upper_bound(rates, x, [](double value, const auto &rate) {
    return value < rate.first;
  });
  auto [x0, y0] = *std::prev(upper);
  auto [x1, y1] = *upper;
  return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
}

bool MeasuredProfile::hasKernels(llvm::StringRef deviceType,
                                 Precision precision) const {
  auto first = kernels_.lower_bound({deviceType.str(), precision, ""});
  return first != kernels_.end() && std::get<0>(first->first) == deviceType &&
         std::get<1>(first->first) == precision;
}

std::vector<MeasuredKernel> MeasuredProfile::kernels() const {
  std::vector<MeasuredKernel> all;
  for (const auto &[key, sizes] : kernels_)
    for (const auto &[size, kernel] : sizes)
      all.push_back(kernel);
  return all;
}

std::string MeasuredProfile::toJSON() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "{\n  \"format\": \"" << kFormat << "\",\n  \"version\": " << kVersion
     << ",\n  \"model\": " << llvm::json::Value(model_)
     << ",\n  \"seq_len\": " << seqLen_ << ",\n  \"segments\": " << numSegments_
     << ",\n  \"calls\": [";
  const char *separator = "\n";
  for (const auto &[key, sizes] : calls_) {
    const auto &[type, precision, pass, segment] = key;
    for (const auto &[size, sum] : sizes) {
      os << separator
         << llvm::formatv("    {{\"device_type\": {0}, \"precision\": \"{1}\", "
                          "\"pass\": \"{2}\", \"segment\": {3}, "
                          "\"micro_batch\": {4}, \"seconds\": {5:e6}, "
                          "\"count\": {6}}",
                          llvm::json::Value(type), precisionName(precision),
                          passName(pass), segment, size,
                          sum.seconds / static_cast<double>(sum.count),
                          sum.count);
      separator = ",\n";
    }
  }
  os << "\n  ],\n  \"kernels\": [";
  separator = "\n";
  for (const MeasuredKernel &kernel : kernels()) {
    os << separator
       << llvm::formatv("    {{\"device_type\": {0}, \"precision\": \"{1}\", "
                        "\"kernel\": {2}, \"micro_batch\": {3}, "
                        "\"launches\": {4}, \"flops\": {5:e6}, "
                        "\"bytes\": {6:e6}, \"seconds\": {7:e6}}",
                        llvm::json::Value(kernel.deviceType),
                        precisionName(kernel.precision),
                        llvm::json::Value(kernel.kernel), kernel.microBatch,
                        kernel.launches, kernel.flops, kernel.bytes,
                        kernel.seconds);
    separator = ",\n";
  }
  os << "\n  ]\n}\n";
  return text;
}

llvm::Expected<MeasuredProfile> parseMeasuredProfile(llvm::StringRef json,
                                                     llvm::StringRef fileName) {
  auto fail = [&](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   fileName + ": " + message);
  };
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(json);
  if (!value)
    return fail("not JSON: " + llvm::toString(value.takeError()));
  const llvm::json::Object *root = value->getAsObject();
  if (!root)
    return fail("expected an object (the output of hetc measure)");
  if (root->getString("format") != kFormat)
    return fail("\"format\" must be \"" + kFormat +
                "\": write it with hetc measure");
  if (root->getInteger("version") != kVersion)
    return fail("\"version\" must be " + llvm::Twine(kVersion));
  std::optional<llvm::StringRef> model = root->getString("model");
  std::optional<int64_t> seqLen = root->getInteger("seq_len");
  std::optional<int64_t> segments = root->getInteger("segments");
  if (!model || !seqLen || *seqLen <= 0 || !segments || *segments <= 0)
    return fail("needs \"model\" (a string), \"seq_len\" and \"segments\" "
                "(positive integers)");
  const llvm::json::Array *calls = root->getArray("calls");
  if (!calls)
    return fail("needs \"calls\" (an array)");
  MeasuredProfile profile(model->str(), *seqLen, *segments);
  for (auto [index, entry] : llvm::enumerate(*calls)) {
    std::string where = llvm::formatv("calls[{0}]", index).str();
    const llvm::json::Object *call = entry.getAsObject();
    if (!call)
      return fail(where + ": expected an object");
    std::optional<llvm::StringRef> type = call->getString("device_type");
    std::optional<llvm::StringRef> precisionText = call->getString("precision");
    std::optional<llvm::StringRef> passText = call->getString("pass");
    std::optional<int64_t> segment = call->getInteger("segment");
    std::optional<int64_t> microBatch = call->getInteger("micro_batch");
    std::optional<double> seconds = call->getNumber("seconds");
    int64_t count = call->getInteger("count").value_or(1);
    if (!type || type->empty())
      return fail(where + ": needs \"device_type\" (a GPU type of the "
                          "cluster file)");
    std::optional<Precision> precision =
        precisionText ? parsePrecision(*precisionText) : std::nullopt;
    if (!precision)
      return fail(where + ": \"precision\" must be f32, bf16 or f16");
    std::optional<Pass> pass = passText ? parsePass(*passText) : std::nullopt;
    if (!pass)
      return fail(where + ": \"pass\" must be forward or backward");
    if (!segment || *segment < 0 || *segment >= *segments)
      return fail(where + ": \"segment\" must be an integer in [0, " +
                  llvm::Twine(*segments) + ")");
    if (!microBatch || *microBatch <= 0 || !seconds || *seconds < 0 ||
        count <= 0)
      return fail(where + ": \"micro_batch\" and \"count\" must be positive "
                          "integers and \"seconds\" a number >= 0");
    for (int64_t i = 0; i < count; ++i)
      profile.add({type->str(), *precision, *pass, *segment, *microBatch,
                   *seconds});
  }
  // Kernel kinds are newer than the calls: a file without them has none.
  const llvm::json::Array *kernels = root->getArray("kernels");
  for (auto [index, entry] :
       llvm::enumerate(kernels ? *kernels : llvm::json::Array())) {
    std::string where = llvm::formatv("kernels[{0}]", index).str();
    const llvm::json::Object *kernel = entry.getAsObject();
    if (!kernel)
      return fail(where + ": expected an object");
    std::optional<llvm::StringRef> type = kernel->getString("device_type");
    std::optional<llvm::StringRef> precisionText =
        kernel->getString("precision");
    std::optional<llvm::StringRef> name = kernel->getString("kernel");
    std::optional<int64_t> launches = kernel->getInteger("launches");
    std::optional<double> flops = kernel->getNumber("flops");
    std::optional<double> bytes = kernel->getNumber("bytes");
    std::optional<double> seconds = kernel->getNumber("seconds");
    // Sizes are newer than the kernels: 0 where the file has none.
    std::optional<int64_t> microBatch = kernel->get("micro_batch")
                                            ? kernel->getInteger("micro_batch")
                                            : std::optional<int64_t>(0);
    std::optional<Precision> precision =
        precisionText ? parsePrecision(*precisionText) : std::nullopt;
    if (!type || type->empty() || !name || name->empty() || !precision)
      return fail(where + ": needs \"device_type\", \"kernel\" and "
                          "\"precision\" (f32, bf16 or f16)");
    if (!launches || *launches <= 0 || !flops || *flops < 0 || !bytes ||
        *bytes < 0 || !seconds || *seconds <= 0)
      return fail(where + ": \"launches\" must be a positive integer, "
                          "\"flops\" and \"bytes\" numbers >= 0 and "
                          "\"seconds\" a number > 0");
    if (!microBatch || *microBatch < 0)
      return fail(where + ": \"micro_batch\" must be an integer >= 0");
    profile.addKernel({type->str(), *precision, name->str(), *launches, *flops,
                       *bytes, *seconds, *microBatch});
  }
  return profile;
}

llvm::Expected<MeasuredProfile> readMeasuredProfileFile(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "cannot read '%s': %s",
                                   path.str().c_str(),
                                   buffer.getError().message().c_str());
  return parseMeasuredProfile((*buffer)->getBuffer(), path);
}

} // namespace hetc::planner
