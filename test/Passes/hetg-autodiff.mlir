// RUN: hetc-opt %s --split-input-file --hetg-autodiff --verify-diagnostics | FileCheck %s

// The loss and one gradient per parameter global, in module order.

ml_program.global private @w(dense<0.5> : tensor<3x2xf32>) : tensor<3x2xf32>
ml_program.global private @b(dense<0.1> : tensor<2xf32>) : tensor<2xf32>

// CHECK-LABEL: func.func @linear_tanh
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>)
// CHECK-SAME: -> (tensor<f32>, tensor<3x2xf32> {hetg.gradient_of = @w}, tensor<2xf32> {hetg.gradient_of = @b})
// CHECK: %[[Y:.*]] = hetg.matmul %[[X]], %{{.*}} bias
// CHECK: %[[T:.*]] = hetg.tanh %[[Y]]
// CHECK: %[[LOSS:.*]] = hetg.reduce_sum %[[T]]
// The seed, spread over the sum, through tanh' = 1 - y^2.
// CHECK: %[[SEED:.*]] = hetg.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[DT:.*]] = hetg.broadcast %{{.*}} : tensor<1x1xf32> -> tensor<4x2xf32>
// CHECK: %[[Y2:.*]] = hetg.mul %[[T]], %[[T]]
// CHECK: %[[SLOPE:.*]] = hetg.sub %{{.*}}, %[[Y2]]
// CHECK: %[[DY:.*]] = hetg.mul %[[DT]], %[[SLOPE]]
// Nothing for x: it is an input, not a parameter.
// CHECK-NOT: hetg.matmul %[[DY]]
// CHECK: %[[DW:.*]] = hetg.matmul %[[X]], %[[DY]] <{transpose_lhs}> : tensor<4x3xf32>, tensor<4x2xf32>
// CHECK: %[[DB:.*]] = hetg.reduce_sum %[[DY]] <{axes = array<i64: 0>, keep_dims = false}> : tensor<4x2xf32>
// CHECK: return %[[LOSS]], %[[DW]], %[[DB]] : tensor<f32>, tensor<3x2xf32>, tensor<2xf32>
func.func @linear_tanh(%x: tensor<4x3xf32>) -> tensor<f32> {
  %w = ml_program.global_load_const @w : tensor<3x2xf32>
  %b = ml_program.global_load_const @b : tensor<2xf32>
  %y = hetg.matmul %x, %w bias %b : tensor<2xf32> : tensor<4x3xf32>, tensor<3x2xf32>
  %t = hetg.tanh %y : tensor<4x2xf32>
  %s = hetg.reduce_sum %t <{axes = array<i64: 0, 1>, keep_dims = false}> : tensor<4x2xf32>
  return %s : tensor<f32>
}

// -----

// A global read twice (tied embedding and head) is one parameter: the
// gradients of both reads add up.

ml_program.global private @table(dense<0.5> : tensor<5x4xf32>) : tensor<5x4xf32>

// CHECK-LABEL: func.func @tied
// CHECK-SAME: -> (tensor<f32>, tensor<5x4xf32> {hetg.gradient_of = @table})
// CHECK-DAG: %[[HEAD:.*]] = hetg.matmul %{{.*}}, %{{.*}} <{transpose_lhs}> : tensor<3x5xf32>, tensor<3x4xf32>
// CHECK-DAG: %[[EMBED:.*]] = hetg.gather_grad %{{.*}}[%{{.*}}] <{axis = 0 : i64}> : tensor<3x4xf32>, tensor<3xi64> -> tensor<5x4xf32>
// CHECK: %[[SUM:.*]] = hetg.add %{{.*}}, %{{.*}} : tensor<5x4xf32>, tensor<5x4xf32>
// CHECK: return %{{.*}}, %[[SUM]]
func.func @tied(%ids: tensor<3xi64>, %labels: tensor<3xi64>) -> tensor<f32> {
  %t = ml_program.global_load_const @table : tensor<5x4xf32>
  %e = hetg.gather %t[%ids] <{axis = 0 : i64}> : tensor<5x4xf32>, tensor<3xi64>
  %h = ml_program.global_load_const @table : tensor<5x4xf32>
  %z = hetg.matmul %e, %h <{transpose_rhs}> : tensor<3x4xf32>, tensor<5x4xf32>
  %l = hetg.cross_entropy %z, %labels <{reduction = #hetg<loss_reduction mean>}> : tensor<3x5xf32>, tensor<3xi64>
  return %l : tensor<f32>
}

// -----

// Only what leads from a parameter to the loss gets a gradient: the norm's
// input is not a parameter, and the second use of the scale does not reach
// the loss.

ml_program.global private @scale(dense<1.0> : tensor<4xf32>) : tensor<4xf32>

// CHECK-LABEL: func.func @pruned
// CHECK: %{{.*}}, %[[DSCALE:.*]], %{{.*}} = hetg.layer_norm_grad
// CHECK-NOT: hetg.exp
// CHECK: return %{{.*}}, %[[DSCALE]] : tensor<f32>, tensor<4xf32>
func.func @pruned(%x: tensor<2x4xf32>) -> tensor<f32> {
  %w = ml_program.global_load_const @scale : tensor<4xf32>
  %dead = hetg.exp %w : tensor<4xf32>
  %n = hetg.layer_norm %x scale %w : tensor<4xf32> <{axis = 1 : i64, epsilon = 1.0e-05 : f32}> : tensor<2x4xf32>
  %s = hetg.reduce_sum %n <{axes = array<i64: 0, 1>, keep_dims = false}> : tensor<2x4xf32>
  return %s : tensor<f32>
}

// -----

// A parameter that only decides a branch (through a comparison) gets no
// gradient: zero, with a warning.

// expected-warning @+1 {{the loss of @branch does not depend on parameter @gate; its gradient is zero}}
ml_program.global private @gate(dense<1.0> : tensor<4xf32>) : tensor<4xf32>

// CHECK-LABEL: func.func @branch
// CHECK: %[[ZERO:.*]] = hetg.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK: return %{{.*}}, %[[ZERO]] : tensor<f32>, tensor<4xf32>
func.func @branch(%x: tensor<4xf32>) -> tensor<f32> {
  %g = ml_program.global_load_const @gate : tensor<4xf32>
  %z = hetg.constant dense<0.0> : tensor<f32>
  %c = hetg.equal %g, %z : tensor<4xf32>, tensor<f32>
  %y = hetg.where %c, %x, %z : tensor<4xi1>, tensor<4xf32>, tensor<f32>
  %s = hetg.reduce_sum %y <{axes = array<i64: 0>, keep_dims = false}> : tensor<4xf32>
  return %s : tensor<f32>
}

// -----

ml_program.global private @w(dense<1.0> : tensor<2x3xf32>) : tensor<2x3xf32>

func.func @not_differentiable(%s: tensor<2xi64>) -> tensor<f32> {
  %w = ml_program.global_load_const @w : tensor<2x3xf32>
  // expected-error @+1 {{'hetg.dynamic_reshape' is not differentiable, but the loss depends through it on trainable parameters}}
  %r = hetg.dynamic_reshape %w, %s : tensor<2x3xf32>, tensor<2xi64>
  %c = hetg.cast %r to f32 : tensor<?x?xf32>
  %t = hetg.reduce_sum %c <{axes = array<i64: 0, 1>, keep_dims = false}> : tensor<?x?xf32>
  return %t : tensor<f32>
}

// -----

// expected-error @+1 {{hetg-autodiff needs @logits to return one 0-D float loss; run hetg-attach-loss on a model that returns logits}}
func.func @logits(%z: tensor<2x3x5xf32>) -> tensor<2x3x5xf32> {
  return %z : tensor<2x3x5xf32>
}
