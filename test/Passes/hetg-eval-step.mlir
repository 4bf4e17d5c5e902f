// RUN: hetc-opt %s --hetg-train-step="optimizer=adamw lr=0.001 weight-decay=0.1 clip-norm=1.0 lr-schedule=cosine warmup-steps=2 decay-steps=8" --hetg-eval-step | FileCheck %s

// The forward-only copy of a train step: the step's forward and loss, the
// same ops on the same globals, without the backward, clipping, the
// schedule (its step argument goes) or any store.

// CHECK-LABEL: func.func @main(
// CHECK-SAME: %{{.*}}: tensor<i64> {hetg.name = "step", hetg.step_index}
// CHECK: ml_program.global_store @optimizer.step =
// CHECK: return

// CHECK-LABEL: func.func @main_eval(
// CHECK-SAME: %[[IDS:[^:]*]]: tensor<2x3xi64> {hetg.name = "input_ids"}, %[[LABELS:[^:]*]]: tensor<2x3xi64> {hetg.name = "labels"})
// CHECK-SAME: -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.eval}
// CHECK-NEXT: %[[WTE:.*]] = ml_program.global_load @wte : tensor<7x4xf32>
// CHECK-NEXT: %[[E:.*]] = hetg.gather %[[WTE]][%[[IDS]]]
// CHECK-NEXT: ml_program.global_load @ln.weight
// CHECK-NEXT: ml_program.global_load @ln.bias
// CHECK-NEXT: hetg.layer_norm %[[E]]
// CHECK-NEXT: hetg.matmul
// CHECK: %[[LOSS:.*]] = hetg.cross_entropy
// CHECK-NOT: _grad
// CHECK-NOT: global_store
// CHECK-NOT: adamw
// CHECK-NOT: lr_schedule
// CHECK: return %[[LOSS]] : tensor<f32>
ml_program.global private @wte(dense<0.25> : tensor<7x4xf32>) : tensor<7x4xf32>
ml_program.global private @ln.weight(dense<1.0> : tensor<4xf32>) : tensor<4xf32>
ml_program.global private @ln.bias(dense<0.0> : tensor<4xf32>) : tensor<4xf32>

func.func @main(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}) -> (tensor<2x3x7xf32> {hetg.name = "logits"}) {
  %wte = ml_program.global_load_const @wte : tensor<7x4xf32>
  %e = hetg.gather %wte[%ids] <{axis = 0 : i64}> : tensor<7x4xf32>, tensor<2x3xi64>
  %w = ml_program.global_load_const @ln.weight : tensor<4xf32>
  %b = ml_program.global_load_const @ln.bias : tensor<4xf32>
  %n = hetg.layer_norm %e scale %w : tensor<4xf32> bias %b : tensor<4xf32> <{axis = 2 : i64, epsilon = 1.0e-05 : f32}> : tensor<2x3x4xf32>
  %z = hetg.matmul %n, %wte <{transpose_rhs}> : tensor<2x3x4xf32>, tensor<7x4xf32>
  return %z : tensor<2x3x7xf32>
}
