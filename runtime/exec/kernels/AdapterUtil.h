//===- AdapterUtil.h - helpers shared by the kernel adapters ----*- C++ -*-===//

#ifndef HETC_RUNTIME_EXEC_KERNELS_ADAPTERUTIL_H
#define HETC_RUNTIME_EXEC_KERNELS_ADAPTERUTIL_H

#include "runtime/exec/KernelRegistry.h"

#include <cstdio>
#include <cstdlib>

namespace hetc::runtime::exec::adapters {

inline const TensorView &operand(const hetc::pkg::Instruction &inst,
                                 const BufferTable &buffers, int i) {
  return buffers.view(inst.operands(i));
}
inline const TensorView &result(const hetc::pkg::Instruction &inst,
                                const BufferTable &buffers, int i) {
  return buffers.view(inst.results(i));
}
/// The operand of the op's operand group `group`, or null when that optional
/// operand is absent. Ops with several optional operands carry
/// `operandSegmentSizes` (one count per group); without it, groups are
/// positions and trailing ones may be missing.
inline const TensorView *optionalOperand(const hetc::pkg::Instruction &inst,
                                         const BufferTable &buffers, int group) {
  auto segments = inst.attributes().find("operandSegmentSizes");
  if (segments == inst.attributes().end())
    return group < inst.operands_size() ? &buffers.view(inst.operands(group))
                                        : nullptr;
  const auto &sizes = segments->second.ints().values();
  if (group >= sizes.size() || sizes[group] == 0)
    return nullptr;
  int index = 0;
  for (int g = 0; g < group; ++g)
    index += sizes[g];
  return index < inst.operands_size() ? &buffers.view(inst.operands(index))
                                      : nullptr;
}

/// A view of scratch slot `slot` (BufferTable::scratch) holding a tensor of
/// `dtype` and `shape`.
inline Status scratchView(BufferTable &buffers, int slot, DType dtype,
                          Shape shape, TensorView *view) {
  int64_t bytes = numElements(shape) * static_cast<int64_t>(dtypeSize(dtype));
  void *data = buffers.scratch(slot, bytes);
  if (!data)
    return resourceExhausted("cannot allocate ", bytes, " bytes of scratch");
  *view = TensorView(data, dtype, std::move(shape));
  return okStatus();
}

/// Registration happens once at startup from fixed tables: a duplicate name
/// is a bug in this library, not in the package.
inline void mustAdd(KernelRegistry &registry, KernelInfo info) {
  Status status = registry.add(std::move(info));
  if (!status.ok()) {
    std::fprintf(stderr, "hetc runtime: %s\n", status.toString().c_str());
    std::abort();
  }
}

/// A kernel that writes no result over an operand.
inline KernelInfo makeKernel(std::string name, int minOperands,
                             int maxOperands, int results,
                             std::vector<AttrSpec> attrs, KernelFn run) {
  KernelInfo info;
  info.name = std::move(name);
  info.minOperands = minOperands;
  info.maxOperands = maxOperands;
  info.numResults = results;
  info.attrs = std::move(attrs);
  info.run = run;
  return info;
}

} // namespace hetc::runtime::exec::adapters

#endif // HETC_RUNTIME_EXEC_KERNELS_ADAPTERUTIL_H
