// RUN: hetc-opt %s | FileCheck %s
// RUN: hetc-opt %s | hetc-opt | FileCheck %s
// RUN: hetc-opt %s --mlir-print-op-generic | hetc-opt | FileCheck %s

// Every gradient and optimizer op round-trips through its assembly format,
// with the result types its type inference gives.

// CHECK-LABEL: func.func @norm_grads
func.func @norm_grads(%x: tensor<2x16x64xf32>, %dy: tensor<2x16x64xf32>,
                      %w: tensor<64xf32>, %w2: tensor<16x64xf32>)
    -> (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<16x64xf32>, tensor<64xf32>) {
  // CHECK: %{{.*}}, %{{.*}}, %{{.*}} = hetg.layer_norm_grad %{{.*}}, %{{.*}} scale %{{.*}} : tensor<64xf32> <{axis = 2 : i64, epsilon = 9.99999974E-6 : f32}> : tensor<2x16x64xf32>
  %dx, %dw, %db = hetg.layer_norm_grad %x, %dy scale %w : tensor<64xf32> <{axis = 2 : i64, epsilon = 1.0e-05 : f32}> : tensor<2x16x64xf32>
  // CHECK: hetg.layer_norm_grad %{{.*}}, %{{.*}} <{axis = 1 : i64
  %dx1, %dw1, %db1 = hetg.layer_norm_grad %x, %dy <{axis = 1 : i64, epsilon = 1.0e-05 : f32}> : tensor<2x16x64xf32>
  // CHECK: %{{.*}}, %{{.*}} = hetg.rms_norm_grad %{{.*}}, %{{.*}} scale %{{.*}} : tensor<64xf32> <{epsilon = 9.99999997E-7 : f32}> : tensor<2x16x64xf32>
  %rx, %rw = hetg.rms_norm_grad %x, %dy scale %w : tensor<64xf32> <{epsilon = 1.0e-06 : f32}> : tensor<2x16x64xf32>
  // CHECK: hetg.rms_norm_grad %{{.*}}, %{{.*}} <{epsilon
  %rx1, %rw1 = hetg.rms_norm_grad %x, %dy <{epsilon = 1.0e-06 : f32}> : tensor<2x16x64xf32>
  // CHECK: return %{{.*}} : tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<16x64xf32>, tensor<64xf32>
  return %dx, %dw, %db, %dw1, %rw : tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<16x64xf32>, tensor<64xf32>
}

// CHECK-LABEL: func.func @softmax_grads
func.func @softmax_grads(%y: tensor<2x4x16x16xf32>, %dy: tensor<2x4x16x16xf32>) -> () {
  // CHECK: hetg.softmax_grad %{{.*}}, %{{.*}} <{axis = 3 : i64}> : tensor<2x4x16x16xf32>
  %0 = hetg.softmax_grad %y, %dy <{axis = 3 : i64}> : tensor<2x4x16x16xf32>
  // CHECK: hetg.log_softmax_grad %{{.*}}, %{{.*}} <{axis = 1 : i64}> : tensor<2x4x16x16xf32>
  %1 = hetg.log_softmax_grad %y, %dy <{axis = 1 : i64}> : tensor<2x4x16x16xf32>
  return
}

// CHECK-LABEL: func.func @attention_and_loss_grads
func.func @attention_and_loss_grads(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x12x8xf32>,
                                    %v: tensor<2x4x12x6xf32>, %do: tensor<2x4x16x6xf32>,
                                    %m: tensor<16x12xf32>, %z: tensor<32x256xf32>,
                                    %l: tensor<32xi64>, %dl: tensor<f32>, %dls: tensor<32xf32>)
    -> (tensor<2x4x16x8xf32>, tensor<2x4x12x8xf32>, tensor<2x4x12x6xf32>, tensor<32x256xf32>) {
  // CHECK: %{{.*}}, %{{.*}}, %{{.*}} = hetg.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} <{causal, scale = 3.535530e-01 : f32}> : tensor<2x4x16x8xf32>, tensor<2x4x12x8xf32>, tensor<2x4x12x6xf32>, tensor<2x4x16x6xf32>
  %dq, %dk, %dv = hetg.attention_grad %q, %k, %v, %do <{causal, scale = 0.353553 : f32}> : tensor<2x4x16x8xf32>, tensor<2x4x12x8xf32>, tensor<2x4x12x6xf32>, tensor<2x4x16x6xf32>
  // CHECK: hetg.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} : tensor<16x12xf32> <{scale = 1.000000e+00 : f32}>
  %dq1, %dk1, %dv1 = hetg.attention_grad %q, %k, %v, %do mask %m : tensor<16x12xf32> <{scale = 1.0 : f32}> : tensor<2x4x16x8xf32>, tensor<2x4x12x8xf32>, tensor<2x4x12x6xf32>, tensor<2x4x16x6xf32>
  // CHECK: hetg.cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}} <{ignore_index = -100 : i64, reduction = #hetg<loss_reduction mean>}> : tensor<32x256xf32>, tensor<32xi64>, tensor<f32>
  %dz = hetg.cross_entropy_grad %z, %l, %dl <{reduction = #hetg<loss_reduction mean>, ignore_index = -100 : i64}> : tensor<32x256xf32>, tensor<32xi64>, tensor<f32>
  // CHECK: hetg.cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}} <{reduction = #hetg<loss_reduction none>}> : tensor<32x256xf32>, tensor<32xi64>, tensor<32xf32>
  %dz1 = hetg.cross_entropy_grad %z, %l, %dls <{reduction = #hetg<loss_reduction none>}> : tensor<32x256xf32>, tensor<32xi64>, tensor<32xf32>
  return %dq, %dk, %dv, %dz : tensor<2x4x16x8xf32>, tensor<2x4x12x8xf32>, tensor<2x4x12x6xf32>, tensor<32x256xf32>
}

// CHECK-LABEL: func.func @cross_entropy_grad_low_precision
func.func @cross_entropy_grad_low_precision(%z: tensor<32x256xbf16>, %l: tensor<32xi64>,
                                            %dl: tensor<f32>) -> tensor<32x256xbf16> {
  // CHECK: hetg.cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}} <{reduction = #hetg<loss_reduction sum>}> : tensor<32x256xbf16>, tensor<32xi64>, tensor<f32>
  %dz = hetg.cross_entropy_grad %z, %l, %dl <{reduction = #hetg<loss_reduction sum>}> : tensor<32x256xbf16>, tensor<32xi64>, tensor<f32>
  return %dz : tensor<32x256xbf16>
}

// CHECK-LABEL: func.func @data_movement_grads
func.func @data_movement_grads(%de: tensor<2x16x64xf32>, %ids: tensor<2x16xi64>,
                               %dy: tensor<16x64xf32>) -> () {
  // CHECK: hetg.gather_grad %{{.*}}[%{{.*}}] <{axis = 0 : i64}> : tensor<2x16x64xf32>, tensor<2x16xi64> -> tensor<256x64xf32>
  %0 = hetg.gather_grad %de[%ids] <{axis = 0 : i64}> : tensor<2x16x64xf32>, tensor<2x16xi64> -> tensor<256x64xf32>
  // CHECK: hetg.slice_grad %{{.*}} <{ends = array<i64: 16, 128>, starts = array<i64: 0, 64>, steps = array<i64: 1, 1>}> : tensor<16x64xf32> -> tensor<16x192xf32>
  %1 = hetg.slice_grad %dy <{starts = array<i64: 0, 64>, ends = array<i64: 16, 128>, steps = array<i64: 1, 1>}> : tensor<16x64xf32> -> tensor<16x192xf32>
  return
}

// CHECK-LABEL: func.func @activation_grads
func.func @activation_grads(%x: tensor<2x16x256xf32>, %dy: tensor<2x16x256xf32>) -> () {
  // CHECK: hetg.gelu_grad %{{.*}}, %{{.*}} : tensor<2x16x256xf32>
  %0 = hetg.gelu_grad %x, %dy : tensor<2x16x256xf32>
  // CHECK: hetg.gelu_grad %{{.*}}, %{{.*}} <{approximate = #hetg<gelu_approximation tanh>}> : tensor<2x16x256xf32>
  %1 = hetg.gelu_grad %x, %dy <{approximate = #hetg<gelu_approximation tanh>}> : tensor<2x16x256xf32>
  // CHECK: hetg.silu_grad %{{.*}}, %{{.*}} : tensor<2x16x256xf32>
  %2 = hetg.silu_grad %x, %dy : tensor<2x16x256xf32>
  return
}

// CHECK-LABEL: func.func @optimizers
func.func @optimizers(%p: tensor<64x64xf32>, %g: tensor<64x64xf32>, %m: tensor<64x64xf32>,
                      %v: tensor<64x64xf32>, %t: tensor<i64>, %tf: tensor<f32>, %b: tensor<64xf32>)
    -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<f32>) {
  // CHECK: hetg.sgd %{{.*}}, %{{.*}} <{lr = 1.000000e-01 : f64}> : tensor<64x64xf32>
  %0 = hetg.sgd %p, %g <{lr = 0.1 : f64}> : tensor<64x64xf32>
  // CHECK: hetg.sgd %{{.*}}, %{{.*}} <{lr = 1.000000e-01 : f64, weight_decay = 5.000000e-01 : f64}> : tensor<64x64xf32>
  %1 = hetg.sgd %p, %g <{lr = 0.1 : f64, weight_decay = 0.5 : f64}> : tensor<64x64xf32>
  // CHECK: %{{.*}}, %{{.*}}, %{{.*}} = hetg.adamw %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} <{lr = 1.000000e-03 : f64}> : tensor<64x64xf32>, tensor<i64>
  %p1, %m1, %v1 = hetg.adamw %p, %g, %m, %v, %t <{lr = 1.0e-3 : f64}> : tensor<64x64xf32>, tensor<i64>
  // CHECK: hetg.adamw %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} <{beta1 = 8.000000e-01 : f64, beta2 = 0.94999999999999996 : f64, eps = 9.9999999999999995E-7 : f64, lr = 1.000000e-03 : f64, weight_decay = 0.000000e+00 : f64}> : tensor<64x64xf32>, tensor<f32>
  %p2, %m2, %v2 = hetg.adamw %p, %g, %m, %v, %tf <{lr = 1.0e-3 : f64, beta1 = 0.8 : f64, beta2 = 0.95 : f64, eps = 1.0e-6 : f64, weight_decay = 0.0 : f64}> : tensor<64x64xf32>, tensor<f32>
  // CHECK: hetg.global_norm %{{.*}}, %{{.*}} : tensor<64x64xf32>, tensor<64xf32>
  %n = hetg.global_norm %g, %b : tensor<64x64xf32>, tensor<64xf32>
  // CHECK: %[[F:.*]] = hetg.lr_schedule %{{.*}} <{decay_steps = 50 : i64, kind = #hetg<lr_schedule_kind cosine>, min_factor = 1.000000e-01 : f64, warmup_steps = 5 : i64}> : tensor<i64>
  %f = hetg.lr_schedule %t <{kind = #hetg<lr_schedule_kind cosine>, warmup_steps = 5 : i64, decay_steps = 50 : i64, min_factor = 0.1 : f64}> : tensor<i64>
  // CHECK: hetg.sgd %{{.*}}, %{{.*}} lr_factor %[[F]] <{lr = 1.000000e-01 : f64}> : tensor<64x64xf32>
  %3 = hetg.sgd %p, %g lr_factor %f <{lr = 0.1 : f64}> : tensor<64x64xf32>
  // CHECK: hetg.adamw %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} lr_factor %[[F]] <{lr = 1.000000e-03 : f64}> : tensor<64x64xf32>, tensor<i64>
  %p3, %m3, %v3 = hetg.adamw %p, %g, %m, %v, %t lr_factor %f <{lr = 1.0e-3 : f64}> : tensor<64x64xf32>, tensor<i64>
  // A bf16 gradient of f32 master weights names its type.
  // CHECK: hetg.adamw %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} <{lr = 1.000000e-03 : f64}> : tensor<64x64xf32> grad tensor<64x64xbf16>, tensor<i64>
  %g16 = hetg.cast %g to bf16 : tensor<64x64xf32>
  %p4, %m4, %v4 = hetg.adamw %p, %g16, %m, %v, %t <{lr = 1.0e-3 : f64}> : tensor<64x64xf32> grad tensor<64x64xbf16>, tensor<i64>
  // CHECK: return %{{.*}} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<f32>
  return %p1, %m1, %v1, %n : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<f32>
}
