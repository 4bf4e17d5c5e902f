//===- HetGraphOps.td - hetg forward ops -------------------*- tablegen -*-===//
//
// The forward op set of transformer graphs as torch.onnx.export emits them,
// after fusion. Shape-computation ops (shape, range, constant_of_shape, the
// dynamic_* forms) exist only between import and `hetg-specialize`. The
// gradient and optimizer ops are in their own files, included at the end.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_DIALECT_HETGRAPH_OPS
#define HETC_DIALECT_HETGRAPH_OPS

include "HetGraphDialect.td"
include "HetGraphEnums.td"
include "HetGraphInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def HetG_ConstantOp : HetG_InferredOp<"constant", [ConstantLike]> {
  let summary = "A tensor constant held inline";
  let description = [{
    Small constants only (masks, shapes, scalars); weights are
    `ml_program.global` symbols.

    ```mlir
    %0 = hetg.constant dense<[2, 3]> : tensor<2xi64>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  // Moves less than its operands and results (see CostOpInterface).
  let extraClassDeclaration = "int64_t bytesMoved();";
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class HetG_FloatUnaryOp<string mnemonic, string what>
    : HetG_UnaryOp<mnemonic, HetG_FloatTensor, [HetG_Differentiable]> {
  let summary = "Elementwise " # what;
  let description = [{
    ```mlir
    %y = hetg.}] # mnemonic # [{ %x : tensor<4x8xf32>
    ```
  }];
}

def HetG_NegOp : HetG_UnaryOp<"neg", HetG_NumericTensor, [HetG_Differentiable]> {
  let summary = "Elementwise negation";
  let description = [{
    ```mlir
    %y = hetg.neg %x : tensor<4xf32>
    ```
  }];
}
def HetG_SqrtOp : HetG_FloatUnaryOp<"sqrt", "square root">;
def HetG_ReciprocalOp : HetG_FloatUnaryOp<"reciprocal", "1 / x">;
def HetG_ExpOp : HetG_FloatUnaryOp<"exp", "e^x">;
def HetG_LogOp : HetG_FloatUnaryOp<"log", "natural logarithm">;
def HetG_TanhOp : HetG_FloatUnaryOp<"tanh", "hyperbolic tangent">;
def HetG_CosOp : HetG_FloatUnaryOp<"cos", "cosine">;
def HetG_SinOp : HetG_FloatUnaryOp<"sin", "sine">;
def HetG_ErfOp : HetG_FloatUnaryOp<"erf", "Gauss error function">;
def HetG_SigmoidOp : HetG_FloatUnaryOp<"sigmoid", "logistic sigmoid 1 / (1 + e^-x)">;
def HetG_ReluOp : HetG_FloatUnaryOp<"relu", "max(x, 0)">;
def HetG_SiluOp : HetG_FloatUnaryOp<"silu", "x * sigmoid(x)">;

def HetG_GeluOp : HetG_UnaryOp<"gelu", HetG_FloatTensor, [HetG_Differentiable]> {
  let summary = "Gaussian error linear unit";
  let description = [{
    `x * Phi(x)`, with `Phi` evaluated exactly (`erf`) or by the tanh
    approximation `0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))`.

    ```mlir
    %y = hetg.gelu %x <{approximate = #hetg<gelu_approximation tanh>}> : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins HetG_FloatTensor:$input,
      DefaultValuedAttr<HetG_GeluApproximationAttr,
                        "GeluApproximation::none">:$approximate);
  let assemblyFormat = "$input prop-dict attr-dict `:` type($input)";
}

def HetG_AddOp : HetG_BroadcastBinaryOp<"add", [Commutative, HetG_Differentiable]> {
  let summary = "Elementwise sum with broadcasting";
  let description = [{
    ```mlir
    %z = hetg.add %x, %b : tensor<2x16x64xf32>, tensor<64xf32>
    ```
  }];
  let hasCanonicalizer = 1;
}
def HetG_SubOp : HetG_BroadcastBinaryOp<"sub", [HetG_Differentiable]> {
  let summary = "Elementwise difference with broadcasting";
  let description = [{
    ```mlir
    %z = hetg.sub %x, %m : tensor<2x16x64xf32>, tensor<2x16x1xf32>
    ```
  }];
}
def HetG_MulOp : HetG_BroadcastBinaryOp<"mul", [Commutative, HetG_Differentiable]> {
  let summary = "Elementwise product with broadcasting";
  let description = [{
    ```mlir
    %z = hetg.mul %x, %s : tensor<2x16x64xf32>, tensor<f32>
    ```
  }];
}
def HetG_DivOp : HetG_BroadcastBinaryOp<"div", [HetG_Differentiable]> {
  let summary = "Elementwise quotient with broadcasting";
  let description = [{
    Integer division truncates toward zero, as in ONNX.

    ```mlir
    %z = hetg.div %x, %s : tensor<2x16x64xf32>, tensor<f32>
    ```
  }];
}
def HetG_PowOp : HetG_BroadcastBinaryOp<"pow", [HetG_Differentiable]> {
  let summary = "Elementwise power with broadcasting";
  let description = [{
    ```mlir
    %z = hetg.pow %x, %two : tensor<2x16x64xf32>, tensor<f32>
    ```
  }];
}
def HetG_EqualOp : HetG_BroadcastBinaryOp<"equal", [Commutative]> {
  let summary = "Elementwise equality with broadcasting, giving i1";
  let description = [{
    ```mlir
    %z = hetg.equal %x, %y : tensor<4xi64>, tensor<i64>
    ```
  }];
}

def HetG_ModOp : HetG_BroadcastBinaryOp<"mod"> {
  let summary = "Remainder with the sign of the divisor (ONNX Mod, fmod = 0)";
  let description = [{
    `x - y * floor(x / y)`, Python's `%`. An integer remainder by 0 is 0.

    ```mlir
    %r = hetg.mod %x, %n : tensor<4xi64>, tensor<i64>
    ```
  }];
}
def HetG_FmodOp : HetG_BroadcastBinaryOp<"fmod"> {
  let summary = "Remainder with the sign of the dividend (ONNX Mod, fmod = 1)";
  let description = [{
    C's `fmod`: `x - y * trunc(x / y)`. An integer remainder by 0 is 0.

    ```mlir
    %r = hetg.fmod %x, %y : tensor<4xf32>, tensor<f32>
    ```
  }];
}

def HetG_MinimumOp : HetG_BroadcastBinaryOp<"minimum",
    [Commutative, HetG_Differentiable]> {
  let summary = "Elementwise minimum with broadcasting";
  let description = [{
    NaN in either operand gives NaN. Where both operands are equal, the
    gradient is split evenly between them.

    ```mlir
    %z = hetg.minimum %one, %ratio : tensor<f32>, tensor<f32>
    ```
  }];
}
def HetG_MaximumOp : HetG_BroadcastBinaryOp<"maximum",
    [Commutative, HetG_Differentiable]> {
  let summary = "Elementwise maximum with broadcasting";
  let description = [{
    NaN in either operand gives NaN. Where both operands are equal, the
    gradient is split evenly between them.

    ```mlir
    %z = hetg.maximum %x, %zero : tensor<4x8xf32>, tensor<f32>
    ```
  }];
}

def HetG_WhereOp : HetG_InferredOp<"where", [HetG_Differentiable]> {
  let summary = "Elementwise select with broadcasting";
  let description = [{
    `condition ? on_true : on_false`, broadcasting all three.

    ```mlir
    %z = hetg.where %mask, %x, %ninf : tensor<16x16xi1>, tensor<2x4x16x16xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins HetG_BoolTensor:$condition, HetG_NumericTensor:$on_true,
                       HetG_NumericTensor:$on_false);
  let results = (outs HetG_NumericTensor:$result);
  let assemblyFormat = [{
    $condition `,` $on_true `,` $on_false attr-dict `:`
    type($condition) `,` type($on_true) `,` type($on_false)
  }];
  let hasFolder = 1;
}

def HetG_CastOp : HetG_InferredOp<"cast", [HetG_Differentiable]> {
  let summary = "Elementwise conversion to another element type";
  let description = [{
    Float to integer truncates toward zero; anything to i1 tests for non-zero.

    ```mlir
    %y = hetg.cast %x to f32 : tensor<2x16xi64>
    ```
  }];
  let arguments = (ins HetG_NumericTensor:$input, TypeAttr:$to);
  let results = (outs HetG_NumericTensor:$result);
  let assemblyFormat = "$input `to` $to attr-dict `:` type($input)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def HetG_MatmulOp : HetG_InferredOp<"matmul", [HetG_Differentiable]> {
  let summary = "Batched matrix product with optional transposes and bias";
  let description = [{
    `op(lhs) @ op(rhs) + bias`, where `op` swaps the last two dimensions when
    the matching `transpose_*` flag is set. Leading (batch) dimensions
    broadcast as in numpy. Operands have rank >= 2; `bias` is 1-D and adds
    along the last dimension of the result.

    ```mlir
    %y = hetg.matmul %x, %w bias %b : tensor<64xf32> <{transpose_rhs}>
        : tensor<2x16x64xf32>, tensor<256x64xf32>
    ```
  }];
  let arguments = (ins HetG_FloatTensor:$lhs, HetG_FloatTensor:$rhs,
                       Optional<HetG_FloatTensor>:$bias,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let results = (outs HetG_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`bias` $bias^ `:` type($bias))? prop-dict attr-dict `:`
    type($lhs) `,` type($rhs)
  }];
  let hasCanonicalizer = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def HetG_TransposeOp : HetG_InferredOp<"transpose", [HetG_Differentiable]> {
  let summary = "Permutes dimensions";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`.

    ```mlir
    %y = hetg.transpose %x [0, 2, 1, 3] : tensor<2x16x4x16xf32>
    ```
  }];
  let arguments = (ins HetG_NumericTensor:$input,
                       DenseI64ArrayAttr:$permutation);
  let results = (outs HetG_NumericTensor:$result);
  let assemblyFormat = "$input $permutation attr-dict `:` type($input)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def HetG_ReshapeOp : HetG_Op<"reshape", [Pure, HetG_Differentiable]> {
  let summary = "Reinterprets a static tensor with another static shape";
  let description = [{
    Row-major order is kept; both shapes are static with equal element counts.

    ```mlir
    %y = hetg.reshape %x : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
    ```
  }];
  let arguments = (ins HetG_NumericTensor:$input);
  let results = (outs HetG_NumericTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  // Moves less than its operands and results (see CostOpInterface).
  let extraClassDeclaration = "int64_t bytesMoved();";
}

def HetG_DynamicReshapeOp : HetG_InferredOp<"dynamic_reshape"> {
  let summary = "Reshape to a shape computed at run time (ONNX Reshape)";
  let description = [{
    `shape` follows ONNX: `0` copies the input dimension at the same index
    (with `allowzero`, it is an empty dimension) and one `-1` is inferred
    from the element count. Becomes `hetg.reshape` once the input is static
    and `shape` is a constant.

    ```mlir
    %y = hetg.dynamic_reshape %x, %s : tensor<?x16x64xf32>, tensor<4xi64>
    ```
  }];
  let arguments = (ins HetG_NumericTensor:$input, HetG_ShapeTensor:$shape,
                       UnitAttr:$allowzero);
  let results = (outs HetG_NumericTensor:$result);
  let assemblyFormat = [{
    $input `,` $shape attr-dict `:` type($input) `,` type($shape)
  }];
  let hasCanonicalizer = 1;
}

def HetG_BroadcastOp : HetG_Op<"broadcast", [Pure, HetG_Differentiable]> {
  let summary = "Broadcasts a static tensor to a static shape";
  let description = [{
    Numpy rules: trailing dimensions align; size-1 dimensions repeat.

    ```mlir
    %y = hetg.broadcast %x : tensor<1x16xi64> -> tensor<2x16xi64>
    ```
  }];
  let arguments = (ins HetG_NumericTensor:$input);
  let results = (outs HetG_NumericTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HetG_DynamicBroadcastOp : HetG_InferredOp<"dynamic_broadcast"> {
  let summary = "Broadcast against a shape computed at run time (ONNX Expand)";
  let description = [{
    The result shape is the numpy broadcast of the input shape and `shape`.
    Becomes `hetg.broadcast` once the input is static and `shape` is constant.

    ```mlir
    %y = hetg.dynamic_broadcast %x, %s : tensor<1x16xi64>, tensor<2xi64>
    ```
  }];
  let arguments = (ins HetG_NumericTensor:$input, HetG_ShapeTensor:$shape);
  let results = (outs HetG_NumericTensor:$result);
  let assemblyFormat = [{
    $input `,` $shape attr-dict `:` type($input) `,` type($shape)
  }];
  let hasCanonicalizer = 1;
}

def HetG_SliceOp : HetG_InferredOp<"slice", [HetG_Differentiable]> {
  let summary = "Strided slice along every dimension (ONNX Slice)";
  let description = [{
    One `starts`, `ends`, `steps` entry per dimension, with ONNX meaning:
    negative indices count from the end, and indices clamp to the dimension.
    Steps are positive.

    ```mlir
    %y = hetg.slice %x <{starts = array<i64: 0, 0>, ends = array<i64: 2, 8>,
                        steps = array<i64: 1, 1>}> : tensor<2x16xf32>
    ```
  }];
  let arguments = (ins HetG_NumericTensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$ends, DenseI64ArrayAttr:$steps);
  let results = (outs HetG_NumericTensor:$result);
  let assemblyFormat = "$input prop-dict attr-dict `:` type($input)";
  let hasFolder = 1;
  // Moves less than its operands and results (see CostOpInterface).
  let extraClassDeclaration = "int64_t bytesMoved();";
}

def HetG_DynamicSliceOp : HetG_InferredOp<"dynamic_slice"> {
  let summary = "Slice with bounds computed at run time (ONNX Slice)";
  let description = [{
    `starts[i]` and `ends[i]` apply to dimension `axes[i]` with step
    `steps[i]`. Becomes `hetg.slice` once the bounds are constants.

    ```mlir
    %y = hetg.dynamic_slice %x, %s, %e <{axes = array<i64: 1>, steps = array<i64: 1>}>
        : tensor<1x64x64xf32>, tensor<1xi64>, tensor<1xi64>
    ```
  }];
  let arguments = (ins HetG_NumericTensor:$input, HetG_ShapeTensor:$starts,
                       HetG_ShapeTensor:$ends, DenseI64ArrayAttr:$axes,
                       DenseI64ArrayAttr:$steps);
  let results = (outs HetG_NumericTensor:$result);
  let assemblyFormat = [{
    $input `,` $starts `,` $ends prop-dict attr-dict `:`
    type($input) `,` type($starts) `,` type($ends)
  }];
  let hasCanonicalizer = 1;
}

def HetG_ConcatOp : HetG_InferredOp<"concat", [HetG_Differentiable]> {
  let summary = "Joins tensors along one dimension";
  let description = [{
    ```mlir
    %y = hetg.concat %a, %b <{axis = 0 : i64}> : tensor<1xi64>, tensor<2xi64>
    ```
  }];
  let arguments = (ins Variadic<HetG_NumericTensor>:$inputs, I64Attr:$axis);
  let results = (outs HetG_NumericTensor:$result);
  let assemblyFormat = "$inputs prop-dict attr-dict `:` type($inputs)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def HetG_GatherOp : HetG_InferredOp<"gather", [HetG_Differentiable]> {
  let summary = "Selects slices by index along one axis (ONNX Gather)";
  let description = [{
    The result shape is `data[:axis] + indices + data[axis+1:]`; negative
    indices count from the end. An embedding lookup is a gather on axis 0.

    ```mlir
    %e = hetg.gather %table[%ids] <{axis = 0 : i64}> : tensor<256x64xf32>, tensor<2x16xi64>
    ```
  }];
  let arguments = (ins HetG_NumericTensor:$data, HetG_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs HetG_NumericTensor:$result);
  let assemblyFormat = [{
    $data `[` $indices `]` prop-dict attr-dict `:` type($data) `,` type($indices)
  }];
  let hasFolder = 1;
  // Moves less than its operands and results (see CostOpInterface).
  let extraClassDeclaration = "int64_t bytesMoved();";
}

def HetG_ScatterNDOp : HetG_InferredOp<"scatter_nd"> {
  let summary = "Writes slices at multi-indices (ONNX ScatterND)";
  let description = [{
    The result is `data` with, for each index tuple `indices[i..., :]` (its
    last dimension `k` indexes the first `k` dimensions of `data`; negative
    entries count from the end), the slice there replaced by
    `updates[i..., ...]` or combined with it by `reduction`. `updates` has
    shape `indices.shape[:-1] + data.shape[k:]`. With `none`, repeated
    indices leave one of their updates (ONNX leaves which undefined); the
    reductions apply the updates in index order. Not differentiable: exports
    use it to build masks, which do not depend on parameters.

    ```mlir
    %m = hetg.scatter_nd %mask[%idx], %rows <{reduction = #hetg<scatter_reduction none>}>
        : tensor<2x1x16x16xf32>, tensor<2x1xi64>, tensor<2x1x16x16xf32>
    ```
  }];
  let arguments = (ins HetG_NumericTensor:$data, HetG_IndexTensor:$indices,
                       HetG_NumericTensor:$updates,
                       HetG_ScatterReductionAttr:$reduction);
  let results = (outs HetG_NumericTensor:$result);
  let assemblyFormat = [{
    $data `[` $indices `]` `,` $updates prop-dict attr-dict `:` type($data) `,`
    type($indices) `,` type($updates)
  }];
  let hasFolder = 1;
  let extraClassDeclaration = "int64_t bytesMoved();";
}

//===----------------------------------------------------------------------===//
// Reductions and normalization
//===----------------------------------------------------------------------===//

def HetG_ReduceSumOp : HetG_ReduceOp<"reduce_sum", [HetG_Differentiable]> {
  let summary = "Sum over axes";
  let description = [{
    ```mlir
    %s = hetg.reduce_sum %x <{axes = array<i64: 2>}> : tensor<2x16x64xf32>
    ```
  }];
  let hasFolder = 1;
}
def HetG_ReduceMeanOp : HetG_ReduceOp<"reduce_mean", [HetG_Differentiable]> {
  let summary = "Mean over axes";
  let description = [{
    ```mlir
    %m = hetg.reduce_mean %x <{axes = array<i64: 2>}> : tensor<2x16x64xf32>
    ```
  }];
  let hasFolder = 1;
}
def HetG_ReduceMaxOp : HetG_ReduceOp<"reduce_max", [HetG_Differentiable]> {
  let summary = "Maximum over axes";
  let description = [{
    ```mlir
    %m = hetg.reduce_max %x <{axes = array<i64: 2>, keep_dims = false}> : tensor<2x16x64xf32>
    ```
  }];
  let hasFolder = 1;
}

def HetG_SoftmaxOp : HetG_Op<"softmax",
    [Pure, SameOperandsAndResultType, HetG_Differentiable]> {
  let summary = "Softmax along one axis";
  let description = [{
    ```mlir
    %p = hetg.softmax %x <{axis = 3 : i64}> : tensor<2x4x16x16xf32>
    ```
  }];
  let arguments = (ins HetG_FloatTensor:$input, I64Attr:$axis);
  let results = (outs HetG_FloatTensor:$result);
  let assemblyFormat = "$input prop-dict attr-dict `:` type($input)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HetG_LogSoftmaxOp : HetG_Op<"log_softmax",
    [Pure, SameOperandsAndResultType, HetG_Differentiable]> {
  let summary = "Log of softmax along one axis";
  let description = [{
    ```mlir
    %p = hetg.log_softmax %x <{axis = 2 : i64}> : tensor<2x16x256xf32>
    ```
  }];
  let arguments = (ins HetG_FloatTensor:$input, I64Attr:$axis);
  let results = (outs HetG_FloatTensor:$result);
  let assemblyFormat = "$input prop-dict attr-dict `:` type($input)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HetG_LayerNormOp : HetG_InferredOp<"layer_norm",
    [AttrSizedOperandSegments, HetG_Differentiable]> {
  let summary = "Layer normalization over the dimensions from `axis` on";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * scale + bias`, with mean and (biased)
    variance over dimensions `[axis, rank)`. `scale` and `bias` have the
    shape of those dimensions.

    ```mlir
    %y = hetg.layer_norm %x scale %w : tensor<64xf32> bias %b : tensor<64xf32>
        <{axis = 2 : i64, epsilon = 1.0e-05 : f32}> : tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins HetG_FloatTensor:$input,
                       Optional<HetG_FloatTensor>:$scale,
                       Optional<HetG_FloatTensor>:$bias,
                       I64Attr:$axis, F32Attr:$epsilon);
  let results = (outs HetG_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`scale` $scale^ `:` type($scale))? (`bias` $bias^ `:` type($bias))?
    prop-dict attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HetG_RmsNormOp : HetG_InferredOp<"rms_norm", [HetG_Differentiable]> {
  let summary = "Root-mean-square normalization over the last dimension";
  let description = [{
    `x / sqrt(mean(x^2) + epsilon) * scale`.

    ```mlir
    %y = hetg.rms_norm %x scale %w : tensor<64xf32> <{epsilon = 1.0e-06 : f32}>
        : tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins HetG_FloatTensor:$input,
                       Optional<HetG_FloatTensor>:$scale, F32Attr:$epsilon);
  let results = (outs HetG_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`scale` $scale^ `:` type($scale))? prop-dict attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Transformer blocks
//===----------------------------------------------------------------------===//

def HetG_AttentionOp : HetG_InferredOp<"attention", [HetG_Differentiable]> {
  let summary = "Scaled dot-product attention";
  let description = [{
    `softmax(query @ key^T * scale + mask) @ value` over the last two
    dimensions; leading dimensions (batch, heads) match. `causal` masks
    key positions after the query position; `mask` is additive and
    broadcasts to `[..., Tq, Tk]`.

    With `with_lse` a second result holds each query row's log-sum-exp of
    its scaled, masked scores (f32, `[..., Tq]`): what `hetg.attention_grad`
    needs of the forward beside its result. The canonicalizer adds it where
    a backward reads the same attention, and drops it where nothing reads it.

    ```mlir
    %o = hetg.attention %q, %k, %v <{causal, scale = 2.500000e-01 : f32}>
        : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>
    %o2, %lse = hetg.attention %q, %k, %v <{causal, scale = 2.500000e-01 : f32, with_lse}>
        : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>
    ```
  }];
  let arguments = (ins HetG_FloatTensor:$query, HetG_FloatTensor:$key,
                       HetG_FloatTensor:$value, Optional<HetG_FloatTensor>:$mask,
                       F32Attr:$scale, UnitAttr:$causal, UnitAttr:$with_lse);
  let results = (outs HetG_FloatTensor:$result,
                      Optional<TensorOf<[F32]>>:$lse);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^ `:` type($mask))? prop-dict attr-dict `:`
    type($query) `,` type($key) `,` type($value)
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def HetG_CrossEntropyOp : HetG_InferredOp<"cross_entropy", [HetG_Differentiable]> {
  let summary = "Softmax cross-entropy of scores against class labels";
  let description = [{
    ONNX SoftmaxCrossEntropyLoss layout: `logits` is `[N, C, d...]` (classes
    on dimension 1), `labels` is `[N, d...]`. Labels equal to `ignore_index`
    contribute nothing and are left out of the mean.

    The loss has the logits' element type, except that bf16 and f16 logits
    give an f32 loss: mixed-precision training computes the logits in the
    low type but keeps the loss (and its gradient seed) in f32, and the
    log-sum-exp is computed in f32 either way.

    ```mlir
    %l = hetg.cross_entropy %logits, %labels
        <{reduction = #hetg<loss_reduction mean>}> : tensor<32x256xf32>, tensor<32xi64>
    %m = hetg.cross_entropy %low, %labels
        <{reduction = #hetg<loss_reduction sum>}> : tensor<32x256xbf16>, tensor<32xi64>
    ```
  }];
  let arguments = (ins HetG_FloatTensor:$logits, HetG_IndexTensor:$labels,
                       HetG_LossReductionAttr:$reduction,
                       OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs HetG_FloatTensor:$result);
  let assemblyFormat = [{
    $logits `,` $labels prop-dict attr-dict `:` type($logits) `,` type($labels)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Shape computation (gone after hetg-specialize)
//===----------------------------------------------------------------------===//

def HetG_ShapeOp : HetG_InferredOp<"shape"> {
  let summary = "The dimensions `[start, end)` of a tensor as i64 values";
  let description = [{
    Folds to a constant as soon as those dimensions are static.

    ```mlir
    %s = hetg.shape %x <{start = 0 : i64, end = 1 : i64}> : tensor<?x16xi64>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, I64Attr:$start, I64Attr:$end);
  let results = (outs HetG_ShapeTensor:$result);
  let assemblyFormat = "$input prop-dict attr-dict `:` type($input)";
  let hasFolder = 1;
  // Moves less than its operands and results (see CostOpInterface).
  let extraClassDeclaration = "int64_t bytesMoved();";
}

def HetG_RangeOp : HetG_InferredOp<"range"> {
  let summary = "The sequence start, start + delta, ... up to limit";
  let description = [{
    ```mlir
    %r = hetg.range %start, %limit, %delta : tensor<i64>, tensor<i64>, tensor<i64>
    ```
  }];
  let arguments = (ins HetG_ScalarTensor:$start, HetG_ScalarTensor:$limit,
                       HetG_ScalarTensor:$delta);
  let results = (outs 1DTensorOf<[HetG_Float, I32, I64]>:$result);
  let assemblyFormat = [{
    $start `,` $limit `,` $delta attr-dict `:`
    type($start) `,` type($limit) `,` type($delta)
  }];
  let hasFolder = 1;
}

def HetG_ConstantOfShapeOp : HetG_InferredOp<"constant_of_shape"> {
  let summary = "A tensor of a computed shape filled with one value";
  let description = [{
    ```mlir
    %z = hetg.constant_of_shape %s <{value = dense<0.0> : tensor<1xf32>}> : tensor<2xi64>
    ```
  }];
  let arguments = (ins HetG_ShapeTensor:$shape, ElementsAttr:$value);
  let results = (outs HetG_NumericTensor:$result);
  let assemblyFormat = "$shape prop-dict attr-dict `:` type($shape)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HetG_TriluOp : HetG_Op<"trilu",
    [Pure, SameOperandsAndResultType, HetG_Differentiable]> {
  let summary = "Keeps the upper or lower triangle of the last two dimensions";
  let description = [{
    Lower keeps elements with `col - row <= k`, upper those with
    `col - row >= k`; the rest become zero.

    ```mlir
    %m = hetg.trilu %ones <{k = 0 : i64, upper = false}> : tensor<16x16xf32>
    ```
  }];
  let arguments = (ins HetG_NumericTensor:$input, I64Attr:$k, BoolAttr:$upper);
  let results = (outs HetG_NumericTensor:$result);
  let assemblyFormat = "$input prop-dict attr-dict `:` type($input)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

include "HetGraphGradOps.td"
include "HetGraphOptimizerOps.td"

#endif // HETC_DIALECT_HETGRAPH_OPS
