//===- BoundedJSON.h - llvm::json::parse with a nesting limit ---*- C++ -*-===//
//
// llvm::json::parse recurses once per nesting level, so a hostile file of
// a few hundred thousand brackets overflows the stack. Every JSON document
// hetc reads (plans, profiles, the buffer list of an export) nests a few
// levels deep; parseBoundedJSON refuses deeper ones before parsing.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_SUPPORT_BOUNDEDJSON_H
#define HETC_SUPPORT_BOUNDEDJSON_H

#include "llvm/Support/JSON.h"

namespace hetc {

/// Nesting deeper than any document hetc writes or reads, far below what
/// exhausts a stack.
constexpr unsigned kMaxJSONDepth = 256;

/// llvm::json::parse, or an error when arrays and objects nest deeper than
/// `maxDepth` (brackets inside strings do not count).
inline llvm::Expected<llvm::json::Value>
parseBoundedJSON(llvm::StringRef text, unsigned maxDepth = kMaxJSONDepth) {
  unsigned depth = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth)
        return llvm::createStringError(
            "JSON nested deeper than " + llvm::Twine(maxDepth) + " levels");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return llvm::json::parse(text);
}

} // namespace hetc

#endif // HETC_SUPPORT_BOUNDEDJSON_H
