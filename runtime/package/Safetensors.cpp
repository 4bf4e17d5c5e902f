//===- Safetensors.cpp - read and write .safetensors files ----------------===//

#include "runtime/package/Safetensors.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace hetc::package {

namespace {

bool fail(std::string *error, const std::string &message) {
  if (error)
    *error = message;
  return false;
}

void appendJsonString(std::string &out, const std::string &text) {
  out += '"';
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", u);
      out += escaped;
    } else {
      out += c;
    }
  }
  out += '"';
}

// A JSON value of the subset safetensors headers use.
struct JsonValue {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
  bool boolean = false;
  std::string text;   // strings; the literal for numbers
  std::vector<JsonValue> items;
  std::vector<std::pair<std::string, JsonValue>> members;
};

class JsonParser {
public:
  explicit JsonParser(const std::string &text) : text(text) {}

  bool parse(JsonValue *value, std::string *error) {
    if (!parseValue(value, 0) || (skipSpace(), pos != text.size()))
      return fail(error, "invalid JSON header at byte " + std::to_string(pos) +
                             (message.empty() ? "" : ": " + message));
    return true;
  }

private:
  void skipSpace() {
    while (pos < text.size() &&
           (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' ||
            text[pos] == '\r'))
      ++pos;
  }
  bool expect(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    message = std::string("expected '") + c + "'";
    return false;
  }
  bool parseString(std::string *out) {
    if (!expect('"'))
      return false;
    while (pos < text.size() && text[pos] != '"') {
      char c = text[pos++];
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (pos >= text.size())
        break;
      char e = text[pos++];
      switch (e) {
      case '"': case '\\': case '/': *out += e; break;
      case 'b': *out += '\b'; break;
      case 'f': *out += '\f'; break;
      case 'n': *out += '\n'; break;
      case 'r': *out += '\r'; break;
      case 't': *out += '\t'; break;
      case 'u': {
        if (pos + 4 > text.size())
          return message = "truncated \\u escape", false;
        unsigned code = 0;
        for (int i = 0; i < 4; ++i) {
          char h = text[pos++];
          code <<= 4;
          if (h >= '0' && h <= '9') code |= h - '0';
          else if (h >= 'a' && h <= 'f') code |= h - 'a' + 10;
          else if (h >= 'A' && h <= 'F') code |= h - 'A' + 10;
          else return message = "bad \\u escape", false;
        }
        // UTF-8 encode (surrogate pairs are kept as two code points).
        if (code < 0x80) {
          *out += static_cast<char>(code);
        } else if (code < 0x800) {
          *out += static_cast<char>(0xC0 | (code >> 6));
          *out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
          *out += static_cast<char>(0xE0 | (code >> 12));
          *out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
          *out += static_cast<char>(0x80 | (code & 0x3F));
        }
        break;
      }
      default:
        return message = "bad escape", false;
      }
    }
    if (pos >= text.size())
      return message = "unterminated string", false;
    ++pos;
    return true;
  }
  bool parseValue(JsonValue *value, int depth) {
    if (depth > 16)
      return message = "nested too deeply", false;
    skipSpace();
    if (pos >= text.size())
      return message = "unexpected end", false;
    char c = text[pos];
    if (c == '{') {
      value->kind = JsonValue::kObject;
      ++pos;
      skipSpace();
      if (pos < text.size() && text[pos] == '}')
        return ++pos, true;
      do {
        std::pair<std::string, JsonValue> member;
        if (!parseString(&member.first) || !expect(':') ||
            !parseValue(&member.second, depth + 1))
          return false;
        value->members.push_back(std::move(member));
        skipSpace();
      } while (pos < text.size() && text[pos] == ',' && ++pos);
      return expect('}');
    }
    if (c == '[') {
      value->kind = JsonValue::kArray;
      ++pos;
      skipSpace();
      if (pos < text.size() && text[pos] == ']')
        return ++pos, true;
      do {
        value->items.emplace_back();
        if (!parseValue(&value->items.back(), depth + 1))
          return false;
        skipSpace();
      } while (pos < text.size() && text[pos] == ',' && ++pos);
      return expect(']');
    }
    if (c == '"') {
      value->kind = JsonValue::kString;
      return parseString(&value->text);
    }
    for (const char *word : {"true", "false", "null"}) {
      std::string w(word);
      if (text.compare(pos, w.size(), w) == 0) {
        pos += w.size();
        value->kind = w == "null" ? JsonValue::kNull : JsonValue::kBool;
        value->boolean = w == "true";
        return true;
      }
    }
    size_t start = pos;
    while (pos < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[pos])) ||
            text[pos] == '-' || text[pos] == '+' || text[pos] == '.' ||
            text[pos] == 'e' || text[pos] == 'E'))
      ++pos;
    if (start == pos)
      return message = "unexpected character", false;
    value->kind = JsonValue::kNumber;
    value->text = text.substr(start, pos - start);
    return true;
  }

  const std::string &text;
  size_t pos = 0;
  std::string message;
};

// A non-negative integer that fits in int64, from a JSON number literal.
bool toInt64(const JsonValue &value, int64_t *out) {
  if (value.kind != JsonValue::kNumber || value.text.empty() ||
      !std::all_of(value.text.begin(), value.text.end(),
                   [](char c) { return c >= '0' && c <= '9'; }) ||
      value.text.size() > 18)
    return false;
  *out = std::stoll(value.text);
  return true;
}

} // namespace

int64_t safetensorsDTypeSize(const std::string &dtype) {
  if (dtype == "F64" || dtype == "I64")
    return 8;
  if (dtype == "F32" || dtype == "I32")
    return 4;
  if (dtype == "F16" || dtype == "BF16")
    return 2;
  if (dtype == "I8" || dtype == "U8" || dtype == "BOOL")
    return 1;
  return 0;
}

bool encodeSafetensors(const std::vector<NamedTensor> &tensors,
                       const std::map<std::string, std::string> &metadata,
                       std::string *bytes, std::string *error) {
  std::string header = "{";
  bool first = true;
  if (!metadata.empty()) {
    header += "\"__metadata__\":{";
    for (auto it = metadata.begin(); it != metadata.end(); ++it) {
      if (it != metadata.begin())
        header += ',';
      appendJsonString(header, it->first);
      header += ':';
      appendJsonString(header, it->second);
    }
    header += '}';
    first = false;
  }
  std::set<std::string> names;
  int64_t offset = 0;
  for (const NamedTensor &tensor : tensors) {
    if (tensor.name.empty() || tensor.name == "__metadata__")
      return fail(error, "invalid tensor name '" + tensor.name + "'");
    if (!names.insert(tensor.name).second)
      return fail(error, "tensor '" + tensor.name + "' is given twice");
    int64_t elementSize = safetensorsDTypeSize(tensor.dtype);
    if (elementSize == 0)
      return fail(error, "tensor '" + tensor.name + "' has unknown dtype '" +
                             tensor.dtype + "'");
    int64_t numel = 1;
    for (int64_t dim : tensor.shape) {
      if (dim < 0)
        return fail(error, "tensor '" + tensor.name + "' has a negative dimension");
      numel *= dim;
    }
    if (static_cast<int64_t>(tensor.data.size()) != numel * elementSize)
      return fail(error, "tensor '" + tensor.name + "' has " +
                             std::to_string(tensor.data.size()) +
                             " bytes of data, its dtype and shape need " +
                             std::to_string(numel * elementSize));
    if (!first)
      header += ',';
    first = false;
    appendJsonString(header, tensor.name);
    header += ":{\"dtype\":\"" + tensor.dtype + "\",\"shape\":[";
    for (size_t i = 0; i < tensor.shape.size(); ++i)
      header += (i ? "," : "") + std::to_string(tensor.shape[i]);
    header += "],\"data_offsets\":[" + std::to_string(offset) + "," +
              std::to_string(offset + numel * elementSize) + "]}";
    offset += numel * elementSize;
  }
  header += '}';
  // Pad with spaces so the data starts 8-byte aligned.
  while (header.size() % 8 != 0)
    header += ' ';

  bytes->clear();
  uint64_t length = header.size();
  for (int i = 0; i < 8; ++i)
    bytes->push_back(static_cast<char>((length >> (8 * i)) & 0xFF));
  *bytes += header;
  for (const NamedTensor &tensor : tensors)
    bytes->append(reinterpret_cast<const char *>(tensor.data.data()),
                  tensor.data.size());
  return true;
}

bool decodeSafetensors(const std::string &bytes,
                       std::vector<NamedTensor> *tensors,
                       std::map<std::string, std::string> *metadata,
                       std::string *error) {
  if (bytes.size() < 8)
    return fail(error, "file of " + std::to_string(bytes.size()) +
                           " bytes is too short for a safetensors header");
  uint64_t length = 0;
  for (int i = 0; i < 8; ++i)
    length |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[i]))
              << (8 * i);
  if (length > bytes.size() - 8)
    return fail(error, "header length " + std::to_string(length) +
                           " exceeds the file (" +
                           std::to_string(bytes.size()) + " bytes)");
  std::string header = bytes.substr(8, length);
  JsonValue root;
  if (!JsonParser(header).parse(&root, error))
    return false;
  if (root.kind != JsonValue::kObject)
    return fail(error, "the header is not a JSON object");

  int64_t dataSize = static_cast<int64_t>(bytes.size() - 8 - length);
  std::vector<std::pair<int64_t, NamedTensor>> found;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  std::set<std::string> names;
  for (const auto &[name, value] : root.members) {
    if (name == "__metadata__") {
      if (value.kind != JsonValue::kObject)
        return fail(error, "__metadata__ is not an object");
      for (const auto &[key, entry] : value.members) {
        if (entry.kind != JsonValue::kString)
          return fail(error, "__metadata__ entry '" + key + "' is not a string");
        if (metadata)
          (*metadata)[key] = entry.text;
      }
      continue;
    }
    if (!names.insert(name).second)
      return fail(error, "tensor '" + name + "' appears twice");
    if (value.kind != JsonValue::kObject)
      return fail(error, "entry of tensor '" + name + "' is not an object");
    NamedTensor tensor;
    tensor.name = name;
    const JsonValue *dtype = nullptr, *shape = nullptr, *offsets = nullptr;
    for (const auto &[key, field] : value.members) {
      if (key == "dtype") dtype = &field;
      else if (key == "shape") shape = &field;
      else if (key == "data_offsets") offsets = &field;
    }
    if (!dtype || dtype->kind != JsonValue::kString ||
        safetensorsDTypeSize(dtype->text) == 0)
      return fail(error, "tensor '" + name + "' has a missing or unknown dtype");
    tensor.dtype = dtype->text;
    if (!shape || shape->kind != JsonValue::kArray)
      return fail(error, "tensor '" + name + "' has no shape");
    int64_t numel = 1;
    for (const JsonValue &dim : shape->items) {
      int64_t size;
      if (!toInt64(dim, &size))
        return fail(error, "tensor '" + name + "' has an invalid dimension");
      tensor.shape.push_back(size);
      if (size != 0 && numel > std::numeric_limits<int64_t>::max() / 16 / size)
        return fail(error, "tensor '" + name + "' is too large");
      numel *= size;
    }
    int64_t begin, end;
    if (!offsets || offsets->kind != JsonValue::kArray ||
        offsets->items.size() != 2 || !toInt64(offsets->items[0], &begin) ||
        !toInt64(offsets->items[1], &end) || begin > end)
      return fail(error, "tensor '" + name + "' has invalid data_offsets");
    if (end > dataSize)
      return fail(error, "tensor '" + name + "' needs bytes [" +
                             std::to_string(begin) + ", " +
                             std::to_string(end) + ") of data, the file has " +
                             std::to_string(dataSize));
    if (end - begin != numel * safetensorsDTypeSize(tensor.dtype))
      return fail(error, "tensor '" + name + "' has " +
                             std::to_string(end - begin) +
                             " bytes, its dtype and shape need " +
                             std::to_string(numel * safetensorsDTypeSize(tensor.dtype)));
    const char *data = bytes.data() + 8 + length + begin;
    tensor.data.assign(data, data + (end - begin));
    ranges.push_back({begin, end});
    found.push_back({begin, std::move(tensor)});
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].first < ranges[i - 1].second)
      return fail(error, "tensors overlap in the data section");
  std::stable_sort(found.begin(), found.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  tensors->clear();
  for (auto &entry : found)
    tensors->push_back(std::move(entry.second));
  return true;
}

bool writeSafetensorsFile(const std::string &path,
                          const std::vector<NamedTensor> &tensors,
                          const std::map<std::string, std::string> &metadata,
                          std::string *error) {
  std::string bytes;
  if (!encodeSafetensors(tensors, metadata, &bytes, error))
    return false;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return fail(error, "cannot open '" + path + "' for writing");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out)
    return fail(error, "cannot write '" + path + "'");
  return true;
}

bool readSafetensorsFile(const std::string &path,
                         std::vector<NamedTensor> *tensors,
                         std::map<std::string, std::string> *metadata,
                         std::string *error) {
  // A device or FIFO (a link to /dev/zero) would be read without end.
  std::error_code ec;
  if (std::filesystem::exists(path, ec) &&
      !std::filesystem::is_regular_file(path, ec))
    return fail(error, "'" + path + "' is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return fail(error, "cannot open '" + path + "'");
  std::stringstream contents;
  contents << in.rdbuf();
  if (!decodeSafetensors(contents.str(), tensors, metadata, error)) {
    if (error)
      *error = path + ": " + *error;
    return false;
  }
  return true;
}

} // namespace hetc::package
