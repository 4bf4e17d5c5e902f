//===- DeviceMemory.h - the memory of the plan's devices --------*- C++ -*-===//
//
// Every rank's peak memory is known once its program is planned; a rank
// that cannot fit on its device is reported before anything is written,
// naming the rank, the device and the bytes missing.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_COMPILER_DRIVER_DEVICEMEMORY_H
#define HETC_COMPILER_DRIVER_DEVICEMEMORY_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

namespace hetc::driver {

/// `--device-memory`: one size for every device, or one per device name.
struct DeviceMemorySpec {
  int64_t everyDevice = 0; // 0: not given
  llvm::StringMap<int64_t> byDevice;

  /// The memory of `device` in bytes; 0 when unknown.
  int64_t of(llvm::StringRef device) const;
};

/// Parses "" (nothing known), "SIZE" or "DEVICE=SIZE,DEVICE=SIZE", with
/// sizes in bytes or with a unit (KB, MB, GB, TB: powers of 1000; KiB, MiB,
/// GiB, TiB: powers of 1024), e.g. "24GiB".
mlir::FailureOr<DeviceMemorySpec> parseDeviceMemory(llvm::StringRef text);

/// Checks every hetx.program's arena against its device's memory.
mlir::LogicalResult checkDeviceMemory(mlir::ModuleOp module,
                                      const DeviceMemorySpec &memory);

} // namespace hetc::driver

#endif // HETC_COMPILER_DRIVER_DEVICEMEMORY_H
