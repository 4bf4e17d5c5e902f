//===- YamlValue.h - YAML read whole, for strict readers --------*- C++ -*-===//
//
// A YAML document read into plain values that remember where they are:
// FILE:LINE:COL and a field path such as `nodes[1].gpus[0].type`. The
// accessors do the checks every strict schema reader needs (known keys,
// required fields, numbers written as numbers) and fail with messages of
// the form "FILE:LINE:COL: PATH: problem; what to write instead".
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PLANNER_YAMLVALUE_H
#define HETC_PLANNER_YAMLVALUE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hetc::planner {

/// Where a value is, for messages.
struct YamlPlace {
  std::string location; // "FILE:LINE:COL", or "FILE" where unknown
  std::string path;     // "nodes[1].gpus[0].type"; empty for the document

  YamlPlace child(llvm::StringRef key) const;
};

/// "LOCATION: PATH: message".
llvm::Error errorAt(const YamlPlace &place, const llvm::Twine &message);

struct YamlField;

struct YamlValue {
  enum class Kind { Empty, Scalar, Mapping, List };
  Kind kind = Kind::Empty;
  YamlPlace place;
  std::string text;              // a scalar's value
  bool quoted = false;           // a scalar in quotes, or a block of text
  std::vector<YamlField> fields; // a mapping's, in file order
  std::vector<YamlValue> items;  // a list's

  /// "nothing", "a single value", "a mapping" or "a list".
  llvm::StringRef describe() const;
  /// Fails unless this is a mapping whose keys are all in `known`; an
  /// unknown key's message lists them and suggests the nearest.
  llvm::Error checkMapping(llvm::ArrayRef<llvm::StringRef> known) const;
  /// The mapping's field `key`; nullptr when absent.
  const YamlValue *field(llvm::StringRef key) const;
  /// The mapping's field `key`, or "PATH.key: missing; `hint`".
  llvm::Expected<const YamlValue &> requireField(llvm::StringRef key,
                                                 llvm::StringRef hint) const;
  /// A non-empty scalar.
  llvm::Expected<std::string> getString() const;
  /// An unquoted finite number > 0, or >= 0 with `allowZero`.
  llvm::Expected<double> getNumber(bool allowZero) const;
  /// An unquoted decimal integer in [min, max].
  llvm::Expected<int64_t> getInteger(int64_t min, int64_t max) const;
};

struct YamlField {
  std::string key;
  YamlPlace keyPlace;
  YamlValue value;
};

/// Reads `text`, which must hold exactly one non-empty YAML document.
/// Syntax errors carry their position; keys must be plain scalars given at
/// most once per mapping; anchors and aliases are rejected.
llvm::Expected<YamlValue> parseYaml(llvm::StringRef text,
                                    llvm::StringRef fileName);

} // namespace hetc::planner

#endif // HETC_PLANNER_YAMLVALUE_H
