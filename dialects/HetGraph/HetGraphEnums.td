//===- HetGraphEnums.td - hetg enumerations ----------------*- tablegen -*-===//

#ifndef HETC_DIALECT_HETGRAPH_ENUMS
#define HETC_DIALECT_HETGRAPH_ENUMS

include "mlir/IR/EnumAttr.td"
include "HetGraphDialect.td"

def HetG_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "how gelu evaluates the Gaussian CDF", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"tanh", 1>
    ]> {
  let cppNamespace = "::hetc::hetg";
  let genSpecializedAttr = 0;
}
def HetG_GeluApproximationAttr
    : EnumAttr<HetGraph_Dialect, HetG_GeluApproximation, "gelu_approximation">;

def HetG_LossReduction : I32EnumAttr<"LossReduction",
    "how per-token losses are combined", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"sum", 1>,
      I32EnumAttrCase<"mean", 2>
    ]> {
  let cppNamespace = "::hetc::hetg";
  let genSpecializedAttr = 0;
}
def HetG_LossReductionAttr
    : EnumAttr<HetGraph_Dialect, HetG_LossReduction, "loss_reduction">;

def HetG_ScatterReduction : I32EnumAttr<"ScatterReduction",
    "how scattered updates combine with the elements they land on", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"add", 1>,
      I32EnumAttrCase<"mul", 2>,
      I32EnumAttrCase<"max", 3>,
      I32EnumAttrCase<"min", 4>
    ]> {
  let cppNamespace = "::hetc::hetg";
  let genSpecializedAttr = 0;
}
def HetG_ScatterReductionAttr
    : EnumAttr<HetGraph_Dialect, HetG_ScatterReduction, "scatter_reduction">;

def HetG_LrScheduleKind : I32EnumAttr<"LrScheduleKind",
    "how the learning rate changes over the steps", [
      I32EnumAttrCase<"constant", 0>,
      I32EnumAttrCase<"cosine", 1>,
      I32EnumAttrCase<"linear", 2>
    ]> {
  let cppNamespace = "::hetc::hetg";
  let genSpecializedAttr = 0;
}
def HetG_LrScheduleKindAttr
    : EnumAttr<HetGraph_Dialect, HetG_LrScheduleKind, "lr_schedule_kind">;

#endif // HETC_DIALECT_HETGRAPH_ENUMS
