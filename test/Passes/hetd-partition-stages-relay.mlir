// RUN: hetc-opt %s --hetg-segment --hetg-autodiff --cse --hetd-partition-stages="stage-starts=1,2" | FileCheck %s

// An embedding (segment 0), a position table added to it (segment 1), a
// residual block, an LM head and the loss, cut into three stages: [0, 1),
// [1, 2) and the rest. The backward of the add is its incoming gradient,
// so stage 1 computes nothing for the embedding's gradient: it relays what
// stage 2 sends back on to stage 0, beside its own table's gradient.

// CHECK-LABEL: func.func @stage0_backward_mb2
// CHECK-SAME: (%{{.*}}: tensor<2x3x4xf32> {hetd.role = "boundary_grad"}
// CHECK: hetg.gather_grad

// CHECK-LABEL: func.func @stage1_backward_mb2
// CHECK-SAME: (%[[GRAD:.*]]: tensor<2x3x4xf32> {hetd.role = "boundary_grad"})
// CHECK-SAME: -> (tensor<2x3x4xf32> {hetd.role = "boundary_grad"}, tensor<3x4xf32> {hetg.gradient_of = @pos})
// CHECK: %[[POS:.*]] = hetg.reduce_sum %[[GRAD]]
// CHECK: return %[[GRAD]], %[[POS]]

// CHECK-LABEL: func.func @stage2_backward_mb2
// CHECK-SAME: -> (tensor<2x3x4xf32> {hetd.role = "boundary_grad"}, tensor<4x4xf32> {hetg.gradient_of = @w}, tensor<8x4xf32> {hetg.gradient_of = @head})

ml_program.global private @emb(dense<0.5> : tensor<8x4xf32>) : tensor<8x4xf32>
ml_program.global private @pos(dense<0.1> : tensor<3x4xf32>) : tensor<3x4xf32>
ml_program.global private @w(dense<0.2> : tensor<4x4xf32>) : tensor<4x4xf32>
ml_program.global private @head(dense<0.3> : tensor<8x4xf32>) : tensor<8x4xf32>
func.func @main(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}, %labels: tensor<2x3xi64> {hetg.name = "labels"}) -> tensor<f32> {
  %e = ml_program.global_load_const @emb : tensor<8x4xf32>
  %x0 = hetg.gather %e[%ids] <{axis = 0 : i64}> : tensor<8x4xf32>, tensor<2x3xi64>
  %p = ml_program.global_load_const @pos : tensor<3x4xf32>
  %x1 = hetg.add %x0, %p : tensor<2x3x4xf32>, tensor<3x4xf32>
  %w = ml_program.global_load_const @w : tensor<4x4xf32>
  %h = hetg.matmul %x1, %w : tensor<2x3x4xf32>, tensor<4x4xf32>
  %x2 = hetg.add %x1, %h : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %head = ml_program.global_load_const @head : tensor<8x4xf32>
  %logits = hetg.matmul %x2, %head <{transpose_rhs}> : tensor<2x3x4xf32>, tensor<8x4xf32>
  %flat = hetg.reshape %logits : tensor<2x3x8xf32> -> tensor<6x8xf32>
  %flat_labels = hetg.reshape %labels : tensor<2x3xi64> -> tensor<6xi64>
  %loss = hetg.cross_entropy %flat, %flat_labels <{reduction = #hetg<loss_reduction mean>}> : tensor<6x8xf32>, tensor<6xi64>
  return %loss : tensor<f32>
}
