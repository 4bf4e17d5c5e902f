// RUN: hetc-opt %s --hetg-segment --hetg-autodiff --cse --hetd-partition-stages="stage-starts=2,3" --hetd-build-ranks="plan=%S/Inputs/three-stages.json" | FileCheck %s
// RUN: hetc-opt %s --hetg-segment --hetg-autodiff --cse --hetd-partition-stages="stage-starts=2,3" --hetd-build-ranks="plan=%S/Inputs/three-stages.json optimizer=sgd clip-norm=1.0" | FileCheck %s --check-prefix=CLIP
// RUN: hetc-opt %s --hetg-segment --hetg-autodiff --cse --hetd-partition-stages="stage-starts=2,3" --hetd-build-ranks="plan=%S/Inputs/three-stages-full.json" | FileCheck %s --check-prefix=FULL
// RUN: hetc-opt %s --hetg-segment --hetg-autodiff --cse --hetd-partition-stages="stage-starts=2,3" --hetd-build-ranks="plan=%S/Inputs/three-stages.json eval=true" | FileCheck %s --check-prefix=EVAL
// RUN: hetc-opt %s --hetg-segment --hetg-autodiff --cse --hetd-partition-stages="stage-starts=2,3" --hetd-build-ranks="plan=%S/Inputs/three-stages-full.json eval=true" | FileCheck %s --check-prefix=FULLEVAL
// RUN: hetc-opt %s --hetg-segment --hetg-autodiff --cse --hetd-partition-stages="stage-starts=2,3,4" --hetd-build-ranks="plan=%S/Inputs/four-stages-loss-replicas.json" | FileCheck %s --check-prefix=NOPARAMS
// RUN: not hetc-opt %s --hetg-segment --hetg-autodiff --cse --hetd-partition-stages="stage-starts=2,3" --hetd-build-ranks 2>&1 | FileCheck %s --check-prefix=NOPLAN
// RUN: hetc-opt %s --hetg-segment --hetg-autodiff --cse --hetd-partition-stages="stage-starts=2,3" --hetd-build-ranks="plan=%S/Inputs/three-stages-offload.json" | FileCheck %s --check-prefix=OFFLOAD

// Inputs/three-stages-offload.json is three-stages.json with stage 0's
// optimizer offloaded: its state pieces live on the host, where each rank
// updates its pieces on host copies of the parameter piece, the gradient
// shard and the step, and sends the new piece back for the all-gather.
// OFFLOAD-DAG: ml_program.global private mutable @"emb.adam_m[0:32]"({{.*}}) : tensor<32xf32> {hetd.host, hetd.whole_shape = array<i64: 8, 4>, hetg.state_of = @emb}
// OFFLOAD-DAG: ml_program.global private mutable @"w1.adam_v[4:16]"({{.*}}) : tensor<12xf32> {hetd.host, hetd.whole_shape = array<i64: 4, 4>, hetg.state_of = @w1}
// OFFLOAD-DAG: ml_program.global private mutable @w2.adam_m({{.*}}) : tensor<4x4xf32> {hetg.state_of = @w2}
// OFFLOAD-LABEL: func.func @rank1(
// OFFLOAD: %[[SHARD:.*]] = hetd.reduce_scatter {{.*}} counts [36, 12] : tensor<48xf32> -> tensor<12xf32>
// OFFLOAD: %[[P:.*]] = hetd.to_host %{{.*}} : tensor<12xf32>
// OFFLOAD-NEXT: %[[G:.*]] = hetd.to_host %{{.*}} : tensor<12xf32>
// OFFLOAD-NEXT: %[[T:.*]] = hetd.to_host %{{.*}} : tensor<i64>
// OFFLOAD-NEXT: %[[NEW:.*]], %{{.*}}, %{{.*}} = hetg.adamw %[[P]], %[[G]], %{{.*}}, %{{.*}}, %[[T]]
// OFFLOAD-NEXT: %[[BACK:.*]] = hetd.to_device %[[NEW]] : tensor<12xf32>
// OFFLOAD-NEXT: hetd.all_gather %[[BACK]] group [0, 1] counts [36, 12] : tensor<12xf32> -> tensor<48xf32>
// OFFLOAD-LABEL: func.func @rank2(
// OFFLOAD-NOT: hetd.to_host
// OFFLOAD: hetg.adamw
// OFFLOAD-LABEL: func.func @rank3(

// The model of hetd-partition-stages.mlir under Inputs/three-stages.json:
// stage 0 (segments 0-1) on two replicas with samples [0, 2) and [2, 4) and
// state shards 0.75 / 0.25; stage 1 and stage 2 on one device each, two
// micro-batches of 2. Stage 0 has 48 parameter elements (emb 32, w1 16):
// rank 0 updates elements [0, 36) (all of emb, w1[0:4]), rank 1 [36, 48).

// Sharded AdamW state: one global per piece of a parameter.
// CHECK-DAG: ml_program.global private mutable @"emb.adam_m[0:32]"({{.*}}) : tensor<32xf32> {hetd.whole_shape = array<i64: 8, 4>, hetg.state_of = @emb}
// CHECK-DAG: ml_program.global private mutable @"w1.adam_m[0:4]"({{.*}}) : tensor<4xf32> {hetd.whole_shape = array<i64: 4, 4>, hetg.state_of = @w1}
// CHECK-DAG: ml_program.global private mutable @"w1.adam_m[4:16]"({{.*}}) : tensor<12xf32> {hetd.whole_shape = array<i64: 4, 4>, hetg.state_of = @w1}
// CHECK-DAG: ml_program.global private mutable @w2.adam_m({{.*}}) : tensor<4x4xf32> {hetg.state_of = @w2}
// CHECK-DAG: func.func private @stage0_forward_mb2

// CHECK-LABEL: func.func @rank0(
// CHECK-SAME: %[[IDS:.*]]: tensor<2x3xi64> {hetd.first_sample = 0 : i64, hetg.name = "input_ids"})
// CHECK-SAME: hetd.device = "a", hetd.rank = 0 : i64, hetd.replica = 0 : i64, hetd.samples = array<i64: 0, 2>, hetd.stage = 0 : i64
// CHECK: %[[F:.*]]:3 = call @stage0_forward_mb2(%[[IDS]])
// CHECK-NEXT: hetd.send %[[F]]#0 rows[0, 2) to 2 tag 0
// CHECK-NEXT: %[[G:.*]] = hetd.recv from 2 tag 1 : tensor<2x3x4xf32>
// CHECK-NEXT: call @stage0_backward_mb2(%[[F]]#1, %[[G]], %[[F]]#2, %[[IDS]])
// CHECK: hetg.concat
// CHECK-NEXT: %[[SHARD:.*]] = hetd.reduce_scatter {{.*}} group [0, 1] counts [36, 12] : tensor<48xf32> -> tensor<36xf32>
// CHECK-DAG: hetg.slice %[[SHARD]] <{ends = array<i64: 32>, starts = array<i64: 0>
// CHECK-DAG: hetg.slice %[[SHARD]] <{ends = array<i64: 36>, starts = array<i64: 32>
// CHECK: hetg.adamw
// CHECK: hetg.adamw
// CHECK: %[[MINE:.*]] = hetg.concat
// CHECK-NEXT: %[[GATHERED:.*]] = hetd.all_gather %[[MINE]] group [0, 1] counts [36, 12] : tensor<36xf32> -> tensor<48xf32>
// CHECK: ml_program.global_store @emb
// CHECK: ml_program.global_store @w1
// CHECK: ml_program.global_store @"emb.adam_m[0:32]"
// CHECK: ml_program.global_store @optimizer.step
// CHECK-NEXT: return{{$}}

// CHECK-LABEL: func.func @rank1(
// CHECK-SAME: hetd.first_sample = 2 : i64
// CHECK: hetd.send {{.*}} rows[0, 2) to 2 tag 4
// CHECK: hetd.recv from 2 tag 5
// CHECK: hetd.reduce_scatter {{.*}} group [0, 1] counts [36, 12] : tensor<48xf32> -> tensor<12xf32>
// CHECK: hetd.all_gather {{.*}} : tensor<12xf32> -> tensor<48xf32>

// One forward, one backward on the middle stage: two micro-batches in
// flight at most, gradients back to the replica that owns the samples.
// CHECK-LABEL: func.func @rank2()
// CHECK: hetd.recv from 0 tag 0
// CHECK: call @stage1_forward_mb2
// CHECK: hetd.send {{.*}} to 3 tag 0
// CHECK: hetd.recv from 1 tag 4
// CHECK: call @stage1_forward_mb2
// CHECK: hetd.send {{.*}} to 3 tag 4
// CHECK: hetd.recv from 3 tag 1
// CHECK: call @stage1_backward_mb2
// CHECK: hetd.send {{.*}} to 0 tag 1
// CHECK: hetd.recv from 3 tag 5
// CHECK: call @stage1_backward_mb2
// CHECK: hetd.send {{.*}} to 1 tag 5
// CHECK-NOT: hetd.reduce_scatter
// CHECK: hetg.adamw
// CHECK: ml_program.global_store @w2 =

// The last stage reads labels only and returns its micro-batches' losses.
// CHECK-LABEL: func.func @rank3(
// CHECK-SAME: %[[L0:.*]]: tensor<2x3xi64> {hetd.first_sample = 0 : i64, hetg.name = "labels"}, %[[L1:.*]]: tensor<2x3xi64> {hetd.first_sample = 2 : i64, hetg.name = "labels"}) -> (tensor<f32> {hetg.name = "loss"})
// CHECK: %[[A:.*]]:3 = call @stage2_forward_mb2({{.*}}, %[[L0]])
// CHECK: %[[B:.*]]:3 = call @stage2_forward_mb2({{.*}}, %[[L1]])
// CHECK: %[[SUM:.*]] = hetg.add %[[A]]#0, %[[B]]#0
// CHECK: return %[[SUM]] : tensor<f32>

// With eval, every rank also gets its schedule's forward ops alone: the
// activations sent and received as in the step, no gradient message, no
// update, the loss on the last stage.
// EVAL-LABEL: func.func @rank0(
// EVAL-LABEL: func.func @rank0_eval(
// EVAL-SAME: %[[IDS:.*]]: tensor<2x3xi64> {hetd.first_sample = 0 : i64, hetg.name = "input_ids"})
// EVAL-SAME: hetd.device = "a", hetd.eval, hetd.rank = 0 : i64, hetd.replica = 0 : i64, hetd.samples = array<i64: 0, 2>, hetd.stage = 0 : i64
// EVAL-NEXT: %[[F:.*]]:3 = call @stage0_forward_mb2(%[[IDS]])
// EVAL-NEXT: hetd.send %[[F]]#0 rows[0, 2) to 2 tag 0
// EVAL-NEXT: return{{$}}
// EVAL-LABEL: func.func @rank2_eval()
// EVAL-NEXT: hetd.recv from 0 tag 0
// EVAL-NEXT: call @stage1_forward_mb2
// EVAL-NEXT: hetd.send {{.*}} to 3 tag 0
// EVAL-NEXT: hetd.recv from 1 tag 4
// EVAL-NEXT: call @stage1_forward_mb2
// EVAL-NEXT: hetd.send {{.*}} to 3 tag 4
// EVAL-NEXT: return{{$}}
// EVAL-LABEL: func.func @rank3_eval(
// EVAL-SAME: -> (tensor<f32> {hetg.name = "loss"})
// EVAL: %[[A:.*]]:3 = call @stage2_forward_mb2
// EVAL: %[[B:.*]]:3 = call @stage2_forward_mb2
// EVAL-NEXT: %[[SUM:.*]] = hetg.add %[[A]]#0, %[[B]]#0
// EVAL-NEXT: return %[[SUM]] : tensor<f32>

// Full sharding: the evaluation gathers the stage's parameters before each
// forward, as the step does, and reduces nothing.
// FULLEVAL-LABEL: func.func @rank0_eval(
// FULLEVAL: hetd.all_gather {{.*}} group [0, 1]
// FULLEVAL: call @stage0_forward_mb2(
// FULLEVAL-NOT: hetd.reduce_scatter
// FULLEVAL: return{{$}}

// Clipping: every rank's local squared norm summed over all four ranks.
// CLIP-LABEL: func.func @rank0(
// CLIP: hetd.reduce_scatter
// CLIP: %[[N:.*]] = hetg.global_norm
// CLIP-NEXT: %[[SQ:.*]] = hetg.mul %[[N]], %[[N]]
// CLIP-NEXT: hetd.all_reduce %[[SQ]] group [0, 1, 2, 3] : tensor<f32>
// CLIP: hetg.sgd
// CLIP-NOT: hetg.adamw
// CLIP-LABEL: func.func @rank2(
// CLIP: hetd.all_reduce {{.*}} group [0, 1, 2, 3]

// Full sharding: stage 0's replicas keep only their pieces of emb and w1,
// gather each segment's group (emb: segment 0, w1: segment 1) before every
// call that reads it (the backward reads only w1) and scatter every
// micro-batch's gradients group by group, the last segment's first.
// FULL-DAG: ml_program.global private mutable @"emb[0:32]"(dense<5.000000e-01> : tensor<32xf32>) : tensor<32xf32> {hetd.whole_shape = array<i64: 8, 4>}
// FULL-DAG: ml_program.global private mutable @"w1[0:4]"(dense<1.000000e-01> : tensor<4xf32>) : tensor<4xf32> {hetd.whole_shape = array<i64: 4, 4>}
// FULL-DAG: ml_program.global private mutable @"w1[4:16]"(dense<1.000000e-01> : tensor<12xf32>) : tensor<12xf32> {hetd.whole_shape = array<i64: 4, 4>}
// FULL-DAG: func.func private @stage0_forward_mb2(%{{.*}}: tensor<2x3xi64> {hetg.name = "input_ids"}, %{{.*}}: tensor<8x4xf32> {hetd.parameter = @emb}, %{{.*}}: tensor<4x4xf32> {hetd.parameter = @w1})
// FULL-LABEL: func.func @rank0(
// FULL: %[[E:.*]] = ml_program.global_load @"emb[0:32]"
// FULL-NEXT: hetd.all_gather %[[E]] group [0, 1] counts [32, 0] : tensor<32xf32> -> tensor<32xf32>
// FULL: %[[W:.*]] = ml_program.global_load @"w1[0:4]"
// FULL-NEXT: hetd.all_gather %[[W]] group [0, 1] counts [4, 12] : tensor<4xf32> -> tensor<16xf32>
// FULL: call @stage0_forward_mb2
// FULL: hetd.all_gather {{.*}} counts [4, 12] : tensor<4xf32> -> tensor<16xf32>
// FULL-NOT: hetd.all_gather
// FULL: call @stage0_backward_mb2
// FULL: hetd.reduce_scatter {{.*}} counts [4, 12] : tensor<16xf32> -> tensor<4xf32>
// FULL: hetd.reduce_scatter {{.*}} counts [32, 0] : tensor<32xf32> -> tensor<32xf32>
// FULL-NOT: hetd.all_gather
// FULL: ml_program.global_store @"emb[0:32]"
// FULL: ml_program.global_store @"w1[0:4]"
// FULL-NOT: ml_program.global_store @emb =
// FULL-LABEL: func.func @rank2(
// FULL-NOT: hetd.all_gather
// FULL: ml_program.global_store @w2 =

// A stage of several replicas with no parameters of its own (the loss
// alone): nothing to reduce, gather or update.
// NOPARAMS-LABEL: func.func @rank3(
// NOPARAMS-SAME: hetd.first_sample = 0 : i64, hetg.name = "labels"
// NOPARAMS-NOT: hetd.reduce_scatter
// NOPARAMS-NOT: hetd.all_gather
// NOPARAMS: return
// NOPARAMS-LABEL: func.func @rank4(
// NOPARAMS-SAME: hetd.first_sample = 2 : i64, hetg.name = "labels"
// NOPARAMS-NOT: hetd.all_gather
// NOPARAMS: return

// NOPLAN: error: no plan: give the plan option or a hetd.plan module attribute

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
