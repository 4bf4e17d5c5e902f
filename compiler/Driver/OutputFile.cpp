//===- OutputFile.cpp - writing one output file safely --------------------===//

#include "compiler/Driver/OutputFile.h"

#include "llvm/Support/FileSystem.h"

namespace hetc::driver {

llvm::Error
writeOutputFile(llvm::StringRef path,
                llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write) {
  if (path != "-") {
    llvm::sys::fs::file_status status;
    // Not following links: a link at the path is what would be replaced.
    if (!llvm::sys::fs::status(path, status, /*Follow=*/false) &&
        llvm::sys::fs::exists(status) &&
        status.type() != llvm::sys::fs::file_type::regular_file)
      return llvm::createStringError(
          "'" + path + "' exists and is not a regular file (" +
          (status.type() == llvm::sys::fs::file_type::symlink_file
               ? "a symbolic link"
           : status.type() == llvm::sys::fs::file_type::directory_file
               ? "a folder"
               : "a FIFO, socket or device") +
          "); not replacing it");
  }
  // Through a temporary sibling renamed into place.
  return llvm::writeToOutput(path, write);
}

} // namespace hetc::driver
