// RUN: hetc-opt %s --split-input-file --hetg-specialize="batch=2 seq=4" | FileCheck %s

// The shape arithmetic torch.onnx.export emits for a dynamic batch and
// sequence: positions from Range over the sequence length, a view to
// [B, T, heads, head_dim] from Shape/Gather/Concat, a causal mask from
// ConstantOfShape + Trilu. After specialization it is all constants and
// static ops.

// CHECK-LABEL: func.func @gpt_prologue
// CHECK-SAME: (%[[IDS:.*]]: tensor<2x4xi64> {hetg.name = "input_ids"}) -> (tensor<2x4x2x4xf32>, tensor<4x4xi1>)
ml_program.global private @wte(dense<1.0> : tensor<16x8xf32>) : tensor<16x8xf32>
ml_program.global private @wpe(dense<2.0> : tensor<16x8xf32>) : tensor<16x8xf32>
func.func @gpt_prologue(%ids: tensor<?x?xi64> {hetg.name = "input_ids"})
    -> (tensor<?x?x?x?xf32>, tensor<?x?xi1>) {
  %wte = ml_program.global_load_const @wte : tensor<16x8xf32>
  %wpe = ml_program.global_load_const @wpe : tensor<16x8xf32>
  // CHECK-DAG: %[[MASK:.*]] = hetg.constant dense<{{\[\[}}true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]> : tensor<4x4xi1>
  // CHECK-DAG: %[[POS:.*]] = hetg.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
  %seq_shape = hetg.shape %ids <{start = 1 : i64, end = 2 : i64}> : tensor<?x?xi64>
  %zero = hetg.constant dense<0> : tensor<i64>
  %one = hetg.constant dense<1> : tensor<i64>
  %idx0 = hetg.constant dense<0> : tensor<i64>
  %seq = hetg.gather %seq_shape[%idx0] <{axis = 0 : i64}> : tensor<1xi64>, tensor<i64>
  %pos = hetg.range %zero, %seq, %one : tensor<i64>, tensor<i64>, tensor<i64>
  %tok = hetg.gather %wte[%ids] <{axis = 0 : i64}> : tensor<16x8xf32>, tensor<?x?xi64>
  %pe = hetg.gather %wpe[%pos] <{axis = 0 : i64}> : tensor<16x8xf32>, tensor<?xi64>
  // CHECK: %[[TOK:.*]] = hetg.gather %{{.*}}[%[[IDS]]] <{axis = 0 : i64}> : tensor<16x8xf32>, tensor<2x4xi64>
  // CHECK: %[[PE:.*]] = hetg.gather %{{.*}}[%[[POS]]] <{axis = 0 : i64}> : tensor<16x8xf32>, tensor<4xi64>
  // CHECK: %[[H:.*]] = hetg.add %[[TOK]], %[[PE]] : tensor<2x4x8xf32>, tensor<4x8xf32>
  %h = hetg.add %tok, %pe : tensor<?x?x8xf32>, tensor<?x8xf32>
  %bt = hetg.shape %h <{start = 0 : i64, end = 2 : i64}> : tensor<?x?x8xf32>
  %heads = hetg.constant dense<[2, 4]> : tensor<2xi64>
  %view = hetg.concat %bt, %heads <{axis = 0 : i64}> : tensor<2xi64>, tensor<2xi64>
  // CHECK: %[[V:.*]] = hetg.reshape %[[H]] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %v = hetg.dynamic_reshape %h, %view : tensor<?x?x8xf32>, tensor<4xi64>
  %tt = hetg.concat %seq_shape, %seq_shape <{axis = 0 : i64}> : tensor<1xi64>, tensor<1xi64>
  %ones = hetg.constant_of_shape %tt <{value = dense<1.0> : tensor<1xf32>}> : tensor<2xi64>
  %tril = hetg.trilu %ones <{k = 0 : i64, upper = false}> : tensor<?x?xf32>
  %fzero = hetg.constant dense<0.0> : tensor<f32>
  %masked = hetg.equal %tril, %fzero : tensor<?x?xf32>, tensor<f32>
  %true = hetg.constant dense<true> : tensor<i1>
  %false = hetg.constant dense<false> : tensor<i1>
  %keep = hetg.where %masked, %false, %true : tensor<?x?xi1>, tensor<i1>, tensor<i1>
  // CHECK-NOT: hetg.shape
  // CHECK-NOT: hetg.range
  // CHECK-NOT: hetg.dynamic
  // CHECK: return %[[V]], %[[MASK]] : tensor<2x4x2x4xf32>, tensor<4x4xi1>
  return %v, %keep : tensor<?x?x?x?xf32>, tensor<?x?xi1>
}

// -----

// A static input of the asked batch and length is left as it is.
// CHECK-LABEL: func.func @already_static
// CHECK-SAME: (%{{.*}}: tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
func.func @already_static(%x: tensor<2x4x5xf32>) -> tensor<2x4x5xf32> {
  %y = hetg.exp %x : tensor<2x4x5xf32>
  return %y : tensor<2x4x5xf32>
}

// -----

// An attention_mask input is fed all ones: it becomes a constant and leaves
// the signature, and the padding mask computed from it folds away.
// CHECK-LABEL: func.func @attention_mask
// CHECK-SAME: (%[[IDS:.*]]: tensor<2x4xi64> {hetg.name = "input_ids"}) -> tensor<2x4xf32>
// CHECK-NEXT: %[[ZERO:.*]] = hetg.constant dense<0.000000e+00> : tensor<2x4xf32>
// CHECK-NEXT: return %[[ZERO]]
func.func @attention_mask(%ids: tensor<?x?xi64> {hetg.name = "input_ids"},
                          %mask: tensor<?x?xi64> {hetg.name = "attention_mask"}) -> tensor<?x?xf32> {
  %f = hetg.cast %mask to f32 : tensor<?x?xi64>
  %one = hetg.constant dense<1.0> : tensor<f32>
  %pad = hetg.sub %one, %f : tensor<f32>, tensor<?x?xf32>
  return %pad : tensor<?x?xf32>
}
