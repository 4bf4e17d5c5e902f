// RUN: hetc-opt %s --split-input-file --hetg-attach-loss --verify-diagnostics | FileCheck %s
// RUN: hetc-opt %s --split-input-file --hetg-attach-loss=keep-logits --verify-diagnostics | FileCheck %s --check-prefix=KEEP

// A model returning logits [B, T, V] gets a labels input and returns the
// mean token cross-entropy over all B * T tokens.

// CHECK-LABEL: func.func @logits
// CHECK-SAME: (%[[IDS:.*]]: tensor<2x3xi64> {hetg.name = "input_ids"}, %[[LABELS:.*]]: tensor<2x3xi64> {hetg.name = "labels"})
// CHECK-SAME: -> (tensor<f32> {hetg.name = "loss"})
// CHECK: %[[Z:.*]] = hetg.gather
// CHECK: %[[FLAT:.*]] = hetg.reshape %[[Z]] : tensor<2x3x5xf32> -> tensor<6x5xf32>
// CHECK: %[[FLAT_LABELS:.*]] = hetg.reshape %[[LABELS]] : tensor<2x3xi64> -> tensor<6xi64>
// CHECK: %[[LOSS:.*]] = hetg.cross_entropy %[[FLAT]], %[[FLAT_LABELS]] <{reduction = #hetg<loss_reduction mean>}> : tensor<6x5xf32>, tensor<6xi64>
// CHECK: return %[[LOSS]] : tensor<f32>

// keep-logits returns the logits, with their name, after the loss.
// KEEP-LABEL: func.func @logits
// KEEP-SAME: -> (tensor<f32> {hetg.name = "loss"}, tensor<2x3x5xf32> {hetg.name = "logits"})
// KEEP: %[[Z:.*]] = hetg.gather
// KEEP: %[[LOSS:.*]] = hetg.cross_entropy
// KEEP: return %[[LOSS]], %[[Z]] : tensor<f32>, tensor<2x3x5xf32>
ml_program.global private @table(dense<0.5> : tensor<7x5xf32>) : tensor<7x5xf32>
func.func @logits(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}) -> (tensor<2x3x5xf32> {hetg.name = "logits"}) {
  %t = ml_program.global_load_const @table : tensor<7x5xf32>
  %z = hetg.gather %t[%ids] <{axis = 0 : i64}> : tensor<7x5xf32>, tensor<2x3xi64>
  return %z : tensor<2x3x5xf32>
}

// -----

// A model that computes its own loss is left alone.

// CHECK-LABEL: func.func @own_loss
// CHECK-SAME: (%{{.*}}: tensor<2x3x5xf32>, %{{.*}}: tensor<2x3xi64>) -> tensor<f32>
// CHECK-NOT: hetg.reshape
// CHECK: return %{{.*}} : tensor<f32>
func.func @own_loss(%z: tensor<2x3x5xf32>, %l: tensor<2x3xi64>) -> tensor<f32> {
  %t = hetg.transpose %z [0, 2, 1] : tensor<2x3x5xf32>
  %loss = hetg.cross_entropy %t, %l <{reduction = #hetg<loss_reduction mean>}> : tensor<2x5x3xf32>, tensor<2x3xi64>
  return %loss : tensor<f32>
}

// -----

// expected-error @+1 {{expected logits of type tensor<BxTxVxf..> (batch, seq, vocab), got 'tensor<6x5xf32>'}}
func.func @rank_two(%z: tensor<6x5xf32>) -> tensor<6x5xf32> {
  return %z : tensor<6x5xf32>
}

// -----

// expected-error @+1 {{expected one result, logits [batch, seq, vocab] or a scalar loss, but @two_results has 2}}
func.func @two_results(%z: tensor<2x3x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>) {
  return %z, %z : tensor<2x3x5xf32>, tensor<2x3x5xf32>
}

// -----

// expected-error @+1 {{logits have dynamic shape 'tensor<?x3x5xf32>'; run hetg-specialize first}}
func.func @dynamic(%z: tensor<?x3x5xf32>) -> tensor<?x3x5xf32> {
  return %z : tensor<?x3x5xf32>
}

// -----

// expected-error @+1 {{'input_ids' has type 'tensor<2x4xi64>' but the logits are 'tensor<2x3x5xf32>'; expected [2, 3]}}
func.func @mismatched_ids(%ids: tensor<2x4xi64> {hetg.name = "input_ids"}, %z: tensor<2x3x5xf32>) -> tensor<2x3x5xf32> {
  return %z : tensor<2x3x5xf32>
}

// -----

// expected-error @+1 {{already has a 'labels' input but returns logits, not a loss}}
func.func @has_labels(%l: tensor<2x3xi64> {hetg.name = "labels"}, %z: tensor<2x3x5xf32>) -> tensor<2x3x5xf32> {
  return %z : tensor<2x3x5xf32>
}

// -----

// expected-error @+1 {{expected logits of type tensor<BxTxVxf..> (batch, seq, vocab), got 'tensor<2x3x5xi64>'}}
func.func @integer_logits(%z: tensor<2x3x5xi64>) -> tensor<2x3x5xi64> {
  return %z : tensor<2x3x5xi64>
}

