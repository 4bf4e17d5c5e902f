//===- KernelRegistry.h - kernel names to CPU adapters ----------*- C++ -*-===//
//
// A launch names its kernel by the hetg op it comes from (`matmul`,
// `layer_norm_grad`, `adamw`, ...) plus `copy`. The registry maps each name
// to what validation needs (operand and result counts, required attributes,
// which results may be written over which operands) and to an adapter that
// reads the instruction's attributes and calls runtime/cpu. The kernels that
// cross ranks (`send`, `recv`, the collectives) have no adapter: the
// executor runs them through its communicator (CommKernels.h).
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_KERNELREGISTRY_H
#define HETC_RUNTIME_EXEC_KERNELREGISTRY_H

#include "runtime/exec/Arena.h"
#include "runtime/exec/Attributes.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace hetc::runtime::exec {

/// Runs one launch over the buffers. Shapes and dtypes are checked by the
/// CPU kernels; operand and result counts and attribute kinds were checked
/// by validation.
using KernelFn = Status (*)(const hetc::pkg::Instruction &inst,
                            BufferTable &buffers);

struct AttrSpec {
  std::string name;
  AttrKind kind;
  bool optional = false; // unit attributes and OptionalAttr<...>
};

/// Which results a kernel may write over which operands (same buffer): the
/// lowering's contract (docs/package-format.md, "Results written over
/// operands").
struct InPlacePolicy {
  /// Elementwise kernels: any result over any operand of the result's shape
  /// and dtype.
  bool elementwise = false;
  /// Otherwise these (operand, result) pairs only.
  std::vector<std::pair<int, int>> pairs;
};

/// The kernels that cross ranks (docs/package-format.md, "Communication").
enum class CommKind {
  kNone,
  kSend,
  kRecv,
  kAllReduce,
  kReduceScatter,
  kAllGather
};

struct KernelInfo {
  std::string name;
  int minOperands = 0;
  int maxOperands = 0; // -1: no upper bound (variadic)
  int numResults = 1;
  int optionalResults = 0; // results after numResults that may be absent
  std::vector<AttrSpec> attrs;
  InPlacePolicy inPlace;
  /// kNone for compute kernels, which have an adapter; the others have none.
  CommKind comm = CommKind::kNone;
  KernelFn run = nullptr;

  /// "2", "2 or 3", "at least 1".
  std::string operandCountText() const;
};

class KernelRegistry {
public:
  /// Adds a kernel; INVALID_ARGUMENT (a programming error) when the name is
  /// taken.
  Status add(KernelInfo info);

  /// Null when `name` is unknown.
  const KernelInfo *find(const std::string &name) const;

  /// Names of every kernel, sorted.
  std::vector<std::string> names() const;

private:
  std::map<std::string, KernelInfo> kernels_;
};

/// Every kernel of the CPU backend and the communication kernels (built
/// once, then shared read-only).
const KernelRegistry &cpuKernelRegistry();

/// The same kernels on the CUDA backend (runtime/cuda); only in builds with
/// CUDA (runtime/exec/cuda/CudaKernelRegistry.cpp).
const KernelRegistry &cudaKernelRegistry();

/// Every compute kernel of one backend (kernels/ComputeKernels.cpp, compiled
/// once per backend: kernels/Backend.h).
namespace cpu_backend {
void registerComputeKernels(KernelRegistry &registry);
} // namespace cpu_backend
namespace cuda_backend {
void registerComputeKernels(KernelRegistry &registry);
} // namespace cuda_backend

/// A registry of one backend's compute kernels (registerCompute) plus the
/// communication kernels.
KernelRegistry makeKernelRegistry(void (*registerCompute)(KernelRegistry &));

/// The kernels that cross ranks (CommKernels.cpp); the same on every backend.
void registerCommKernels(KernelRegistry &registry);

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_KERNELREGISTRY_H
