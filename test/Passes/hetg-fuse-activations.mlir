// RUN: hetc-opt %s --split-input-file --hetg-fuse-activations | FileCheck %s

// erf GELU as torch.onnx.export writes nn.GELU(): x * (erf(x / 1.4142135) + 1)
// then * 0.5.

// CHECK-LABEL: func.func @gelu_erf_torch
// CHECK-SAME: (%[[X:.*]]: tensor<2x16x256xf32>)
// CHECK-NEXT: %[[Y:.*]] = hetg.gelu %[[X]] : tensor<2x16x256xf32>
// CHECK-NEXT: return %[[Y]]
func.func @gelu_erf_torch(%x: tensor<2x16x256xf32>) -> tensor<2x16x256xf32> {
  %sqrt2 = hetg.constant dense<1.41421354> : tensor<f32>
  %t = hetg.div %x, %sqrt2 : tensor<2x16x256xf32>, tensor<f32>
  %e = hetg.erf %t : tensor<2x16x256xf32>
  %one = hetg.constant dense<1.0> : tensor<f32>
  %u = hetg.add %e, %one : tensor<2x16x256xf32>, tensor<f32>
  %m = hetg.mul %x, %u : tensor<2x16x256xf32>, tensor<2x16x256xf32>
  %half = hetg.constant dense<5.000000e-01> : tensor<f32>
  %y = hetg.mul %m, %half : tensor<2x16x256xf32>, tensor<f32>
  return %y : tensor<2x16x256xf32>
}

// -----

// Other associations and spellings: (0.5 * x) * (1 + erf(x * 1/sqrt(2)));
// x * (0.5 * (1 + erf)); x * (0.5 + 0.5 * erf); x * (1 + erf) / 2. Constants
// are rank-broadcastable splats.

// CHECK-LABEL: func.func @gelu_erf_associations
// CHECK-SAME: (%[[X:.*]]: tensor<16x64xf32>)
// CHECK-DAG: %[[A:.*]] = hetg.gelu %[[X]] : tensor<16x64xf32>
// CHECK-DAG: %[[B:.*]] = hetg.gelu %[[X]] : tensor<16x64xf32>
// CHECK-DAG: %[[C:.*]] = hetg.gelu %[[X]] : tensor<16x64xf32>
// CHECK-DAG: %[[D:.*]] = hetg.gelu %[[X]] : tensor<16x64xf32>
// CHECK-NOT: hetg.erf
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @gelu_erf_associations(%x: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>) {
  %inv = hetg.constant dense<0.707106769> : tensor<1x1xf32>
  %one = hetg.constant dense<1.0> : tensor<1xf32>
  %half = hetg.constant dense<0.5> : tensor<1x1xf32>
  %two = hetg.constant dense<2.0> : tensor<f32>

  %t0 = hetg.mul %inv, %x : tensor<1x1xf32>, tensor<16x64xf32>
  %e0 = hetg.erf %t0 : tensor<16x64xf32>
  %u0 = hetg.add %one, %e0 : tensor<1xf32>, tensor<16x64xf32>
  %hx = hetg.mul %half, %x : tensor<1x1xf32>, tensor<16x64xf32>
  %a = hetg.mul %hx, %u0 : tensor<16x64xf32>, tensor<16x64xf32>

  %t1 = hetg.mul %x, %inv : tensor<16x64xf32>, tensor<1x1xf32>
  %e1 = hetg.erf %t1 : tensor<16x64xf32>
  %u1 = hetg.add %e1, %one : tensor<16x64xf32>, tensor<1xf32>
  %hu = hetg.mul %u1, %half : tensor<16x64xf32>, tensor<1x1xf32>
  %b = hetg.mul %x, %hu : tensor<16x64xf32>, tensor<16x64xf32>

  %t2 = hetg.mul %x, %inv : tensor<16x64xf32>, tensor<1x1xf32>
  %e2 = hetg.erf %t2 : tensor<16x64xf32>
  %he = hetg.mul %e2, %half : tensor<16x64xf32>, tensor<1x1xf32>
  %u2 = hetg.add %half, %he : tensor<1x1xf32>, tensor<16x64xf32>
  %c = hetg.mul %u2, %x : tensor<16x64xf32>, tensor<16x64xf32>

  %t3 = hetg.div %x, %two : tensor<16x64xf32>, tensor<f32>
  %sqrt2 = hetg.constant dense<0.707106769> : tensor<f32>
  %t3b = hetg.mul %t3, %two : tensor<16x64xf32>, tensor<f32>
  %t3c = hetg.mul %t3b, %sqrt2 : tensor<16x64xf32>, tensor<f32>
  %e3 = hetg.erf %t3c : tensor<16x64xf32>
  %u3 = hetg.add %e3, %one : tensor<16x64xf32>, tensor<1xf32>
  %xu = hetg.mul %x, %u3 : tensor<16x64xf32>, tensor<16x64xf32>
  %d = hetg.div %xu, %two : tensor<16x64xf32>, tensor<f32>
  return %a, %b, %c, %d : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// Negative: erf(x / 1.5) is not GELU.

// CHECK-LABEL: func.func @gelu_erf_wrong_divisor
// CHECK-NOT: hetg.gelu
// CHECK: hetg.erf
func.func @gelu_erf_wrong_divisor(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %c = hetg.constant dense<1.5> : tensor<f32>
  %t = hetg.div %x, %c : tensor<16x64xf32>, tensor<f32>
  %e = hetg.erf %t : tensor<16x64xf32>
  %one = hetg.constant dense<1.0> : tensor<f32>
  %u = hetg.add %e, %one : tensor<16x64xf32>, tensor<f32>
  %m = hetg.mul %x, %u : tensor<16x64xf32>, tensor<16x64xf32>
  %half = hetg.constant dense<0.5> : tensor<f32>
  %y = hetg.mul %m, %half : tensor<16x64xf32>, tensor<f32>
  return %y : tensor<16x64xf32>
}

// -----

// Negative: 0.4 instead of 0.5, and 1 + erf written as 2 + erf.

// CHECK-LABEL: func.func @gelu_erf_wrong_constants
// CHECK-NOT: hetg.gelu
func.func @gelu_erf_wrong_constants(%x: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  %c = hetg.constant dense<1.41421354> : tensor<f32>
  %one = hetg.constant dense<1.0> : tensor<f32>
  %two = hetg.constant dense<2.0> : tensor<f32>
  %t = hetg.div %x, %c : tensor<16x64xf32>, tensor<f32>
  %e = hetg.erf %t : tensor<16x64xf32>
  %u = hetg.add %e, %one : tensor<16x64xf32>, tensor<f32>
  %m = hetg.mul %x, %u : tensor<16x64xf32>, tensor<16x64xf32>
  %p4 = hetg.constant dense<0.4> : tensor<f32>
  %y = hetg.mul %m, %p4 : tensor<16x64xf32>, tensor<f32>
  %t2 = hetg.div %x, %c : tensor<16x64xf32>, tensor<f32>
  %e2 = hetg.erf %t2 : tensor<16x64xf32>
  %u2 = hetg.add %e2, %two : tensor<16x64xf32>, tensor<f32>
  %m2 = hetg.mul %x, %u2 : tensor<16x64xf32>, tensor<16x64xf32>
  %half = hetg.constant dense<0.5> : tensor<f32>
  %y2 = hetg.mul %m2, %half : tensor<16x64xf32>, tensor<f32>
  return %y, %y2 : tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// Negative: erf of another value than the one multiplied.

// CHECK-LABEL: func.func @gelu_erf_other_operand
// CHECK-NOT: hetg.gelu
// CHECK: hetg.erf
func.func @gelu_erf_other_operand(%x: tensor<16x64xf32>, %z: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %c = hetg.constant dense<1.41421354> : tensor<f32>
  %t = hetg.div %z, %c : tensor<16x64xf32>, tensor<f32>
  %e = hetg.erf %t : tensor<16x64xf32>
  %one = hetg.constant dense<1.0> : tensor<f32>
  %u = hetg.add %e, %one : tensor<16x64xf32>, tensor<f32>
  %m = hetg.mul %x, %u : tensor<16x64xf32>, tensor<16x64xf32>
  %half = hetg.constant dense<0.5> : tensor<f32>
  %y = hetg.mul %m, %half : tensor<16x64xf32>, tensor<f32>
  return %y : tensor<16x64xf32>
}

// -----

// Negative: 1 + erf(.) is also returned, and in a second chain the inner
// product x * (1 + erf) is.

// CHECK-LABEL: func.func @gelu_erf_intermediate_escapes
// CHECK-NOT: hetg.gelu
func.func @gelu_erf_intermediate_escapes(%x: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>) {
  %c = hetg.constant dense<1.41421354> : tensor<f32>
  %one = hetg.constant dense<1.0> : tensor<f32>
  %half = hetg.constant dense<0.5> : tensor<f32>
  %t = hetg.div %x, %c : tensor<16x64xf32>, tensor<f32>
  %e = hetg.erf %t : tensor<16x64xf32>
  %u = hetg.add %e, %one : tensor<16x64xf32>, tensor<f32>
  %m = hetg.mul %x, %u : tensor<16x64xf32>, tensor<16x64xf32>
  %y = hetg.mul %m, %half : tensor<16x64xf32>, tensor<f32>
  %t2 = hetg.div %x, %c : tensor<16x64xf32>, tensor<f32>
  %e2 = hetg.erf %t2 : tensor<16x64xf32>
  %u2 = hetg.add %e2, %one : tensor<16x64xf32>, tensor<f32>
  %m2 = hetg.mul %x, %u2 : tensor<16x64xf32>, tensor<16x64xf32>
  %y2 = hetg.mul %m2, %half : tensor<16x64xf32>, tensor<f32>
  return %y, %u, %y2, %m2 : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// Negative: the 0.5 splat broadcasts x to a larger shape.

// CHECK-LABEL: func.func @gelu_erf_constant_broadcasts
// CHECK-NOT: hetg.gelu
func.func @gelu_erf_constant_broadcasts(%x: tensor<16x64xf32>) -> tensor<4x16x64xf32> {
  %c = hetg.constant dense<1.41421354> : tensor<f32>
  %t = hetg.div %x, %c : tensor<16x64xf32>, tensor<f32>
  %e = hetg.erf %t : tensor<16x64xf32>
  %one = hetg.constant dense<1.0> : tensor<f32>
  %u = hetg.add %e, %one : tensor<16x64xf32>, tensor<f32>
  %m = hetg.mul %x, %u : tensor<16x64xf32>, tensor<16x64xf32>
  %half = hetg.constant dense<0.5> : tensor<4x1x1xf32>
  %y = hetg.mul %m, %half : tensor<16x64xf32>, tensor<4x1x1xf32>
  return %y : tensor<4x16x64xf32>
}

// -----

// tanh GELU as torch writes nn.GELU(approximate='tanh') (GPT-2 tanh variant).

// CHECK-LABEL: func.func @gelu_tanh_torch
// CHECK-SAME: (%[[X:.*]]: tensor<2x16x256xf32>)
// CHECK-NEXT: %[[Y:.*]] = hetg.gelu %[[X]] <{approximate = #hetg<gelu_approximation tanh>}> : tensor<2x16x256xf32>
// CHECK-NEXT: return %[[Y]]
func.func @gelu_tanh_torch(%x: tensor<2x16x256xf32>) -> tensor<2x16x256xf32> {
  %half = hetg.constant dense<0.5> : tensor<f32>
  %m = hetg.mul %x, %half : tensor<2x16x256xf32>, tensor<f32>
  %three = hetg.constant dense<3.0> : tensor<f32>
  %p = hetg.pow %x, %three : tensor<2x16x256xf32>, tensor<f32>
  %k = hetg.constant dense<0.044715> : tensor<f32>
  %kp = hetg.mul %p, %k : tensor<2x16x256xf32>, tensor<f32>
  %s = hetg.add %x, %kp : tensor<2x16x256xf32>, tensor<2x16x256xf32>
  %c = hetg.constant dense<0.797884583> : tensor<f32>
  %a = hetg.mul %s, %c : tensor<2x16x256xf32>, tensor<f32>
  %t = hetg.tanh %a : tensor<2x16x256xf32>
  %one = hetg.constant dense<1.0> : tensor<f32>
  %u = hetg.add %t, %one : tensor<2x16x256xf32>, tensor<f32>
  %y = hetg.mul %m, %u : tensor<2x16x256xf32>, tensor<2x16x256xf32>
  return %y : tensor<2x16x256xf32>
}

// -----

// x^3 as x * x * x, and the argument as sqrt(2/pi) * x * (1 + 0.044715 * x^2)
// (HF NewGELU-style rewrites); x * (0.5 * (1 + tanh)).

// CHECK-LABEL: func.func @gelu_tanh_forms
// CHECK-SAME: (%[[X:.*]]: tensor<16x64xf32>)
// CHECK-DAG: %[[A:.*]] = hetg.gelu %[[X]] <{approximate = #hetg<gelu_approximation tanh>}>
// CHECK-DAG: %[[B:.*]] = hetg.gelu %[[X]] <{approximate = #hetg<gelu_approximation tanh>}>
// CHECK-NOT: hetg.tanh
// CHECK: return %[[A]], %[[B]]
func.func @gelu_tanh_forms(%x: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  %half = hetg.constant dense<0.5> : tensor<f32>
  %one = hetg.constant dense<1.0> : tensor<f32>
  %k = hetg.constant dense<0.044715> : tensor<f32>
  %c = hetg.constant dense<0.797884583> : tensor<f32>

  %x2 = hetg.mul %x, %x : tensor<16x64xf32>, tensor<16x64xf32>
  %x3 = hetg.mul %x2, %x : tensor<16x64xf32>, tensor<16x64xf32>
  %kx3 = hetg.mul %k, %x3 : tensor<f32>, tensor<16x64xf32>
  %s = hetg.add %kx3, %x : tensor<16x64xf32>, tensor<16x64xf32>
  %arg = hetg.mul %c, %s : tensor<f32>, tensor<16x64xf32>
  %t = hetg.tanh %arg : tensor<16x64xf32>
  %u = hetg.add %one, %t : tensor<f32>, tensor<16x64xf32>
  %hu = hetg.mul %half, %u : tensor<f32>, tensor<16x64xf32>
  %a = hetg.mul %x, %hu : tensor<16x64xf32>, tensor<16x64xf32>

  %two = hetg.constant dense<2.0> : tensor<f32>
  %sq = hetg.pow %x, %two : tensor<16x64xf32>, tensor<f32>
  %ksq = hetg.mul %sq, %k : tensor<16x64xf32>, tensor<f32>
  %w = hetg.add %one, %ksq : tensor<f32>, tensor<16x64xf32>
  %cx = hetg.mul %x, %c : tensor<16x64xf32>, tensor<f32>
  %arg2 = hetg.mul %cx, %w : tensor<16x64xf32>, tensor<16x64xf32>
  %t2 = hetg.tanh %arg2 : tensor<16x64xf32>
  %u2 = hetg.add %t2, %one : tensor<16x64xf32>, tensor<f32>
  %hx = hetg.mul %x, %half : tensor<16x64xf32>, tensor<f32>
  %b = hetg.mul %u2, %hx : tensor<16x64xf32>, tensor<16x64xf32>
  return %a, %b : tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// f16 constants are rounded far beyond 1e-6 and still match.

// CHECK-LABEL: func.func @gelu_tanh_f16
// CHECK-NEXT: hetg.gelu %{{.*}} <{approximate = #hetg<gelu_approximation tanh>}> : tensor<16x64xf16>
func.func @gelu_tanh_f16(%x: tensor<16x64xf16>) -> tensor<16x64xf16> {
  %half = hetg.constant dense<0.5> : tensor<f16>
  %m = hetg.mul %x, %half : tensor<16x64xf16>, tensor<f16>
  %three = hetg.constant dense<3.0> : tensor<f16>
  %p = hetg.pow %x, %three : tensor<16x64xf16>, tensor<f16>
  %k = hetg.constant dense<0.044715> : tensor<f16>
  %kp = hetg.mul %p, %k : tensor<16x64xf16>, tensor<f16>
  %s = hetg.add %x, %kp : tensor<16x64xf16>, tensor<16x64xf16>
  %c = hetg.constant dense<0.797884583> : tensor<f16>
  %a = hetg.mul %s, %c : tensor<16x64xf16>, tensor<f16>
  %t = hetg.tanh %a : tensor<16x64xf16>
  %one = hetg.constant dense<1.0> : tensor<f16>
  %u = hetg.add %t, %one : tensor<16x64xf16>, tensor<f16>
  %y = hetg.mul %m, %u : tensor<16x64xf16>, tensor<16x64xf16>
  return %y : tensor<16x64xf16>
}

// -----

// Negative: 0.05 instead of 0.044715, x^2 instead of x^3, and sqrt(2/pi)
// replaced by 0.8.

// CHECK-LABEL: func.func @gelu_tanh_wrong_constants
// CHECK-NOT: hetg.gelu
func.func @gelu_tanh_wrong_constants(%x: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>) {
  %half = hetg.constant dense<0.5> : tensor<f32>
  %one = hetg.constant dense<1.0> : tensor<f32>
  %two = hetg.constant dense<2.0> : tensor<f32>
  %three = hetg.constant dense<3.0> : tensor<f32>
  %k = hetg.constant dense<0.044715> : tensor<f32>
  %bad_k = hetg.constant dense<0.05> : tensor<f32>
  %c = hetg.constant dense<0.797884583> : tensor<f32>
  %bad_c = hetg.constant dense<0.8> : tensor<f32>

  %m0 = hetg.mul %x, %half : tensor<16x64xf32>, tensor<f32>
  %p0 = hetg.pow %x, %three : tensor<16x64xf32>, tensor<f32>
  %kp0 = hetg.mul %p0, %bad_k : tensor<16x64xf32>, tensor<f32>
  %s0 = hetg.add %x, %kp0 : tensor<16x64xf32>, tensor<16x64xf32>
  %a0 = hetg.mul %s0, %c : tensor<16x64xf32>, tensor<f32>
  %t0 = hetg.tanh %a0 : tensor<16x64xf32>
  %u0 = hetg.add %t0, %one : tensor<16x64xf32>, tensor<f32>
  %y0 = hetg.mul %m0, %u0 : tensor<16x64xf32>, tensor<16x64xf32>

  %m1 = hetg.mul %x, %half : tensor<16x64xf32>, tensor<f32>
  %p1 = hetg.pow %x, %two : tensor<16x64xf32>, tensor<f32>
  %kp1 = hetg.mul %p1, %k : tensor<16x64xf32>, tensor<f32>
  %s1 = hetg.add %x, %kp1 : tensor<16x64xf32>, tensor<16x64xf32>
  %a1 = hetg.mul %s1, %c : tensor<16x64xf32>, tensor<f32>
  %t1 = hetg.tanh %a1 : tensor<16x64xf32>
  %u1 = hetg.add %t1, %one : tensor<16x64xf32>, tensor<f32>
  %y1 = hetg.mul %m1, %u1 : tensor<16x64xf32>, tensor<16x64xf32>

  %m2 = hetg.mul %x, %half : tensor<16x64xf32>, tensor<f32>
  %p2 = hetg.pow %x, %three : tensor<16x64xf32>, tensor<f32>
  %kp2 = hetg.mul %p2, %k : tensor<16x64xf32>, tensor<f32>
  %s2 = hetg.add %x, %kp2 : tensor<16x64xf32>, tensor<16x64xf32>
  %a2 = hetg.mul %s2, %bad_c : tensor<16x64xf32>, tensor<f32>
  %t2 = hetg.tanh %a2 : tensor<16x64xf32>
  %u2 = hetg.add %t2, %one : tensor<16x64xf32>, tensor<f32>
  %y2 = hetg.mul %m2, %u2 : tensor<16x64xf32>, tensor<16x64xf32>
  return %y0, %y1, %y2 : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// Negative: the cube is also returned.

// CHECK-LABEL: func.func @gelu_tanh_cube_escapes
// CHECK-NOT: hetg.gelu
// CHECK: hetg.tanh
func.func @gelu_tanh_cube_escapes(%x: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  %half = hetg.constant dense<0.5> : tensor<f32>
  %m = hetg.mul %x, %half : tensor<16x64xf32>, tensor<f32>
  %three = hetg.constant dense<3.0> : tensor<f32>
  %p = hetg.pow %x, %three : tensor<16x64xf32>, tensor<f32>
  %k = hetg.constant dense<0.044715> : tensor<f32>
  %kp = hetg.mul %p, %k : tensor<16x64xf32>, tensor<f32>
  %s = hetg.add %x, %kp : tensor<16x64xf32>, tensor<16x64xf32>
  %c = hetg.constant dense<0.797884583> : tensor<f32>
  %a = hetg.mul %s, %c : tensor<16x64xf32>, tensor<f32>
  %t = hetg.tanh %a : tensor<16x64xf32>
  %one = hetg.constant dense<1.0> : tensor<f32>
  %u = hetg.add %t, %one : tensor<16x64xf32>, tensor<f32>
  %y = hetg.mul %m, %u : tensor<16x64xf32>, tensor<16x64xf32>
  return %y, %p : tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// SiLU in both operand orders (Llama gate: silu(gate) * up keeps the up mul).

// CHECK-LABEL: func.func @silu
// CHECK-SAME: (%[[G:.*]]: tensor<2x16x176xf32>, %[[U:.*]]: tensor<2x16x176xf32>)
// CHECK-NEXT: %[[A:.*]] = hetg.silu %[[G]] : tensor<2x16x176xf32>
// CHECK-NEXT: %[[Y:.*]] = hetg.mul %[[A]], %[[U]]
// CHECK-NEXT: %[[B:.*]] = hetg.silu %[[U]] : tensor<2x16x176xf32>
// CHECK-NEXT: return %[[Y]], %[[B]]
func.func @silu(%g: tensor<2x16x176xf32>, %up: tensor<2x16x176xf32>) -> (tensor<2x16x176xf32>, tensor<2x16x176xf32>) {
  %s = hetg.sigmoid %g : tensor<2x16x176xf32>
  %a = hetg.mul %g, %s : tensor<2x16x176xf32>, tensor<2x16x176xf32>
  %y = hetg.mul %a, %up : tensor<2x16x176xf32>, tensor<2x16x176xf32>
  %s2 = hetg.sigmoid %up : tensor<2x16x176xf32>
  %b = hetg.mul %s2, %up : tensor<2x16x176xf32>, tensor<2x16x176xf32>
  return %y, %b : tensor<2x16x176xf32>, tensor<2x16x176xf32>
}

// -----

// Negative: sigmoid of another value, and a sigmoid that is also returned.

// CHECK-LABEL: func.func @silu_negative
// CHECK-NOT: hetg.silu
func.func @silu_negative(%x: tensor<16x64xf32>, %z: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>) {
  %s = hetg.sigmoid %z : tensor<16x64xf32>
  %a = hetg.mul %x, %s : tensor<16x64xf32>, tensor<16x64xf32>
  %s2 = hetg.sigmoid %x : tensor<16x64xf32>
  %b = hetg.mul %x, %s2 : tensor<16x64xf32>, tensor<16x64xf32>
  return %a, %b, %s2 : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>
}
