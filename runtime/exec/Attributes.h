//===- Attributes.h - reading an instruction's attributes -------*- C++ -*-===//
//
// Launches carry their hetg op's attributes under the op's names
// (docs/package-format.md): integers as `i`, floats as `f`, unit and bool
// attributes as `b` (an absent unit attribute is false), enum cases and
// dtype names as `s`, integer arrays as `ints`. Each reader reports a
// missing or wrongly typed attribute by name.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_ATTRIBUTES_H
#define HETC_RUNTIME_EXEC_ATTRIBUTES_H

#include "runtime/base/Status.h"
#include "runtime/package/hetpkg.pb.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hetc::runtime::exec {

/// The kinds an attribute value can have (the Attribute oneof).
enum class AttrKind { kInt, kFloat, kBool, kString, kInts };
const char *attrKindName(AttrKind kind); // "an integer (i)", ...

/// Whether `inst` has attribute `name` at all.
bool hasAttr(const hetc::pkg::Instruction &inst, const std::string &name);

/// Checks that attribute `name` is present (unless `optional`) and, when
/// present, of `kind`.
Status checkAttr(const hetc::pkg::Instruction &inst, const std::string &name,
                 AttrKind kind, bool optional);

Status intAttr(const hetc::pkg::Instruction &inst, const std::string &name,
               int64_t *value);
Status optionalIntAttr(const hetc::pkg::Instruction &inst,
                       const std::string &name, std::optional<int64_t> *value);
Status floatAttr(const hetc::pkg::Instruction &inst, const std::string &name,
                 double *value);
/// A unit or bool attribute: absent is false.
Status boolAttr(const hetc::pkg::Instruction &inst, const std::string &name,
                bool *value);
Status stringAttr(const hetc::pkg::Instruction &inst, const std::string &name,
                  std::string *value);
Status intsAttr(const hetc::pkg::Instruction &inst, const std::string &name,
                std::vector<int64_t> *value);

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_ATTRIBUTES_H
