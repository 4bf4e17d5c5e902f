//===- Attributes.cpp -----------------------------------------------------===//

#include "runtime/exec/Attributes.h"

namespace hetc::runtime::exec {
namespace {

using hetc::pkg::Attribute;

bool kindMatches(const Attribute &attr, AttrKind kind) {
  switch (kind) {
  case AttrKind::kInt:
    return attr.value_case() == Attribute::kI;
  case AttrKind::kFloat:
    return attr.value_case() == Attribute::kF;
  case AttrKind::kBool:
    return attr.value_case() == Attribute::kB;
  case AttrKind::kString:
    return attr.value_case() == Attribute::kS;
  case AttrKind::kInts:
    return attr.value_case() == Attribute::kInts;
  }
  return false;
}

const char *valueCaseName(const Attribute &attr) {
  switch (attr.value_case()) {
  case Attribute::kI:
    return "an integer (i)";
  case Attribute::kF:
    return "a float (f)";
  case Attribute::kB:
    return "a bool (b)";
  case Attribute::kS:
    return "a string (s)";
  case Attribute::kInts:
    return "an integer list (ints)";
  case Attribute::kFloats:
    return "a float list (floats)";
  default:
    return "empty";
  }
}

// The attribute, checked to be of `kind`; null (with OK) when absent and
// `optional`.
Status lookup(const hetc::pkg::Instruction &inst, const std::string &name,
              AttrKind kind, bool optional, const Attribute **out) {
  *out = nullptr;
  auto it = inst.attributes().find(name);
  if (it == inst.attributes().end()) {
    if (optional)
      return okStatus();
    return invalidArgument("attribute '", name, "' is missing");
  }
  if (!kindMatches(it->second, kind))
    return invalidArgument("attribute '", name, "' must be ",
                           attrKindName(kind), ", got ",
                           valueCaseName(it->second));
  *out = &it->second;
  return okStatus();
}

} // namespace

const char *attrKindName(AttrKind kind) {
  switch (kind) {
  case AttrKind::kInt:
    return "an integer (i)";
  case AttrKind::kFloat:
    return "a float (f)";
  case AttrKind::kBool:
    return "a bool (b)";
  case AttrKind::kString:
    return "a string (s)";
  case AttrKind::kInts:
    return "an integer list (ints)";
  }
  return "?";
}

bool hasAttr(const hetc::pkg::Instruction &inst, const std::string &name) {
  return inst.attributes().count(name) != 0;
}

Status checkAttr(const hetc::pkg::Instruction &inst, const std::string &name,
                 AttrKind kind, bool optional) {
  const Attribute *attr;
  return lookup(inst, name, kind, optional, &attr);
}

Status intAttr(const hetc::pkg::Instruction &inst, const std::string &name,
               int64_t *value) {
  const Attribute *attr;
  HETC_RETURN_IF_ERROR(lookup(inst, name, AttrKind::kInt, false, &attr));
  *value = attr->i();
  return okStatus();
}

Status optionalIntAttr(const hetc::pkg::Instruction &inst,
                       const std::string &name,
                       std::optional<int64_t> *value) {
  const Attribute *attr;
  HETC_RETURN_IF_ERROR(lookup(inst, name, AttrKind::kInt, true, &attr));
  *value = attr ? std::optional<int64_t>(attr->i()) : std::nullopt;
  return okStatus();
}

Status floatAttr(const hetc::pkg::Instruction &inst, const std::string &name,
                 double *value) {
  const Attribute *attr;
  HETC_RETURN_IF_ERROR(lookup(inst, name, AttrKind::kFloat, false, &attr));
  *value = attr->f();
  return okStatus();
}

Status boolAttr(const hetc::pkg::Instruction &inst, const std::string &name,
                bool *value) {
  const Attribute *attr;
  HETC_RETURN_IF_ERROR(lookup(inst, name, AttrKind::kBool, true, &attr));
  *value = attr && attr->b();
  return okStatus();
}

Status stringAttr(const hetc::pkg::Instruction &inst, const std::string &name,
                  std::string *value) {
  const Attribute *attr;
  HETC_RETURN_IF_ERROR(lookup(inst, name, AttrKind::kString, false, &attr));
  *value = attr->s();
  return okStatus();
}

Status intsAttr(const hetc::pkg::Instruction &inst, const std::string &name,
                std::vector<int64_t> *value) {
  const Attribute *attr;
  HETC_RETURN_IF_ERROR(lookup(inst, name, AttrKind::kInts, false, &attr));
  value->assign(attr->ints().values().begin(), attr->ints().values().end());
  return okStatus();
}

} // namespace hetc::runtime::exec
