// RUN: hetc-opt %s --hetg-segment --hetg-autodiff --cse --hetd-partition-stages="stage-starts=2,3" | FileCheck %s

// Two residual blocks between an embedding and an LM head (segments: 0 the
// embedding, 1 and 2 the blocks, 3 the head, 4 the loss), cut into three
// stages: [0, 2), [2, 3), [3, 5). Each stage's forward returns the
// activation leaving it (or the loss) and what its backward reads; each
// backward returns the gradient of the activation entering it and its
// parameters' gradients.

// CHECK-LABEL: func.func @stage0_forward_mb2
// CHECK-SAME: (%[[IDS:.*]]: tensor<2x3xi64> {hetg.name = "input_ids"})
// CHECK-SAME: -> (tensor<2x3x4xf32> {hetd.role = "boundary"}
// CHECK-SAME: hetd.micro_batch = 2 : i64, hetd.phase = "forward", hetd.stage = 0 : i64
// CHECK: hetg.gather
// CHECK: hetg.gelu
// CHECK: %[[X1:.*]] = hetg.add
// CHECK: return %[[X1]],

// CHECK-LABEL: func.func @stage0_backward_mb2
// CHECK-SAME: {hetd.role = "boundary_grad"}
// CHECK-SAME: -> (tensor<8x4xf32> {hetg.gradient_of = @emb}, tensor<4x4xf32> {hetg.gradient_of = @w1})
// CHECK: hetg.gelu_grad
// CHECK: hetg.gather_grad

// CHECK-LABEL: func.func @stage1_forward_mb2
// CHECK-SAME: (%[[X1IN:.*]]: tensor<2x3x4xf32> {hetd.role = "boundary"})
// CHECK-SAME: -> (tensor<2x3x4xf32> {hetd.role = "boundary"}, tensor<2x3x4xf32> {hetd.role = "saved"})
// CHECK: %[[X2:.*]] = hetg.add %[[X1IN]]
// CHECK: return %[[X2]], %[[X1IN]]

// CHECK-LABEL: func.func @stage1_backward_mb2
// CHECK-SAME: -> (tensor<2x3x4xf32> {hetd.role = "boundary_grad"}, tensor<4x4xf32> {hetg.gradient_of = @w2})

// CHECK-LABEL: func.func @stage2_forward_mb2
// CHECK-SAME: {hetg.name = "labels"}
// CHECK-SAME: -> (tensor<f32> {hetg.name = "loss"}
// CHECK: hetg.cross_entropy

// CHECK-LABEL: func.func @stage2_backward_mb2
// CHECK-SAME: -> (tensor<2x3x4xf32> {hetd.role = "boundary_grad"}, tensor<8x4xf32> {hetg.gradient_of = @head})
// CHECK: hetg.cross_entropy_grad
// CHECK-NOT: func.func @main

ml_program.global private @emb(dense<0.5> : tensor<8x4xf32>) : tensor<8x4xf32>
ml_program.global private @w1(dense<0.1> : tensor<4x4xf32>) : tensor<4x4xf32>
ml_program.global private @w2(dense<0.2> : tensor<4x4xf32>) : tensor<4x4xf32>
ml_program.global private @head(dense<0.3> : tensor<8x4xf32>) : tensor<8x4xf32>
func.func @main(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}, %labels: tensor<2x3xi64> {hetg.name = "labels"}) -> tensor<f32> {
  %e = ml_program.global_load_const @emb : tensor<8x4xf32>
  %x0 = hetg.gather %e[%ids] <{axis = 0 : i64}> : tensor<8x4xf32>, tensor<2x3xi64>
  %w1 = ml_program.global_load_const @w1 : tensor<4x4xf32>
  %h1 = hetg.matmul %x0, %w1 : tensor<2x3x4xf32>, tensor<4x4xf32>
  %a1 = hetg.gelu %h1 : tensor<2x3x4xf32>
  %x1 = hetg.add %x0, %a1 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %w2 = ml_program.global_load_const @w2 : tensor<4x4xf32>
  %h2 = hetg.matmul %x1, %w2 : tensor<2x3x4xf32>, tensor<4x4xf32>
  %x2 = hetg.add %x1, %h2 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %head = ml_program.global_load_const @head : tensor<8x4xf32>
  %logits = hetg.matmul %x2, %head <{transpose_rhs}> : tensor<2x3x4xf32>, tensor<8x4xf32>
  %flat = hetg.reshape %logits : tensor<2x3x8xf32> -> tensor<6x8xf32>
  %flat_labels = hetg.reshape %labels : tensor<2x3xi64> -> tensor<6xi64>
  %loss = hetg.cross_entropy %flat, %flat_labels <{reduction = #hetg<loss_reduction mean>}> : tensor<6x8xf32>, tensor<6xi64>
  return %loss : tensor<f32>
}

