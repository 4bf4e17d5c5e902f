//===- HetGraph.h - hetg dialect ------------------------------------------===//
//
// The one header users of the hetg dialect include.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_DIALECTS_HETGRAPH_HETGRAPH_H
#define HETC_DIALECTS_HETGRAPH_HETGRAPH_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/HetGraph/Attributes.h"
#include "dialects/HetGraph/Cost.h"
#include "dialects/HetGraph/ShapeInference.h"

#include "dialects/HetGraph/HetGraphDialect.h.inc"
#include "dialects/HetGraph/HetGraphEnums.h.inc"
#include "dialects/HetGraph/HetGraphInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/HetGraph/HetGraphAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/HetGraph/HetGraphOps.h.inc"

#endif // HETC_DIALECTS_HETGRAPH_HETGRAPH_H
