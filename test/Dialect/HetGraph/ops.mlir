// RUN: hetc-opt %s | FileCheck %s
// RUN: hetc-opt %s | hetc-opt | FileCheck %s
// RUN: hetc-opt %s --mlir-print-op-generic | hetc-opt | FileCheck %s

// Every hetg op round-trips through its custom assembly format.

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: tensor<2x16x64xf32>, %b: tensor<64xf32>,
                       %i: tensor<4xi64>, %c: tensor<16x1xi1>) -> () {
  // CHECK: hetg.neg %{{.*}} : tensor<4xi64>
  %0 = hetg.neg %i : tensor<4xi64>
  // CHECK: hetg.sqrt %{{.*}} : tensor<2x16x64xf32>
  %1 = hetg.sqrt %x : tensor<2x16x64xf32>
  // CHECK: hetg.reciprocal
  %2 = hetg.reciprocal %x : tensor<2x16x64xf32>
  // CHECK: hetg.exp
  %3 = hetg.exp %x : tensor<2x16x64xf32>
  // CHECK: hetg.log
  %4 = hetg.log %x : tensor<2x16x64xf32>
  // CHECK: hetg.tanh
  %5 = hetg.tanh %x : tensor<2x16x64xf32>
  // CHECK: hetg.erf
  %6 = hetg.erf %x : tensor<2x16x64xf32>
  // CHECK: hetg.sigmoid
  %7 = hetg.sigmoid %x : tensor<2x16x64xf32>
  // CHECK: hetg.relu
  %8 = hetg.relu %x : tensor<2x16x64xf32>
  // CHECK: hetg.silu
  %9 = hetg.silu %x : tensor<2x16x64xf32>
  // CHECK: hetg.gelu %{{.*}} : tensor<2x16x64xf32>
  %10 = hetg.gelu %x : tensor<2x16x64xf32>
  // CHECK: hetg.gelu %{{.*}} <{approximate = #hetg<gelu_approximation tanh>}> : tensor<2x16x64xf32>
  %11 = hetg.gelu %x <{approximate = #hetg<gelu_approximation tanh>}> : tensor<2x16x64xf32>
  // CHECK: hetg.add %{{.*}}, %{{.*}} : tensor<2x16x64xf32>, tensor<64xf32>
  %12 = hetg.add %x, %b : tensor<2x16x64xf32>, tensor<64xf32>
  // CHECK: hetg.sub
  %13 = hetg.sub %x, %b : tensor<2x16x64xf32>, tensor<64xf32>
  // CHECK: hetg.mul
  %14 = hetg.mul %x, %b : tensor<2x16x64xf32>, tensor<64xf32>
  // CHECK: hetg.div
  %15 = hetg.div %x, %b : tensor<2x16x64xf32>, tensor<64xf32>
  // CHECK: hetg.pow
  %16 = hetg.pow %x, %b : tensor<2x16x64xf32>, tensor<64xf32>
  // CHECK: hetg.equal %{{.*}}, %{{.*}} : tensor<4xi64>, tensor<4xi64>
  %17 = hetg.equal %i, %i : tensor<4xi64>, tensor<4xi64>
  // CHECK: hetg.minimum %{{.*}}, %{{.*}} : tensor<2x16x64xf32>, tensor<64xf32>
  %m0 = hetg.minimum %x, %b : tensor<2x16x64xf32>, tensor<64xf32>
  // CHECK: hetg.maximum %{{.*}}, %{{.*}} : tensor<4xi64>, tensor<4xi64>
  %m1 = hetg.maximum %i, %i : tensor<4xi64>, tensor<4xi64>
  // CHECK: hetg.where %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x1xi1>, tensor<2x16x64xf32>, tensor<64xf32>
  %18 = hetg.where %c, %x, %b : tensor<16x1xi1>, tensor<2x16x64xf32>, tensor<64xf32>
  // CHECK: hetg.cast %{{.*}} to f32 : tensor<4xi64>
  %19 = hetg.cast %i to f32 : tensor<4xi64>
  return
}

// CHECK-LABEL: func.func @result_types
func.func @result_types(%x: tensor<2x16x64xf32>, %b: tensor<64xf32>,
                        %i: tensor<4xi64>, %c: tensor<16x1xi1>,
                        %d: tensor<4x1x64xf32>) -> (tensor<2x16x64xf32>, tensor<4xi1>, tensor<4x16x64xf32>, tensor<4xf32>) {
  %0 = hetg.add %x, %b : tensor<2x16x64xf32>, tensor<64xf32>
  %1 = hetg.equal %i, %i : tensor<4xi64>, tensor<4xi64>
  %2 = hetg.where %c, %d, %b : tensor<16x1xi1>, tensor<4x1x64xf32>, tensor<64xf32>
  %3 = hetg.cast %i to f32 : tensor<4xi64>
  // CHECK: return %{{.*}} : tensor<2x16x64xf32>, tensor<4xi1>, tensor<4x16x64xf32>, tensor<4xf32>
  return %0, %1, %2, %3 : tensor<2x16x64xf32>, tensor<4xi1>, tensor<4x16x64xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @linear_algebra
func.func @linear_algebra(%x: tensor<2x16x64xf32>, %w: tensor<256x64xf32>,
                          %b: tensor<256xf32>, %q: tensor<2x4x16x8xf32>)
    -> (tensor<2x16x256xf32>, tensor<2x4x16x16xf32>) {
  // CHECK: hetg.matmul %{{.*}}, %{{.*}} bias %{{.*}} : tensor<256xf32> <{transpose_rhs}> : tensor<2x16x64xf32>, tensor<256x64xf32>
  %0 = hetg.matmul %x, %w bias %b : tensor<256xf32> <{transpose_rhs}> : tensor<2x16x64xf32>, tensor<256x64xf32>
  // CHECK: hetg.matmul %{{.*}}, %{{.*}} <{transpose_rhs}> : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>
  %1 = hetg.matmul %q, %q <{transpose_rhs}> : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>
  return %0, %1 : tensor<2x16x256xf32>, tensor<2x4x16x16xf32>
}

// CHECK-LABEL: func.func @data_movement
func.func @data_movement(%x: tensor<2x16x64xf32>, %ids: tensor<2x16xi64>,
                         %t: tensor<256x64xf32>, %s: tensor<4xi64>,
                         %dyn: tensor<?x16x64xf32>, %one: tensor<1xi64>) -> () {
  // CHECK: hetg.transpose %{{.*}} [1, 0, 2] : tensor<2x16x64xf32>
  %0 = hetg.transpose %x [1, 0, 2] : tensor<2x16x64xf32>
  // CHECK: hetg.reshape %{{.*}} : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
  %1 = hetg.reshape %x : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
  // CHECK: hetg.dynamic_reshape %{{.*}}, %{{.*}} : tensor<?x16x64xf32>, tensor<4xi64>
  %2 = hetg.dynamic_reshape %dyn, %s : tensor<?x16x64xf32>, tensor<4xi64>
  // CHECK: hetg.broadcast %{{.*}} : tensor<2x16xi64> -> tensor<3x2x16xi64>
  %3 = hetg.broadcast %ids : tensor<2x16xi64> -> tensor<3x2x16xi64>
  // CHECK: hetg.dynamic_broadcast %{{.*}}, %{{.*}} : tensor<2x16xi64>, tensor<4xi64>
  %4 = hetg.dynamic_broadcast %ids, %s : tensor<2x16xi64>, tensor<4xi64>
  // CHECK: hetg.slice %{{.*}} <{ends = array<i64: 2, 8, 64>, starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 2, 1>}> : tensor<2x16x64xf32>
  %5 = hetg.slice %x <{starts = array<i64: 0, 0, 0>, ends = array<i64: 2, 8, 64>, steps = array<i64: 1, 2, 1>}> : tensor<2x16x64xf32>
  // CHECK: hetg.dynamic_slice %{{.*}}, %{{.*}}, %{{.*}} <{axes = array<i64: 1>, steps = array<i64: 1>}> : tensor<?x16x64xf32>, tensor<1xi64>, tensor<1xi64>
  %6 = hetg.dynamic_slice %dyn, %one, %one <{axes = array<i64: 1>, steps = array<i64: 1>}> : tensor<?x16x64xf32>, tensor<1xi64>, tensor<1xi64>
  // CHECK: hetg.concat %{{.*}}, %{{.*}} <{axis = 0 : i64}> : tensor<4xi64>, tensor<1xi64>
  %7 = hetg.concat %s, %one <{axis = 0 : i64}> : tensor<4xi64>, tensor<1xi64>
  // CHECK: hetg.gather %{{.*}}[%{{.*}}] <{axis = 0 : i64}> : tensor<256x64xf32>, tensor<2x16xi64>
  %8 = hetg.gather %t[%ids] <{axis = 0 : i64}> : tensor<256x64xf32>, tensor<2x16xi64>
  return
}

// CHECK-LABEL: func.func @reductions_and_norms
func.func @reductions_and_norms(%x: tensor<2x16x64xf32>, %w: tensor<64xf32>) -> () {
  // CHECK: hetg.reduce_sum %{{.*}} <{axes = array<i64: 2>}> : tensor<2x16x64xf32>
  %0 = hetg.reduce_sum %x <{axes = array<i64: 2>}> : tensor<2x16x64xf32>
  // CHECK: hetg.reduce_mean %{{.*}} <{axes = array<i64: 1, 2>, keep_dims = false}>
  %1 = hetg.reduce_mean %x <{axes = array<i64: 1, 2>, keep_dims = false}> : tensor<2x16x64xf32>
  // CHECK: hetg.reduce_max
  %2 = hetg.reduce_max %x <{axes = array<i64: 2>}> : tensor<2x16x64xf32>
  // CHECK: hetg.softmax %{{.*}} <{axis = 2 : i64}> : tensor<2x16x64xf32>
  %3 = hetg.softmax %x <{axis = 2 : i64}> : tensor<2x16x64xf32>
  // CHECK: hetg.log_softmax %{{.*}} <{axis = 2 : i64}>
  %4 = hetg.log_softmax %x <{axis = 2 : i64}> : tensor<2x16x64xf32>
  // CHECK: hetg.layer_norm %{{.*}} scale %{{.*}} : tensor<64xf32> bias %{{.*}} : tensor<64xf32> <{axis = 2 : i64, epsilon = 9.99999974E-6 : f32}> : tensor<2x16x64xf32>
  %5 = hetg.layer_norm %x scale %w : tensor<64xf32> bias %w : tensor<64xf32> <{axis = 2 : i64, epsilon = 1.0e-05 : f32}> : tensor<2x16x64xf32>
  // CHECK: hetg.layer_norm %{{.*}} <{axis = 1 : i64
  %6 = hetg.layer_norm %x <{axis = 1 : i64, epsilon = 1.0e-05 : f32}> : tensor<2x16x64xf32>
  // CHECK: hetg.rms_norm %{{.*}} scale %{{.*}} : tensor<64xf32> <{epsilon = 9.99999997E-7 : f32}> : tensor<2x16x64xf32>
  %7 = hetg.rms_norm %x scale %w : tensor<64xf32> <{epsilon = 1.0e-06 : f32}> : tensor<2x16x64xf32>
  return
}

// CHECK-LABEL: func.func @transformer_blocks
func.func @transformer_blocks(%q: tensor<2x4x16x8xf32>, %m: tensor<16x16xf32>,
                              %logits: tensor<32x256xf32>, %labels: tensor<32xi64>)
    -> (tensor<2x4x16x8xf32>, tensor<f32>, tensor<32xf32>) {
  // CHECK: hetg.attention %{{.*}}, %{{.*}}, %{{.*}} <{causal, scale = 3.535530e-01 : f32}>
  %0 = hetg.attention %q, %q, %q <{causal, scale = 0.353553 : f32}> : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>
  // CHECK: hetg.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} : tensor<16x16xf32>
  %1 = hetg.attention %q, %q, %q mask %m : tensor<16x16xf32> <{scale = 1.0 : f32}> : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>
  // CHECK: hetg.cross_entropy %{{.*}}, %{{.*}} <{ignore_index = -100 : i64, reduction = #hetg<loss_reduction mean>}> : tensor<32x256xf32>, tensor<32xi64>
  %2 = hetg.cross_entropy %logits, %labels <{reduction = #hetg<loss_reduction mean>, ignore_index = -100 : i64}> : tensor<32x256xf32>, tensor<32xi64>
  %3 = hetg.cross_entropy %logits, %labels <{reduction = #hetg<loss_reduction none>}> : tensor<32x256xf32>, tensor<32xi64>
  return %0, %2, %3 : tensor<2x4x16x8xf32>, tensor<f32>, tensor<32xf32>
}

// Low-precision logits give an f32 loss.
// CHECK-LABEL: func.func @cross_entropy_low_precision
func.func @cross_entropy_low_precision(%logits: tensor<32x256xbf16>, %half: tensor<32x256xf16>,
                                       %labels: tensor<32xi64>) -> (tensor<f32>, tensor<32xf32>) {
  // CHECK: hetg.cross_entropy %{{.*}}, %{{.*}} <{reduction = #hetg<loss_reduction sum>}> : tensor<32x256xbf16>, tensor<32xi64>
  %0 = hetg.cross_entropy %logits, %labels <{reduction = #hetg<loss_reduction sum>}> : tensor<32x256xbf16>, tensor<32xi64>
  %1 = hetg.cross_entropy %half, %labels <{reduction = #hetg<loss_reduction none>}> : tensor<32x256xf16>, tensor<32xi64>
  return %0, %1 : tensor<f32>, tensor<32xf32>
}

// CHECK-LABEL: func.func @shape_computation
func.func @shape_computation(%x: tensor<?x16xi64>, %n: tensor<i64>) -> () {
  // CHECK: hetg.shape %{{.*}} <{end = 2 : i64, start = 0 : i64}> : tensor<?x16xi64>
  %0 = hetg.shape %x <{start = 0 : i64, end = 2 : i64}> : tensor<?x16xi64>
  // CHECK: hetg.range %{{.*}}, %{{.*}}, %{{.*}} : tensor<i64>, tensor<i64>, tensor<i64>
  %1 = hetg.range %n, %n, %n : tensor<i64>, tensor<i64>, tensor<i64>
  // CHECK: hetg.constant_of_shape %{{.*}} <{value = dense<0.000000e+00> : tensor<1xf32>}> : tensor<2xi64>
  %2 = hetg.constant_of_shape %0 <{value = dense<0.0> : tensor<1xf32>}> : tensor<2xi64>
  // CHECK: hetg.trilu %{{.*}} <{k = 0 : i64, upper = false}> : tensor<16x16xf32>
  %c = hetg.constant dense<1.0> : tensor<16x16xf32>
  %3 = hetg.trilu %c <{k = 0 : i64, upper = false}> : tensor<16x16xf32>
  return
}
