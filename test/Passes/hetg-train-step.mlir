// RUN: hetc-opt %s --hetg-train-step="optimizer=adamw lr=0.001 weight-decay=0.1 clip-norm=1.0" | FileCheck %s

// The whole training step on a tiny language model: loss, gradients,
// clipping and AdamW, with every parameter and state global updated.

// CHECK-DAG: ml_program.global private mutable @wte(
// CHECK-DAG: ml_program.global private mutable @wte.adam_m(
// CHECK-DAG: ml_program.global private mutable @wte.adam_v(
// CHECK-DAG: ml_program.global private mutable @ln.weight(
// CHECK-DAG: ml_program.global private mutable @ln.bias(
// CHECK-DAG: ml_program.global private mutable @optimizer.step(dense<0> : tensor<i64>)
ml_program.global private @wte(dense<0.25> : tensor<7x4xf32>) : tensor<7x4xf32>
ml_program.global private @ln.weight(dense<1.0> : tensor<4xf32>) : tensor<4xf32>
ml_program.global private @ln.bias(dense<0.0> : tensor<4xf32>) : tensor<4xf32>

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[IDS:.*]]: tensor<2x3xi64> {hetg.name = "input_ids"}, %[[LABELS:.*]]: tensor<2x3xi64> {hetg.name = "labels"})
// CHECK-SAME: -> (tensor<f32> {hetg.name = "loss"})
// CHECK-NOT: global_load_const
// CHECK: %[[LOSS:.*]] = hetg.cross_entropy
// CHECK: hetg.cross_entropy_grad
// CHECK: hetg.layer_norm_grad
// CHECK: hetg.gather_grad
// CHECK: hetg.global_norm
// CHECK-COUNT-3: hetg.adamw
// CHECK-DAG: ml_program.global_store @wte =
// CHECK-DAG: ml_program.global_store @wte.adam_m =
// CHECK-DAG: ml_program.global_store @wte.adam_v =
// CHECK-DAG: ml_program.global_store @ln.weight =
// CHECK-DAG: ml_program.global_store @ln.bias =
// CHECK-DAG: ml_program.global_store @optimizer.step =
// CHECK: return %[[LOSS]] : tensor<f32>
func.func @main(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}) -> (tensor<2x3x7xf32> {hetg.name = "logits"}) {
  %wte = ml_program.global_load_const @wte : tensor<7x4xf32>
  %e = hetg.gather %wte[%ids] <{axis = 0 : i64}> : tensor<7x4xf32>, tensor<2x3xi64>
  %w = ml_program.global_load_const @ln.weight : tensor<4xf32>
  %b = ml_program.global_load_const @ln.bias : tensor<4xf32>
  %n = hetg.layer_norm %e scale %w : tensor<4xf32> bias %b : tensor<4xf32> <{axis = 2 : i64, epsilon = 1.0e-05 : f32}> : tensor<2x3x4xf32>
  %z = hetg.matmul %n, %wte <{transpose_rhs}> : tensor<2x3x4xf32>, tensor<7x4xf32>
  return %z : tensor<2x3x7xf32>
}
