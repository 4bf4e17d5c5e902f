//===- ReplayMain.cpp - runs a fuzz target on files -----------------------===//
//
// `fuzz-replay-TARGET FILE|FOLDER...`: every file given, and every file in
// the folders given, through the target once, in name order; prints the
// count. A crash aborts with the file named on stderr first. This is how
// `make test` checks the seed corpus and the past crashers without
// libFuzzer (built with the project's own compiler).
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace fs = std::filesystem;

int main(int argc, char **argv) {
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    fs::path path(argv[i]);
    if (fs::is_directory(path)) {
      for (const fs::directory_entry &entry : fs::directory_iterator(path))
        if (entry.is_regular_file() && entry.path().filename() != "README.md")
          files.push_back(entry.path());
    } else if (fs::is_regular_file(path)) {
      files.push_back(path);
    } else {
      std::fprintf(stderr, "fuzz replay: '%s' is no file or folder\n", argv[i]);
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path &file : files) {
    std::ifstream in(file, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
    std::fprintf(stderr, "fuzz replay: %s\n", file.c_str());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                           bytes.size());
  }
  std::printf("fuzz replay: %zu inputs, no crash\n", files.size());
  return 0;
}
