// RUN: hetc-opt %s --split-input-file --hetg-fuse-matmul-bias | FileCheck %s

// nn.Linear as torch.onnx.export writes it: MatMul(x, W^T), then Add(bias,
// product) with the bias first.

ml_program.global private @fc_w(dense<0.5> : tensor<256x64xf32>) : tensor<256x64xf32>
ml_program.global private @fc_b(dense<0.25> : tensor<256xf32>) : tensor<256xf32>

// CHECK-LABEL: func.func @linear_torch
// CHECK-SAME: (%[[X:.*]]: tensor<2x16x64xf32>)
// CHECK-DAG: %[[W:.*]] = ml_program.global_load_const @fc_w
// CHECK-DAG: %[[B:.*]] = ml_program.global_load_const @fc_b
// CHECK: %[[WT:.*]] = hetg.transpose %[[W]] [1, 0]
// CHECK-NEXT: %[[Y:.*]] = hetg.matmul %[[X]], %[[WT]] bias %[[B]] : tensor<256xf32> : tensor<2x16x64xf32>, tensor<64x256xf32>
// CHECK-NEXT: return %[[Y]]
func.func @linear_torch(%x: tensor<2x16x64xf32>) -> tensor<2x16x256xf32> {
  %w = ml_program.global_load_const @fc_w : tensor<256x64xf32>
  %b = ml_program.global_load_const @fc_b : tensor<256xf32>
  %wt = hetg.transpose %w [1, 0] : tensor<256x64xf32>
  %mm = hetg.matmul %x, %wt : tensor<2x16x64xf32>, tensor<64x256xf32>
  %y = hetg.add %b, %mm : tensor<256xf32>, tensor<2x16x256xf32>
  return %y : tensor<2x16x256xf32>
}

// -----

// Bias after the product, as [1, 1, N]; the transpose flag is kept.

// CHECK-LABEL: func.func @linear_transposed_broadcast_bias
// CHECK-SAME: (%[[X:.*]]: tensor<2x16x64xf32>, %[[W:.*]]: tensor<256x64xf32>, %[[B:.*]]: tensor<1x1x256xf32>)
// CHECK: %[[B1:.*]] = hetg.reshape %[[B]] : tensor<1x1x256xf32> -> tensor<256xf32>
// CHECK-NEXT: %[[Y:.*]] = hetg.matmul %[[X]], %[[W]] bias %[[B1]] : tensor<256xf32> <{transpose_rhs}> : tensor<2x16x64xf32>, tensor<256x64xf32>
// CHECK-NEXT: return %[[Y]]
func.func @linear_transposed_broadcast_bias(%x: tensor<2x16x64xf32>, %w: tensor<256x64xf32>, %b: tensor<1x1x256xf32>) -> tensor<2x16x256xf32> {
  %mm = hetg.matmul %x, %w <{transpose_rhs}> : tensor<2x16x64xf32>, tensor<256x64xf32>
  %y = hetg.add %mm, %b : tensor<2x16x256xf32>, tensor<1x1x256xf32>
  return %y : tensor<2x16x256xf32>
}

// -----

// A constant bias and a transposed lhs.

// CHECK-LABEL: func.func @linear_constant_bias
// CHECK: %[[B:.*]] = hetg.constant dense<1.000000e+00> : tensor<8xf32>
// CHECK: hetg.matmul %{{.*}}, %{{.*}} bias %[[B]] : tensor<8xf32> <{transpose_lhs}> : tensor<4x16xf32>, tensor<4x8xf32>
// CHECK-NOT: hetg.add
func.func @linear_constant_bias(%x: tensor<4x16xf32>, %w: tensor<4x8xf32>) -> tensor<16x8xf32> {
  %b = hetg.constant dense<1.0> : tensor<8xf32>
  %mm = hetg.matmul %x, %w <{transpose_lhs}> : tensor<4x16xf32>, tensor<4x8xf32>
  %y = hetg.add %mm, %b : tensor<16x8xf32>, tensor<8xf32>
  return %y : tensor<16x8xf32>
}

// -----

// Negative: a residual add (full shape), a per-row bias, and a size-1 bias
// that broadcasts over the features.

// CHECK-LABEL: func.func @not_a_bias
// CHECK-NOT: bias %
// CHECK: return
func.func @not_a_bias(%x: tensor<16x64xf32>, %w: tensor<64x64xf32>, %r: tensor<16x64xf32>, %row: tensor<16x1xf32>, %one: tensor<1xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>) {
  %mm0 = hetg.matmul %x, %w : tensor<16x64xf32>, tensor<64x64xf32>
  %y0 = hetg.add %r, %mm0 : tensor<16x64xf32>, tensor<16x64xf32>
  %mm1 = hetg.matmul %x, %w : tensor<16x64xf32>, tensor<64x64xf32>
  %y1 = hetg.add %mm1, %row : tensor<16x64xf32>, tensor<16x1xf32>
  %mm2 = hetg.matmul %x, %w : tensor<16x64xf32>, tensor<64x64xf32>
  %y2 = hetg.add %mm2, %one : tensor<16x64xf32>, tensor<1xf32>
  return %y0, %y1, %y2 : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// Negative: the product without bias is also returned.

// CHECK-LABEL: func.func @product_escapes
// CHECK: %[[MM:.*]] = hetg.matmul %{{.*}}, %{{.*}} : tensor<16x64xf32>, tensor<64x32xf32>
// CHECK: %[[Y:.*]] = hetg.add %[[MM]], %{{.*}}
// CHECK: return %[[Y]], %[[MM]]
func.func @product_escapes(%x: tensor<16x64xf32>, %w: tensor<64x32xf32>, %b: tensor<32xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>) {
  %mm = hetg.matmul %x, %w : tensor<16x64xf32>, tensor<64x32xf32>
  %y = hetg.add %mm, %b : tensor<16x32xf32>, tensor<32xf32>
  return %y, %mm : tensor<16x32xf32>, tensor<16x32xf32>
}

// -----

// Negative: the matmul already has a bias; the second one stays an add.

// CHECK-LABEL: func.func @already_biased
// CHECK: %[[MM:.*]] = hetg.matmul %{{.*}}, %{{.*}} bias %{{.*}} : tensor<32xf32> : tensor<16x64xf32>, tensor<64x32xf32>
// CHECK-NEXT: %[[Y:.*]] = hetg.add %[[MM]], %{{.*}}
// CHECK-NEXT: return %[[Y]]
func.func @already_biased(%x: tensor<16x64xf32>, %w: tensor<64x32xf32>, %b: tensor<32xf32>, %c: tensor<32xf32>) -> tensor<16x32xf32> {
  %mm = hetg.matmul %x, %w bias %b : tensor<32xf32> : tensor<16x64xf32>, tensor<64x32xf32>
  %y = hetg.add %mm, %c : tensor<16x32xf32>, tensor<32xf32>
  return %y : tensor<16x32xf32>
}
