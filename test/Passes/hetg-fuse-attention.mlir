// RUN: hetc-opt %s --split-input-file --hetg-fuse-attention | FileCheck %s

// GPT-2 as torch.onnx.export writes it, after hetg-specialize: k^T is one
// transpose of the [B, T, H, D] head split, the scale a mul, the causal mask
// where(tril == 0, -inf, scores) with the condition folded to a constant.

// CHECK-LABEL: func.func @gpt2_causal
// CHECK-SAME: (%[[Q:.*]]: tensor<2x2x4x8xf32>, %[[K:.*]]: tensor<2x4x2x8xf32>, %[[V:.*]]: tensor<2x2x4x8xf32>)
// CHECK: %[[KH:.*]] = hetg.transpose %[[K]] [0, 2, 1, 3] : tensor<2x4x2x8xf32>
// CHECK-NEXT: %[[O:.*]] = hetg.attention %[[Q]], %[[KH]], %[[V]] <{causal, scale = 2.500000e-01 : f32}> : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>
// CHECK-NEXT: return %[[O]]
func.func @gpt2_causal(%q: tensor<2x2x4x8xf32>, %k: tensor<2x4x2x8xf32>, %v: tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32> {
  %kt = hetg.transpose %k [0, 2, 3, 1] : tensor<2x4x2x8xf32>
  %s = hetg.matmul %q, %kt : tensor<2x2x4x8xf32>, tensor<2x2x8x4xf32>
  %c = hetg.constant dense<0.25> : tensor<f32>
  %ss = hetg.mul %s, %c : tensor<2x2x4x4xf32>, tensor<f32>
  %cond = hetg.constant dense<[[[[false, true, true, true], [false, false, true, true], [false, false, false, true], [false, false, false, false]]]]> : tensor<1x1x4x4xi1>
  %ninf = hetg.constant dense<0xFF800000> : tensor<f32>
  %w = hetg.where %cond, %ninf, %ss : tensor<1x1x4x4xi1>, tensor<f32>, tensor<2x2x4x4xf32>
  %p = hetg.softmax %w <{axis = 3 : i64}> : tensor<2x2x4x4xf32>
  %o = hetg.matmul %p, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>
  return %o : tensor<2x2x4x8xf32>
}

// -----

// Llama: k^T is a [0, 1, 3, 2] transpose of the rotated keys (so k is used
// as is), the mask condition is 2-D.

// CHECK-LABEL: func.func @llama_causal
// CHECK-SAME: (%[[Q:.*]]: tensor<2x2x4x8xf32>, %[[K:.*]]: tensor<2x2x4x8xf32>, %[[V:.*]]: tensor<2x2x4x8xf32>)
// CHECK-NEXT: %[[O:.*]] = hetg.attention %[[Q]], %[[K]], %[[V]] <{causal, scale = 0.353553385 : f32}>
// CHECK-NEXT: return %[[O]]
func.func @llama_causal(%q: tensor<2x2x4x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32> {
  %kt = hetg.transpose %k [0, 1, 3, 2] : tensor<2x2x4x8xf32>
  %s = hetg.matmul %q, %kt : tensor<2x2x4x8xf32>, tensor<2x2x8x4xf32>
  %c = hetg.constant dense<0.353553385> : tensor<f32>
  %ss = hetg.mul %s, %c : tensor<2x2x4x4xf32>, tensor<f32>
  %cond = hetg.constant dense<[[false, true, true, true], [false, false, true, true], [false, false, false, true], [false, false, false, false]]> : tensor<4x4xi1>
  %ninf = hetg.constant dense<0xFF800000> : tensor<f32>
  %w = hetg.where %cond, %ninf, %ss : tensor<4x4xi1>, tensor<f32>, tensor<2x2x4x4xf32>
  %p = hetg.softmax %w <{axis = 3 : i64}> : tensor<2x2x4x4xf32>
  %o = hetg.matmul %p, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>
  return %o : tensor<2x2x4x8xf32>
}

// -----

// BERT without an attention mask: the scale as a division; the matmul with
// transpose_rhs instead of a transpose op.

// CHECK-LABEL: func.func @bert_unmasked
// CHECK-SAME: (%[[Q:.*]]: tensor<2x2x4x8xf32>, %[[K:.*]]: tensor<2x2x4x8xf32>, %[[V:.*]]: tensor<2x2x4x8xf32>)
// CHECK-NEXT: %[[O:.*]] = hetg.attention %[[Q]], %[[K]], %[[V]] <{scale = 2.500000e-01 : f32}>
// CHECK-NEXT: return %[[O]]
func.func @bert_unmasked(%q: tensor<2x2x4x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32> {
  %s = hetg.matmul %q, %k <{transpose_rhs}> : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>
  %c = hetg.constant dense<4.0> : tensor<1x1x1x1xf32>
  %ss = hetg.div %s, %c : tensor<2x2x4x4xf32>, tensor<1x1x1x1xf32>
  %p = hetg.softmax %ss <{axis = 3 : i64}> : tensor<2x2x4x4xf32>
  %o = hetg.matmul %p, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>
  return %o : tensor<2x2x4x8xf32>
}

// -----

// An additive causal mask of -1e9 on the left of the add, a keep-mask
// where(tril, s, -1e4), and no scale at all (rank 3).

// CHECK-LABEL: func.func @additive_and_keep_masks
// CHECK-SAME: (%[[Q:.*]]: tensor<4x4x8xf32>, %[[K:.*]]: tensor<4x8x4xf32>, %[[V:.*]]: tensor<4x4x8xf32>)
// CHECK: %[[KH:.*]] = hetg.transpose %[[K]] [0, 2, 1] : tensor<4x8x4xf32>
// CHECK-NEXT: %[[O:.*]] = hetg.attention %[[Q]], %[[KH]], %[[V]] <{causal, scale = 1.000000e+00 : f32}> : tensor<4x4x8xf32>
// CHECK-NEXT: return %[[O]]
func.func @additive_and_keep_masks(%q: tensor<4x4x8xf32>, %k: tensor<4x8x4xf32>, %v: tensor<4x4x8xf32>) -> tensor<4x4x8xf32> {
  %s = hetg.matmul %q, %k : tensor<4x4x8xf32>, tensor<4x8x4xf32>
  %m = hetg.constant dense<[[0.0, -1.0e9, -1.0e9, -1.0e9], [0.0, 0.0, -1.0e9, -1.0e9], [0.0, 0.0, 0.0, -1.0e9], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %sm = hetg.add %m, %s : tensor<4x4xf32>, tensor<4x4x4xf32>
  %keep = hetg.constant dense<[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]> : tensor<4x4xi1>
  %fill = hetg.constant dense<-1.0e4> : tensor<1x1xf32>
  %w = hetg.where %keep, %sm, %fill : tensor<4x4xi1>, tensor<4x4x4xf32>, tensor<1x1xf32>
  %p = hetg.softmax %w <{axis = 2 : i64}> : tensor<4x4x4xf32>
  %o = hetg.matmul %p, %v : tensor<4x4x4xf32>, tensor<4x4x8xf32>
  return %o : tensor<4x4x8xf32>
}

// -----

// The scale on q (and half of it on k) before the matmul; the mask before
// the remaining scale, whose -inf stays -inf.

// CHECK-LABEL: func.func @scale_on_inputs
// CHECK-SAME: (%[[Q:.*]]: tensor<2x2x4x8xf32>, %[[K:.*]]: tensor<2x2x4x8xf32>, %[[V:.*]]: tensor<2x2x4x8xf32>)
// CHECK-NEXT: %[[O:.*]] = hetg.attention %[[Q]], %[[K]], %[[V]] <{causal, scale = 1.250000e-01 : f32}>
// CHECK-NEXT: return %[[O]]
func.func @scale_on_inputs(%q: tensor<2x2x4x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32> {
  %half = hetg.constant dense<0.5> : tensor<f32>
  %qs = hetg.mul %half, %q : tensor<f32>, tensor<2x2x4x8xf32>
  %ks = hetg.div %k, %half : tensor<2x2x4x8xf32>, tensor<f32>
  %kt = hetg.transpose %ks [0, 1, 3, 2] : tensor<2x2x4x8xf32>
  %quarter = hetg.constant dense<0.25> : tensor<f32>
  %kts = hetg.mul %kt, %quarter : tensor<2x2x8x4xf32>, tensor<f32>
  %s = hetg.matmul %qs, %kts : tensor<2x2x4x8xf32>, tensor<2x2x8x4xf32>
  %cond = hetg.constant dense<[[false, true, true, true], [false, false, true, true], [false, false, false, true], [false, false, false, false]]> : tensor<4x4xi1>
  %ninf = hetg.constant dense<0xFF800000> : tensor<f32>
  %w = hetg.where %cond, %ninf, %s : tensor<4x4xi1>, tensor<f32>, tensor<2x2x4x4xf32>
  %ws = hetg.mul %w, %half : tensor<2x2x4x4xf32>, tensor<f32>
  %p = hetg.softmax %ws <{axis = 3 : i64}> : tensor<2x2x4x4xf32>
  %o = hetg.matmul %p, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>
  return %o : tensor<2x2x4x8xf32>
}

// -----

// A padding mask (the last key masked for every query) is not causal: it
// becomes the mask operand, as an additive constant, scaled by the scaling
// that follows it.

// CHECK-LABEL: func.func @padding_mask
// CHECK-SAME: (%[[Q:.*]]: tensor<2x2x4x8xf32>, %[[K:.*]]: tensor<2x2x4x8xf32>, %[[V:.*]]: tensor<2x2x4x8xf32>)
// CHECK: %[[M:.*]] = hetg.constant dense<{{\[}}[0.000000e+00, 0.000000e+00, 0.000000e+00, -5.000000e+04]]> : tensor<1x4xf32>
// CHECK: %[[O:.*]] = hetg.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] : tensor<1x4xf32> <{scale = 5.000000e-01 : f32}>
// CHECK-NEXT: return %[[O]]
func.func @padding_mask(%q: tensor<2x2x4x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32> {
  %s = hetg.matmul %q, %k <{transpose_rhs}> : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>
  %m = hetg.constant dense<[[0.0, 0.0, 0.0, -1.0e5]]> : tensor<1x4xf32>
  %sm = hetg.add %s, %m : tensor<2x2x4x4xf32>, tensor<1x4xf32>
  %half = hetg.constant dense<0.5> : tensor<f32>
  %ss = hetg.mul %sm, %half : tensor<2x2x4x4xf32>, tensor<f32>
  %p = hetg.softmax %ss <{axis = 3 : i64}> : tensor<2x2x4x4xf32>
  %o = hetg.matmul %p, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>
  return %o : tensor<2x2x4x8xf32>
}

// -----

// A key-padding mask of shape [Tk] that hetg-fuse-matmul-bias folded into the
// scores matmul as its bias is still a mask; a bias computed at run time
// becomes the mask operand as it is.

// CHECK-LABEL: func.func @mask_as_scores_bias
// CHECK-SAME: (%[[Q:.*]]: tensor<2x2x4x8xf32>, %[[K:.*]]: tensor<2x2x4x8xf32>, %[[V:.*]]: tensor<2x2x4x8xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[M:.*]] = hetg.constant dense<[0.000000e+00, 0.000000e+00, -2.500000e+04, -2.500000e+04]> : tensor<4xf32>
// CHECK: %[[A:.*]] = hetg.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] : tensor<4xf32> <{scale = 2.500000e-01 : f32}>
// CHECK: %[[D:.*]] = hetg.attention %[[Q]], %[[K]], %[[V]] mask %[[B]] : tensor<4xf32> <{scale = 1.000000e+00 : f32}>
// CHECK: return %[[A]], %[[D]]
func.func @mask_as_scores_bias(%q: tensor<2x2x4x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x2x4x8xf32>, %b: tensor<4xf32>) -> (tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>) {
  %m = hetg.constant dense<[0.0, 0.0, -1.0e5, -1.0e5]> : tensor<4xf32>
  %s = hetg.matmul %q, %k bias %m : tensor<4xf32> <{transpose_rhs}> : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>
  %c = hetg.constant dense<0.25> : tensor<f32>
  %ss = hetg.mul %s, %c : tensor<2x2x4x4xf32>, tensor<f32>
  %p = hetg.softmax %ss <{axis = 3 : i64}> : tensor<2x2x4x4xf32>
  %o = hetg.matmul %p, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>
  %s2 = hetg.matmul %q, %k bias %b : tensor<4xf32> <{transpose_rhs}> : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>
  %p2 = hetg.softmax %s2 <{axis = 3 : i64}> : tensor<2x2x4x4xf32>
  %o2 = hetg.matmul %p2, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>
  return %o, %o2 : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>
}

// -----

// A triangle that also masks the diagonal is not causal.

// CHECK-LABEL: func.func @strict_triangle
// CHECK: %[[M:.*]] = hetg.constant dense<{{.*}}0xFF800000{{.*}}> : tensor<4x4xf32>
// CHECK: hetg.attention %{{.*}}, %{{.*}}, %{{.*}} mask %[[M]] : tensor<4x4xf32> <{scale = 2.500000e-01 : f32}>
// CHECK-NOT: causal
func.func @strict_triangle(%q: tensor<2x2x4x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32> {
  %s = hetg.matmul %q, %k <{transpose_rhs}> : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>
  %c = hetg.constant dense<0.25> : tensor<f32>
  %ss = hetg.mul %s, %c : tensor<2x2x4x4xf32>, tensor<f32>
  %cond = hetg.constant dense<[[true, true, true, true], [false, true, true, true], [false, false, true, true], [false, false, false, true]]> : tensor<4x4xi1>
  %ninf = hetg.constant dense<0xFF800000> : tensor<f32>
  %w = hetg.where %cond, %ninf, %ss : tensor<4x4xi1>, tensor<f32>, tensor<2x2x4x4xf32>
  %p = hetg.softmax %w <{axis = 3 : i64}> : tensor<2x2x4x4xf32>
  %o = hetg.matmul %p, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>
  return %o : tensor<2x2x4x8xf32>
}

// -----

// Fewer queries than keys: a triangle there is an explicit mask, never the
// causal flag.

// CHECK-LABEL: func.func @rectangular_mask
// CHECK: %[[M:.*]] = hetg.constant {{.*}} : tensor<2x4xf32>
// CHECK: hetg.attention %{{.*}}, %{{.*}}, %{{.*}} mask %[[M]] : tensor<2x4xf32> <{scale = 2.500000e-01 : f32}> : tensor<2x2x2x8xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>
func.func @rectangular_mask(%q: tensor<2x2x2x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x2x4x8xf32>) -> tensor<2x2x2x8xf32> {
  %s = hetg.matmul %q, %k <{transpose_rhs}> : tensor<2x2x2x8xf32>, tensor<2x2x4x8xf32>
  %c = hetg.constant dense<0.25> : tensor<f32>
  %ss = hetg.mul %s, %c : tensor<2x2x2x4xf32>, tensor<f32>
  %cond = hetg.constant dense<[[false, true, true, true], [false, false, true, true]]> : tensor<2x4xi1>
  %ninf = hetg.constant dense<0xFF800000> : tensor<f32>
  %w = hetg.where %cond, %ninf, %ss : tensor<2x4xi1>, tensor<f32>, tensor<2x2x2x4xf32>
  %p = hetg.softmax %w <{axis = 3 : i64}> : tensor<2x2x2x4xf32>
  %o = hetg.matmul %p, %v : tensor<2x2x2x4xf32>, tensor<2x2x4x8xf32>
  return %o : tensor<2x2x2x8xf32>
}

// -----

// A run-time padding mask (BERT's extended attention mask) after the scale
// goes in as the mask operand, next to the causal flag from a constant one.

// CHECK-LABEL: func.func @dynamic_mask
// CHECK-SAME: (%[[Q:.*]]: tensor<2x2x4x8xf32>, %[[K:.*]]: tensor<2x2x4x8xf32>, %[[V:.*]]: tensor<2x2x4x8xf32>, %[[M:.*]]: tensor<2x1x1x4xf32>)
// CHECK-NEXT: %[[O:.*]] = hetg.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] : tensor<2x1x1x4xf32> <{causal, scale = 2.500000e-01 : f32}>
// CHECK-NEXT: return %[[O]]
func.func @dynamic_mask(%q: tensor<2x2x4x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x2x4x8xf32>, %m: tensor<2x1x1x4xf32>) -> tensor<2x2x4x8xf32> {
  %s = hetg.matmul %q, %k <{transpose_rhs}> : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>
  %c = hetg.constant dense<0.25> : tensor<f32>
  %ss = hetg.mul %s, %c : tensor<2x2x4x4xf32>, tensor<f32>
  %cond = hetg.constant dense<[[false, true, true, true], [false, false, true, true], [false, false, false, true], [false, false, false, false]]> : tensor<4x4xi1>
  %ninf = hetg.constant dense<0xFF800000> : tensor<f32>
  %w = hetg.where %cond, %ninf, %ss : tensor<4x4xi1>, tensor<f32>, tensor<2x2x4x4xf32>
  %sm = hetg.add %m, %w : tensor<2x1x1x4xf32>, tensor<2x2x4x4xf32>
  %p = hetg.softmax %sm <{axis = 3 : i64}> : tensor<2x2x4x4xf32>
  %o = hetg.matmul %p, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>
  return %o : tensor<2x2x4x8xf32>
}

// -----

// A scaling of v scales the output, so it stays on v; transpose_rhs on the
// output matmul becomes a transpose of v.

// CHECK-LABEL: func.func @value_scaled_and_transposed
// CHECK-SAME: (%[[Q:.*]]: tensor<2x2x4x8xf32>, %[[K:.*]]: tensor<2x2x4x8xf32>, %[[V:.*]]: tensor<2x2x8x4xf32>)
// CHECK: %[[VS:.*]] = hetg.mul %[[V]], %{{.*}}
// CHECK: %[[VT:.*]] = hetg.transpose %[[VS]] [0, 1, 3, 2]
// CHECK-NEXT: hetg.attention %[[Q]], %[[K]], %[[VT]] <{scale = 1.000000e+00 : f32}>
func.func @value_scaled_and_transposed(%q: tensor<2x2x4x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x2x8x4xf32>) -> tensor<2x2x4x8xf32> {
  %s = hetg.matmul %q, %k <{transpose_rhs}> : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>
  %p = hetg.softmax %s <{axis = 3 : i64}> : tensor<2x2x4x4xf32>
  %two = hetg.constant dense<2.0> : tensor<f32>
  %vs = hetg.mul %v, %two : tensor<2x2x8x4xf32>, tensor<f32>
  %o = hetg.matmul %p, %vs <{transpose_rhs}> : tensor<2x2x4x4xf32>, tensor<2x2x8x4xf32>
  return %o : tensor<2x2x4x8xf32>
}

// -----

// Negative: softmax over another axis than the keys.

// CHECK-LABEL: func.func @softmax_wrong_axis
// CHECK-NOT: hetg.attention
// CHECK: hetg.softmax
func.func @softmax_wrong_axis(%q: tensor<2x2x4x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32> {
  %s = hetg.matmul %q, %k <{transpose_rhs}> : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>
  %p = hetg.softmax %s <{axis = 2 : i64}> : tensor<2x2x4x4xf32>
  %o = hetg.matmul %p, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>
  return %o : tensor<2x2x4x8xf32>
}

// -----

// Negative: the scores, the masked scores and the probabilities are each
// returned too (three separate heads).

// CHECK-LABEL: func.func @intermediate_escapes
// CHECK-NOT: hetg.attention
// CHECK: return
func.func @intermediate_escapes(%q: tensor<2x2x4x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x2x4x8xf32>) -> (tensor<2x2x4x8xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4x4xf32>) {
  %c = hetg.constant dense<0.25> : tensor<f32>
  %cond = hetg.constant dense<[[false, true, true, true], [false, false, true, true], [false, false, false, true], [false, false, false, false]]> : tensor<4x4xi1>
  %ninf = hetg.constant dense<0xFF800000> : tensor<f32>

  %s0 = hetg.matmul %q, %k <{transpose_rhs}> : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>
  %ss0 = hetg.mul %s0, %c : tensor<2x2x4x4xf32>, tensor<f32>
  %p0 = hetg.softmax %ss0 <{axis = 3 : i64}> : tensor<2x2x4x4xf32>
  %o0 = hetg.matmul %p0, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>

  %s1 = hetg.matmul %q, %k <{transpose_rhs}> : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>
  %ss1 = hetg.mul %s1, %c : tensor<2x2x4x4xf32>, tensor<f32>
  %w1 = hetg.where %cond, %ninf, %ss1 : tensor<4x4xi1>, tensor<f32>, tensor<2x2x4x4xf32>
  %p1 = hetg.softmax %w1 <{axis = 3 : i64}> : tensor<2x2x4x4xf32>
  %o1 = hetg.matmul %p1, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>

  %s2 = hetg.matmul %q, %k <{transpose_rhs}> : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>
  %p2 = hetg.softmax %s2 <{axis = 3 : i64}> : tensor<2x2x4x4xf32>
  %o2 = hetg.matmul %p2, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>
  return %o0, %s0, %o1, %w1, %o2, %p2 : tensor<2x2x4x8xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4x4xf32>
}

// -----

// Negative: a where whose fill is not large and negative is not a mask, nor
// is one with a condition computed at run time.

// CHECK-LABEL: func.func @where_not_a_mask
// CHECK-NOT: hetg.attention
// CHECK: return
func.func @where_not_a_mask(%q: tensor<2x2x4x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x2x4x8xf32>, %dyn: tensor<4x4xi1>) -> (tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>) {
  %cond = hetg.constant dense<[[false, true, true, true], [false, false, true, true], [false, false, false, true], [false, false, false, false]]> : tensor<4x4xi1>
  %small = hetg.constant dense<-100.0> : tensor<f32>
  %ninf = hetg.constant dense<0xFF800000> : tensor<f32>

  %s0 = hetg.matmul %q, %k <{transpose_rhs}> : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>
  %w0 = hetg.where %cond, %small, %s0 : tensor<4x4xi1>, tensor<f32>, tensor<2x2x4x4xf32>
  %p0 = hetg.softmax %w0 <{axis = 3 : i64}> : tensor<2x2x4x4xf32>
  %o0 = hetg.matmul %p0, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>

  %s1 = hetg.matmul %q, %k <{transpose_rhs}> : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>
  %w1 = hetg.where %dyn, %ninf, %s1 : tensor<4x4xi1>, tensor<f32>, tensor<2x2x4x4xf32>
  %p1 = hetg.softmax %w1 <{axis = 3 : i64}> : tensor<2x2x4x4xf32>
  %o1 = hetg.matmul %p1, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>
  return %o0, %o1 : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>
}

// -----

// Negative: keys shared across the batch broadcast in the matmul; the op
// needs equal leading dimensions.

// CHECK-LABEL: func.func @broadcast_keys
// CHECK-NOT: hetg.attention
// CHECK: hetg.softmax
func.func @broadcast_keys(%q: tensor<2x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32> {
  %s = hetg.matmul %q, %k <{transpose_rhs}> : tensor<2x2x4x8xf32>, tensor<1x2x4x8xf32>
  %p = hetg.softmax %s <{axis = 3 : i64}> : tensor<2x2x4x4xf32>
  %o = hetg.matmul %p, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>
  return %o : tensor<2x2x4x8xf32>
}
