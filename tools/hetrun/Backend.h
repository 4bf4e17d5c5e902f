//===- Backend.h - hetrun's --backend ---------------------------*- C++ -*-===//

#ifndef HETC_TOOLS_HETRUN_BACKEND_H
#define HETC_TOOLS_HETRUN_BACKEND_H

#include "runtime/exec/Job.h"
#include "tools/hetrun/HetrunDriver.h"

#include <string>
#include <vector>

namespace hetc::hetrun {

/// Sets up `jobOptions` for `options.backend`: nothing for cpu; for cuda the
/// rank devices and communicators (runtime/exec/cuda/CudaJob.h), with one
/// line per local rank in `layout`. `perProcess`: one rank per MPI process.
/// UNIMPLEMENTED for cuda in a build without CUDA.
runtime::Status configureBackend(const HetrunOptions &options,
                                 const runtime::exec::LoadedPackage &package,
                                 bool perProcess,
                                 runtime::exec::JobOptions *jobOptions,
                                 std::vector<std::string> *layout);

} // namespace hetc::hetrun

#endif // HETC_TOOLS_HETRUN_BACKEND_H
