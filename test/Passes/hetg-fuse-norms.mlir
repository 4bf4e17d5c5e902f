// RUN: hetc-opt %s --split-input-file --hetg-fuse-norms | FileCheck %s

// LayerNorm as torch.onnx.export writes it below opset 17 (GPT-2 ln_1).

ml_program.global private @ln_w(dense<1.5> : tensor<64xf32>) : tensor<64xf32>
ml_program.global private @ln_b(dense<0.5> : tensor<64xf32>) : tensor<64xf32>

// CHECK-LABEL: func.func @layer_norm_torch
// CHECK-SAME: (%[[X:.*]]: tensor<2x16x64xf32>)
// CHECK-DAG: %[[W:.*]] = ml_program.global_load_const @ln_w
// CHECK-DAG: %[[B:.*]] = ml_program.global_load_const @ln_b
// CHECK: %[[Y:.*]] = hetg.layer_norm %[[X]] scale %[[W]] : tensor<64xf32> bias %[[B]] : tensor<64xf32> <{axis = 2 : i64, epsilon = 9.99999974E-6 : f32}> : tensor<2x16x64xf32>
// CHECK-NOT: hetg.reduce_mean
// CHECK-NOT: hetg.sqrt
// CHECK: return %[[Y]]
func.func @layer_norm_torch(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %w = ml_program.global_load_const @ln_w : tensor<64xf32>
  %b = ml_program.global_load_const @ln_b : tensor<64xf32>
  %m = hetg.reduce_mean %x <{axes = array<i64: 2>}> : tensor<2x16x64xf32>
  %d = hetg.sub %x, %m : tensor<2x16x64xf32>, tensor<2x16x1xf32>
  %two = hetg.constant dense<2.0> : tensor<f32>
  %sq = hetg.pow %d, %two : tensor<2x16x64xf32>, tensor<f32>
  %v = hetg.reduce_mean %sq <{axes = array<i64: 2>}> : tensor<2x16x64xf32>
  %eps = hetg.constant dense<1.0e-05> : tensor<f32>
  %ve = hetg.add %v, %eps : tensor<2x16x1xf32>, tensor<f32>
  %s = hetg.sqrt %ve : tensor<2x16x1xf32>
  %n = hetg.div %d, %s : tensor<2x16x64xf32>, tensor<2x16x1xf32>
  %nw = hetg.mul %n, %w : tensor<2x16x64xf32>, tensor<64xf32>
  %y = hetg.add %nw, %b : tensor<2x16x64xf32>, tensor<64xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// d*d for the square, d * reciprocal(sqrt) for the quotient, epsilon first in
// the add, weight on the left, bias on the left, as a [1, 64] tensor.

// CHECK-LABEL: func.func @layer_norm_commuted
// CHECK-SAME: (%[[X:.*]]: tensor<16x64xf32>, %[[W:.*]]: tensor<64xf32>, %[[B:.*]]: tensor<1x64xf32>)
// CHECK: %[[B1:.*]] = hetg.reshape %[[B]] : tensor<1x64xf32> -> tensor<64xf32>
// CHECK: %[[Y:.*]] = hetg.layer_norm %[[X]] scale %[[W]] : tensor<64xf32> bias %[[B1]] : tensor<64xf32> <{axis = 1 : i64, epsilon = 9.99999996E-13 : f32}>
// CHECK-NEXT: return %[[Y]]
func.func @layer_norm_commuted(%x: tensor<16x64xf32>, %w: tensor<64xf32>, %b: tensor<1x64xf32>) -> tensor<16x64xf32> {
  %m = hetg.reduce_mean %x <{axes = array<i64: 1>}> : tensor<16x64xf32>
  %d = hetg.sub %x, %m : tensor<16x64xf32>, tensor<16x1xf32>
  %sq = hetg.mul %d, %d : tensor<16x64xf32>, tensor<16x64xf32>
  %v = hetg.reduce_mean %sq <{axes = array<i64: 1>}> : tensor<16x64xf32>
  %eps = hetg.constant dense<1.0e-12> : tensor<1x1xf32>
  %ve = hetg.add %eps, %v : tensor<1x1xf32>, tensor<16x1xf32>
  %s = hetg.sqrt %ve : tensor<16x1xf32>
  %r = hetg.reciprocal %s : tensor<16x1xf32>
  %n = hetg.mul %r, %d : tensor<16x1xf32>, tensor<16x64xf32>
  %nw = hetg.mul %w, %n : tensor<64xf32>, tensor<16x64xf32>
  %y = hetg.add %b, %nw : tensor<1x64xf32>, tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}

// -----

// Normalization over the two trailing axes, no weight: bias only. 1 / sqrt as
// div(1, sqrt).

// CHECK-LABEL: func.func @layer_norm_two_axes_bias_only
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x32xf32>, %[[B:.*]]: tensor<8x32xf32>)
// CHECK: %[[Y:.*]] = hetg.layer_norm %[[X]] bias %[[B]] : tensor<8x32xf32> <{axis = 1 : i64, epsilon = 9.99999974E-6 : f32}>
// CHECK-NEXT: return %[[Y]]
func.func @layer_norm_two_axes_bias_only(%x: tensor<2x8x32xf32>, %b: tensor<8x32xf32>) -> tensor<2x8x32xf32> {
  %m = hetg.reduce_mean %x <{axes = array<i64: 1, 2>}> : tensor<2x8x32xf32>
  %d = hetg.sub %x, %m : tensor<2x8x32xf32>, tensor<2x1x1xf32>
  %two = hetg.constant dense<2.0> : tensor<f32>
  %sq = hetg.pow %d, %two : tensor<2x8x32xf32>, tensor<f32>
  %v = hetg.reduce_mean %sq <{axes = array<i64: 1, 2>}> : tensor<2x8x32xf32>
  %eps = hetg.constant dense<1.0e-05> : tensor<f32>
  %ve = hetg.add %v, %eps : tensor<2x1x1xf32>, tensor<f32>
  %s = hetg.sqrt %ve : tensor<2x1x1xf32>
  %one = hetg.constant dense<1.0> : tensor<f32>
  %r = hetg.div %one, %s : tensor<f32>, tensor<2x1x1xf32>
  %n = hetg.mul %d, %r : tensor<2x8x32xf32>, tensor<2x1x1xf32>
  %y = hetg.add %n, %b : tensor<2x8x32xf32>, tensor<8x32xf32>
  return %y : tensor<2x8x32xf32>
}

// -----

// No weight and no bias: a plain layer_norm. A bias added before the weight
// multiply cannot be absorbed in that order, so the mul and add stay.

// CHECK-LABEL: func.func @layer_norm_bias_then_weight
// CHECK-SAME: (%[[X:.*]]: tensor<16x64xf32>, %[[W:.*]]: tensor<64xf32>, %{{.*}}: tensor<64xf32>)
// CHECK: %[[N:.*]] = hetg.layer_norm %[[X]] bias %{{.*}} : tensor<64xf32> <{axis = 1 : i64
// CHECK: %[[Y:.*]] = hetg.mul %[[N]], %[[W]]
// CHECK: return %[[Y]]
func.func @layer_norm_bias_then_weight(%x: tensor<16x64xf32>, %w: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<16x64xf32> {
  %m = hetg.reduce_mean %x <{axes = array<i64: 1>}> : tensor<16x64xf32>
  %d = hetg.sub %x, %m : tensor<16x64xf32>, tensor<16x1xf32>
  %sq = hetg.mul %d, %d : tensor<16x64xf32>, tensor<16x64xf32>
  %v = hetg.reduce_mean %sq <{axes = array<i64: 1>}> : tensor<16x64xf32>
  %eps = hetg.constant dense<1.0e-05> : tensor<f32>
  %ve = hetg.add %v, %eps : tensor<16x1xf32>, tensor<f32>
  %s = hetg.sqrt %ve : tensor<16x1xf32>
  %n = hetg.div %d, %s : tensor<16x64xf32>, tensor<16x1xf32>
  %nb = hetg.add %n, %b : tensor<16x64xf32>, tensor<64xf32>
  %y = hetg.mul %nb, %w : tensor<16x64xf32>, tensor<64xf32>
  return %y : tensor<16x64xf32>
}

// -----

// Negative: the mean is over a leading axis, not the trailing ones.

// CHECK-LABEL: func.func @layer_norm_wrong_axes
// CHECK-NOT: hetg.layer_norm
// CHECK-NOT: hetg.rms_norm
// CHECK: hetg.div
func.func @layer_norm_wrong_axes(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %m = hetg.reduce_mean %x <{axes = array<i64: 0>}> : tensor<16x64xf32>
  %d = hetg.sub %x, %m : tensor<16x64xf32>, tensor<1x64xf32>
  %sq = hetg.mul %d, %d : tensor<16x64xf32>, tensor<16x64xf32>
  %v = hetg.reduce_mean %sq <{axes = array<i64: 0>}> : tensor<16x64xf32>
  %eps = hetg.constant dense<1.0e-05> : tensor<f32>
  %ve = hetg.add %v, %eps : tensor<1x64xf32>, tensor<f32>
  %s = hetg.sqrt %ve : tensor<1x64xf32>
  %n = hetg.div %d, %s : tensor<16x64xf32>, tensor<1x64xf32>
  return %n : tensor<16x64xf32>
}

// -----

// Negative: mean and variance reduce different axes. No layer norm; what is
// left is exactly the RMS norm of x - mean over the last axis.

// CHECK-LABEL: func.func @layer_norm_mismatched_axes
// CHECK-NOT: hetg.layer_norm
// CHECK: %[[D:.*]] = hetg.sub
// CHECK-NEXT: hetg.rms_norm %[[D]]
func.func @layer_norm_mismatched_axes(%x: tensor<2x8x32xf32>) -> tensor<2x8x32xf32> {
  %m = hetg.reduce_mean %x <{axes = array<i64: 1, 2>}> : tensor<2x8x32xf32>
  %d = hetg.sub %x, %m : tensor<2x8x32xf32>, tensor<2x1x1xf32>
  %sq = hetg.mul %d, %d : tensor<2x8x32xf32>, tensor<2x8x32xf32>
  %v = hetg.reduce_mean %sq <{axes = array<i64: 2>}> : tensor<2x8x32xf32>
  %eps = hetg.constant dense<1.0e-05> : tensor<f32>
  %ve = hetg.add %v, %eps : tensor<2x8x1xf32>, tensor<f32>
  %s = hetg.sqrt %ve : tensor<2x8x1xf32>
  %n = hetg.div %d, %s : tensor<2x8x32xf32>, tensor<2x8x1xf32>
  return %n : tensor<2x8x32xf32>
}

// -----

// Negative: x - mean is also returned, so fusing would compute it twice. What
// remains is still the RMS norm of x - mean, which is what it is.

// CHECK-LABEL: func.func @layer_norm_centered_escapes
// CHECK-SAME: (%[[X:.*]]: tensor<16x64xf32>)
// CHECK-NOT: hetg.layer_norm
// CHECK: %[[D:.*]] = hetg.sub %[[X]]
// CHECK: %[[N:.*]] = hetg.rms_norm %[[D]] <{epsilon = 9.99999974E-6 : f32}>
// CHECK: return %[[N]], %[[D]]
func.func @layer_norm_centered_escapes(%x: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  %m = hetg.reduce_mean %x <{axes = array<i64: 1>}> : tensor<16x64xf32>
  %d = hetg.sub %x, %m : tensor<16x64xf32>, tensor<16x1xf32>
  %sq = hetg.mul %d, %d : tensor<16x64xf32>, tensor<16x64xf32>
  %v = hetg.reduce_mean %sq <{axes = array<i64: 1>}> : tensor<16x64xf32>
  %eps = hetg.constant dense<1.0e-05> : tensor<f32>
  %ve = hetg.add %v, %eps : tensor<16x1xf32>, tensor<f32>
  %s = hetg.sqrt %ve : tensor<16x1xf32>
  %n = hetg.div %d, %s : tensor<16x64xf32>, tensor<16x1xf32>
  return %n, %d : tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// Negative: the variance is also returned.

// CHECK-LABEL: func.func @layer_norm_variance_escapes
// CHECK-NOT: hetg.layer_norm
// CHECK-NOT: hetg.rms_norm
// CHECK: hetg.div
func.func @layer_norm_variance_escapes(%x: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x1xf32>) {
  %m = hetg.reduce_mean %x <{axes = array<i64: 1>}> : tensor<16x64xf32>
  %d = hetg.sub %x, %m : tensor<16x64xf32>, tensor<16x1xf32>
  %sq = hetg.mul %d, %d : tensor<16x64xf32>, tensor<16x64xf32>
  %v = hetg.reduce_mean %sq <{axes = array<i64: 1>}> : tensor<16x64xf32>
  %eps = hetg.constant dense<1.0e-05> : tensor<f32>
  %ve = hetg.add %v, %eps : tensor<16x1xf32>, tensor<f32>
  %s = hetg.sqrt %ve : tensor<16x1xf32>
  %n = hetg.div %d, %s : tensor<16x64xf32>, tensor<16x1xf32>
  return %n, %v : tensor<16x64xf32>, tensor<16x1xf32>
}

// -----

// Negative: the square is a cube.

// CHECK-LABEL: func.func @layer_norm_not_a_square
// CHECK-NOT: hetg.layer_norm
// CHECK-NOT: hetg.rms_norm
func.func @layer_norm_not_a_square(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %m = hetg.reduce_mean %x <{axes = array<i64: 1>}> : tensor<16x64xf32>
  %d = hetg.sub %x, %m : tensor<16x64xf32>, tensor<16x1xf32>
  %three = hetg.constant dense<3.0> : tensor<f32>
  %sq = hetg.pow %d, %three : tensor<16x64xf32>, tensor<f32>
  %v = hetg.reduce_mean %sq <{axes = array<i64: 1>}> : tensor<16x64xf32>
  %eps = hetg.constant dense<1.0e-05> : tensor<f32>
  %ve = hetg.add %v, %eps : tensor<16x1xf32>, tensor<f32>
  %s = hetg.sqrt %ve : tensor<16x1xf32>
  %n = hetg.div %d, %s : tensor<16x64xf32>, tensor<16x1xf32>
  return %n : tensor<16x64xf32>
}

// -----

// Negative: the weight is per row, not over the normalized axis.

// CHECK-LABEL: func.func @layer_norm_weight_wrong_shape
// CHECK: %[[N:.*]] = hetg.layer_norm %{{.*}} <{axis = 1 : i64
// CHECK: hetg.mul %[[N]], %{{.*}} : tensor<16x64xf32>, tensor<16x1xf32>
func.func @layer_norm_weight_wrong_shape(%x: tensor<16x64xf32>, %w: tensor<16x1xf32>) -> tensor<16x64xf32> {
  %m = hetg.reduce_mean %x <{axes = array<i64: 1>}> : tensor<16x64xf32>
  %d = hetg.sub %x, %m : tensor<16x64xf32>, tensor<16x1xf32>
  %sq = hetg.mul %d, %d : tensor<16x64xf32>, tensor<16x64xf32>
  %v = hetg.reduce_mean %sq <{axes = array<i64: 1>}> : tensor<16x64xf32>
  %eps = hetg.constant dense<1.0e-05> : tensor<f32>
  %ve = hetg.add %v, %eps : tensor<16x1xf32>, tensor<f32>
  %s = hetg.sqrt %ve : tensor<16x1xf32>
  %n = hetg.div %d, %s : tensor<16x64xf32>, tensor<16x1xf32>
  %y = hetg.mul %n, %w : tensor<16x64xf32>, tensor<16x1xf32>
  return %y : tensor<16x64xf32>
}

// -----

// RMSNorm as the Llama export writes it: x * div(1, sqrt(mean(pow(x, 2)) + eps)),
// then the weight.

ml_program.global private @norm_w(dense<1.0> : tensor<64xf32>) : tensor<64xf32>

// CHECK-LABEL: func.func @rms_norm_llama
// CHECK-SAME: (%[[X:.*]]: tensor<2x16x64xf32>)
// CHECK: %[[W:.*]] = ml_program.global_load_const @norm_w
// CHECK: %[[Y:.*]] = hetg.rms_norm %[[X]] scale %[[W]] : tensor<64xf32> <{epsilon = 9.99999974E-6 : f32}> : tensor<2x16x64xf32>
// CHECK-NEXT: return %[[Y]]
func.func @rms_norm_llama(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %w = ml_program.global_load_const @norm_w : tensor<64xf32>
  %two = hetg.constant dense<2.0> : tensor<f32>
  %sq = hetg.pow %x, %two : tensor<2x16x64xf32>, tensor<f32>
  %ms = hetg.reduce_mean %sq <{axes = array<i64: 2>}> : tensor<2x16x64xf32>
  %eps = hetg.constant dense<1.0e-05> : tensor<f32>
  %a = hetg.add %ms, %eps : tensor<2x16x1xf32>, tensor<f32>
  %s = hetg.sqrt %a : tensor<2x16x1xf32>
  %one = hetg.constant dense<1.0> : tensor<f32>
  %r = hetg.div %one, %s : tensor<f32>, tensor<2x16x1xf32>
  %n = hetg.mul %x, %r : tensor<2x16x64xf32>, tensor<2x16x1xf32>
  %y = hetg.mul %n, %w : tensor<2x16x64xf32>, tensor<64xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// RMSNorm as x / sqrt(.), x*x, weight on the left, no epsilon add.

// CHECK-LABEL: func.func @rms_norm_div_no_epsilon
// CHECK-SAME: (%[[X:.*]]: tensor<16x64xf32>, %[[W:.*]]: tensor<64xf32>)
// CHECK: %[[Y:.*]] = hetg.rms_norm %[[X]] scale %[[W]] : tensor<64xf32> <{epsilon = 0.000000e+00 : f32}>
// CHECK-NEXT: return %[[Y]]
func.func @rms_norm_div_no_epsilon(%x: tensor<16x64xf32>, %w: tensor<64xf32>) -> tensor<16x64xf32> {
  %sq = hetg.mul %x, %x : tensor<16x64xf32>, tensor<16x64xf32>
  %ms = hetg.reduce_mean %sq <{axes = array<i64: 1>}> : tensor<16x64xf32>
  %s = hetg.sqrt %ms : tensor<16x1xf32>
  %n = hetg.div %x, %s : tensor<16x64xf32>, tensor<16x1xf32>
  %y = hetg.mul %w, %n : tensor<64xf32>, tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}

// -----

// RMSNorm with rsqrt as reciprocal(sqrt), and as pow(., -0.5); no weight.

// CHECK-LABEL: func.func @rms_norm_rsqrt_forms
// CHECK-SAME: (%[[X:.*]]: tensor<16x64xf32>, %[[Z:.*]]: tensor<16x64xf32>)
// CHECK-DAG: %[[A:.*]] = hetg.rms_norm %[[X]] <{epsilon = 9.99999997E-7 : f32}> : tensor<16x64xf32>
// CHECK-DAG: %[[B:.*]] = hetg.rms_norm %[[Z]] <{epsilon = 9.99999997E-7 : f32}> : tensor<16x64xf32>
// CHECK: return %[[A]], %[[B]]
func.func @rms_norm_rsqrt_forms(%x: tensor<16x64xf32>, %z: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  %two = hetg.constant dense<2.0> : tensor<f32>
  %eps = hetg.constant dense<1.0e-06> : tensor<f32>
  %sq = hetg.pow %x, %two : tensor<16x64xf32>, tensor<f32>
  %ms = hetg.reduce_mean %sq <{axes = array<i64: 1>}> : tensor<16x64xf32>
  %a = hetg.add %eps, %ms : tensor<f32>, tensor<16x1xf32>
  %s = hetg.sqrt %a : tensor<16x1xf32>
  %r = hetg.reciprocal %s : tensor<16x1xf32>
  %n = hetg.mul %r, %x : tensor<16x1xf32>, tensor<16x64xf32>
  %zsq = hetg.mul %z, %z : tensor<16x64xf32>, tensor<16x64xf32>
  %zms = hetg.reduce_mean %zsq <{axes = array<i64: 1>}> : tensor<16x64xf32>
  %za = hetg.add %zms, %eps : tensor<16x1xf32>, tensor<f32>
  %half = hetg.constant dense<-0.5> : tensor<f32>
  %zr = hetg.pow %za, %half : tensor<16x1xf32>, tensor<f32>
  %zn = hetg.mul %z, %zr : tensor<16x64xf32>, tensor<16x1xf32>
  return %n, %zn : tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// Negative: the mean square is over all of the last two axes.

// CHECK-LABEL: func.func @rms_norm_two_axes
// CHECK-NOT: hetg.rms_norm
// CHECK: hetg.div
func.func @rms_norm_two_axes(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %sq = hetg.mul %x, %x : tensor<2x16x64xf32>, tensor<2x16x64xf32>
  %ms = hetg.reduce_mean %sq <{axes = array<i64: 1, 2>}> : tensor<2x16x64xf32>
  %eps = hetg.constant dense<1.0e-05> : tensor<f32>
  %a = hetg.add %ms, %eps : tensor<2x1x1xf32>, tensor<f32>
  %s = hetg.sqrt %a : tensor<2x1x1xf32>
  %n = hetg.div %x, %s : tensor<2x16x64xf32>, tensor<2x1x1xf32>
  return %n : tensor<2x16x64xf32>
}

// -----

// Negative: the numerator is not the value that is squared.

// CHECK-LABEL: func.func @rms_norm_other_numerator
// CHECK-NOT: hetg.rms_norm
// CHECK: hetg.div
func.func @rms_norm_other_numerator(%x: tensor<16x64xf32>, %z: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %sq = hetg.mul %x, %x : tensor<16x64xf32>, tensor<16x64xf32>
  %ms = hetg.reduce_mean %sq <{axes = array<i64: 1>}> : tensor<16x64xf32>
  %eps = hetg.constant dense<1.0e-05> : tensor<f32>
  %a = hetg.add %ms, %eps : tensor<16x1xf32>, tensor<f32>
  %s = hetg.sqrt %a : tensor<16x1xf32>
  %n = hetg.div %z, %s : tensor<16x64xf32>, tensor<16x1xf32>
  return %n : tensor<16x64xf32>
}

// -----

// Negative: 1 / sqrt written with a numerator that is not 1, and a negative
// epsilon.

// CHECK-LABEL: func.func @rms_norm_wrong_constants
// CHECK-NOT: hetg.rms_norm
func.func @rms_norm_wrong_constants(%x: tensor<16x64xf32>, %z: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  %sq = hetg.mul %x, %x : tensor<16x64xf32>, tensor<16x64xf32>
  %ms = hetg.reduce_mean %sq <{axes = array<i64: 1>}> : tensor<16x64xf32>
  %eps = hetg.constant dense<1.0e-05> : tensor<f32>
  %a = hetg.add %ms, %eps : tensor<16x1xf32>, tensor<f32>
  %s = hetg.sqrt %a : tensor<16x1xf32>
  %two = hetg.constant dense<2.0> : tensor<f32>
  %r = hetg.div %two, %s : tensor<f32>, tensor<16x1xf32>
  %n = hetg.mul %x, %r : tensor<16x64xf32>, tensor<16x1xf32>
  %zsq = hetg.mul %z, %z : tensor<16x64xf32>, tensor<16x64xf32>
  %zms = hetg.reduce_mean %zsq <{axes = array<i64: 1>}> : tensor<16x64xf32>
  %neg = hetg.constant dense<-1.0e-05> : tensor<f32>
  %za = hetg.add %zms, %neg : tensor<16x1xf32>, tensor<f32>
  %zs = hetg.sqrt %za : tensor<16x1xf32>
  %zn = hetg.div %z, %zs : tensor<16x64xf32>, tensor<16x1xf32>
  return %n, %zn : tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// Negative: the normalized value is read twice, so the weight stays a mul.

// CHECK-LABEL: func.func @rms_norm_weight_shared
// CHECK: %[[N:.*]] = hetg.rms_norm %{{.*}} <{epsilon
// CHECK: %[[Y:.*]] = hetg.mul %[[N]], %{{.*}}
// CHECK: return %[[Y]], %[[N]]
func.func @rms_norm_weight_shared(%x: tensor<16x64xf32>, %w: tensor<64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  %sq = hetg.mul %x, %x : tensor<16x64xf32>, tensor<16x64xf32>
  %ms = hetg.reduce_mean %sq <{axes = array<i64: 1>}> : tensor<16x64xf32>
  %eps = hetg.constant dense<1.0e-05> : tensor<f32>
  %a = hetg.add %ms, %eps : tensor<16x1xf32>, tensor<f32>
  %s = hetg.sqrt %a : tensor<16x1xf32>
  %n = hetg.div %x, %s : tensor<16x64xf32>, tensor<16x1xf32>
  %y = hetg.mul %n, %w : tensor<16x64xf32>, tensor<64xf32>
  return %y, %n : tensor<16x64xf32>, tensor<16x64xf32>
}
