//===- FuzzTarget.cpp -----------------------------------------------------===//

#include "FuzzTarget.h"

#include <filesystem>
#include <fstream>

#include <stdlib.h>

namespace hetc::fuzz {

ScratchFolder::ScratchFolder() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "hetc-fuzz-XXXXXX").string();
  if (::mkdtemp(pattern.data()))
    path_ = pattern;
}

ScratchFolder::~ScratchFolder() {
  std::error_code ec;
  if (!path_.empty())
    std::filesystem::remove_all(path_, ec);
}

std::string ScratchFolder::write(const std::string &name,
                                 const std::string &bytes) const {
  std::string file = path_ + "/" + name;
  std::ofstream(file, std::ios::binary) << bytes;
  return file;
}

std::string piece(const std::string &input, int index) {
  size_t begin = 0;
  std::string separator = kFileSeparator;
  for (int i = 0; i < index; ++i) {
    size_t at = input.find(separator, begin);
    if (at == std::string::npos)
      return "";
    begin = at + separator.size();
  }
  size_t end = input.find(separator, begin);
  return input.substr(begin, end == std::string::npos ? std::string::npos
                                                      : end - begin);
}

} // namespace hetc::fuzz
