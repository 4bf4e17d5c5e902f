//===- HetExecDialect.cpp - hetx dialect registration ---------------------===//

#include "dialects/HetExec/HetExec.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace hetc::hetx;

#include "dialects/HetExec/HetExecDialect.cpp.inc"
#include "dialects/HetExec/HetExecEnums.cpp.inc"

void HetExecDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/HetExec/HetExecOps.cpp.inc"
      >();
}
