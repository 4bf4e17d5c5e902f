//===- HalfPromotion.h - bf16 and f16 launches on f32 kernels ---*- C++ -*-===//
//
// The CPU kernels compute in f32. Rather than a 16-bit variant of each, a
// launch with bf16 or f16 operands or results runs the kernel's f32
// adapter on widened copies: every such operand is converted to an f32
// scratch tensor, the launch's buffer views point at the scratch while the
// adapter runs, and every such result is rounded back to nearest even.
// That is f32 math with one rounding on store, as the GPU kernels compute.
// A result the lowering writes over an operand shares that operand's
// scratch, so kernels that update in place still do.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_RUNTIME_EXEC_KERNELS_HALFPROMOTION_H
#define HETC_RUNTIME_EXEC_KERNELS_HALFPROMOTION_H

#include "runtime/exec/KernelRegistry.h"

namespace hetc::runtime::exec {

/// `registry` with every compute kernel but `cast` (which converts 16-bit
/// values itself) running bf16 and f16 launches on its f32 adapter. The
/// communication kernels move bytes of any dtype and are kept as they are.
KernelRegistry promoteHalfLaunches(const KernelRegistry &registry);

} // namespace hetc::runtime::exec

#endif // HETC_RUNTIME_EXEC_KERNELS_HALFPROMOTION_H
