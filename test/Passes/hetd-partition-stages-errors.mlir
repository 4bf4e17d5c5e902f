// RUN: hetc-opt %s --split-input-file --hetd-partition-stages="stage-starts=1" --verify-diagnostics
// RUN: not hetc-opt %s --split-input-file --hetd-partition-stages="stage-starts=2,1" 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: not hetc-opt %s --split-input-file --hetd-partition-stages="stage-starts=0" 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: not hetc-opt %s --split-input-file --hetd-partition-stages="stage-starts=1,2" 2>&1 | FileCheck %s --check-prefix=BEYOND

// The steps here are written as hetg-segment and hetg-autodiff leave them:
// forward ops carry hetg.segment, gradient ops hetg.grad_segment, and the
// step lists its segments in hetg.segments (two of them, so stage-starts=1
// cuts two stages).

// ORDER: error: stage-starts must be increasing segment numbers > 0
// BEYOND: error: hetd-partition-stages needs a step segmented by hetg-segment with more segments than the last stage start

// expected-error @+1 {{hetd-partition-stages needs one training-step function, found 0}}
module {
  func.func private @external(tensor<2x3xi64>) -> tensor<f32>
  func.func @stage0_forward_mb2() attributes {hetd.stage = 0 : i64} {
    return
  }
}

// -----

// expected-error @+1 {{hetd-partition-stages needs one training-step function, found 2}}
module {
  func.func @first(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}) {
    return
  }
  func.func @second(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}) {
    return
  }
}

// -----

// expected-error @+1 {{hetd-partition-stages needs a step segmented by hetg-segment with more segments than the last stage start}}
func.func @unsegmented(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
  %l = hetg.constant dense<0.0> : tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{hetd-partition-stages needs a step segmented by hetg-segment with more segments than the last stage start}}
func.func @one_segment(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}) -> tensor<f32> attributes {hetg.segments = [0]} {
  %l = hetg.constant {hetg.segment = 0 : i64} dense<0.0> : tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{hetd-partition-stages needs a step returning the loss and the parameter gradients; run hetg-autodiff first}}
func.func @no_results(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}) attributes {hetg.segments = [0, 1]} {
  return
}

// -----

// expected-error @+1 {{hetd-partition-stages needs an argument named input_ids (hetg.name) to know the micro-batch}}
func.func @no_input_ids(%ids: tensor<2x3xi64> {hetg.name = "tokens"}) -> tensor<f32> attributes {hetg.segments = [0, 1]} {
  %l = hetg.constant {hetg.segment = 1 : i64} dense<0.0> : tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{input_ids must be a tensor whose static dimension 0 is the micro-batch, got 'tensor<i64>'}}
func.func @scalar_input_ids(%ids: tensor<i64> {hetg.name = "input_ids"}) -> tensor<f32> attributes {hetg.segments = [0, 1]} {
  %l = hetg.constant {hetg.segment = 1 : i64} dense<0.0> : tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{input_ids must be a tensor whose static dimension 0 is the micro-batch, got 'tensor<?x3xi64>'}}
func.func @dynamic_input_ids(%ids: tensor<?x3xi64> {hetg.name = "input_ids"}) -> tensor<f32> attributes {hetg.segments = [0, 1]} {
  %l = hetg.constant {hetg.segment = 1 : i64} dense<0.0> : tensor<f32>
  return %l : tensor<f32>
}

// -----

// An activation outside every segment.

ml_program.global private @emb(dense<0.5> : tensor<8x4xf32>) : tensor<8x4xf32>
func.func @unplaced(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}) -> tensor<f32> attributes {hetg.segments = [0, 1]} {
  %e = ml_program.global_load_const @emb : tensor<8x4xf32>
  // expected-note @+1 {{the value is produced here}}
  %x0 = hetg.gather %e[%ids] <{axis = 0 : i64}> : tensor<8x4xf32>, tensor<2x3xi64>
  // expected-error @+2 {{this op runs in the forward of stage 1 but reads a value of no stage}}
  // expected-note @+1 {{only the activation crossing a stage boundary, its gradient and a stage's own saved activations may pass between stage functions}}
  %l = hetg.reduce_sum %x0 <{axes = array<i64: 0, 1, 2>, keep_dims = false}> {hetg.segment = 1 : i64} : tensor<2x3x4xf32>
  return %l : tensor<f32>
}

// -----

// Activations flow forward: stage 0 cannot read what stage 1 computes.

ml_program.global private @emb(dense<0.5> : tensor<8x4xf32>) : tensor<8x4xf32>
func.func @backwards_flow(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}) -> tensor<f32> attributes {hetg.segments = [0, 1]} {
  %e = ml_program.global_load_const @emb : tensor<8x4xf32>
  // expected-note @+1 {{the value is produced here}}
  %x = hetg.gather %e[%ids] <{axis = 0 : i64}> {hetg.segment = 1 : i64} : tensor<8x4xf32>, tensor<2x3xi64>
  // expected-error @+2 {{this op runs in the forward of stage 0 but reads a value of the forward of stage 1}}
  // expected-note @+1 {{only the activation crossing a stage boundary}}
  %y = hetg.gelu %x {hetg.segment = 0 : i64} : tensor<2x3x4xf32>
  %l = hetg.reduce_sum %y <{axes = array<i64: 0, 1, 2>, keep_dims = false}> {hetg.segment = 1 : i64} : tensor<2x3x4xf32>
  return %l : tensor<f32>
}

// -----

// One activation crosses each cut.

ml_program.global private @emb(dense<0.5> : tensor<8x4xf32>) : tensor<8x4xf32>
func.func @two_activations(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}) -> tensor<f32> attributes {hetg.segments = [0, 1]} {
  %e = ml_program.global_load_const @emb : tensor<8x4xf32>
  %a = hetg.gather %e[%ids] <{axis = 0 : i64}> {hetg.segment = 0 : i64} : tensor<8x4xf32>, tensor<2x3xi64>
  // expected-note @+1 {{the value is produced here}}
  %b = hetg.gelu %a {hetg.segment = 0 : i64} : tensor<2x3x4xf32>
  // expected-error @+2 {{this op runs in the forward of stage 1 but reads a value of the forward of stage 0; stage 1 already receives another activation}}
  // expected-note @+1 {{only the activation crossing a stage boundary}}
  %s = hetg.add %a, %b {hetg.segment = 1 : i64} : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %l = hetg.reduce_sum %s <{axes = array<i64: 0, 1, 2>, keep_dims = false}> {hetg.segment = 1 : i64} : tensor<2x3x4xf32>
  return %l : tensor<f32>
}

// -----

// One gradient comes back over each cut.

ml_program.global private @emb(dense<0.5> : tensor<8x4xf32>) : tensor<8x4xf32>
func.func @two_gradients(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}) -> (tensor<f32>, tensor<8x4xf32> {hetg.gradient_of = @emb}) attributes {hetg.segments = [0, 1]} {
  %e = ml_program.global_load_const @emb : tensor<8x4xf32>
  %x = hetg.gather %e[%ids] <{axis = 0 : i64}> {hetg.segment = 0 : i64} : tensor<8x4xf32>, tensor<2x3xi64>
  %l = hetg.reduce_sum %x <{axes = array<i64: 0, 1, 2>, keep_dims = false}> {hetg.segment = 1 : i64} : tensor<2x3x4xf32>
  %dx = hetg.gelu %x {hetg.grad_segment = 1 : i64} : tensor<2x3x4xf32>
  // expected-note @+1 {{the value is produced here}}
  %dy = hetg.gelu %dx {hetg.grad_segment = 1 : i64} : tensor<2x3x4xf32>
  %sum = hetg.add %dx, %dx {hetg.grad_segment = 0 : i64} : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  // expected-error @+2 {{this op runs in the backward of stage 0 but reads a value of the backward of stage 1; stage 0 already receives another gradient}}
  // expected-note @+1 {{only the activation crossing a stage boundary}}
  %both = hetg.add %sum, %dy {hetg.grad_segment = 0 : i64} : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %g = hetg.gather_grad %both[%ids] <{axis = 0 : i64}> {hetg.grad_segment = 0 : i64} : tensor<2x3x4xf32>, tensor<2x3xi64> -> tensor<8x4xf32>
  return %l, %g : tensor<f32>, tensor<8x4xf32>
}

// -----

// A backward reads its own forward's values, not another stage's.

ml_program.global private @emb(dense<0.5> : tensor<8x4xf32>) : tensor<8x4xf32>
func.func @foreign_saved(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}) -> (tensor<f32>, tensor<8x4xf32> {hetg.gradient_of = @emb}) attributes {hetg.segments = [0, 1]} {
  %e = ml_program.global_load_const @emb : tensor<8x4xf32>
  %x = hetg.gather %e[%ids] <{axis = 0 : i64}> {hetg.segment = 0 : i64} : tensor<8x4xf32>, tensor<2x3xi64>
  // expected-note @+1 {{the value is produced here}}
  %y = hetg.gelu %x {hetg.segment = 1 : i64} : tensor<2x3x4xf32>
  %l = hetg.reduce_sum %y <{axes = array<i64: 0, 1, 2>, keep_dims = false}> {hetg.segment = 1 : i64} : tensor<2x3x4xf32>
  // expected-error @+2 {{this op runs in the backward of stage 0 but reads a value of the forward of stage 1}}
  // expected-note @+1 {{only the activation crossing a stage boundary}}
  %g = hetg.gather_grad %y[%ids] <{axis = 0 : i64}> {hetg.grad_segment = 0 : i64} : tensor<2x3x4xf32>, tensor<2x3xi64> -> tensor<8x4xf32>
  return %l, %g : tensor<f32>, tensor<8x4xf32>
}

// -----

ml_program.global private @emb(dense<0.5> : tensor<8x4xf32>) : tensor<8x4xf32>
// expected-error @+1 {{the loss is not computed in the last stage's forward; does the last segment end the step?}}
func.func @early_loss(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}) -> tensor<f32> attributes {hetg.segments = [0, 1]} {
  %e = ml_program.global_load_const @emb : tensor<8x4xf32>
  %x = hetg.gather %e[%ids] <{axis = 0 : i64}> {hetg.segment = 0 : i64} : tensor<8x4xf32>, tensor<2x3xi64>
  %l = hetg.reduce_sum %x <{axes = array<i64: 0, 1, 2>, keep_dims = false}> {hetg.segment = 0 : i64} : tensor<2x3x4xf32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{the loss is not computed in the last stage's forward; does the last segment end the step?}}
func.func @argument_loss(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}, %l: tensor<f32>) -> tensor<f32> attributes {hetg.segments = [0, 1]} {
  return %l : tensor<f32>
}

// -----

ml_program.global private @emb(dense<0.5> : tensor<8x4xf32>) : tensor<8x4xf32>
// expected-error @+1 {{result #1 is not a parameter gradient (hetg.gradient_of); run hetg-autodiff before hetd-partition-stages}}
func.func @not_a_gradient(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}) -> (tensor<f32>, tensor<2x3x4xf32>) attributes {hetg.segments = [0, 1]} {
  %e = ml_program.global_load_const @emb : tensor<8x4xf32>
  %x = hetg.gather %e[%ids] <{axis = 0 : i64}> {hetg.segment = 0 : i64} : tensor<8x4xf32>, tensor<2x3xi64>
  %l = hetg.reduce_sum %x <{axes = array<i64: 0, 1, 2>, keep_dims = false}> {hetg.segment = 1 : i64} : tensor<2x3x4xf32>
  return %l, %x : tensor<f32>, tensor<2x3x4xf32>
}
