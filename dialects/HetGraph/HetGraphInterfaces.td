//===- HetGraphInterfaces.td - hetg op interfaces ----------*- tablegen -*-===//

#ifndef HETC_DIALECT_HETGRAPH_INTERFACES
#define HETC_DIALECT_HETGRAPH_INTERFACES

include "mlir/IR/OpBase.td"

def HetG_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::hetc::hetg";
  let description = [{
    An op that builds its own reverse-mode gradient. Given the gradients of
    the loss with respect to its results, it builds, at the builder's
    insertion point, the gradients with respect to its operands.
    `hetg-autodiff` calls it on every op between the parameters and the loss,
    in reverse program order, and sums the gradients that reach one value.

    Gradients have exactly the type of the value they belong to. A null
    result gradient means no gradient flows into that result (it does not
    reach the loss); a null operand gradient means the operand receives none
    (it is not differentiable, like indices or a mask, or it was not asked
    for). Ops build only the operand gradients whose `needsGradient` entry is
    set, so nothing is built for operands that do not lead to a parameter.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds the gradients of the operands from `resultGradients` (one per
        result, null where none flows) and fills `operandGradients`, empty on
        entry, with one value per operand, null where the operand gets no
        gradient. Fails (with a diagnostic) when the op cannot be
        differentiated as it is.
      }],
      "::mlir::LogicalResult", "buildGradients",
      (ins "::mlir::OpBuilder &":$builder,
           "::llvm::ArrayRef<::mlir::Value>":$resultGradients,
           "::llvm::ArrayRef<bool>":$needsGradient,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGradients)>
  ];
}

// Shorthand for the op trait list.
def HetG_Differentiable
    : DeclareOpInterfaceMethods<HetG_DifferentiableOpInterface>;

#endif // HETC_DIALECT_HETGRAPH_INTERFACES
