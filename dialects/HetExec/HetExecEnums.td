//===- HetExecEnums.td - hetx enumerations -----------------*- tablegen -*-===//
//
// The cases and their numbers are those of the enums of the same names in
// runtime/package/hetpkg.proto (the proto's 0 case means "unset").
//
//===----------------------------------------------------------------------===//

#ifndef HETC_DIALECT_HETEXEC_ENUMS
#define HETC_DIALECT_HETEXEC_ENUMS

include "mlir/IR/EnumAttr.td"
include "HetExecDialect.td"

def HetX_BufferKind : I32EnumAttr<"BufferKind",
    "where a buffer's contents come from and how long they live", [
      I32EnumAttrCase<"parameter", 1>,
      I32EnumAttrCase<"optimizer_state", 2>,
      I32EnumAttrCase<"constant", 3>,
      I32EnumAttrCase<"input", 4>,
      I32EnumAttrCase<"activation", 5>
    ]> {
  let cppNamespace = "::hetc::hetx";
}

def HetX_LaunchPhase : I32EnumAttr<"LaunchPhase",
    "which pass over a model segment a launch belongs to", [
      I32EnumAttrCase<"forward", 1>,
      I32EnumAttrCase<"backward", 2>,
      I32EnumAttrCase<"recompute", 3>
    ]> {
  let cppNamespace = "::hetc::hetx";
}

def HetX_InputRole : I32EnumAttr<"InputRole",
    "what an input buffer receives before a step", [
      I32EnumAttrCase<"tokens", 1>,
      I32EnumAttrCase<"labels", 2>,
      I32EnumAttrCase<"feed", 3>,
      I32EnumAttrCase<"step", 4>
    ]> {
  let cppNamespace = "::hetc::hetx";
}

#endif // HETC_DIALECT_HETEXEC_ENUMS
