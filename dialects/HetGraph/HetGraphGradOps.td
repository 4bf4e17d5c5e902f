//===- HetGraphGradOps.td - hetg gradient ops --------------*- tablegen -*-===//
//
// Gradients that are cheaper or more accurate as one op than as a chain of
// forward ops: the normalizations and softmaxes (which reuse their
// statistics), attention (which recomputes its probabilities instead of
// keeping them), the loss, the scatter-adds of gather and slice, and the
// activations. `hetg-autodiff` builds them through the ops'
// DifferentiableOpInterface; everything else composes from forward ops.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_DIALECT_HETGRAPH_GRAD_OPS
#define HETC_DIALECT_HETGRAPH_GRAD_OPS

include "HetGraphDialect.td"
include "HetGraphEnums.td"

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

def HetG_LayerNormGradOp : HetG_InferredOp<"layer_norm_grad",
    [AllTypesMatch<["input", "result_grad"]>]> {
  let summary = "Gradients of hetg.layer_norm";
  let description = [{
    With `x̂ = (x - mean) / sqrt(var + epsilon)` over the dimensions
    `[axis, rank)` and `g = result_grad * scale` (`result_grad` when there
    is no scale):

    - `input_grad = (g - mean(g) - x̂ * mean(g * x̂)) / sqrt(var + epsilon)`,
    - `scale_grad = sum(result_grad * x̂)` over the dimensions before `axis`,
    - `bias_grad = sum(result_grad)` over the same dimensions.

    `scale_grad` and `bias_grad` always have the normalized shape: they are
    what a scale and a bias would receive, whether or not the forward op had
    them. A result without uses need not be computed.

    ```mlir
    %dx, %dw, %db = hetg.layer_norm_grad %x, %dy scale %w : tensor<64xf32>
        <{axis = 2 : i64, epsilon = 1.0e-05 : f32}> : tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins HetG_FloatTensor:$input, HetG_FloatTensor:$result_grad,
                       Optional<HetG_FloatTensor>:$scale,
                       I64Attr:$axis, F32Attr:$epsilon);
  let results = (outs HetG_FloatTensor:$input_grad,
                      HetG_FloatTensor:$scale_grad,
                      HetG_FloatTensor:$bias_grad);
  let assemblyFormat = [{
    $input `,` $result_grad (`scale` $scale^ `:` type($scale))? prop-dict
    attr-dict `:` type($input)
  }];
  let hasFolder = 1;
}

def HetG_RmsNormGradOp : HetG_InferredOp<"rms_norm_grad",
    [AllTypesMatch<["input", "result_grad"]>]> {
  let summary = "Gradients of hetg.rms_norm";
  let description = [{
    With `r = sqrt(mean(x^2) + epsilon)` over the last dimension and
    `g = result_grad * scale` (`result_grad` when there is no scale):

    - `input_grad = g / r - x * mean(g * x) / r^3`,
    - `scale_grad = sum(result_grad * x / r)` over all other dimensions; it
      always has the shape of the last dimension.

    ```mlir
    %dx, %dw = hetg.rms_norm_grad %x, %dy scale %w : tensor<64xf32>
        <{epsilon = 1.0e-06 : f32}> : tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins HetG_FloatTensor:$input, HetG_FloatTensor:$result_grad,
                       Optional<HetG_FloatTensor>:$scale, F32Attr:$epsilon);
  let results = (outs HetG_FloatTensor:$input_grad,
                      HetG_FloatTensor:$scale_grad);
  let assemblyFormat = [{
    $input `,` $result_grad (`scale` $scale^ `:` type($scale))? prop-dict
    attr-dict `:` type($input)
  }];
  let hasFolder = 1;
}

def HetG_SoftmaxGradOp : HetG_Op<"softmax_grad",
    [Pure, SameOperandsAndResultType]> {
  let summary = "Gradient of hetg.softmax from its result";
  let description = [{
    `output * (result_grad - sum(result_grad * output, axis))`, where
    `output` is the result of the softmax.

    ```mlir
    %dx = hetg.softmax_grad %p, %dp <{axis = 3 : i64}> : tensor<2x4x16x16xf32>
    ```
  }];
  let arguments = (ins HetG_FloatTensor:$output, HetG_FloatTensor:$result_grad,
                       I64Attr:$axis);
  let results = (outs HetG_FloatTensor:$input_grad);
  let assemblyFormat = [{
    $output `,` $result_grad prop-dict attr-dict `:` type($output)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HetG_LogSoftmaxGradOp : HetG_Op<"log_softmax_grad",
    [Pure, SameOperandsAndResultType]> {
  let summary = "Gradient of hetg.log_softmax from its result";
  let description = [{
    `result_grad - exp(output) * sum(result_grad, axis)`, where `output` is
    the result of the log-softmax.

    ```mlir
    %dx = hetg.log_softmax_grad %l, %dl <{axis = 1 : i64}> : tensor<32x256xf32>
    ```
  }];
  let arguments = (ins HetG_FloatTensor:$output, HetG_FloatTensor:$result_grad,
                       I64Attr:$axis);
  let results = (outs HetG_FloatTensor:$input_grad);
  let assemblyFormat = [{
    $output `,` $result_grad prop-dict attr-dict `:` type($output)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Transformer blocks and loss
//===----------------------------------------------------------------------===//

def HetG_AttentionGradOp : HetG_InferredOp<"attention_grad",
    [AttrSizedOperandSegments]> {
  let summary = "Gradients of hetg.attention for query, key and value";
  let description = [{
    Recomputes the probabilities `P = softmax(query @ key^T * scale + mask)`
    (with the same `causal` masking) instead of keeping them from the
    forward pass, then with `dS = P * (dP - rowsum(dP * P))`,
    `dP = result_grad @ value^T`:

    - `query_grad = dS @ key * scale`,
    - `key_grad = dS^T @ query * scale`,
    - `value_grad = P^T @ result_grad`.

    The row sums `rowsum(dP * P)` are `rowsum(result_grad * result)`, and P
    needs each row's log-sum-exp: with `forward` the op reads both (the
    result and the `lse` of `hetg.attention` with `with_lse`); without it
    they are computed again from the inputs.

    There is no mask gradient: masks are inputs. (Where a parameter feeds
    one, `hetg.attention` builds its gradient from the forward formula.)
    Query, key and value have the same leading dimensions.

    ```mlir
    %dq, %dk, %dv = hetg.attention_grad %q, %k, %v, %do
        <{causal, scale = 2.500000e-01 : f32}> : tensor<2x4x16x16xf32>,
        tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>
    %dq2, %dk2, %dv2 = hetg.attention_grad %q, %k, %v, %do
        forward %o, %lse : tensor<2x4x16x16xf32>, tensor<2x4x16xf32>
        <{causal, scale = 2.500000e-01 : f32}> : tensor<2x4x16x16xf32>,
        tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>
    ```
  }];
  let arguments = (ins HetG_FloatTensor:$query, HetG_FloatTensor:$key,
                       HetG_FloatTensor:$value, HetG_FloatTensor:$result_grad,
                       Optional<HetG_FloatTensor>:$mask,
                       Optional<HetG_FloatTensor>:$output,
                       Optional<TensorOf<[F32]>>:$lse,
                       F32Attr:$scale, UnitAttr:$causal);
  let results = (outs HetG_FloatTensor:$query_grad, HetG_FloatTensor:$key_grad,
                      HetG_FloatTensor:$value_grad);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $result_grad (`mask` $mask^ `:` type($mask))?
    (`forward` $output^ `,` $lse `:` type($output) `,` type($lse))?
    prop-dict attr-dict `:` type($query) `,` type($key) `,` type($value) `,`
    type($result_grad)
  }];
  let extraClassDeclaration = [{
    /// The attention this op differentiates, where it is in the same block
    /// before it (same query, key, value, mask, scale and causality); null
    /// otherwise.
    AttentionOp findForward();
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def HetG_CrossEntropyGradOp : HetG_InferredOp<"cross_entropy_grad"> {
  let summary = "Gradient of hetg.cross_entropy with respect to the logits";
  let description = [{
    `(softmax(logits, 1) - onehot(labels)) * w` per token, where `w` is
    `loss_grad / count` for the mean (`count` being the tokens whose label
    is not `ignore_index`), `loss_grad` for the sum, and the token's entry
    of `loss_grad` (shaped like `labels`) for `none`. Ignored tokens get a
    zero gradient. `loss_grad` has the loss's type (f32 for bf16 and f16
    logits, see `hetg.cross_entropy`); the result has the logits' type.

    ```mlir
    %dz = hetg.cross_entropy_grad %logits, %labels, %dl
        <{reduction = #hetg<loss_reduction mean>}>
        : tensor<32x256xf32>, tensor<32xi64>, tensor<f32>
    ```
  }];
  let arguments = (ins HetG_FloatTensor:$logits, HetG_IndexTensor:$labels,
                       HetG_FloatTensor:$loss_grad,
                       HetG_LossReductionAttr:$reduction,
                       OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs HetG_FloatTensor:$logits_grad);
  let assemblyFormat = [{
    $logits `,` $labels `,` $loss_grad prop-dict attr-dict `:` type($logits)
    `,` type($labels) `,` type($loss_grad)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def HetG_GatherGradOp : HetG_Op<"gather_grad", [Pure]> {
  let summary = "Gradient of hetg.gather with respect to its data";
  let description = [{
    A zero tensor of the data's shape (the result type) into which each
    slice of `result_grad` is added at the position its index selected;
    repeated indices accumulate. For an embedding table (axis 0) this is
    the table's gradient.

    ```mlir
    %dt = hetg.gather_grad %de[%ids] <{axis = 0 : i64}>
        : tensor<2x16x64xf32>, tensor<2x16xi64> -> tensor<256x64xf32>
    ```
  }];
  let arguments = (ins HetG_FloatTensor:$result_grad, HetG_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs HetG_FloatTensor:$data_grad);
  let assemblyFormat = [{
    $result_grad `[` $indices `]` prop-dict attr-dict `:` type($result_grad)
    `,` type($indices) `->` type($data_grad)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HetG_SliceGradOp : HetG_Op<"slice_grad", [Pure]> {
  let summary = "Gradient of hetg.slice with respect to its input";
  let description = [{
    A zero tensor of the input's shape (the result type) with
    `result_grad` written at the elements the slice read. `starts`, `ends`
    and `steps` are those of the slice.

    ```mlir
    %dx = hetg.slice_grad %dy <{starts = array<i64: 0, 64>, ends = array<i64: 16, 128>,
                               steps = array<i64: 1, 1>}> : tensor<16x64xf32> -> tensor<16x192xf32>
    ```
  }];
  let arguments = (ins HetG_FloatTensor:$result_grad, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$ends, DenseI64ArrayAttr:$steps);
  let results = (outs HetG_FloatTensor:$input_grad);
  let assemblyFormat = [{
    $result_grad prop-dict attr-dict `:` type($result_grad) `->`
    type($input_grad)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

def HetG_GeluGradOp : HetG_Op<"gelu_grad", [Pure, SameOperandsAndResultType]> {
  let summary = "Gradient of hetg.gelu";
  let description = [{
    `result_grad * gelu'(input)`: `Phi(x) + x * phi(x)` for the exact form,
    the derivative of `0.5 x (1 + tanh(u))`,
    `u = sqrt(2/pi) (x + 0.044715 x^3)`, for the tanh approximation.

    ```mlir
    %dx = hetg.gelu_grad %x, %dy <{approximate = #hetg<gelu_approximation tanh>}>
        : tensor<2x16x256xf32>
    ```
  }];
  let arguments = (ins HetG_FloatTensor:$input, HetG_FloatTensor:$result_grad,
      DefaultValuedAttr<HetG_GeluApproximationAttr,
                        "GeluApproximation::none">:$approximate);
  let results = (outs HetG_FloatTensor:$input_grad);
  let assemblyFormat = [{
    $input `,` $result_grad prop-dict attr-dict `:` type($input)
  }];
  let hasFolder = 1;
}

def HetG_SiluGradOp : HetG_Op<"silu_grad", [Pure, SameOperandsAndResultType]> {
  let summary = "Gradient of hetg.silu";
  let description = [{
    `result_grad * s * (1 + x * (1 - s))` with `s = sigmoid(x)`.

    ```mlir
    %dx = hetg.silu_grad %x, %dy : tensor<2x16x176xf32>
    ```
  }];
  let arguments = (ins HetG_FloatTensor:$input, HetG_FloatTensor:$result_grad);
  let results = (outs HetG_FloatTensor:$input_grad);
  let assemblyFormat = "$input `,` $result_grad attr-dict `:` type($input)";
  let hasFolder = 1;
}

#endif // HETC_DIALECT_HETGRAPH_GRAD_OPS
