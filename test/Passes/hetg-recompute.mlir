// RUN: hetc-opt %s --split-input-file --hetg-autodiff --hetg-recompute | FileCheck %s
// RUN: hetc-opt %s --split-input-file --hetg-autodiff --hetg-recompute | FileCheck %s --check-prefix=NOUSE
// RUN: hetc-opt %s --split-input-file --hetg-autodiff | FileCheck %s --check-prefix=SAVED

// Two segments, annotated by hand as hetg-segment would: segment 0 ends at
// the cut %t0, segment 1 holds the rest and the loss, and is flagged. Its
// backward ops read %t1 (tanh' = 1 - t1^2); after hetg-recompute they read
// a clone of tanh(matmul(%t0, w1)) built right before the first of them,
// while segment 0's values (the boundary %t0, and %t0 itself for tanh') are
// read as saved.

ml_program.global private @w0(dense<0.5> : tensor<3x3xf32>) : tensor<3x3xf32>
ml_program.global private @w1(dense<0.25> : tensor<3x2xf32>) : tensor<3x2xf32>

// CHECK-LABEL: func.func @two_segments
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>)
// CHECK: %[[W0:.*]] = ml_program.global_load_const @w0
// CHECK: %[[H0:.*]] = hetg.matmul %[[X]], %[[W0]] {{.*}}hetg.segment = 0
// CHECK: %[[T0:.*]] = hetg.tanh %[[H0]] {{.*}}hetg.segment = 0
// CHECK: %[[W1:.*]] = ml_program.global_load_const @w1
// CHECK: %[[H1:.*]] = hetg.matmul %[[T0]], %[[W1]] {{.*}}hetg.segment = 1
// CHECK: %[[T1:.*]] = hetg.tanh %[[H1]] {{.*}}hetg.segment = 1
// CHECK: %[[LOSS:.*]] = hetg.reduce_sum %[[T1]] {{.*}}hetg.segment = 1
// The forward ends; the backward starts with the seed.
// CHECK: hetg.constant {hetg.grad_segment = 1 : i64} dense<1.000000e+00> : tensor<f32>
// CHECK-NOT: hetg.segment
// CHECK: %[[RH1:.*]] = hetg.matmul %[[T0]], %[[W1]] {hetg.recomputed = 1 : i64}
// CHECK-NEXT: %[[RT1:.*]] = hetg.tanh %[[RH1]] {hetg.recomputed = 1 : i64}
// CHECK-NEXT: hetg.mul %[[RT1]], %[[RT1]]
// Segment 0 is not flagged: its values are read as saved, never cloned.
// CHECK-NOT: hetg.recomputed = 0
// CHECK: hetg.mul %[[T0]], %[[T0]]
// CHECK: return %[[LOSS]]

// No backward op reads the forward %h1 or %t1 any more.
// NOUSE-LABEL: func.func @two_segments
// NOUSE: %[[H1:.*]] = hetg.matmul {{.*}}hetg.segment = 1
// NOUSE: %[[T1:.*]] = hetg.tanh %[[H1]] {{.*}}hetg.segment = 1
// NOUSE: hetg.constant {hetg.grad_segment = 1 : i64} dense<1.000000e+00> : tensor<f32>
// NOUSE-NOT: %[[H1]]{{[^0-9]}}
// NOUSE-NOT: %[[T1]]{{[^0-9]}}
// NOUSE: return

// Without the pass, the backward reads the forward %t1 directly.
// SAVED-LABEL: func.func @two_segments
// SAVED: %[[T1:.*]] = hetg.tanh {{.*}}hetg.segment = 1
// SAVED: hetg.constant {hetg.grad_segment = 1 : i64} dense<1.000000e+00> : tensor<f32>
// SAVED: hetg.mul %[[T1]], %[[T1]]
// SAVED-NOT: hetg.recomputed
func.func @two_segments(%x: tensor<4x3xf32>) -> tensor<f32> attributes {hetg.segments = [{index = 0 : i64, recompute = false}, {index = 1 : i64, recompute = true}]} {
  %w0 = ml_program.global_load_const @w0 : tensor<3x3xf32>
  %h0 = hetg.matmul %x, %w0 {hetg.segment = 0 : i64} : tensor<4x3xf32>, tensor<3x3xf32>
  %t0 = hetg.tanh %h0 {hetg.cut = 0 : i64, hetg.segment = 0 : i64} : tensor<4x3xf32>
  %w1 = ml_program.global_load_const @w1 : tensor<3x2xf32>
  %h1 = hetg.matmul %t0, %w1 {hetg.segment = 1 : i64} : tensor<4x3xf32>, tensor<3x2xf32>
  %t1 = hetg.tanh %h1 {hetg.segment = 1 : i64} : tensor<4x2xf32>
  %s = hetg.reduce_sum %t1 <{axes = array<i64: 0, 1>, keep_dims = false}> {hetg.segment = 1 : i64} : tensor<4x2xf32>
  return %s : tensor<f32>
}

// -----

// Segment 0 flagged instead: its chain is rebuilt from the input %x and the
// parameter load (neither is cloned) for segment 0's own backward, and
// segment 1 is left alone. The cut %t0 stays saved: it is segment 1's input,
// which segment 1's weight gradient reads.

ml_program.global private @w0(dense<0.5> : tensor<3x3xf32>) : tensor<3x3xf32>
ml_program.global private @w1(dense<0.25> : tensor<3x2xf32>) : tensor<3x2xf32>

// CHECK-LABEL: func.func @first_flagged
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>)
// CHECK: %[[W0:.*]] = ml_program.global_load_const @w0
// CHECK: %[[T0:.*]] = hetg.tanh {{.*}}hetg.segment = 0
// CHECK: %[[T1:.*]] = hetg.tanh {{.*}}hetg.segment = 1
// CHECK: hetg.constant {hetg.grad_segment = 1 : i64} dense<1.000000e+00> : tensor<f32>
// CHECK: hetg.mul %[[T1]], %[[T1]]
// CHECK-NOT: hetg.recomputed = 1
// CHECK-NOT: ml_program.global_load_const {{.*}}hetg.recomputed
// CHECK: hetg.matmul %[[T0]], %{{.*}} <{transpose_lhs}> {hetg.grad_segment = 1 : i64}
// CHECK: %[[RH0:.*]] = hetg.matmul %[[X]], %[[W0]] {hetg.recomputed = 0 : i64}
// CHECK-NEXT: %[[RT0:.*]] = hetg.tanh %[[RH0]] {hetg.recomputed = 0 : i64}
// CHECK-NEXT: hetg.mul %[[RT0]], %[[RT0]] {hetg.grad_segment = 0 : i64}
// CHECK: return
// NOUSE-LABEL: func.func @first_flagged
// NOUSE: %[[H0:.*]] = hetg.matmul {{.*}}hetg.segment = 0
// NOUSE: %[[T0:.*]] = hetg.tanh %[[H0]] {{.*}}hetg.segment = 0
// NOUSE: hetg.constant {hetg.grad_segment = 1 : i64} dense<1.000000e+00> : tensor<f32>
// NOUSE-NOT: %[[H0]]{{[^0-9]}}
// NOUSE: hetg.matmul %[[T0]], %{{.*}} {hetg.grad_segment = 1 : i64}
// NOUSE-NOT: %[[H0]]{{[^0-9]}}
// NOUSE-NOT: %[[T0]]{{[^0-9]}}
// NOUSE: return
func.func @first_flagged(%x: tensor<4x3xf32>) -> tensor<f32> attributes {hetg.segments = [{index = 0 : i64, recompute = true}, {index = 1 : i64, recompute = false}]} {
  %w0 = ml_program.global_load_const @w0 : tensor<3x3xf32>
  %h0 = hetg.matmul %x, %w0 {hetg.segment = 0 : i64} : tensor<4x3xf32>, tensor<3x3xf32>
  %t0 = hetg.tanh %h0 {hetg.cut = 0 : i64, hetg.segment = 0 : i64} : tensor<4x3xf32>
  %w1 = ml_program.global_load_const @w1 : tensor<3x2xf32>
  %h1 = hetg.matmul %t0, %w1 {hetg.segment = 1 : i64} : tensor<4x3xf32>, tensor<3x2xf32>
  %t1 = hetg.tanh %h1 {hetg.segment = 1 : i64} : tensor<4x2xf32>
  %s = hetg.reduce_sum %t1 <{axes = array<i64: 0, 1>, keep_dims = false}> {hetg.segment = 1 : i64} : tensor<4x2xf32>
  return %s : tensor<f32>
}
