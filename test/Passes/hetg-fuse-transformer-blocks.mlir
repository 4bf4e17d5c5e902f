// RUN: hetc-opt %s --split-input-file --hetg-fuse-norms --hetg-fuse-activations --hetg-fuse-matmul-bias --hetg-fuse-attention --canonicalize | FileCheck %s

// The four fusion passes in pipeline order on whole blocks, shaped like the
// torch 1.13 exports of models/fixtures after hetg-specialize (batch 2,
// sequence 4, width 16, 2 heads): each block ends up as its fused ops plus
// the head split and merge.

ml_program.global private @ln1_w(dense<1.0> : tensor<16xf32>) : tensor<16xf32>
ml_program.global private @ln1_b(dense<0.0> : tensor<16xf32>) : tensor<16xf32>
ml_program.global private @attn_w(dense<0.1> : tensor<48x16xf32>) : tensor<48x16xf32>
ml_program.global private @attn_b(dense<0.0> : tensor<48xf32>) : tensor<48xf32>
ml_program.global private @proj_w(dense<0.1> : tensor<16x16xf32>) : tensor<16x16xf32>
ml_program.global private @proj_b(dense<0.0> : tensor<16xf32>) : tensor<16xf32>
ml_program.global private @ln2_w(dense<1.0> : tensor<16xf32>) : tensor<16xf32>
ml_program.global private @ln2_b(dense<0.0> : tensor<16xf32>) : tensor<16xf32>
ml_program.global private @fc_w(dense<0.1> : tensor<64x16xf32>) : tensor<64x16xf32>
ml_program.global private @fc_b(dense<0.0> : tensor<64xf32>) : tensor<64xf32>
ml_program.global private @fc2_w(dense<0.1> : tensor<16x64xf32>) : tensor<16x64xf32>
ml_program.global private @fc2_b(dense<0.0> : tensor<16xf32>) : tensor<16xf32>

// CHECK-LABEL: func.func @gpt2_block
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x16xf32>)
// CHECK: %[[LN1:.*]] = hetg.layer_norm %[[X]] scale %{{.*}} bias %{{.*}} <{axis = 2 : i64, epsilon = 9.99999974E-6 : f32}>
// CHECK: %[[QKV:.*]] = hetg.matmul %[[LN1]], %{{.*}} bias %{{.*}} : tensor<48xf32>
// CHECK: %[[O:.*]] = hetg.attention %{{.*}}, %{{.*}}, %{{.*}} <{causal, scale = 0.353553385 : f32}>
// CHECK: hetg.matmul %{{.*}}, %{{.*}} bias %{{.*}} : tensor<16xf32>
// CHECK: %[[LN2:.*]] = hetg.layer_norm %{{.*}} scale %{{.*}} bias %{{.*}} <{axis = 2 : i64
// CHECK: %[[FC:.*]] = hetg.matmul %[[LN2]], %{{.*}} bias %{{.*}} : tensor<64xf32>
// CHECK: %[[G:.*]] = hetg.gelu %[[FC]] : tensor<2x4x64xf32>
// CHECK: hetg.matmul %[[G]], %{{.*}} bias %{{.*}} : tensor<16xf32>
// CHECK-NOT: hetg.softmax
// CHECK-NOT: hetg.reduce_mean
// CHECK-NOT: hetg.erf
// CHECK: return
func.func @gpt2_block(%x: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  %two = hetg.constant dense<2.0> : tensor<f32>
  %eps = hetg.constant dense<1.0e-05> : tensor<f32>
  %ln1_w = ml_program.global_load_const @ln1_w : tensor<16xf32>
  %ln1_b = ml_program.global_load_const @ln1_b : tensor<16xf32>
  %m1 = hetg.reduce_mean %x <{axes = array<i64: 2>}> : tensor<2x4x16xf32>
  %d1 = hetg.sub %x, %m1 : tensor<2x4x16xf32>, tensor<2x4x1xf32>
  %p1 = hetg.pow %d1, %two : tensor<2x4x16xf32>, tensor<f32>
  %v1 = hetg.reduce_mean %p1 <{axes = array<i64: 2>}> : tensor<2x4x16xf32>
  %a1 = hetg.add %v1, %eps : tensor<2x4x1xf32>, tensor<f32>
  %s1 = hetg.sqrt %a1 : tensor<2x4x1xf32>
  %n1 = hetg.div %d1, %s1 : tensor<2x4x16xf32>, tensor<2x4x1xf32>
  %w1 = hetg.mul %n1, %ln1_w : tensor<2x4x16xf32>, tensor<16xf32>
  %h1 = hetg.add %w1, %ln1_b : tensor<2x4x16xf32>, tensor<16xf32>

  %attn_w = ml_program.global_load_const @attn_w : tensor<48x16xf32>
  %attn_b = ml_program.global_load_const @attn_b : tensor<48xf32>
  %attn_wt = hetg.transpose %attn_w [1, 0] : tensor<48x16xf32>
  %qkv0 = hetg.matmul %h1, %attn_wt : tensor<2x4x16xf32>, tensor<16x48xf32>
  %qkv = hetg.add %attn_b, %qkv0 : tensor<48xf32>, tensor<2x4x48xf32>
  %q0 = hetg.slice %qkv <{starts = array<i64: 0, 0, 0>, ends = array<i64: 2, 4, 16>, steps = array<i64: 1, 1, 1>}> : tensor<2x4x48xf32>
  %k0 = hetg.slice %qkv <{starts = array<i64: 0, 0, 16>, ends = array<i64: 2, 4, 32>, steps = array<i64: 1, 1, 1>}> : tensor<2x4x48xf32>
  %v0 = hetg.slice %qkv <{starts = array<i64: 0, 0, 32>, ends = array<i64: 2, 4, 48>, steps = array<i64: 1, 1, 1>}> : tensor<2x4x48xf32>
  %q1 = hetg.reshape %q0 : tensor<2x4x16xf32> -> tensor<2x4x2x8xf32>
  %q = hetg.transpose %q1 [0, 2, 1, 3] : tensor<2x4x2x8xf32>
  %k1 = hetg.reshape %k0 : tensor<2x4x16xf32> -> tensor<2x4x2x8xf32>
  %v1r = hetg.reshape %v0 : tensor<2x4x16xf32> -> tensor<2x4x2x8xf32>
  %v = hetg.transpose %v1r [0, 2, 1, 3] : tensor<2x4x2x8xf32>
  %kt = hetg.transpose %k1 [0, 2, 3, 1] : tensor<2x4x2x8xf32>
  %sc = hetg.matmul %q, %kt : tensor<2x2x4x8xf32>, tensor<2x2x8x4xf32>
  %scale = hetg.constant dense<0.353553385> : tensor<f32>
  %scs = hetg.mul %sc, %scale : tensor<2x2x4x4xf32>, tensor<f32>
  %cond = hetg.constant dense<[[[[false, true, true, true], [false, false, true, true], [false, false, false, true], [false, false, false, false]]]]> : tensor<1x1x4x4xi1>
  %ninf = hetg.constant dense<0xFF800000> : tensor<f32>
  %masked = hetg.where %cond, %ninf, %scs : tensor<1x1x4x4xi1>, tensor<f32>, tensor<2x2x4x4xf32>
  %probs = hetg.softmax %masked <{axis = 3 : i64}> : tensor<2x2x4x4xf32>
  %heads = hetg.matmul %probs, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>
  %merged0 = hetg.transpose %heads [0, 2, 1, 3] : tensor<2x2x4x8xf32>
  %merged = hetg.reshape %merged0 : tensor<2x4x2x8xf32> -> tensor<2x4x16xf32>
  %proj_w = ml_program.global_load_const @proj_w : tensor<16x16xf32>
  %proj_b = ml_program.global_load_const @proj_b : tensor<16xf32>
  %proj_wt = hetg.transpose %proj_w [1, 0] : tensor<16x16xf32>
  %proj0 = hetg.matmul %merged, %proj_wt : tensor<2x4x16xf32>, tensor<16x16xf32>
  %proj = hetg.add %proj_b, %proj0 : tensor<16xf32>, tensor<2x4x16xf32>
  %r1 = hetg.add %x, %proj : tensor<2x4x16xf32>, tensor<2x4x16xf32>

  %ln2_w = ml_program.global_load_const @ln2_w : tensor<16xf32>
  %ln2_b = ml_program.global_load_const @ln2_b : tensor<16xf32>
  %m2 = hetg.reduce_mean %r1 <{axes = array<i64: 2>}> : tensor<2x4x16xf32>
  %d2 = hetg.sub %r1, %m2 : tensor<2x4x16xf32>, tensor<2x4x1xf32>
  %p2 = hetg.pow %d2, %two : tensor<2x4x16xf32>, tensor<f32>
  %v2 = hetg.reduce_mean %p2 <{axes = array<i64: 2>}> : tensor<2x4x16xf32>
  %a2 = hetg.add %v2, %eps : tensor<2x4x1xf32>, tensor<f32>
  %s2 = hetg.sqrt %a2 : tensor<2x4x1xf32>
  %n2 = hetg.div %d2, %s2 : tensor<2x4x16xf32>, tensor<2x4x1xf32>
  %w2 = hetg.mul %n2, %ln2_w : tensor<2x4x16xf32>, tensor<16xf32>
  %h2 = hetg.add %w2, %ln2_b : tensor<2x4x16xf32>, tensor<16xf32>

  %fc_w = ml_program.global_load_const @fc_w : tensor<64x16xf32>
  %fc_b = ml_program.global_load_const @fc_b : tensor<64xf32>
  %fc_wt = hetg.transpose %fc_w [1, 0] : tensor<64x16xf32>
  %fc0 = hetg.matmul %h2, %fc_wt : tensor<2x4x16xf32>, tensor<16x64xf32>
  %fc = hetg.add %fc_b, %fc0 : tensor<64xf32>, tensor<2x4x64xf32>
  %sqrt2 = hetg.constant dense<1.41421354> : tensor<f32>
  %gd = hetg.div %fc, %sqrt2 : tensor<2x4x64xf32>, tensor<f32>
  %ge = hetg.erf %gd : tensor<2x4x64xf32>
  %one = hetg.constant dense<1.0> : tensor<f32>
  %ga = hetg.add %ge, %one : tensor<2x4x64xf32>, tensor<f32>
  %gm = hetg.mul %fc, %ga : tensor<2x4x64xf32>, tensor<2x4x64xf32>
  %half = hetg.constant dense<0.5> : tensor<f32>
  %gelu = hetg.mul %gm, %half : tensor<2x4x64xf32>, tensor<f32>
  %fc2_w = ml_program.global_load_const @fc2_w : tensor<16x64xf32>
  %fc2_b = ml_program.global_load_const @fc2_b : tensor<16xf32>
  %fc2_wt = hetg.transpose %fc2_w [1, 0] : tensor<16x64xf32>
  %fc20 = hetg.matmul %gelu, %fc2_wt : tensor<2x4x64xf32>, tensor<64x16xf32>
  %fc2 = hetg.add %fc2_b, %fc20 : tensor<16xf32>, tensor<2x4x16xf32>
  %r2 = hetg.add %r1, %fc2 : tensor<2x4x16xf32>, tensor<2x4x16xf32>
  return %r2 : tensor<2x4x16xf32>
}

// -----

// Llama: RMSNorm, rotary embeddings on q and k (rotate_half with slices, neg
// and concat), k^T as a [0, 1, 3, 2] transpose of the rotated keys, a 2-D
// causal condition, SwiGLU.

ml_program.global private @norm_w(dense<1.0> : tensor<16xf32>) : tensor<16xf32>
ml_program.global private @q_w(dense<0.1> : tensor<16x16xf32>) : tensor<16x16xf32>
ml_program.global private @k_w(dense<0.1> : tensor<16x16xf32>) : tensor<16x16xf32>
ml_program.global private @v_w(dense<0.1> : tensor<16x16xf32>) : tensor<16x16xf32>
ml_program.global private @gate_w(dense<0.1> : tensor<44x16xf32>) : tensor<44x16xf32>
ml_program.global private @up_w(dense<0.1> : tensor<44x16xf32>) : tensor<44x16xf32>

// CHECK-LABEL: func.func @llama_block
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x16xf32>, %[[COS:.*]]: tensor<4x8xf32>, %[[SIN:.*]]: tensor<4x8xf32>)
// CHECK: %[[N:.*]] = hetg.rms_norm %[[X]] scale %{{.*}} : tensor<16xf32> <{epsilon = 9.99999974E-6 : f32}>
// CHECK: %[[QR:.*]] = hetg.add %{{.*}}, %{{.*}} : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>
// CHECK: %[[KR:.*]] = hetg.add %{{.*}}, %{{.*}} : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>
// CHECK: hetg.attention %[[QR]], %[[KR]], %{{.*}} <{causal, scale = 0.353553385 : f32}>
// CHECK: %[[GATE:.*]] = hetg.matmul %[[N]]
// CHECK: %[[S:.*]] = hetg.silu %[[GATE]] : tensor<2x4x44xf32>
// CHECK: %[[UP:.*]] = hetg.matmul %[[N]]
// CHECK: %[[Y:.*]] = hetg.mul %[[S]], %[[UP]]
// CHECK-NOT: hetg.sigmoid
// CHECK-NOT: hetg.softmax
// CHECK: return
func.func @llama_block(%x: tensor<2x4x16xf32>, %cos: tensor<4x8xf32>, %sin: tensor<4x8xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x44xf32>) {
  %norm_w = ml_program.global_load_const @norm_w : tensor<16xf32>
  %two = hetg.constant dense<2.0> : tensor<f32>
  %sq = hetg.pow %x, %two : tensor<2x4x16xf32>, tensor<f32>
  %ms = hetg.reduce_mean %sq <{axes = array<i64: 2>}> : tensor<2x4x16xf32>
  %eps = hetg.constant dense<1.0e-05> : tensor<f32>
  %ma = hetg.add %ms, %eps : tensor<2x4x1xf32>, tensor<f32>
  %rs = hetg.sqrt %ma : tensor<2x4x1xf32>
  %one = hetg.constant dense<1.0> : tensor<f32>
  %inv = hetg.div %one, %rs : tensor<f32>, tensor<2x4x1xf32>
  %xn = hetg.mul %x, %inv : tensor<2x4x16xf32>, tensor<2x4x1xf32>
  %h = hetg.mul %xn, %norm_w : tensor<2x4x16xf32>, tensor<16xf32>

  %q_w = ml_program.global_load_const @q_w : tensor<16x16xf32>
  %q_wt = hetg.transpose %q_w [1, 0] : tensor<16x16xf32>
  %q0 = hetg.matmul %h, %q_wt : tensor<2x4x16xf32>, tensor<16x16xf32>
  %q1 = hetg.reshape %q0 : tensor<2x4x16xf32> -> tensor<2x4x2x8xf32>
  %q = hetg.transpose %q1 [0, 2, 1, 3] : tensor<2x4x2x8xf32>
  %k_w = ml_program.global_load_const @k_w : tensor<16x16xf32>
  %k_wt = hetg.transpose %k_w [1, 0] : tensor<16x16xf32>
  %k0 = hetg.matmul %h, %k_wt : tensor<2x4x16xf32>, tensor<16x16xf32>
  %k1 = hetg.reshape %k0 : tensor<2x4x16xf32> -> tensor<2x4x2x8xf32>
  %k = hetg.transpose %k1 [0, 2, 1, 3] : tensor<2x4x2x8xf32>
  %v_w = ml_program.global_load_const @v_w : tensor<16x16xf32>
  %v_wt = hetg.transpose %v_w [1, 0] : tensor<16x16xf32>
  %v0 = hetg.matmul %h, %v_wt : tensor<2x4x16xf32>, tensor<16x16xf32>
  %v1 = hetg.reshape %v0 : tensor<2x4x16xf32> -> tensor<2x4x2x8xf32>
  %v = hetg.transpose %v1 [0, 2, 1, 3] : tensor<2x4x2x8xf32>

  %qc = hetg.mul %q, %cos : tensor<2x2x4x8xf32>, tensor<4x8xf32>
  %qa = hetg.slice %q <{starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 2, 2, 4, 4>, steps = array<i64: 1, 1, 1, 1>}> : tensor<2x2x4x8xf32>
  %qb = hetg.slice %q <{starts = array<i64: 0, 0, 0, 4>, ends = array<i64: 2, 2, 4, 8>, steps = array<i64: 1, 1, 1, 1>}> : tensor<2x2x4x8xf32>
  %qbn = hetg.neg %qb : tensor<2x2x4x4xf32>
  %qh = hetg.concat %qbn, %qa <{axis = 3 : i64}> : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>
  %qs = hetg.mul %qh, %sin : tensor<2x2x4x8xf32>, tensor<4x8xf32>
  %qr = hetg.add %qc, %qs : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>
  %kc = hetg.mul %k, %cos : tensor<2x2x4x8xf32>, tensor<4x8xf32>
  %ka = hetg.slice %k <{starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 2, 2, 4, 4>, steps = array<i64: 1, 1, 1, 1>}> : tensor<2x2x4x8xf32>
  %kb = hetg.slice %k <{starts = array<i64: 0, 0, 0, 4>, ends = array<i64: 2, 2, 4, 8>, steps = array<i64: 1, 1, 1, 1>}> : tensor<2x2x4x8xf32>
  %kbn = hetg.neg %kb : tensor<2x2x4x4xf32>
  %kh = hetg.concat %kbn, %ka <{axis = 3 : i64}> : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>
  %ks = hetg.mul %kh, %sin : tensor<2x2x4x8xf32>, tensor<4x8xf32>
  %kr = hetg.add %kc, %ks : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>

  %kt = hetg.transpose %kr [0, 1, 3, 2] : tensor<2x2x4x8xf32>
  %sc = hetg.matmul %qr, %kt : tensor<2x2x4x8xf32>, tensor<2x2x8x4xf32>
  %scale = hetg.constant dense<0.353553385> : tensor<f32>
  %scs = hetg.mul %sc, %scale : tensor<2x2x4x4xf32>, tensor<f32>
  %cond = hetg.constant dense<[[false, true, true, true], [false, false, true, true], [false, false, false, true], [false, false, false, false]]> : tensor<4x4xi1>
  %ninf = hetg.constant dense<0xFF800000> : tensor<f32>
  %masked = hetg.where %cond, %ninf, %scs : tensor<4x4xi1>, tensor<f32>, tensor<2x2x4x4xf32>
  %probs = hetg.softmax %masked <{axis = 3 : i64}> : tensor<2x2x4x4xf32>
  %heads = hetg.matmul %probs, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>
  %merged0 = hetg.transpose %heads [0, 2, 1, 3] : tensor<2x2x4x8xf32>
  %merged = hetg.reshape %merged0 : tensor<2x4x2x8xf32> -> tensor<2x4x16xf32>

  %gate_w = ml_program.global_load_const @gate_w : tensor<44x16xf32>
  %gate_wt = hetg.transpose %gate_w [1, 0] : tensor<44x16xf32>
  %gate = hetg.matmul %h, %gate_wt : tensor<2x4x16xf32>, tensor<16x44xf32>
  %sig = hetg.sigmoid %gate : tensor<2x4x44xf32>
  %act = hetg.mul %gate, %sig : tensor<2x4x44xf32>, tensor<2x4x44xf32>
  %up_w = ml_program.global_load_const @up_w : tensor<44x16xf32>
  %up_wt = hetg.transpose %up_w [1, 0] : tensor<44x16xf32>
  %up = hetg.matmul %h, %up_wt : tensor<2x4x16xf32>, tensor<16x44xf32>
  %y = hetg.mul %act, %up : tensor<2x4x44xf32>, tensor<2x4x44xf32>
  return %merged, %y : tensor<2x4x16xf32>, tensor<2x4x44xf32>
}
