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

def HetG_CostOpInterface : OpInterface<"CostOpInterface"> {
  let cppNamespace = "::hetc::hetg";
  let description = [{
    The work an op does, from its static shapes: floating-point operations
    (`flops`) and bytes it reads and writes (`bytesMoved`). The segment
    profile (`hetg-segment`) and `hetc profile` add them up; the planner
    turns them into times per device. Every hetg op implements it. Call it
    through `hetc::hetg::getOpCost`, which checks that every operand and
    result type is static (the methods assume so).

    Counting conventions (the numbers are conventions, stated so that
    profiles are comparable, not measurements):

    - A multiply-add is 2 FLOPs. `matmul` is `2 * M * N * K` per batch
      entry (leading dimensions of the result), plus `M * N` per entry for
      the bias.
    - `attention` over `H` leading entries (batch x heads) with `Tq`
      queries, `Tk` keys, head size `D` (query/key) and `Dv` (value) is
      `H * Tq * Tk * (2 * D + 2 * Dv)` for `Q K^T` and `P V`, plus per score
      1 (scale), 1 (additive mask, if any) and 8 (softmax). Causal attention
      is counted dense, as kernels that do not skip masked tiles execute it
      and as the usual `6 N T + 12 L d T^2` estimate assumes.
      `attention_grad` recomputes the probabilities (`Q K^T`, scale, mask,
      softmax), then `dP = dO V^T`, `dS = P (dP - rowsum(dP P))` (4 per
      score), `dQ = dS K`, `dK = dS^T Q`, `dV = P^T dO`, and scales `dQ` and
      `dK` (1 per element).
    - Elementwise arithmetic, comparisons, `where`, `relu`, `sqrt` and
      `reciprocal`: 1 per result element. A transcendental function (`exp`,
      `log`, `tanh`, `erf`) counts `kTranscendentalFlops` = 4; `sigmoid` 6
      (exp, add, divide), `silu` 7, `pow` 9 (`exp(y log x)`), erf-`gelu` 8
      and tanh-`gelu` 12 (the formulas in their descriptions written out).
    - Reductions: 1 per input element (`reduce_mean` adds 1 per result
      element for the division). `softmax` 8 per element (max, subtract,
      exp, sum, divide), `log_softmax` 8, `layer_norm` 5 per element (mean,
      subtract, square, sum, normalize) plus 1 each for scale and bias,
      `rms_norm` 3 plus 1 for the scale, `cross_entropy` 7 per logit
      (log-sum-exp) plus 2 per label. Per-row terms (a row's division or
      square root) are left out: they are a row length smaller.
    - Gradient ops count their formulas the same way: `layer_norm_grad` 15
      per element (+1 with a scale), `rms_norm_grad` 11 (+1), `softmax_grad`
      4, `log_softmax_grad` 7, `cross_entropy_grad` 9 per logit,
      `gelu_grad` 17 (erf) or 20 (tanh), `silu_grad` 11, `gather_grad` 1 per
      scattered element (the accumulation).
    - Optimizer ops per parameter element: `sgd` 2 (+2 with weight decay),
      `adamw` 13 (+2 with weight decay), `global_norm` 2 per input element.
    - Data movement (`transpose`, `reshape`, `broadcast`, `slice`,
      `concat`, `gather`, `slice_grad`, `cast`, `trilu`), `constant` and the
      shape-computation ops: 0 FLOPs.

    `bytesMoved` is the sum of the sizes of every operand and result at its
    element width (i1 as one byte): one read of each input and one write of
    each output, no cache reuse. Exceptions, where an op touches less:
    `reshape` and `constant` move nothing (a reshape is a view, a constant
    is in the package), `gather` reads its indices and only the rows it
    selects, `slice` only the elements it keeps, and `shape` reads no
    tensor data.
  }];
  let methods = [
    InterfaceMethod<[{
        Floating-point operations for one execution, by the conventions
        above. Every operand and result type must be static.
      }],
      "int64_t", "flops">,
    InterfaceMethod<[{
        Bytes read and written for one execution. Every operand and result
        type must be static.
      }],
      "int64_t", "bytesMoved", (ins), /*methodBody=*/[{}],
      /*defaultImplementation=*/[{
        return ::hetc::hetg::operandAndResultBytes($_op.getOperation());
      }]>
  ];
}

// Every hetg op implements CostOpInterface (see HetG_Op).
def HetG_Cost : DeclareOpInterfaceMethods<HetG_CostOpInterface>;

#endif // HETC_DIALECT_HETGRAPH_INTERFACES
