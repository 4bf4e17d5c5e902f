// RUN: hetc-opt %s --split-input-file --verify-diagnostics

// Every verifier and type inference message of the gradient and optimizer
// ops.

func.func @layer_norm_grad_axis(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'hetg.layer_norm_grad' axis 3 is out of range for rank 3}}
  %a, %b, %c = hetg.layer_norm_grad %x, %x <{axis = 3 : i64, epsilon = 1.0e-05 : f32}> : tensor<2x3x4xf32>
  return
}

// -----

func.func @layer_norm_grad_scale(%x: tensor<2x3x4xf32>, %w: tensor<3xf32>) {
  // expected-error @+1 {{'hetg.layer_norm_grad' scale has type 'tensor<3xf32>' but the normalized dimensions are [4] of 'f32'}}
  %a, %b, %c = hetg.layer_norm_grad %x, %x scale %w : tensor<3xf32> <{axis = 2 : i64, epsilon = 1.0e-05 : f32}> : tensor<2x3x4xf32>
  return
}

// -----

func.func @layer_norm_grad_types(%x: tensor<2x3x4xf32>, %dy: tensor<2x3x4xf16>) {
  // expected-error @+1 {{'hetg.layer_norm_grad' op failed to verify that all of {input, result_grad} have same type}}
  %a:3 = "hetg.layer_norm_grad"(%x, %dy) <{axis = 2 : i64, epsilon = 1.0e-05 : f32}> : (tensor<2x3x4xf32>, tensor<2x3x4xf16>) -> (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @rms_norm_grad_rank(%x: tensor<f32>) {
  // expected-error @+1 {{'hetg.rms_norm_grad' needs an input of rank >= 1}}
  %a, %b = hetg.rms_norm_grad %x, %x <{epsilon = 1.0e-06 : f32}> : tensor<f32>
  return
}

// -----

func.func @rms_norm_grad_scale(%x: tensor<2x4xf32>, %w: tensor<2x4xf32>) {
  // expected-error @+1 {{'hetg.rms_norm_grad' scale has type 'tensor<2x4xf32>' but the normalized dimensions are [4] of 'f32'}}
  %a, %b = hetg.rms_norm_grad %x, %x scale %w : tensor<2x4xf32> <{epsilon = 1.0e-06 : f32}> : tensor<2x4xf32>
  return
}

// -----

func.func @softmax_grad_axis(%y: tensor<2x4xf32>) {
  // expected-error @+1 {{'hetg.softmax_grad' op axis 2 is out of range for rank 2}}
  %0 = hetg.softmax_grad %y, %y <{axis = 2 : i64}> : tensor<2x4xf32>
  return
}

// -----

func.func @log_softmax_grad_axis(%y: tensor<2x4xf32>) {
  // expected-error @+1 {{'hetg.log_softmax_grad' op axis -1 is out of range for rank 2}}
  %0 = hetg.log_softmax_grad %y, %y <{axis = -1 : i64}> : tensor<2x4xf32>
  return
}

// -----

func.func @attention_grad_rank(%q: tensor<4xf32>) {
  // expected-error @+1 {{'hetg.attention_grad' query, key and value must have one rank >= 2}}
  %a, %b, %c = hetg.attention_grad %q, %q, %q, %q <{scale = 1.0 : f32}> : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @attention_grad_output_without_lse(%q: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'hetg.attention_grad' op reads the forward's result and lse together}}
  %a, %b, %c = "hetg.attention_grad"(%q, %q, %q, %q, %q) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 0>, scale = 1.0 : f32}> : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>)
  return
}

// -----

func.func @attention_grad_forward_type(%q: tensor<2x3x4xf32>, %o: tensor<2x3x5xf32>, %lse: tensor<2x3xf32>) {
  // expected-error @+1 {{'hetg.attention_grad' op forward result 'tensor<2x3x5xf32>' differs from the result gradient 'tensor<2x3x4xf32>'}}
  %a, %b, %c = hetg.attention_grad %q, %q, %q, %q forward %o, %lse : tensor<2x3x5xf32>, tensor<2x3xf32> <{scale = 1.0 : f32}> : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
  return
}

// -----

func.func @attention_grad_lse_shape(%q: tensor<2x3x4xf32>, %lse: tensor<2x4xf32>) {
  // expected-error @+1 {{'hetg.attention_grad' op lse 'tensor<2x4xf32>' must have the query's shape without its last dimension}}
  %a, %b, %c = hetg.attention_grad %q, %q, %q, %q forward %q, %lse : tensor<2x3x4xf32>, tensor<2x4xf32> <{scale = 1.0 : f32}> : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
  return
}

// -----

func.func @attention_grad_leading(%q: tensor<2x3x4xf32>, %k: tensor<1x3x4xf32>) {
  // expected-error @+1 {{'hetg.attention_grad' query, key and value must have the same leading dimensions}}
  %a, %b, %c = hetg.attention_grad %q, %k, %k, %q <{scale = 1.0 : f32}> : tensor<2x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<2x3x4xf32>
  return
}

// -----

func.func @attention_grad_heads(%q: tensor<2x3x4xf32>, %k: tensor<2x3x8xf32>) {
  // expected-error @+1 {{'hetg.attention_grad' query and key head sizes or key and value lengths differ}}
  %a, %b, %c = hetg.attention_grad %q, %k, %q, %q <{scale = 1.0 : f32}> : tensor<2x3x4xf32>, tensor<2x3x8xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
  return
}

// -----

func.func @attention_grad_result(%q: tensor<2x3x4xf32>, %v: tensor<2x3x2xf32>) {
  // expected-error @+1 {{'hetg.attention_grad' result gradient has type 'tensor<2x3x4xf32>' but the attention result is [2x3x2] of 'f32'}}
  %a, %b, %c = hetg.attention_grad %q, %q, %v, %q <{scale = 1.0 : f32}> : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x2xf32>, tensor<2x3x4xf32>
  return
}

// -----

func.func @cross_entropy_grad_ranks(%z: tensor<4x5xf32>, %l: tensor<4x5xi64>, %d: tensor<f32>) {
  // expected-error @+1 {{'hetg.cross_entropy_grad' needs logits [N, C, d...] and labels [N, d...]}}
  %0 = hetg.cross_entropy_grad %z, %l, %d <{reduction = #hetg<loss_reduction mean>}> : tensor<4x5xf32>, tensor<4x5xi64>, tensor<f32>
  return
}

// -----

func.func @cross_entropy_grad_labels(%z: tensor<4x5xf32>, %l: tensor<3xi64>, %d: tensor<f32>) {
  // expected-error @+1 {{'hetg.cross_entropy_grad' labels [3] do not match logits [4x5]}}
  %0 = hetg.cross_entropy_grad %z, %l, %d <{reduction = #hetg<loss_reduction mean>}> : tensor<4x5xf32>, tensor<3xi64>, tensor<f32>
  return
}

// -----

func.func @cross_entropy_grad_mean(%z: tensor<4x5xf32>, %l: tensor<4xi64>, %d: tensor<4xf32>) {
  // expected-error @+1 {{'hetg.cross_entropy_grad' loss gradient must have the loss's type: 0-D of 'f32'}}
  %0 = hetg.cross_entropy_grad %z, %l, %d <{reduction = #hetg<loss_reduction mean>}> : tensor<4x5xf32>, tensor<4xi64>, tensor<4xf32>
  return
}

// -----

func.func @cross_entropy_grad_low_precision(%z: tensor<4x5xbf16>, %l: tensor<4xi64>, %d: tensor<bf16>) {
  // expected-error @+1 {{'hetg.cross_entropy_grad' loss gradient must have the loss's type: 0-D of 'f32'}}
  %0 = hetg.cross_entropy_grad %z, %l, %d <{reduction = #hetg<loss_reduction sum>}> : tensor<4x5xbf16>, tensor<4xi64>, tensor<bf16>
  return
}

// -----

func.func @cross_entropy_grad_none(%z: tensor<4x5xf32>, %l: tensor<4xi64>, %d: tensor<f32>) {
  // expected-error @+1 {{'hetg.cross_entropy_grad' loss gradient must have the loss's type: one value per label of 'f32'}}
  %0 = hetg.cross_entropy_grad %z, %l, %d <{reduction = #hetg<loss_reduction none>}> : tensor<4x5xf32>, tensor<4xi64>, tensor<f32>
  return
}

// -----

func.func @gather_grad_dynamic(%dy: tensor<2x4xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'hetg.gather_grad' op needs a static result (data) shape}}
  %0 = hetg.gather_grad %dy[%i] <{axis = 0 : i64}> : tensor<2x4xf32>, tensor<2xi64> -> tensor<?x4xf32>
  return
}

// -----

func.func @gather_grad_axis(%dy: tensor<2x4xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'hetg.gather_grad' op axis 2 is out of range for rank 2}}
  %0 = hetg.gather_grad %dy[%i] <{axis = 2 : i64}> : tensor<2x4xf32>, tensor<2xi64> -> tensor<8x4xf32>
  return
}

// -----

func.func @gather_grad_shape(%dy: tensor<3x4xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'hetg.gather_grad' op result gradient has type 'tensor<3x4xf32>' but gathering from 'tensor<8x4xf32>' gives [2x4]}}
  %0 = hetg.gather_grad %dy[%i] <{axis = 0 : i64}> : tensor<3x4xf32>, tensor<2xi64> -> tensor<8x4xf32>
  return
}

// -----

func.func @slice_grad_dynamic(%dy: tensor<2x4xf32>) {
  // expected-error @+1 {{'hetg.slice_grad' op needs a static result (input) shape}}
  %0 = hetg.slice_grad %dy <{starts = array<i64: 0, 0>, ends = array<i64: 2, 4>, steps = array<i64: 1, 1>}> : tensor<2x4xf32> -> tensor<?x4xf32>
  return
}

// -----

func.func @slice_grad_counts(%dy: tensor<2x4xf32>) {
  // expected-error @+1 {{'hetg.slice_grad' op needs one start, end and step per dimension (2)}}
  %0 = hetg.slice_grad %dy <{starts = array<i64: 0>, ends = array<i64: 2, 4>, steps = array<i64: 1, 1>}> : tensor<2x4xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @slice_grad_step(%dy: tensor<2x4xf32>) {
  // expected-error @+1 {{'hetg.slice_grad' op steps must be positive, got 0 for dimension 1}}
  %0 = hetg.slice_grad %dy <{starts = array<i64: 0, 0>, ends = array<i64: 2, 4>, steps = array<i64: 1, 0>}> : tensor<2x4xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @slice_grad_shape(%dy: tensor<2x4xf32>) {
  // expected-error @+1 {{'hetg.slice_grad' op result gradient has type 'tensor<2x4xf32>' but slicing 'tensor<2x8xf32>' gives [2x3]}}
  %0 = hetg.slice_grad %dy <{starts = array<i64: 0, 2>, ends = array<i64: 2, 8>, steps = array<i64: 1, 2>}> : tensor<2x4xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @sgd_lr(%p: tensor<4xf32>) {
  // expected-error @+1 {{'hetg.sgd' op needs lr >= 0 and weight_decay >= 0}}
  %0 = hetg.sgd %p, %p <{lr = -0.1 : f64}> : tensor<4xf32>
  return
}

// -----

func.func @adamw_lr(%p: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'hetg.adamw' op needs lr, eps and weight_decay >= 0}}
  %a, %b, %c = hetg.adamw %p, %p, %p, %p, %t <{lr = 1.0e-3 : f64, eps = -1.0 : f64}> : tensor<4xf32>, tensor<i64>
  return
}

// -----

func.func @adamw_betas(%p: tensor<4xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{'hetg.adamw' op needs betas in [0, 1), got 9.000000e-01 and 1.000000e+00}}
  %a, %b, %c = hetg.adamw %p, %p, %p, %p, %t <{lr = 1.0e-3 : f64, beta2 = 1.0 : f64}> : tensor<4xf32>, tensor<i64>
  return
}

// -----

func.func @adamw_step(%p: tensor<4xf32>, %t: tensor<1xi64>) {
  // expected-error @+1 {{'hetg.adamw' op operand #4 must be 0D tensor}}
  %a, %b, %c = hetg.adamw %p, %p, %p, %p, %t <{lr = 1.0e-3 : f64}> : tensor<4xf32>, tensor<1xi64>
  return
}

// -----

func.func @adamw_state_types(%p: tensor<4xf32>, %m: tensor<4xf16>, %t: tensor<i64>) {
  // expected-error @+1 {{'hetg.adamw' op failed to verify that all of {param, exp_avg, exp_avg_sq} have same type}}
  %a:3 = "hetg.adamw"(%p, %p, %m, %p, %t) <{lr = 1.0e-3 : f64}> : (tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// A narrower gradient must still have the parameter's shape.
func.func @adamw_grad_shape(%p: tensor<4xf32>, %g: tensor<5xbf16>, %t: tensor<i64>) {
  // expected-error @+1 {{'hetg.adamw' op failed to verify that all of {param, grad} have same shape}}
  %a, %b, %c = hetg.adamw %p, %g, %p, %p, %t <{lr = 1.0e-3 : f64}> : tensor<4xf32> grad tensor<5xbf16>, tensor<i64>
  return
}

// -----

func.func @global_norm_empty() {
  // expected-error @+2 {{'hetg.global_norm' needs at least one input}}
  // expected-error @+1 {{'hetg.global_norm' op failed to infer returned types}}
  %0 = "hetg.global_norm"() : () -> tensor<f32>
  return
}

// -----

func.func @global_norm_types(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'hetg.global_norm' inputs have different element types}}
  %0 = hetg.global_norm %a, %b : tensor<4xf32>, tensor<4xf16>
  return
}

// -----

func.func @minimum_types(%a: tensor<4xf32>, %b: tensor<4xi64>) {
  // expected-error @+1 {{'hetg.minimum' operands have different element types 'f32' and 'i64'}}
  %0 = hetg.minimum %a, %b : tensor<4xf32>, tensor<4xi64>
  return
}

// -----

func.func @lr_schedule_decay(%t: tensor<i64>) {
  // expected-error @+1 {{'hetg.lr_schedule' op a cosine schedule needs decay_steps > warmup_steps, got 10 and 10}}
  %f = hetg.lr_schedule %t <{kind = #hetg<lr_schedule_kind cosine>, warmup_steps = 10 : i64, decay_steps = 10 : i64}> : tensor<i64>
  return
}

// -----

func.func @lr_schedule_min(%t: tensor<i64>) {
  // expected-error @+1 {{'hetg.lr_schedule' op needs warmup_steps >= 0 and min_factor >= 0}}
  %f = hetg.lr_schedule %t <{kind = #hetg<lr_schedule_kind constant>, min_factor = -0.5 : f64}> : tensor<i64>
  return
}

// -----

func.func @lr_factor_type(%p: tensor<4xf32>, %f: tensor<f32>) {
  // expected-error @+1 {{'hetg.sgd' op operand #2 must be 0D tensor of 64-bit float values}}
  %0 = "hetg.sgd"(%p, %p, %f) <{lr = 0.1 : f64}> : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}
