//===- HetGraphOptimizerOps.td - hetg optimizer ops --------*- tablegen -*-===//
//
// Parameter updates with torch.optim semantics. `hetg-optimizer` emits them
// from the gradients `hetg-autodiff` returns; they take and give values, and
// the pass stores the results into the mutable parameter and state globals.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_DIALECT_HETGRAPH_OPTIMIZER_OPS
#define HETC_DIALECT_HETGRAPH_OPTIMIZER_OPS

include "HetGraphDialect.td"

// A learning-rate factor: tensor<f64>.
def HetG_LrFactor : 0DTensorOf<[F64]> {
  let builderCall = "::mlir::RankedTensorType::get({}, $_builder.getF64Type())";
}

def HetG_SgdOp : HetG_Op<"sgd", [Pure,
    AllTypesMatch<["param", "grad", "new_param"]>]> {
  let summary = "One step of stochastic gradient descent";
  let description = [{
    torch.optim.SGD without momentum: `param - lr * (grad + weight_decay *
    param)`; the decay is torch's coupled L2 term and is 0 by default. With
    `lr_factor` (a step's `hetg.lr_schedule`), the rate is `lr * lr_factor`,
    as torch's LambdaLR sets it.

    ```mlir
    %p1 = hetg.sgd %p, %g <{lr = 1.000000e-01 : f64}> : tensor<64x64xf32>
    %p2 = hetg.sgd %p, %g lr_factor %f <{lr = 1.000000e-01 : f64}>
        : tensor<64x64xf32>
    ```
  }];
  let arguments = (ins HetG_FloatTensor:$param, HetG_FloatTensor:$grad,
                       Optional<HetG_LrFactor>:$lr_factor, F64Attr:$lr,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_decay);
  let results = (outs HetG_FloatTensor:$new_param);
  let assemblyFormat = [{
    $param `,` $grad (`lr_factor` $lr_factor^)? prop-dict attr-dict `:`
    type($param)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HetG_AdamWOp : HetG_InferredOp<"adamw",
    [AllTypesMatch<["param", "exp_avg", "exp_avg_sq"]>,
     AllShapesMatch<["param", "grad"]>]> {
  let summary = "One step of AdamW";
  let description = [{
    torch.optim.AdamW (no amsgrad) at step `step` (t >= 1, counting this
    one), on the running averages `exp_avg` (m) and `exp_avg_sq` (v):

    ```
    p = p * (1 - lr * weight_decay)
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    p = p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
    ```

    The results are the new parameter, m and v. `step` is a 0-D integer or
    float tensor. With `lr_factor` (a step's `hetg.lr_schedule`), `lr` is
    `lr * lr_factor` throughout, decay included, as torch's LambdaLR sets
    it.

    The gradient has the parameter's shape; its element type may be
    narrower (a bf16 or f16 gradient of f32 master weights, written after
    the parameter's type as `grad T`): it is widened exactly before use.
    The canonicalizer folds a widening `hetg.cast` of the gradient into the
    update this way.

    ```mlir
    %p1, %m1, %v1 = hetg.adamw %p, %g, %m, %v, %t <{lr = 1.000000e-03 : f64,
        weight_decay = 1.000000e-01 : f64}> : tensor<64x64xf32>, tensor<i64>
    %p2, %m2, %v2 = hetg.adamw %p, %g16, %m, %v, %t <{lr = 1.000000e-03 : f64}>
        : tensor<64x64xf32> grad tensor<64x64xbf16>, tensor<i64>
    ```
  }];
  let arguments = (ins HetG_FloatTensor:$param, HetG_FloatTensor:$grad,
                       HetG_FloatTensor:$exp_avg, HetG_FloatTensor:$exp_avg_sq,
                       HetG_ScalarTensor:$step,
                       Optional<HetG_LrFactor>:$lr_factor, F64Attr:$lr,
                       DefaultValuedAttr<F64Attr, "0.9">:$beta1,
                       DefaultValuedAttr<F64Attr, "0.999">:$beta2,
                       DefaultValuedAttr<F64Attr, "1.0e-8">:$eps,
                       DefaultValuedAttr<F64Attr, "1.0e-2">:$weight_decay);
  let results = (outs HetG_FloatTensor:$new_param, HetG_FloatTensor:$new_exp_avg,
                      HetG_FloatTensor:$new_exp_avg_sq);
  let assemblyFormat = [{
    $param `,` $grad `,` $exp_avg `,` $exp_avg_sq `,` $step
    (`lr_factor` $lr_factor^)? prop-dict attr-dict `:`
    custom<ParamAndGradTypes>(type($param), type($grad)) `,` type($step)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def HetG_LrScheduleOp : HetG_Op<"lr_schedule", [Pure]> {
  let summary = "The learning-rate factor of a step";
  let description = [{
    nanoGPT's `get_lr(it) / lr` at the 0-based step index `step` (the
    function argument `step` of a training step, written by the runtime
    before each step), the factor torch's LambdaLR applies:

    ```
    it < warmup_steps:  (it + 1) / (warmup_steps + 1)
    constant:           1
    it > decay_steps:   min_factor
    otherwise:          min_factor + c * (1 - min_factor), where
                        r = (it - warmup_steps) / (decay_steps - warmup_steps)
                        c = (1 + cos(pi * r)) / 2 (cosine) or 1 - r (linear)
    ```

    `min_factor` is min_lr / lr. Computed in f64; the optimizer ops take
    the factor as `lr_factor`.

    ```mlir
    %f = hetg.lr_schedule %step <{kind = #hetg<lr_schedule_kind cosine>,
        warmup_steps = 100 : i64, decay_steps = 5000 : i64,
        min_factor = 1.000000e-01 : f64}> : tensor<i64>
    ```
  }];
  let arguments = (ins 0DTensorOf<[I64, I32]>:$step,
                       HetG_LrScheduleKindAttr:$kind,
                       DefaultValuedAttr<I64Attr, "0">:$warmup_steps,
                       DefaultValuedAttr<I64Attr, "0">:$decay_steps,
                       DefaultValuedAttr<F64Attr, "0.0">:$min_factor);
  let results = (outs HetG_LrFactor:$factor);
  let assemblyFormat = "$step prop-dict attr-dict `:` type($step)";
  let hasVerifier = 1;
}

def HetG_GlobalNormOp : HetG_InferredOp<"global_norm"> {
  let summary = "The L2 norm of all elements of several tensors";
  let description = [{
    `sqrt(sum over tensors of sum(x^2))`, a 0-D tensor of the operands'
    element type: what torch.nn.utils.clip_grad_norm_ computes over the
    gradients before clipping them.

    ```mlir
    %n = hetg.global_norm %g0, %g1 : tensor<64x64xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins Variadic<HetG_FloatTensor>:$inputs);
  let results = (outs 0DTensorOf<[HetG_Float]>:$result);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasFolder = 1;
}

#endif // HETC_DIALECT_HETGRAPH_OPTIMIZER_OPS
