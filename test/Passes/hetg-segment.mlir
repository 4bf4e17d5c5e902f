// RUN: hetc-opt %s --split-input-file --hetg-segment | FileCheck %s
// RUN: hetc-opt %s --split-input-file --hetg-segment="recompute=1,3" | FileCheck %s --check-prefix=RECOMPUTE
// RUN: not hetc-opt %s --split-input-file --hetg-segment="recompute=5" 2>&1 | FileCheck %s --check-prefix=RANGE

// Two residual blocks between a tied embedding and its LM head. The cuts
// are the values through which all data flows: the embedding, each
// residual add, and the logits; the reshape of the logits is the same
// boundary and joins the loss segment. Every number is worked out by hand:
//
//   0  gather (0 FLOPs). Backward: gather_grad 24 + the tied table's two
//      gradients added (32). Saved: the ids (48 B). Boundary: x0 (96 B).
//   1  matmul 2*4*24 + gelu 8*24 + add 24 = 408. Backward: gelu_grad 17*24,
//      dX and dW 192 each, dX added to the residual gradient 24 = 816.
//      Saved: x0 and the gelu input (2 * 96 B).
//   2  matmul 192 + add 24. Backward: 192 + 192 + 24. Saved: x1.
//   3  LM head 2*4*48 = 384. Backward 2 * 384. Saved: x2. Boundary: the
//      logits (192 B).
//   4  cross_entropy 7*48 + 2*6 = 348. Backward: cross_entropy_grad 9*48.
//      Saved: the logits (the reshape is a view) and the labels (240 B).
//
// Bytes moved (CostOpInterface::bytesMoved) add up the same way, e.g. the
// gather of segment 0 reads the ids (48 B) and writes and reads its rows
// (2 * 96 B): 240; the LM head of segment 3 reads x2 (96 B) and the table
// (128 B) and writes the logits (192 B): 416.
//
// Per-sample numbers divide by the batch, 2. `kinds` splits each segment's
// figures by op kind (segment 1: add 24 + gelu 192 + matmul 192 = 408
// forward FLOPs) with the ops of each in a call, whatever its batch
// (matmul: one forward, two backward); kinds with no FLOPs and no bytes are
// left out.

// CHECK-LABEL: func.func @main
// CHECK-SAME: hetg.batch = 2
// CHECK-SAME: hetg.segments = [
// CHECK-SAME: {backward_bytes = 656 : i64, backward_flops = 56 : i64, boundary_bytes_per_sample = 48 : i64, forward_bytes = 240 : i64, forward_flops = 0 : i64, index = 0 : i64, kinds = {add = {backward_bytes = 384 : i64, backward_flops = 32 : i64, backward_ops = 1 : i64, forward_bytes = 0 : i64, forward_flops = 0 : i64, forward_ops = 0 : i64}, gather = {backward_bytes = 0 : i64, backward_flops = 0 : i64, backward_ops = 0 : i64, forward_bytes = 240 : i64, forward_flops = 0 : i64, forward_ops = 1 : i64}, gather_grad = {backward_bytes = 272 : i64, backward_flops = 24 : i64, backward_ops = 1 : i64, forward_bytes = 0 : i64, forward_flops = 0 : i64, forward_ops = 0 : i64}}, ops = 1 : i64, parameter_bytes = 128 : i64, parameters = 32 : i64, recompute = false, saved_activation_bytes_per_sample = 24 : i64},
// CHECK-SAME: {backward_bytes = 1088 : i64, backward_flops = 816 : i64, boundary_bytes_per_sample = 48 : i64, forward_bytes = 736 : i64, forward_flops = 408 : i64, index = 1 : i64, kinds = {add = {backward_bytes = 288 : i64, backward_flops = 24 : i64, backward_ops = 1 : i64, forward_bytes = 288 : i64, forward_flops = 24 : i64, forward_ops = 1 : i64}, gelu = {backward_bytes = 0 : i64, backward_flops = 0 : i64, backward_ops = 0 : i64, forward_bytes = 192 : i64, forward_flops = 192 : i64, forward_ops = 1 : i64}, gelu_grad = {backward_bytes = 288 : i64, backward_flops = 408 : i64, backward_ops = 1 : i64, forward_bytes = 0 : i64, forward_flops = 0 : i64, forward_ops = 0 : i64}, matmul = {backward_bytes = 512 : i64, backward_flops = 384 : i64, backward_ops = 2 : i64, forward_bytes = 256 : i64, forward_flops = 192 : i64, forward_ops = 1 : i64}}, ops = 3 : i64, parameter_bytes = 64 : i64, parameters = 16 : i64, recompute = false, saved_activation_bytes_per_sample = 96 : i64},
// CHECK-SAME: {backward_bytes = 800 : i64, backward_flops = 408 : i64, boundary_bytes_per_sample = 48 : i64, forward_bytes = 544 : i64, forward_flops = 216 : i64, index = 2 : i64, kinds = {add = {backward_bytes = 288 : i64, backward_flops = 24 : i64, backward_ops = 1 : i64, forward_bytes = 288 : i64, forward_flops = 24 : i64, forward_ops = 1 : i64}, matmul = {backward_bytes = 512 : i64, backward_flops = 384 : i64, backward_ops = 2 : i64, forward_bytes = 256 : i64, forward_flops = 192 : i64, forward_ops = 1 : i64}}, ops = 2 : i64, parameter_bytes = 64 : i64, parameters = 16 : i64, recompute = false, saved_activation_bytes_per_sample = 48 : i64},
// CHECK-SAME: {backward_bytes = 832 : i64, backward_flops = 768 : i64, boundary_bytes_per_sample = 96 : i64, forward_bytes = 416 : i64, forward_flops = 384 : i64, index = 3 : i64, kinds = {matmul = {backward_bytes = 832 : i64, backward_flops = 768 : i64, backward_ops = 2 : i64, forward_bytes = 416 : i64, forward_flops = 384 : i64, forward_ops = 1 : i64}}, ops = 1 : i64, parameter_bytes = 0 : i64, parameters = 0 : i64, recompute = false, saved_activation_bytes_per_sample = 48 : i64},
// CHECK-SAME: {backward_bytes = 436 : i64, backward_flops = 432 : i64, boundary_bytes_per_sample = 0 : i64, forward_bytes = 244 : i64, forward_flops = 348 : i64, index = 4 : i64, kinds = {cross_entropy = {backward_bytes = 0 : i64, backward_flops = 0 : i64, backward_ops = 0 : i64, forward_bytes = 244 : i64, forward_flops = 348 : i64, forward_ops = 1 : i64}, cross_entropy_grad = {backward_bytes = 436 : i64, backward_flops = 432 : i64, backward_ops = 1 : i64, forward_bytes = 0 : i64, forward_flops = 0 : i64, forward_ops = 0 : i64}}, ops = 3 : i64, parameter_bytes = 0 : i64, parameters = 0 : i64, recompute = false, saved_activation_bytes_per_sample = 120 : i64}]
// CHECK-SAME: hetg.shared_parameters = [{bytes = 128 : i64, elements = 32 : i64, name = "emb", segments = array<i64: 0, 3>}]
// CHECK: global_load_const @emb {{.*}}{hetg.segment = 0 : i64}
// CHECK-NEXT: %[[X0:.*]] = hetg.gather {{.*}}{hetg.cut = 0 : i64, hetg.segment = 0 : i64}
// CHECK-NEXT: global_load_const @w1 {{.*}}{hetg.segment = 1 : i64}
// CHECK-NEXT: hetg.matmul %[[X0]], {{.*}}{hetg.segment = 1 : i64}
// CHECK-NEXT: hetg.gelu {{.*}}{hetg.segment = 1 : i64}
// CHECK-NEXT: %[[X1:.*]] = hetg.add %[[X0]], {{.*}}{hetg.cut = 0 : i64, hetg.segment = 1 : i64}
// CHECK-NEXT: global_load_const @w2 {{.*}}{hetg.segment = 2 : i64}
// CHECK-NEXT: hetg.matmul %[[X1]], {{.*}}{hetg.segment = 2 : i64}
// CHECK-NEXT: hetg.add %[[X1]], {{.*}}{hetg.cut = 0 : i64, hetg.segment = 2 : i64}
// CHECK-NEXT: hetg.matmul {{.*}}{hetg.cut = 0 : i64, hetg.segment = 3 : i64}
// CHECK-NEXT: hetg.reshape {{.*}}{hetg.segment = 4 : i64}
// CHECK-NEXT: hetg.reshape {{.*}}{hetg.segment = 4 : i64}
// CHECK-NEXT: hetg.cross_entropy {{.*}}{hetg.segment = 4 : i64}

// RECOMPUTE-LABEL: func.func @main
// RECOMPUTE-SAME: index = 0 : i64, kinds = {{.*}}, recompute = false, saved_activation_bytes_per_sample = 24 : i64}
// RECOMPUTE-SAME: index = 1 : i64, kinds = {{.*}}, recompute = true, saved_activation_bytes_per_sample = 96 : i64}
// RECOMPUTE-SAME: index = 2 : i64, kinds = {{.*}}, recompute = false, saved_activation_bytes_per_sample = 48 : i64}
// RECOMPUTE-SAME: index = 3 : i64, kinds = {{.*}}, recompute = true, saved_activation_bytes_per_sample = 48 : i64}
// RECOMPUTE-SAME: index = 4 : i64, kinds = {{.*}}, recompute = false, saved_activation_bytes_per_sample = 120 : i64}
// RANGE: error: recompute names segment 5, but @main has 5 segments (0 to 4)

ml_program.global private @emb(dense<0.5> : tensor<8x4xf32>) : tensor<8x4xf32>
ml_program.global private @w1(dense<0.1> : tensor<4x4xf32>) : tensor<4x4xf32>
ml_program.global private @w2(dense<0.2> : tensor<4x4xf32>) : tensor<4x4xf32>
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
  %logits = hetg.matmul %x2, %e <{transpose_rhs}> : tensor<2x3x4xf32>, tensor<8x4xf32>
  %flat = hetg.reshape %logits : tensor<2x3x8xf32> -> tensor<6x8xf32>
  %flat_labels = hetg.reshape %labels : tensor<2x3xi64> -> tensor<6xi64>
  %loss = hetg.cross_entropy %flat, %flat_labels <{reduction = #hetg<loss_reduction mean>}> : tensor<6x8xf32>, tensor<6xi64>
  return %loss : tensor<f32>
}

// -----

// Values computed from the parameters alone (a transposed weight) or from
// the inputs alone (a padding mask) do not block a cut: any stage can
// recompute them. Each joins the segment of its first user; the weight,
// read in segments 1 and 2, counts in segment 1.

// CHECK-LABEL: func.func @side_values
// CHECK-SAME: index = 0 : i64, kinds = {{.*}}, ops = 1 : i64, parameter_bytes = 128 : i64
// CHECK-SAME: index = 1 : i64, kinds = {{.*}}, ops = 8 : i64, parameter_bytes = 64 : i64
// CHECK-SAME: index = 2 : i64, kinds = {{.*}}, ops = 3 : i64, parameter_bytes = 0 : i64
// CHECK-SAME: index = 3 : i64, kinds = {{.*}}, ops = 1 : i64, parameter_bytes = 0 : i64
// CHECK: hetg.gather {{.*}}{hetg.cut = 0 : i64, hetg.segment = 0 : i64}
// CHECK-NEXT: hetg.constant {{.*}}{hetg.segment = 1 : i64}
// CHECK-NEXT: hetg.equal {{.*}}{hetg.segment = 1 : i64}
// CHECK-NEXT: hetg.reshape {{.*}}{hetg.segment = 1 : i64}
// CHECK-NEXT: hetg.constant {{.*}}{hetg.segment = 1 : i64}
// CHECK-NEXT: global_load_const @w1 {{.*}}{hetg.segment = 1 : i64}
// CHECK-NEXT: hetg.transpose {{.*}}{hetg.segment = 1 : i64}
// CHECK-NEXT: hetg.matmul {{.*}}{hetg.segment = 1 : i64}
// CHECK-NEXT: hetg.where {{.*}}{hetg.segment = 1 : i64}
// CHECK-NEXT: hetg.add {{.*}}{hetg.cut = 0 : i64, hetg.segment = 1 : i64}
// CHECK-NEXT: hetg.matmul {{.*}}{hetg.segment = 2 : i64}
// CHECK-NEXT: hetg.where {{.*}}{hetg.segment = 2 : i64}
// CHECK-NEXT: hetg.add {{.*}}{hetg.cut = 0 : i64, hetg.segment = 2 : i64}
// CHECK-NEXT: hetg.reduce_mean {{.*}}{hetg.segment = 3 : i64}

ml_program.global private @emb(dense<0.5> : tensor<8x4xf32>) : tensor<8x4xf32>
ml_program.global private @w1(dense<0.1> : tensor<4x4xf32>) : tensor<4x4xf32>
func.func @side_values(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
  %e = ml_program.global_load_const @emb : tensor<8x4xf32>
  %x0 = hetg.gather %e[%ids] <{axis = 0 : i64}> : tensor<8x4xf32>, tensor<2x3xi64>
  %zero = hetg.constant dense<0> : tensor<i64>
  %pad = hetg.equal %ids, %zero : tensor<2x3xi64>, tensor<i64>
  %mask = hetg.reshape %pad : tensor<2x3xi1> -> tensor<2x3x1xi1>
  %fzero = hetg.constant dense<0.0> : tensor<f32>
  %w1 = ml_program.global_load_const @w1 : tensor<4x4xf32>
  %w1t = hetg.transpose %w1 [1, 0] : tensor<4x4xf32>
  %h1 = hetg.matmul %x0, %w1t : tensor<2x3x4xf32>, tensor<4x4xf32>
  %m1 = hetg.where %mask, %fzero, %h1 : tensor<2x3x1xi1>, tensor<f32>, tensor<2x3x4xf32>
  %x1 = hetg.add %x0, %m1 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %h2 = hetg.matmul %x1, %w1t : tensor<2x3x4xf32>, tensor<4x4xf32>
  %m2 = hetg.where %mask, %fzero, %h2 : tensor<2x3x1xi1>, tensor<f32>, tensor<2x3x4xf32>
  %x2 = hetg.add %x1, %m2 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %loss = hetg.reduce_mean %x2 <{axes = array<i64: 0, 1, 2>, keep_dims = false}> : tensor<2x3x4xf32>
  return %loss : tensor<f32>
}
