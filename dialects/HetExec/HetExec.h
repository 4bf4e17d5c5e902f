//===- HetExec.h - hetx dialect -------------------------------------------===//
//
// The one header users of the hetx dialect include.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_DIALECTS_HETEXEC_HETEXEC_H
#define HETC_DIALECTS_HETEXEC_HETEXEC_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/HetExec/HetExecDialect.h.inc"
#include "dialects/HetExec/HetExecEnums.h.inc"

namespace hetc::hetx {
class ReturnOp;
class BufferOp;
class LaunchOp;

/// Offsets of buffers that own bytes are multiples of this.
constexpr int64_t kBufferAlignment = 64;

/// Bytes of one element of `type` as the package stores it (i1 is a byte).
int64_t elementByteSize(mlir::Type type);
} // namespace hetc::hetx

#define GET_OP_CLASSES
#include "dialects/HetExec/HetExecOps.h.inc"

#endif // HETC_DIALECTS_HETEXEC_HETEXEC_H
