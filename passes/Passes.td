//===- Passes.td - hetc passes -----------------------------*- tablegen -*-===//

#ifndef HETC_PASSES
#define HETC_PASSES

include "mlir/Pass/PassBase.td"

def HetgSpecialize : Pass<"hetg-specialize", "mlir::ModuleOp"> {
  let summary = "Fix batch and sequence length, then fold all shape arithmetic";
  let description = [{
    Gives every dynamic dimension of the function inputs a value — dimension 0
    is the batch, dimension 1 the sequence — then alternates result type
    inference and constant folding until every type is static. Shape
    computations (`hetg.shape`, `hetg.range`, `hetg.constant_of_shape`, the
    `dynamic_*` forms) fold into constants and static ops; any that remain
    are reported as errors.
  }];
  let options = [
    Option<"batch", "batch", "int64_t", /*default=*/"0",
           "Samples per batch for dimension 0 of dynamic inputs">,
    Option<"seq", "seq", "int64_t", /*default=*/"0",
           "Tokens per sample for dimension 1 of dynamic inputs">
  ];
  let dependentDialects = ["::hetc::hetg::HetGraphDialect"];
}

def HetgFuseNorms : Pass<"hetg-fuse-norms"> {
  let summary = "Fuse decomposed LayerNorm and RMSNorm into single ops";
  let description = [{
    Matches the elementwise chains that exporters emit for layer and RMS
    normalization (reduce_mean, sub, pow, add epsilon, sqrt, div or
    reciprocal-mul, scale, shift) and replaces them with `hetg.layer_norm`
    and `hetg.rms_norm`.
  }];
  let dependentDialects = ["::hetc::hetg::HetGraphDialect"];
}

def HetgFuseActivations : Pass<"hetg-fuse-activations"> {
  let summary = "Fuse erf-GELU, tanh-GELU and x*sigmoid(x) into single ops";
  let dependentDialects = ["::hetc::hetg::HetGraphDialect"];
}

def HetgFuseAttention : Pass<"hetg-fuse-attention"> {
  let summary = "Fuse the scaled dot-product chain into hetg.attention";
  let description = [{
    Matches `matmul(q, k^T)`, a scale (mul or div by a constant), an optional
    additive or `where` mask, `softmax` over the last axis and the matmul with
    `v`. A mask that is the causal triangle becomes the `causal` flag.
  }];
  let dependentDialects = ["::hetc::hetg::HetGraphDialect"];
}

def HetgFuseMatmulBias : Pass<"hetg-fuse-matmul-bias"> {
  let summary = "Fold a bias add after a matmul into the matmul";
  let dependentDialects = ["::hetc::hetg::HetGraphDialect"];
}

#endif // HETC_PASSES
