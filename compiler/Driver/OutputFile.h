//===- OutputFile.h - writing one output file safely ------------*- C++ -*-===//
//
// Every file a hetc command writes (IR, plans, traces, exported models)
// goes through writeOutputFile: written to a temporary sibling, then
// renamed over the target, so a failure leaves the old file whole and a
// full disk is an error. Only a regular file (or nothing) is replaced: a
// symbolic link, FIFO, device or folder at the path is left alone.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_DRIVER_OUTPUTFILE_H
#define HETC_COMPILER_DRIVER_OUTPUTFILE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace hetc::driver {

/// Writes what `write` prints to `path` ("-": stdout). The error says why
/// nothing was written.
llvm::Error
writeOutputFile(llvm::StringRef path,
                llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write);

} // namespace hetc::driver

#endif // HETC_COMPILER_DRIVER_OUTPUTFILE_H
