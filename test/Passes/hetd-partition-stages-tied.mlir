// RUN: hetc-opt %s --hetg-segment --hetg-autodiff --cse --hetd-partition-stages="stage-starts=1,3" | FileCheck %s

// A weight read by the embedding (stage 0) and the LM head (stage 2): each
// stage's backward returns its partial gradient; the add joining them is
// left to the ranks.

// CHECK-LABEL: func.func @stage0_backward_mb2
// CHECK-SAME: -> (tensor<8x4xf32> {hetg.gradient_of = @emb})
// CHECK: %[[G0:.*]] = hetg.gather_grad
// CHECK-NEXT: return %[[G0]]
// CHECK-LABEL: func.func @stage1_backward_mb2
// CHECK-NOT: @emb
// CHECK-LABEL: func.func @stage2_forward_mb2
// CHECK: global_load_const @emb
// CHECK-LABEL: func.func @stage2_backward_mb2
// CHECK-SAME: -> (tensor<2x3x4xf32> {hetd.role = "boundary_grad"}, tensor<8x4xf32> {hetg.gradient_of = @emb})
// CHECK: %[[G2:.*]] = hetg.matmul {{.*}}<{transpose_lhs}>
// CHECK-NEXT: return {{.*}}, %[[G2]]

ml_program.global private @emb(dense<0.5> : tensor<8x4xf32>) : tensor<8x4xf32>
ml_program.global private @w1(dense<0.1> : tensor<4x4xf32>) : tensor<4x4xf32>
ml_program.global private @w2(dense<0.2> : tensor<4x4xf32>) : tensor<4x4xf32>
func.func @tied(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}, %labels: tensor<2x3xi64> {hetg.name = "labels"}) -> tensor<f32> {
  %e = ml_program.global_load_const @emb : tensor<8x4xf32>
  %x0 = hetg.gather %e[%ids] <{axis = 0 : i64}> : tensor<8x4xf32>, tensor<2x3xi64>
  %w1 = ml_program.global_load_const @w1 : tensor<4x4xf32>
  %h1 = hetg.matmul %x0, %w1 : tensor<2x3x4xf32>, tensor<4x4xf32>
  %x1 = hetg.add %x0, %h1 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %w2 = ml_program.global_load_const @w2 : tensor<4x4xf32>
  %h2 = hetg.matmul %x1, %w2 : tensor<2x3x4xf32>, tensor<4x4xf32>
  %x2 = hetg.add %x1, %h2 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %logits = hetg.matmul %x2, %e <{transpose_rhs}> : tensor<2x3x4xf32>, tensor<8x4xf32>
  %flat = hetg.reshape %logits : tensor<2x3x8xf32> -> tensor<6x8xf32>
  %flat_labels = hetg.reshape %labels : tensor<2x3xi64> -> tensor<6xi64>
  %loss = hetg.cross_entropy %flat, %flat_labels <{reduction = #hetg<loss_reduction mean>}> : tensor<6x8xf32>, tensor<6xi64>
  return %loss : tensor<f32>
}
