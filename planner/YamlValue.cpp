//===- YamlValue.cpp - YAML read whole, for strict readers ----------------===//
//
// YAMLParser's nodes can be walked only once and in order, and a schema
// reader looks fields up by name, so documents are first copied into
// YamlValues.
//
//===----------------------------------------------------------------------===//

#include "planner/YamlValue.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MemoryBufferRef.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

#include <cmath>
#include <optional>

namespace hetc::planner {

YamlPlace YamlPlace::child(llvm::StringRef key) const {
  return {location, path.empty() ? key.str() : path + "." + key.str()};
}

llvm::Error errorAt(const YamlPlace &place, const llvm::Twine &message) {
  std::string prefix = place.location;
  if (!place.path.empty())
    prefix += ": " + place.path;
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 prefix + ": " + message);
}

llvm::StringRef YamlValue::describe() const {
  switch (kind) {
  case Kind::Empty:
    return "nothing";
  case Kind::Scalar:
    return "a single value";
  case Kind::Mapping:
    return "a mapping";
  case Kind::List:
    return "a list";
  }
  llvm_unreachable("unknown YamlValue kind");
}

namespace {

/// The key `key` was probably meant to be: at most two edits away.
std::optional<llvm::StringRef> nearest(llvm::StringRef key,
                                       llvm::ArrayRef<llvm::StringRef> known) {
  std::optional<llvm::StringRef> best;
  unsigned bestDistance = 3;
  for (llvm::StringRef candidate : known)
    if (unsigned distance = key.edit_distance(candidate);
        distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  return best;
}

} // namespace

llvm::Error
YamlValue::checkMapping(llvm::ArrayRef<llvm::StringRef> known) const {
  std::string keys = llvm::join(known, ", ");
  if (kind != Kind::Mapping)
    return errorAt(place, "expected a mapping with keys " + keys + ", got " +
                              describe());
  for (const YamlField &field : fields) {
    if (llvm::is_contained(known, field.key))
      continue;
    std::string message = "unknown key; the keys here are " + keys;
    if (std::optional<llvm::StringRef> near = nearest(field.key, known))
      message += " (did you mean \"" + near->str() + "\"?)";
    return errorAt(field.keyPlace, message);
  }
  return llvm::Error::success();
}

const YamlValue *YamlValue::field(llvm::StringRef key) const {
  auto it = llvm::find_if(
      fields, [&](const YamlField &field) { return field.key == key; });
  return it == fields.end() ? nullptr : &it->value;
}

llvm::Expected<const YamlValue &>
YamlValue::requireField(llvm::StringRef key, llvm::StringRef hint) const {
  if (const YamlValue *value = field(key))
    return *value;
  return errorAt(place.child(key), "missing; " + hint);
}

llvm::Expected<std::string> YamlValue::getString() const {
  if (kind != Kind::Scalar)
    return errorAt(place, "expected a string, got " + describe());
  if (text.empty())
    return errorAt(place, "expected a string, got an empty one");
  return text;
}

namespace {

/// The text of a number: a scalar written without quotes.
llvm::Expected<llvm::StringRef> numberText(const YamlValue &value,
                                           const llvm::Twine &expected) {
  if (value.kind != YamlValue::Kind::Scalar)
    return errorAt(value.place, expected + ", got " + value.describe());
  if (value.quoted)
    return errorAt(value.place, expected + ", got the string \"" + value.text +
                                    "\" (write numbers without quotes)");
  return llvm::StringRef(value.text);
}

} // namespace

llvm::Expected<double> YamlValue::getNumber(bool allowZero) const {
  llvm::StringRef expected =
      allowZero ? "expected a number >= 0" : "expected a number > 0";
  auto number = numberText(*this, expected);
  if (!number)
    return number.takeError();
  double result = 0;
  if (number->getAsDouble(result) || !std::isfinite(result) || result < 0 ||
      (result == 0 && !allowZero))
    return errorAt(place, expected + ", got " + *number);
  return result;
}

llvm::Expected<int64_t> YamlValue::getInteger(int64_t min, int64_t max) const {
  std::string expected = "expected an integer from " + std::to_string(min) +
                         " to " + std::to_string(max);
  auto number = numberText(*this, expected);
  if (!number)
    return number.takeError();
  int64_t result = 0;
  if (number->getAsInteger(10, result) || result < min || result > max)
    return errorAt(place, expected + ", got " + *number);
  return result;
}

namespace {

namespace yaml = llvm::yaml;

class YamlCopier {
public:
  YamlCopier(llvm::SourceMgr &sourceMgr, llvm::StringRef fileName)
      : sourceMgr(sourceMgr), fileName(fileName) {}

  llvm::Expected<YamlValue> copy(yaml::Node *node, const YamlPlace &place);
  YamlPlace placeOf(yaml::Node *node, std::string path) const;

private:
  llvm::Error copyMapping(yaml::MappingNode &mapping, YamlValue &value);

  llvm::SourceMgr &sourceMgr;
  std::string fileName;
};

YamlPlace YamlCopier::placeOf(yaml::Node *node, std::string path) const {
  std::string location = fileName;
  llvm::SMLoc loc = node ? node->getSourceRange().Start : llvm::SMLoc();
  if (loc.isValid() && sourceMgr.FindBufferContainingLoc(loc)) {
    auto [line, column] = sourceMgr.getLineAndColumn(loc);
    location += ":" + std::to_string(line) + ":" + std::to_string(column);
  }
  return {location, std::move(path)};
}

llvm::Expected<YamlValue> YamlCopier::copy(yaml::Node *node,
                                           const YamlPlace &place) {
  // No node: the parser found nothing it could read here.
  if (!node)
    return errorAt(place, "not valid YAML");
  YamlValue value;
  value.place = place;
  if (auto *scalar = llvm::dyn_cast<yaml::ScalarNode>(node)) {
    llvm::SmallString<32> storage;
    value.kind = YamlValue::Kind::Scalar;
    value.text = scalar->getValue(storage).str();
    llvm::StringRef raw = scalar->getRawValue();
    value.quoted = raw.starts_with("\"") || raw.starts_with("'");
  } else if (auto *block = llvm::dyn_cast<yaml::BlockScalarNode>(node)) {
    value.kind = YamlValue::Kind::Scalar;
    value.text = block->getValue().str();
    value.quoted = true;
  } else if (auto *list = llvm::dyn_cast<yaml::SequenceNode>(node)) {
    value.kind = YamlValue::Kind::List;
    for (yaml::Node &item : *list) {
      std::string path =
          place.path + "[" + std::to_string(value.items.size()) + "]";
      auto itemValue = copy(&item, placeOf(&item, std::move(path)));
      if (!itemValue)
        return itemValue.takeError();
      value.items.push_back(std::move(*itemValue));
    }
  } else if (auto *mapping = llvm::dyn_cast<yaml::MappingNode>(node)) {
    value.kind = YamlValue::Kind::Mapping;
    if (llvm::Error error = copyMapping(*mapping, value))
      return std::move(error);
  } else if (llvm::isa<yaml::AliasNode>(node)) {
    return errorAt(place, "anchors and aliases are not supported; write the "
                          "value out");
  }
  return value;
}

llvm::Error YamlCopier::copyMapping(yaml::MappingNode &mapping,
                                    YamlValue &value) {
  for (yaml::KeyValueNode &entry : mapping) {
    auto *keyNode = llvm::dyn_cast_or_null<yaml::ScalarNode>(entry.getKey());
    if (!keyNode)
      return errorAt(placeOf(entry.getKey(), value.place.path),
                     "keys must be plain names");
    llvm::SmallString<32> storage;
    std::string key = keyNode->getValue(storage).str();
    YamlPlace keyPlace = placeOf(keyNode, value.place.child(key).path);
    auto earlier = llvm::find_if(
        value.fields, [&](const YamlField &field) { return field.key == key; });
    if (earlier != value.fields.end())
      return errorAt(keyPlace, "given twice (first at " +
                                   earlier->keyPlace.location + "); keep one");
    // A missing value has no place of its own, and an alias's is unreliable.
    yaml::Node *valueNode = entry.getValue();
    YamlPlace valuePlace =
        llvm::isa_and_nonnull<yaml::NullNode, yaml::AliasNode>(valueNode)
            ? keyPlace
            : placeOf(valueNode, keyPlace.path);
    auto fieldValue = copy(valueNode, valuePlace);
    if (!fieldValue)
      return fieldValue.takeError();
    value.fields.push_back(
        {std::move(key), std::move(keyPlace), std::move(*fieldValue)});
  }
  return llvm::Error::success();
}

/// Keeps the first YAML syntax error, with its position.
void recordSyntaxError(const llvm::SMDiagnostic &diagnostic, void *context) {
  auto *message = static_cast<std::string *>(context);
  if (message->empty())
    *message = diagnostic.getFilename().str() + ":" +
               std::to_string(diagnostic.getLineNo()) + ":" +
               std::to_string(diagnostic.getColumnNo() + 1) +
               ": not valid YAML: " + diagnostic.getMessage().str();
}

} // namespace

llvm::Expected<YamlValue> parseYaml(llvm::StringRef text,
                                    llvm::StringRef fileName) {
  llvm::SourceMgr sourceMgr;
  std::string syntaxError;
  sourceMgr.setDiagHandler(recordSyntaxError, &syntaxError);
  llvm::MemoryBufferRef buffer(text, fileName);

  // Syntax first, over the whole stream, so that the copy below walks
  // well-formed YAML.
  yaml::Stream check(buffer, sourceMgr, /*ShowColors=*/false);
  int documents = 0;
  for (yaml::Document &document : check) {
    document.skip();
    ++documents;
  }
  if (check.failed())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        syntaxError.empty() ? fileName + ": not valid YAML" : syntaxError);
  if (documents > 1)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   fileName + ": " + std::to_string(documents) +
                                       " YAML documents; expected one");

  yaml::Stream stream(buffer, sourceMgr, /*ShowColors=*/false);
  YamlCopier copier(sourceMgr, fileName);
  yaml::document_iterator document = stream.begin();
  if (document == stream.end())
    return YamlValue{YamlValue::Kind::Empty, {fileName.str(), ""}};
  yaml::Node *root = document->getRoot();
  return copier.copy(root, copier.placeOf(root, ""));
}

} // namespace hetc::planner
