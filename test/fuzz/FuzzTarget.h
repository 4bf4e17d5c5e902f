//===- FuzzTarget.h - what every fuzz target defines ------------*- C++ -*-===//
//
// A fuzz target is one function over an input of bytes. libFuzzer calls it
// with mutated inputs (`make fuzz`); ReplayMain.cpp calls it with the files
// of the seed corpus and every past crasher (`make test`). It returns 0:
// inputs are valid or rejected with an error, never a crash, a hang or an
// unbounded allocation.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_TEST_FUZZ_FUZZTARGET_H
#define HETC_TEST_FUZZ_FUZZTARGET_H

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace hetc::fuzz {

/// A fresh folder under the temporary directory for one input's files,
/// removed with everything in it when the object goes.
class ScratchFolder {
public:
  ScratchFolder();
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder &) = delete;
  ScratchFolder &operator=(const ScratchFolder &) = delete;

  const std::string &path() const { return path_; }
  /// Writes `bytes` to `name` in the folder; the file's path.
  std::string write(const std::string &name, const std::string &bytes) const;

private:
  std::string path_;
};

/// The pieces of an input that holds several files, separated by
/// kFileSeparator (a fuzzing dictionary entry).
constexpr const char *kFileSeparator = "\n--hetc-fuzz-file--\n";
std::string piece(const std::string &input, int index);

} // namespace hetc::fuzz

#endif // HETC_TEST_FUZZ_FUZZTARGET_H
