// RUN: hetc-opt %s --hetd-micro-batch-steps="plan=%S/Inputs/micro-batches-2-1.json global-batch=4 seq=3" | FileCheck %s
// RUN: hetc-opt %s --hetd-micro-batch-steps="devices=2 global-batch=4 seq=3" | FileCheck %s --check-prefix=DP
// RUN: not hetc-opt %s --hetd-micro-batch-steps="plan=%S/Inputs/bad-plan-three-stages.json global-batch=4 seq=3" 2>&1 | FileCheck %s --check-prefix=FIT
// RUN: not hetc-opt %s --hetd-micro-batch-steps="devices=2 global-batch=4 seq=3 precision=f8" 2>&1 | FileCheck %s --check-prefix=PRECISION

// An imported model (dynamic batch, logits out) under a two-stage plan whose
// replicas take micro-batches of 2 and 1: each size is specialized, given a
// share of the global mean loss (x 1/12), differentiated and cut into the
// plan's stages, and the stage functions of both sizes replace @main. The
// plan, checked, becomes the module's hetd.plan with every stage's
// precision.

// CHECK: module attributes {hetd.plan = "{{.*}}\22precision\22: \22f32\22
// CHECK-DAG: ml_program.global private @emb
// CHECK-DAG: func.func @stage0_forward_mb1(%{{.*}}: tensor<1x3xi64>
// CHECK-DAG: func.func @stage0_backward_mb1(
// CHECK-DAG: func.func @stage1_forward_mb1(
// CHECK-DAG: func.func @stage1_backward_mb1(
// CHECK-DAG: func.func @stage0_forward_mb2(%{{.*}}: tensor<2x3xi64>
// CHECK-DAG: func.func @stage0_backward_mb2(
// CHECK-DAG: func.func @stage1_forward_mb2(
// CHECK-DAG: func.func @stage1_backward_mb2(
// CHECK-DAG: hetg.constant dense<0.0833333358> : tensor<f32>
// CHECK-NOT: func.func @main
// CHECK-NOT: builtin.module

// Data parallelism over two devices: one stage over all segments.
// DP: module attributes {hetd.plan = "{{.*}}\22segments\22: [0, 5]
// DP: func.func @stage0_forward_mb2(%{{.*}}: tensor<2x3xi64>
// DP-NOT: func.func @stage1

// FIT: error: the plan does not fit this model and batch:
// FIT-NEXT: the plan is for a global_batch of 2, but the step has 4 samples
// FIT-NEXT: stage 2 covers segments [2, 3) but the model has 5 segments (0..4): the last stage must end at 5

// PRECISION: error: precision 'f8' is not f32, bf16 or f16

ml_program.global private @emb(dense<0.5> : tensor<8x4xf32>) : tensor<8x4xf32>
ml_program.global private @w1(dense<0.1> : tensor<4x4xf32>) : tensor<4x4xf32>
ml_program.global private @w2(dense<0.2> : tensor<4x4xf32>) : tensor<4x4xf32>
ml_program.global private @head(dense<0.3> : tensor<8x4xf32>) : tensor<8x4xf32>
func.func @main(%ids: tensor<?x3xi64> {hetg.name = "input_ids"}) -> (tensor<?x3x8xf32> {hetg.name = "logits"}) {
  %e = ml_program.global_load_const @emb : tensor<8x4xf32>
  %x0 = hetg.gather %e[%ids] <{axis = 0 : i64}> : tensor<8x4xf32>, tensor<?x3xi64>
  %w1 = ml_program.global_load_const @w1 : tensor<4x4xf32>
  %h1 = hetg.matmul %x0, %w1 : tensor<?x3x4xf32>, tensor<4x4xf32>
  %a1 = hetg.gelu %h1 : tensor<?x3x4xf32>
  %x1 = hetg.add %x0, %a1 : tensor<?x3x4xf32>, tensor<?x3x4xf32>
  %w2 = ml_program.global_load_const @w2 : tensor<4x4xf32>
  %h2 = hetg.matmul %x1, %w2 : tensor<?x3x4xf32>, tensor<4x4xf32>
  %x2 = hetg.add %x1, %h2 : tensor<?x3x4xf32>, tensor<?x3x4xf32>
  %head = ml_program.global_load_const @head : tensor<8x4xf32>
  %logits = hetg.matmul %x2, %head <{transpose_rhs}> : tensor<?x3x4xf32>, tensor<8x4xf32>
  return %logits : tensor<?x3x8xf32>
}
