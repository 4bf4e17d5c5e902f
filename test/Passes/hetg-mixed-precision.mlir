// RUN: hetc-opt %s --split-input-file --verify-diagnostics --hetg-mixed-precision | FileCheck %s --check-prefix=NONE
// RUN: hetc-opt %s --split-input-file --verify-diagnostics --hetg-mixed-precision=precision=bf16 | FileCheck %s --check-prefix=BF16
// RUN: hetc-opt %s --split-input-file --verify-diagnostics --hetg-mixed-precision=precision=f16 | FileCheck %s --check-prefix=F16
// RUN: hetc-opt %s --split-input-file --verify-diagnostics "--hetg-mixed-precision=segment-precision=bf16,f16,f32" | FileCheck %s --check-prefix=STAGES
// RUN: hetc-opt %s --split-input-file --verify-diagnostics "--hetg-mixed-precision=precision=f16 growth-interval=3" --hetg-autodiff --hetg-optimizer | FileCheck %s --check-prefix=TRAIN
// RUN: not hetc-opt %s --split-input-file --hetg-mixed-precision=precision=fp8 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not hetc-opt %s --split-input-file "--hetg-mixed-precision=segment-precision=bf16,bf16,bf16,bf16" 2>&1 | FileCheck %s --check-prefix=TOO-MANY

// UNKNOWN: hetg-mixed-precision: unknown precision 'fp8'; expected f32, bf16 or f16
// TOO-MANY: segment-precision lists 4 segments but @lm has 3

// A language model cut into three segments as hetg-segment would: the
// embedding (segment 0), a tanh block (1), and the norm, the LM head tied to
// the embedding, and the loss (2).

ml_program.global private @wte(dense<0.5> : tensor<8x4xf32>) : tensor<8x4xf32>
ml_program.global private @ln_w(dense<1.0> : tensor<4xf32>) : tensor<4xf32>

// f32 (the default) leaves the graph as it is.
// NONE-LABEL: func.func @lm
// NONE-NOT: hetg.cast
// NONE: return

// bf16: each parameter is read through a cast in the segment of its reader
// (the tied @wte once per segment), activations are bf16, and the loss
// stays f32 from cross_entropy on.
// BF16-LABEL: func.func @lm
// BF16-NOT: hetg.loss_scale
// BF16: %[[WTE:.*]] = ml_program.global_load_const @wte
// BF16: %[[WTE0:.*]] = hetg.cast %[[WTE]] to bf16 {hetg.segment = 0 : i64} : tensor<8x4xf32>
// BF16: %[[E:.*]] = hetg.gather %[[WTE0]][%{{.*}}] {{.*}} : tensor<8x4xbf16>, tensor<2x3xi64>
// BF16: %[[T:.*]] = hetg.tanh %[[E]] {{.*}} : tensor<2x3x4xbf16>
// BF16: %[[LNW:.*]] = ml_program.global_load_const @ln_w
// BF16: %[[LNW2:.*]] = hetg.cast %[[LNW]] to bf16 {hetg.segment = 2 : i64} : tensor<4xf32>
// BF16: %[[N:.*]] = hetg.layer_norm %[[T]] scale %[[LNW2]] : tensor<4xbf16> {{.*}} : tensor<2x3x4xbf16>
// BF16: %[[WTE2:.*]] = hetg.cast %[[WTE]] to bf16 {hetg.segment = 2 : i64} : tensor<8x4xf32>
// BF16: %[[Z:.*]] = hetg.matmul %[[N]], %[[WTE2]] {{.*}} : tensor<2x3x4xbf16>, tensor<8x4xbf16>
// BF16: %[[FLAT:.*]] = hetg.reshape %[[Z]] {{.*}} : tensor<2x3x8xbf16> -> tensor<6x8xbf16>
// BF16: %[[SUM:.*]] = hetg.cross_entropy %[[FLAT]], %{{.*}} {{.*}} : tensor<6x8xbf16>, tensor<6xi64>
// BF16: %[[LOSS:.*]] = hetg.mul %[[SUM]], %{{.*}} {{.*}} : tensor<f32>, tensor<f32>
// BF16-NEXT: return %[[LOSS]] : tensor<f32>

// f16 computes the same way and adds the loss scale's state.
// F16: ml_program.global private mutable @loss_scale(dense<0.000000e+00> : tensor<f32>) : tensor<f32> {hetg.loss_scale = {backoff = 5.000000e-01 : f64, good_steps = @loss_scale.good_steps, growth = 2.000000e+00 : f64, initial = 6.553600e+04 : f64, interval = 2000 : i64}}
// F16: ml_program.global private mutable @loss_scale.good_steps(dense<0> : tensor<i64>) : tensor<i64>
// F16-LABEL: func.func @lm
// F16-SAME: hetg.loss_scale = @loss_scale
// F16: hetg.gather {{.*}} : tensor<8x4xf16>, tensor<2x3xi64>
// F16: hetg.cross_entropy {{.*}} : tensor<6x8xf16>, tensor<6xi64>

// One precision per segment: a value entering a segment of another type is
// cast by its first reader there, and parameters read in an f32 segment are
// read as they are.
// STAGES-LABEL: func.func @lm
// STAGES-SAME: hetg.loss_scale = @loss_scale
// STAGES: %[[WTE:.*]] = ml_program.global_load_const @wte
// STAGES: %[[WTE0:.*]] = hetg.cast %[[WTE]] to bf16 {hetg.segment = 0 : i64}
// STAGES: %[[E:.*]] = hetg.gather %[[WTE0]]
// STAGES: %[[E1:.*]] = hetg.cast %[[E]] to f16 {hetg.segment = 1 : i64} : tensor<2x3x4xbf16>
// STAGES: %[[T:.*]] = hetg.tanh %[[E1]] {{.*}} : tensor<2x3x4xf16>
// STAGES: %[[LNW:.*]] = ml_program.global_load_const @ln_w
// STAGES: %[[T2:.*]] = hetg.cast %[[T]] to f32 {hetg.segment = 2 : i64} : tensor<2x3x4xf16>
// STAGES: %[[N:.*]] = hetg.layer_norm %[[T2]] scale %[[LNW]] : tensor<4xf32> {{.*}} : tensor<2x3x4xf32>
// STAGES: hetg.matmul %[[N]], %[[WTE]] {{.*}} : tensor<2x3x4xf32>, tensor<8x4xf32>
// STAGES-NOT: hetg.cast
// STAGES: return

// Differentiated and updated: the backward runs in f16, seeded with the
// loss scale (65536 while the global holds 0); the parameter gradients come
// back to f32 through the casts' gradients; the optimizer unscales them,
// skips an overflowing step (norm - norm != 0) on every global it stores,
// and updates the scale.
// TRAIN: @loss_scale{{.*}}interval = 3 : i64
// TRAIN-LABEL: func.func @lm
// TRAIN: %[[STORED:.*]] = ml_program.global_load @loss_scale : tensor<f32> {hetg.grad_segment = 2 : i64}
// TRAIN: %[[ZERO:.*]] = hetg.constant {{.*}}dense<0.000000e+00> : tensor<f32>
// TRAIN: %[[UNSET:.*]] = hetg.equal %[[STORED]], %[[ZERO]]
// TRAIN: %[[INITIAL:.*]] = hetg.constant {{.*}}dense<6.553600e+04> : tensor<f32>
// TRAIN: %[[SEED:.*]] = hetg.where %[[UNSET]], %[[INITIAL]], %[[STORED]]
// TRAIN: %[[DLOSS:.*]] = hetg.mul %[[SEED]], %{{.*}} : tensor<f32>, tensor<f32>
// TRAIN: hetg.cross_entropy_grad %{{.*}}, %{{.*}}, %[[DLOSS]] {{.*}} : tensor<6x8xf16>, tensor<6xi64>, tensor<f32>
// TRAIN: hetg.cast %{{.*}} to f32 {{.*}} : tensor<8x4xf16>
// TRAIN: hetg.cast %{{.*}} to f32 {{.*}} : tensor<4xf16>
// TRAIN: hetg.gather_grad {{.*}} -> tensor<8x4xf16>
// TRAIN: %[[SCALE:.*]] = hetg.where
// TRAIN: %[[INVERSE:.*]] = hetg.reciprocal %[[SCALE]]
// TRAIN: %[[G0:.*]] = hetg.mul %{{.*}}, %[[INVERSE]] : tensor<8x4xf32>, tensor<f32>
// TRAIN: %[[G1:.*]] = hetg.mul %{{.*}}, %[[INVERSE]] : tensor<4xf32>, tensor<f32>
// TRAIN: %[[NORM:.*]] = hetg.global_norm %[[G0]], %[[G1]]
// TRAIN: %[[DIFF:.*]] = hetg.sub %[[NORM]], %[[NORM]]
// TRAIN: %[[FINITE:.*]] = hetg.equal %[[DIFF]], %{{.*}}
// TRAIN: %[[P:.*]], %{{.*}}, %{{.*}} = hetg.adamw %{{.*}}, %[[G0]],
// TRAIN: %[[OLD:.*]] = ml_program.global_load @wte
// TRAIN: %[[KEPT:.*]] = hetg.where %[[FINITE]], %[[P]], %[[OLD]] : tensor<i1>, tensor<8x4xf32>, tensor<8x4xf32>
// TRAIN: ml_program.global_store @wte = %[[KEPT]]
// TRAIN: hetg.where %[[FINITE]], %{{.*}}, %{{.*}} : tensor<i1>, tensor<8x4xf32>, tensor<8x4xf32>
// TRAIN: hetg.where %[[FINITE]], %{{.*}}, %{{.*}} : tensor<i1>, tensor<i64>, tensor<i64>
// TRAIN: ml_program.global_store @optimizer.step
// TRAIN: %[[GOOD:.*]] = ml_program.global_load @loss_scale.good_steps
// TRAIN: %[[COUNTED:.*]] = hetg.add %[[GOOD]], %{{.*}} : tensor<i64>, tensor<i64>
// TRAIN: %[[INTERVAL:.*]] = hetg.constant dense<3> : tensor<i64>
// TRAIN: %[[GROW:.*]] = hetg.equal %[[COUNTED]], %[[INTERVAL]]
// TRAIN: %[[DOUBLED:.*]] = hetg.mul %[[SCALE]], %{{.*}}
// TRAIN: %[[GROWN:.*]] = hetg.where %[[GROW]], %[[DOUBLED]], %[[SCALE]]
// TRAIN: %[[HALVED:.*]] = hetg.mul %[[SCALE]], %{{.*}}
// TRAIN: %[[NEXT:.*]] = hetg.where %[[FINITE]], %[[GROWN]], %[[HALVED]]
// TRAIN: ml_program.global_store @loss_scale = %[[NEXT]]
// TRAIN: ml_program.global_store @loss_scale.good_steps
func.func @lm(%ids: tensor<2x3xi64> {hetg.name = "input_ids"}, %labels: tensor<6xi64> {hetg.name = "labels"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetg.segments = [{index = 0 : i64, recompute = false}, {index = 1 : i64, recompute = false}, {index = 2 : i64, recompute = false}]} {
  %wte = ml_program.global_load_const @wte : tensor<8x4xf32>
  %e = hetg.gather %wte[%ids] <{axis = 0 : i64}> {hetg.cut = 0 : i64, hetg.segment = 0 : i64} : tensor<8x4xf32>, tensor<2x3xi64>
  %t = hetg.tanh %e {hetg.cut = 0 : i64, hetg.segment = 1 : i64} : tensor<2x3x4xf32>
  %lnw = ml_program.global_load_const @ln_w : tensor<4xf32>
  %n = hetg.layer_norm %t scale %lnw : tensor<4xf32> <{axis = 2 : i64, epsilon = 1.0e-05 : f32}> {hetg.segment = 2 : i64} : tensor<2x3x4xf32>
  %logits = hetg.matmul %n, %wte <{transpose_rhs}> {hetg.segment = 2 : i64} : tensor<2x3x4xf32>, tensor<8x4xf32>
  %flat = hetg.reshape %logits {hetg.segment = 2 : i64} : tensor<2x3x8xf32> -> tensor<6x8xf32>
  %sum = hetg.cross_entropy %flat, %labels <{reduction = #hetg<loss_reduction sum>}> {hetg.segment = 2 : i64} : tensor<6x8xf32>, tensor<6xi64>
  %scale = hetg.constant {hetg.segment = 2 : i64} dense<0.25> : tensor<f32>
  %loss = hetg.mul %sum, %scale {hetg.segment = 2 : i64} : tensor<f32>, tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Constants meeting a low-precision value are cast (folded into constants
// of the low type, -1e4 rounding to -9984), the model's own float cast
// casts to the low type, and
// a result whose type changed is cast back before the return.

ml_program.global private @w(dense<0.5> : tensor<4x4xf32>) : tensor<4x4xf32>

// BF16-LABEL: func.func @mask_and_cast
// BF16-SAME: (%[[X:.*]]: tensor<2x4xf32>) -> tensor<f32>
// BF16-DAG: %[[XL:.*]] = hetg.cast %[[X]] to bf16 {hetg.segment = 0 : i64}
// BF16-DAG: %[[WL:.*]] = hetg.cast %{{.*}} to bf16 {hetg.segment = 0 : i64}
// BF16: %[[H:.*]] = hetg.matmul %[[XL]], %[[WL]]
// BF16: %[[FILL:.*]] = hetg.constant {hetg.segment = 0 : i64} dense<-9.984000e+03> : tensor<bf16>
// BF16: %[[MASKED:.*]] = hetg.where %{{.*}}, %[[H]], %[[FILL]] {{.*}} : tensor<2x4xi1>, tensor<2x4xbf16>, tensor<bf16>
// BF16: %[[UP:.*]] = hetg.cast %[[MASKED]] to bf16 {{.*}}hetg.segment = 1 : i64} : tensor<2x4xbf16>
// BF16: %[[S:.*]] = hetg.reduce_sum %[[UP]] {{.*}} : tensor<2x4xbf16>
// BF16: %[[BACK:.*]] = hetg.cast %[[S]] to f32 {hetg.segment = 2 : i64} : tensor<bf16>
// BF16: return %[[BACK]] : tensor<f32>
func.func @mask_and_cast(%x: tensor<2x4xf32>) -> tensor<f32> attributes {hetg.segments = [{index = 0 : i64, recompute = false}, {index = 1 : i64, recompute = false}, {index = 2 : i64, recompute = false}]} {
  %w = ml_program.global_load_const @w : tensor<4x4xf32>
  %h = hetg.matmul %x, %w {hetg.segment = 0 : i64} : tensor<2x4xf32>, tensor<4x4xf32>
  %m = hetg.constant {hetg.segment = 0 : i64} dense<[[true, false, true, true], [false, true, true, true]]> : tensor<2x4xi1>
  %fill = hetg.constant {hetg.segment = 0 : i64} dense<-1.0e+04> : tensor<f32>
  %masked = hetg.where %m, %h, %fill {hetg.cut = 0 : i64, hetg.segment = 0 : i64} : tensor<2x4xi1>, tensor<2x4xf32>, tensor<f32>
  %up = hetg.cast %masked to f32 {hetg.cut = 0 : i64, hetg.segment = 1 : i64} : tensor<2x4xf32>
  %s = hetg.reduce_sum %up <{axes = array<i64: 0, 1>, keep_dims = false}> {hetg.segment = 2 : i64} : tensor<2x4xf32>
  return %s : tensor<f32>
}

// -----

ml_program.global private mutable @p(dense<1.0> : tensor<2xf32>) : tensor<2xf32>

// expected-error @+1 {{hetg-mixed-precision rewrites the forward graph, but @step already stores globals; run it before hetg-autodiff}}
func.func @step(%x: tensor<2xf32>) -> tensor<2xf32> {
  ml_program.global_store @p = %x : tensor<2xf32>
  return %x : tensor<2xf32>
}

// -----

ml_program.global private @q(dense<1.0> : tensor<2xf32>) : tensor<2xf32>

// expected-error @+1 {{hetg-mixed-precision rewrites the forward graph, but @grads already returns gradients; run it before hetg-autodiff}}
func.func @grads(%l: tensor<f32>, %g: tensor<2xf32>) -> (tensor<f32>, tensor<2xf32> {hetg.gradient_of = @q}) {
  return %l, %g : tensor<f32>, tensor<2xf32>
}
