// RUN: hetc-opt %s --split-input-file --hetg-optimizer="lr=0.01 weight-decay=0.1" | FileCheck %s --check-prefixes=CHECK,ADAMW
// RUN: hetc-opt %s --split-input-file --hetg-optimizer="optimizer=sgd lr=0.5 weight-decay=0.2 clip-norm=1.0" | FileCheck %s --check-prefixes=CHECK,SGD

// The gradients returned by hetg-autodiff become updates of mutable
// parameter globals; the step returns only the loss.

// CHECK: ml_program.global private mutable @w(dense<5.000000e-01> : tensor<3x2xf32>) : tensor<3x2xf32>
// ADAMW-NEXT: ml_program.global private mutable @w.adam_m(dense<0.000000e+00> : tensor<3x2xf32>) : tensor<3x2xf32> {hetg.state_of = @w}
// ADAMW-NEXT: ml_program.global private mutable @w.adam_v(dense<0.000000e+00> : tensor<3x2xf32>) : tensor<3x2xf32> {hetg.state_of = @w}
// CHECK-NEXT: ml_program.global private mutable @b(dense<1.000000e-01> : tensor<2xf32>) : tensor<2xf32>
// ADAMW-NEXT: ml_program.global private mutable @b.adam_m(
// ADAMW-NEXT: ml_program.global private mutable @b.adam_v(
// ADAMW-NEXT: ml_program.global private mutable @optimizer.step(dense<0> : tensor<i64>) : tensor<i64>
ml_program.global private @w(dense<0.5> : tensor<3x2xf32>) : tensor<3x2xf32>
ml_program.global private @b(dense<0.1> : tensor<2xf32>) : tensor<2xf32>

// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>) -> (tensor<f32> {hetg.name = "loss"})
// CHECK: %[[W:.*]] = ml_program.global_load @w : tensor<3x2xf32>
// CHECK: %[[B:.*]] = ml_program.global_load @b : tensor<2xf32>
// CHECK: %[[LOSS:.*]] = hetg.reduce_sum
// CHECK: %[[GW:.*]] = hetg.matmul %[[X]], %{{.*}} <{transpose_lhs}>
// CHECK: %[[GB:.*]] = hetg.reduce_sum %{{.*}} <{axes = array<i64: 0>, keep_dims = false}>

// ADAMW: %[[T0:.*]] = ml_program.global_load @optimizer.step : tensor<i64>
// ADAMW: %[[ONE:.*]] = hetg.constant dense<1> : tensor<i64>
// ADAMW: %[[T:.*]] = hetg.add %[[T0]], %[[ONE]] : tensor<i64>, tensor<i64>
// ADAMW: %[[WM:.*]] = ml_program.global_load @w.adam_m : tensor<3x2xf32>
// ADAMW: %[[WV:.*]] = ml_program.global_load @w.adam_v : tensor<3x2xf32>
// ADAMW: %[[WP1:.*]], %[[WM1:.*]], %[[WV1:.*]] = hetg.adamw %[[W]], %[[GW]], %[[WM]], %[[WV]], %[[T]] <{lr = 1.000000e-02 : f64, weight_decay = 1.000000e-01 : f64}> : tensor<3x2xf32>, tensor<i64>
// Vectors get no weight decay.
// ADAMW: %[[BP1:.*]], %[[BM1:.*]], %[[BV1:.*]] = hetg.adamw %[[B]], %[[GB]], %{{.*}}, %{{.*}}, %[[T]] <{lr = 1.000000e-02 : f64, weight_decay = 0.000000e+00 : f64}> : tensor<2xf32>, tensor<i64>
// ADAMW: ml_program.global_store @w = %[[WP1]] : tensor<3x2xf32>
// ADAMW: ml_program.global_store @b = %[[BP1]] : tensor<2xf32>
// ADAMW: ml_program.global_store @w.adam_m = %[[WM1]] : tensor<3x2xf32>
// ADAMW: ml_program.global_store @w.adam_v = %[[WV1]] : tensor<3x2xf32>
// ADAMW: ml_program.global_store @b.adam_m = %[[BM1]] : tensor<2xf32>
// ADAMW: ml_program.global_store @b.adam_v = %[[BV1]] : tensor<2xf32>
// ADAMW: ml_program.global_store @optimizer.step = %[[T]] : tensor<i64>

// Clipping: scale = min(max_norm / (norm + 1e-6), 1).
// SGD: %[[NORM:.*]] = hetg.global_norm %[[GW]], %[[GB]] : tensor<3x2xf32>, tensor<2xf32>
// SGD: %[[DEN:.*]] = hetg.add %[[NORM]], %{{.*}} : tensor<f32>, tensor<f32>
// SGD: %[[RATIO:.*]] = hetg.div %{{.*}}, %[[DEN]] : tensor<f32>, tensor<f32>
// SGD: %[[COEF:.*]] = hetg.minimum %[[RATIO]], %{{.*}} : tensor<f32>, tensor<f32>
// SGD: %[[CW:.*]] = hetg.mul %[[GW]], %[[COEF]]
// SGD: %[[CB:.*]] = hetg.mul %[[GB]], %[[COEF]]
// SGD: %[[NW:.*]] = hetg.sgd %[[W]], %[[CW]] <{lr = 5.000000e-01 : f64, weight_decay = 2.000000e-01 : f64}> : tensor<3x2xf32>
// SGD: %[[NB:.*]] = hetg.sgd %[[B]], %[[CB]] <{lr = 5.000000e-01 : f64}> : tensor<2xf32>
// SGD: ml_program.global_store @w = %[[NW]] : tensor<3x2xf32>
// SGD: ml_program.global_store @b = %[[NB]] : tensor<2xf32>
// SGD-NOT: optimizer.step
// CHECK: return %[[LOSS]] : tensor<f32>
func.func @step(%x: tensor<4x3xf32>) -> (tensor<f32> {hetg.name = "loss"}, tensor<3x2xf32> {hetg.gradient_of = @w}, tensor<2xf32> {hetg.gradient_of = @b}) {
  %w = ml_program.global_load_const @w : tensor<3x2xf32>
  %b = ml_program.global_load_const @b : tensor<2xf32>
  %y = hetg.matmul %x, %w bias %b : tensor<2xf32> : tensor<4x3xf32>, tensor<3x2xf32>
  %s = hetg.reduce_sum %y <{axes = array<i64: 0, 1>, keep_dims = false}> : tensor<4x2xf32>
  %one = hetg.constant dense<1.0> : tensor<4x2xf32>
  %gw = hetg.matmul %x, %one <{transpose_lhs}> : tensor<4x3xf32>, tensor<4x2xf32>
  %gb = hetg.reduce_sum %one <{axes = array<i64: 0>, keep_dims = false}> : tensor<4x2xf32>
  return %s, %gw, %gb : tensor<f32>, tensor<3x2xf32>, tensor<2xf32>
}

// -----

// Every constant load of a trained parameter becomes a load, also in other
// functions of the module (a mutable global has no constant loads).

ml_program.global private @p(dense<1.0> : tensor<2xf32>) : tensor<2xf32>

// CHECK-LABEL: func.func @train
// CHECK-LABEL: func.func @eval
// CHECK: ml_program.global_load @p : tensor<2xf32>
// CHECK-NOT: global_load_const
func.func @train() -> (tensor<f32>, tensor<2xf32> {hetg.gradient_of = @p}) {
  %p = ml_program.global_load_const @p : tensor<2xf32>
  %s = hetg.reduce_sum %p <{axes = array<i64: 0>, keep_dims = false}> : tensor<2xf32>
  %g = hetg.constant dense<1.0> : tensor<2xf32>
  return %s, %g : tensor<f32>, tensor<2xf32>
}
func.func @eval() -> tensor<2xf32> {
  %p = ml_program.global_load_const @p : tensor<2xf32>
  return %p : tensor<2xf32>
}
